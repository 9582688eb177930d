"""The feature object the tools and the CLI call: context, file context, search, read-only use."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from contextbase.errors import InvalidInputError, NotFoundError
from contextbase.project.service import ProjectService
from contextbase.tokens import estimate_tokens
from tests.project.conftest import FakeClock, write_tree


def test_first_use_writes_the_profile_and_context_fits_the_budget(
    shop: Path, make_service: Callable[..., ProjectService]
) -> None:
    service = make_service(shop)
    assert not service.profile_file.exists()
    view = service.get_project_context(tokens=400)
    assert service.profile_file.exists() and service.db_file.exists()
    assert view.text.startswith("# Project shop (api)")
    assert "Stack: FastAPI 0.110, SQLAlchemy 2." in view.text
    assert "**services** (`src/shop/services`): Business logic. Depends on: models." in view.text
    assert view.tokens <= 400 and estimate_tokens(view.text) == view.tokens
    assert {item.type for item, _ in view.items} == {"module"}

    large = service.get_project_context(tokens=20_000)
    assert len(large.items) == 4  # every module fits


def test_context_with_a_query_ranks_matching_discoveries_first(
    shop: Path, make_service: Callable[..., ProjectService]
) -> None:
    service = make_service(shop)
    service.save_discovery("decision", "Chose Postgres advisory locks for order numbering")
    service.save_discovery("rule", "Refunds above 500 EUR need a second approval")
    view = service.get_project_context("refunds approval")
    assert "## Matches for “refunds approval”" in view.text
    first, _ = view.items[0]
    assert first.content == "Refunds above 500 EUR need a second approval"
    assert service.get_project_context("   ").query is None  # blank means no query
    with pytest.raises(InvalidInputError, match="at most 2000"):
        service.get_project_context("x" * 2001)


def test_file_context_records_the_access(
    shop: Path, make_service: Callable[..., ProjectService], clock: FakeClock
) -> None:
    service = make_service(shop)
    service.save_discovery(
        "issue", "Order totals break when a coupon is applied twice, fixed by a unique index"
    )
    first = service.get_file_context("src/shop/models/order.py")
    assert (first.module, first.role, first.access_count) == ("models", "core", 1)
    assert first.dependents == ["services"]
    clock.advance(minutes=1)
    again = service.get_file_context(str(shop / "src/shop/models/order.py"))  # absolute works
    assert again.access_count == 2
    routes = service.get_file_context("src/shop/routes/orders.py")
    assert routes.dependencies == ["services"]
    text = service.get_file_context("src/shop/services/orders.py").to_text()
    assert "Module: services. Role: core." in text
    session = service.list_sessions()[0]
    counts = {f.path: f.access_count for f in session.files_accessed}
    assert counts["src/shop/models/order.py"] == 2
    item = service.items.get("file:src/shop/models/order.py")
    assert item is not None and item.access_count == 2 and item.metadata["module"] == "models"
    module_item = service.items.get("module:models")
    assert module_item is not None and module_item.access_count == 2


def test_file_context_rejects_bad_paths(
    shop: Path, make_service: Callable[..., ProjectService]
) -> None:
    service = make_service(shop)
    with pytest.raises(InvalidInputError, match="outside the project"):
        service.get_file_context("../etc/passwd")
    with pytest.raises(InvalidInputError, match="outside the project"):
        service.get_file_context("/etc/passwd")
    with pytest.raises(NotFoundError, match="neither a file"):
        service.get_file_context("src/shop/nothing.py")
    with pytest.raises(InvalidInputError):
        service.get_file_context("")


def test_search_limits_and_archived_items(
    shop: Path, make_service: Callable[..., ProjectService]
) -> None:
    service = make_service(shop)
    with pytest.raises(InvalidInputError, match="between 1 and 100"):
        service.search_project_memory("orders", 0)
    with pytest.raises(InvalidInputError, match="must not be empty"):
        service.search_project_memory("  ")
    saved = service.save_discovery("pattern", "Money is stored as integer cents everywhere")
    service.db.execute("UPDATE context_items SET status = 'archived'")
    hits = service.search_project_memory("integer cents money")
    assert hits[0].item.metadata["discoveryId"] == saved.id
    assert hits[0].to_dict()["status"] == "archived" and hits[0].to_dict()["type"] == "pattern"


def test_a_folder_that_is_not_a_project_is_not_written(
    tmp_path: Path, make_service: Callable[..., ProjectService]
) -> None:
    folder = write_tree(tmp_path / "downloads", {"notes.txt": "hello\n"})
    service = make_service(folder)
    assert service.profile().project.name == "downloads"  # scanned in memory only
    with pytest.raises(InvalidInputError, match="does not look like a project"):
        service.save_discovery("rule", "Always keep the downloads tidy")
    assert not (folder / ".context").exists()
    service.scan()  # an explicit init may go anywhere
    assert (folder / ".context" / "project.yaml").exists()


def test_read_only_memory_answers_without_writing(
    shop: Path, make_service: Callable[..., ProjectService]
) -> None:
    writer = make_service(shop)
    writer.save_discovery("rule", "Never expose internal order ids")
    writer.close()
    before = writer.db_file.stat().st_mtime_ns
    reader = make_service(shop, read_only=True)
    assert reader.search_project_memory("internal order ids")[0].item.type == "discovery"
    assert reader.get_file_context("src/shop/main.py").access_count == 0
    assert reader.list_sessions()[0].status == "completed"
    with pytest.raises(InvalidInputError, match="read-only"):
        reader.save_discovery("rule", "Always add something")
    assert writer.db_file.stat().st_mtime_ns == before
    empty = make_service(
        write_tree(shop.parent / "fresh", {"go.mod": "module x\n"}), read_only=True
    )
    assert empty.get_project_context().items == [] and empty.list_sessions() == []
    assert not (shop.parent / "fresh" / ".context").exists()


def test_export_holds_everything(shop: Path, make_service: Callable[..., ProjectService]) -> None:
    service = make_service(shop)
    service.save_discovery("decision", "Chose cursor pagination for every list endpoint")
    service.end_session("Always paginate list endpoints.")
    data = service.export()
    assert data["profile"]["project"]["name"] == "shop"
    assert data["sessions"][0]["status"] == "completed"
    assert {d["type"] for d in data["discoveries"]} == {"decision", "rule"}
    assert {i["type"] for i in data["contextItems"]} == {"module", "discovery", "session"}
    assert data["contextItems"][0]["scoring"]["score"] <= 1
