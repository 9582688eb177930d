"""Context items: scores from recency and access, rescoring, pruning to the budget, search."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import pytest

from contextbase.embed.fake import FakeEmbedder
from contextbase.errors import ConfigError
from contextbase.project.context import ContextItems, compute_score
from contextbase.project.service import ProjectService
from contextbase.project.sessions import open_database
from contextbase.project.settings import ProjectSettings, load_project_settings
from tests.project.conftest import FakeClock

HOUR_MS = 3_600_000


@pytest.fixture
def items(tmp_path: Path, clock: FakeClock) -> ContextItems:
    db = open_database(tmp_path / "sessions.db")
    settings = ProjectSettings(max_tokens=1_000)
    return ContextItems(db, settings, embedder=FakeEmbedder(), clock=clock)


def test_score_formula() -> None:
    settings = ProjectSettings()
    fresh, recency, access = compute_score(0, 0, settings)
    assert (fresh, recency, access) == (0.6, 1.0, 0.0)
    _, recency, _ = compute_score(24 * HOUR_MS, 0, settings)
    assert recency == pytest.approx(0.5)  # one half-life
    _, _, access = compute_score(0, 5, settings)
    assert access == pytest.approx(1 - math.exp(-1))
    many, _, access = compute_score(0, 1_000, settings)
    assert access == pytest.approx(1.0) and many == pytest.approx(1.0)  # saturates at 1
    old, _, _ = compute_score(10_000 * HOUR_MS, 0, settings)
    assert 0.0 <= old < 1e-6


def test_access_and_time_move_scores(items: ContextItems, clock: FakeClock) -> None:
    used = items.upsert("file:a.py", "file", "a" * 40, {}, access=True)
    idle = items.upsert("file:b.py", "file", "b" * 40, {})
    assert used.score > idle.score
    for _ in range(4):
        used = items.touch("file:a.py")  # type: ignore[assignment]
    assert used.access_count == 5
    clock.advance(hours=48)
    assert items.rescore() == 2
    a, b = items.get("file:a.py"), items.get("file:b.py")
    assert a is not None and b is not None
    assert b.recency_factor == pytest.approx(0.25)
    assert b.score == pytest.approx(0.6 * 0.25)
    assert a.score == pytest.approx(0.6 * 0.25 + 0.4 * (1 - math.exp(-1)))


def test_pruning_thresholds(items: ContextItems, clock: FakeClock) -> None:
    # 10 items of 100 tokens in a 1,000-token budget; item i is i hours old.
    for i in range(10):
        items.upsert(f"file:f{i}.py", "file", "x" * 400, {"n": i})
        clock.advance(hours=1)
    # 8 items = 800 tokens = exactly 80 %: no pruning yet.
    for i in (8, 9):
        items.db.execute(
            "UPDATE context_items SET status = 'archived' WHERE key = ?", (f"file:f{i}.py",)
        )
    items.rescore()
    assert items.prune().archived == 0
    items.upsert("file:f8.py", "file", "x" * 400, {}, access=True)  # reactivated: 900 > 800
    items.rescore()
    result = items.prune()
    assert (result.tokens_before, result.tokens_after) == (900, 600)  # down to ≤ 64 %
    assert result.archived_keys == ["file:f0.py", "file:f1.py", "file:f2.py"]  # the oldest
    assert items.active_tokens() == 600
    archived = items.get("file:f0.py")
    assert archived is not None and archived.status == "archived"
    hits = items.search("x" * 400, 20)  # archived items stay searchable
    assert "file:f0.py" in {item.key for item, _ in hits}
    assert items.db.scalar("SELECT count(*) FROM context_items") == 10  # nothing deleted


def test_best_fits_the_budget_by_score(items: ContextItems, clock: FakeClock) -> None:
    items.upsert("module:a", "module", "a " * 200, {})  # 100 tokens
    clock.advance(hours=1)
    items.upsert("module:b", "module", "b " * 200, {}, access=True)
    items.upsert("module:c", "module", "c " * 400, {})  # 200 tokens
    items.rescore()
    assert [i.key for i in items.best(150)] == ["module:b"]
    assert [i.key for i in items.best(1_000)] == ["module:b", "module:c", "module:a"]


def test_settings_come_from_the_project_and_are_checked(tmp_path: Path) -> None:
    (tmp_path / ".context").mkdir()
    (tmp_path / ".context" / "config.yaml").write_text("maxTokens: 20000\npruneTarget: 0.5\n")
    settings = load_project_settings(tmp_path, session_timeout_minutes=10)
    assert (settings.max_tokens, settings.prune_target, settings.session_timeout_minutes) == (
        20_000,
        0.5,
        10,
    )
    assert settings.scorer_interval_seconds == 300 and settings.prune_threshold == 0.8
    (tmp_path / ".context" / "config.yaml").write_text("pruneThreshold: 2\n")
    with pytest.raises(ConfigError, match="pruneThreshold"):
        load_project_settings(tmp_path)


def test_upkeep_prunes_on_use(
    shop: Path, make_service: Callable[..., ProjectService], clock: FakeClock
) -> None:
    service = make_service(shop, settings=ProjectSettings(max_tokens=1_000))
    for i in range(12):
        service.save_discovery("pattern", f"Pattern number {i} " + "detail " * 40)
        clock.advance(seconds=10)
    assert service.items.active_tokens() > 800  # the scorer interval has not passed yet
    clock.advance(minutes=5)  # the scorer interval
    service.get_project_context()
    assert service.items.active_tokens() <= 640
    assert service.stats()["items"]["archived"] > 0
