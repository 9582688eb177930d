"""The memory feature: save, merge, search, filters, export/import, bad input."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from contextbase.embed import get_embedder
from contextbase.errors import InvalidInputError, NotFoundError
from contextbase.memory import SearchFilters, SolutionMemory
from contextbase.memory.models import MAX_ERROR_CHARS
from contextbase.store.db import Database
from tests.memory.conftest import POSTGRES_DOWN

PATHS_A = (
    'Traceback (most recent call last):\n  File "/home/alice/shop/orders.py", line 41, in total\n'
    "    price = item['price']\nKeyError: 'price'"
)
PATHS_B = (
    'Traceback (most recent call last):\n  File "/srv/api/app/billing.py", line 977, in load\n'
    "    rate = row['tax_rate']\nKeyError: 'tax_rate'"
)


def _fill(memory: SolutionMemory) -> dict[str, str]:
    """A small realistic memory; returns ids by name."""
    ids = {}
    ids["postgres"] = memory.save(POSTGRES_DOWN).solution.id
    ids["reset"] = memory.save(
        {
            "errorMessage": "Error: read ECONNRESET\n    at TLSWrap.onStreamRead (node:internal)",
            "rootCause": "The remote server closed the connection to the database.",
            "solution": "Retry the request with backoff; the connection to the server was reset.",
            "errorType": "network",
            "tags": ["node"],
        }
    ).solution.id
    ids["keyerror"] = memory.save(
        {
            "errorMessage": PATHS_A,
            "rootCause": "The dict has no such key.",
            "solution": "Use dict.get(key, default) or check membership first.",
            "errorType": "runtime",
            "tags": ["python"],
            "labels": ["beginner"],
        }
    ).solution.id
    ids["ts"] = memory.save(
        {
            "errorMessage": "src/list.ts(3,7): error TS2339: Property 'map' does not exist on "
            "type 'string'.",
            "rootCause": "The variable was typed as string instead of an array.",
            "solution": "Change the annotation from string to string[].",
            "errorType": "compile",
            "tags": ["typescript"],
            "environment": {"typescript": "5.3.3"},
        }
    ).solution.id
    ids["numpy"] = memory.save(
        {
            "errorMessage": "ModuleNotFoundError: No module named 'numpy'",
            "solution": "Install it in the active virtualenv: pip install numpy",
            "errorType": "dependency",
            "tags": ["python"],
            "environment": {"python": "3.11.4"},
        }
    ).solution.id
    return ids


def _ids(memory: SolutionMemory, query: str, **options: object) -> list[str]:
    return [h.solution.id for h in memory.search(query, **options).hits]  # type: ignore[arg-type]


def test_save_returns_the_stored_solution(memory: SolutionMemory) -> None:
    result = memory.save(POSTGRES_DOWN)
    s = result.solution
    assert result.created and result.redacted == {}
    assert s.title.startswith("Error: connect ECONNREFUSED")
    assert s.error_type == "network" and s.tags == ["node", "postgres"]
    assert s.environment == {"node": "20.10.0", "postgres": "14.9"}
    assert s.error_codes == ["errno:ECONNREFUSED"]
    assert memory.get(s.id).root_cause == POSTGRES_DOWN["rootCause"]
    assert memory.count() == 1


def test_secrets_are_redacted_before_storing(memory: SolutionMemory) -> None:
    result = memory.save(
        {
            "errorMessage": "openai.AuthenticationError: Incorrect API key provided: "
            "sk-proj-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Jj1 at /home/tester/bot/main.py",
            "solution": "export OPENAI_API_KEY=sk-proj-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Jj1 then rerun",
            "context": "DATABASE_URL=postgres://app:Pa55word@localhost/app",
            "environment": {"cwd": "/home/tester/bot"},
        }
    )
    assert result.redacted == {"openai_api_key": 2, "home_path": 2, "url_password": 1}
    stored = memory.get(result.solution.id)
    dump = json.dumps(stored.to_dict())
    assert "Zx9Yw8" not in dump and "Pa55word" not in dump and "/home/tester" not in dump
    assert stored.environment == {"cwd": "~/bot"}
    assert "AuthenticationError" in stored.title


def test_near_duplicate_updates_instead_of_copying(memory: SolutionMemory) -> None:
    first = memory.save(POSTGRES_DOWN).solution
    again = memory.save(
        {
            **POSTGRES_DOWN,
            "errorMessage": "Error: connect ECONNREFUSED 10.1.2.3:6543\n"
            "    at TCPConnectWrap.afterConnect [as oncomplete] (node:net:1300:9)",
            "solution": "Start PostgreSQL (brew services start postgresql@14), then retry.",
            "tags": ["database"],
            "rootCause": "",
        }
    )
    assert not again.created
    merged = again.solution
    assert merged.id == first.id and merged.save_count == 2
    assert merged.tags == ["node", "postgres", "database"]
    assert merged.root_cause == POSTGRES_DOWN["rootCause"]
    assert merged.created_at == first.created_at
    assert memory.count() == 1

    other_fix = memory.save({**POSTGRES_DOWN, "solution": "Open port 5432 in the firewall."})
    assert other_fix.created and memory.count() == 2


def test_same_error_with_other_paths_and_lines_is_found_first(memory: SolutionMemory) -> None:
    ids = _fill(memory)
    for mode in ("hybrid", "sparse", "semantic"):
        assert _ids(memory, PATHS_B, mode=mode)[0] == ids["keyerror"], mode


def test_exact_error_code_beats_paraphrase(memory: SolutionMemory) -> None:
    ids = _fill(memory)
    # Worded like the ECONNRESET solution, but the code is ECONNREFUSED.
    query = "connect ECONNREFUSED: the connection to the database server was reset, retry"
    for mode in ("hybrid", "sparse", "semantic"):
        hits = memory.search(query, mode=mode, min_score=0.0).hits
        order = [h.solution.id for h in hits]
        assert order[0] == ids["postgres"], mode
        reset = next(h for h in hits if h.solution.id == ids["reset"])
        assert reset.code_match == "conflict" and reset.score < hits[0].score
        assert hits[0].code_match == "match" and hits[0].score >= 0.5


def test_scores_are_absolute_and_min_score_filters(memory: SolutionMemory) -> None:
    _fill(memory)
    assert memory.search("banana bread recipe with walnuts", mode="sparse").hits == []
    everything = memory.search("python", min_score=0.0, limit=20).hits
    assert all(0.0 <= h.score <= 1.0 for h in everything)
    strict = memory.search("python", min_score=0.99).hits
    assert len(strict) < len(everything)


def test_filters(memory: SolutionMemory) -> None:
    ids = _fill(memory)
    query = "error"
    by_type = _ids(memory, query, min_score=0.0, filters=SearchFilters(error_type="compile"))
    assert by_type == [ids["ts"]]
    by_tag = set(_ids(memory, query, min_score=0.0, filters=SearchFilters(tags=("python",))))
    assert by_tag <= {ids["keyerror"], ids["numpy"]}
    by_label = _ids(memory, "KeyError", min_score=0.0, filters=SearchFilters(labels=("beginner",)))
    assert by_label == [ids["keyerror"]]
    none = _ids(memory, query, min_score=0.0, filters=SearchFilters(tags=("rust",)))
    assert none == []


def test_environment_match_ranks_higher(memory: SolutionMemory) -> None:
    base = {
        "errorMessage": "ImportError: cannot import name 'soft_unicode' from 'markupsafe'",
        "errorType": "dependency",
    }
    old = memory.save(
        {
            **base,
            "solution": "Pin markupsafe==2.0.1 for Jinja2 2.x projects.",
            "environment": {"jinja2": "2.11", "python": "3.8"},
        }
    ).solution
    new = memory.save(
        {
            **base,
            "solution": "Upgrade Jinja2 to 3.x which no longer imports it.",
            "environment": {"jinja2": "3.1.2", "python": "3.12"},
        }
    ).solution
    query = base["errorMessage"]
    for env, first in (
        ({"jinja2": "2.11.3"}, old.id),
        ({"Jinja2": "3.1", "python": "3.12"}, new.id),
    ):
        hits = memory.search(query, environment=env).hits
        assert hits[0].solution.id == first
        assert hits[0].environment_match == 1.0
    as_json = memory.search(query, environment='{"jinja2": "2.11"}').hits
    assert as_json[0].solution.id == old.id


def test_get_batch_delete_recent(memory: SolutionMemory) -> None:
    ids = _fill(memory)
    found, missing = memory.batch_get(
        [ids["ts"], ids["numpy"], "6f1c1d9e-1111-4222-8333-944445555666"]
    )
    assert [s.id for s in found] == [ids["ts"], ids["numpy"]]
    assert missing == ["6f1c1d9e-1111-4222-8333-944445555666"]
    assert memory.get(ids["ts"]).hit_count == 2
    assert memory.recent(2)[0].id == ids["numpy"]
    removed = memory.delete(ids["ts"])
    assert removed.id == ids["ts"] and memory.count() == 4
    assert ids["ts"] not in _ids(memory, "TS2339 Property does not exist", min_score=0.0)
    with pytest.raises(NotFoundError, match="No solution has the id"):
        memory.get(ids["ts"])
    with pytest.raises(NotFoundError):
        memory.delete(ids["ts"])


def test_export_import_round_trip_is_idempotent(memory: SolutionMemory, tmp_path: Path) -> None:
    ids = _fill(memory)
    memory.get(ids["ts"])
    out = io.StringIO()
    assert memory.export_jsonl(out) == 5
    lines = out.getvalue().splitlines()
    assert len(lines) == 5 and all(json.loads(line)["id"] for line in lines)

    other_db = Database(tmp_path / "other.db")
    other = SolutionMemory(other_db, get_embedder("fake"))
    report = other.import_jsonl(lines)
    assert (report.added, report.updated, report.unchanged) == (5, 0, 0)
    again = other.import_jsonl(lines)
    assert (again.added, again.updated, again.unchanged) == (0, 0, 5)
    assert other.count() == 5
    for sid in ids.values():
        assert (
            other.get(sid, count_hit=False).to_dict() == memory.get(sid, count_hit=False).to_dict()
        )
    assert _ids(other, PATHS_B)[0] == ids["keyerror"]

    newer = json.loads(lines[0])
    newer["solution"] = "An edited fix."
    newer["updatedAt"] = "2999-01-01T00:00:00+00:00"
    report = other.import_jsonl([json.dumps(newer).encode()])
    assert report.updated == 1
    assert other.get(newer["id"]).solution == "An edited fix."
    other_db.close()


def test_import_rejects_a_bad_file_without_writing(memory: SolutionMemory) -> None:
    good = json.dumps(
        {"id": "6f1c1d9e-1111-4222-8333-944445555666", "errorMessage": "E", "solution": "S"}
    )
    with pytest.raises(InvalidInputError, match="Line 2"):
        memory.import_jsonl([good, '{"id": "not-a-uuid", "errorMessage": "x", "solution": "y"}'])
    with pytest.raises(InvalidInputError, match="Line 1"):
        memory.import_jsonl(["{not json"])
    with pytest.raises(InvalidInputError, match="Line 2 of the import is not valid UTF-8"):
        memory.import_jsonl([good.encode(), b'{"errorMessage": "caf\xe9"}'])
    assert memory.count() == 0


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"errorMessage": "", "solution": "x"}, "errorMessage is empty"),
        ({"errorMessage": "   \n", "solution": "x"}, "errorMessage is empty"),
        ({"errorMessage": "boom", "solution": ""}, "solution is empty"),
        ({"errorMessage": "x" * (1024 * 1024), "solution": "y"}, "the limit is 32,000"),
        ({"errorMessage": b"caf\xe9 \xff", "solution": "y"}, "not valid UTF-8"),
        ({"errorMessage": "bad \udcff surrogate", "solution": "y"}, "not valid UTF-8"),
        ({"errorMessage": "x", "solution": "y", "errorType": "fatal"}, "errorType 'fatal'"),
        ({"errorMessage": "x", "solution": "y", "environment": "{oops"}, "not valid JSON"),
        ({"errorMessage": "x", "solution": "y", "tags": 5}, "tags must be a list"),
    ],
)
def test_bad_save_input_is_refused_clearly(
    memory: SolutionMemory, fields: dict[str, object], message: str
) -> None:
    with pytest.raises(InvalidInputError, match=message):
        memory.save(fields)
    assert memory.count() == 0


def test_message_at_the_limit_is_accepted(memory: SolutionMemory) -> None:
    text = ("ValueError: bad value " * 2000)[:MAX_ERROR_CHARS]
    assert memory.save({"errorMessage": text, "solution": "fix"}).created


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda m: m.search(""), "query is empty"),
        (lambda m: m.search("x", limit=0), "limit must be a whole number from 1 to 20"),
        (lambda m: m.search("x", limit=21), "from 1 to 20"),
        (lambda m: m.search("x", limit="many"), "from 1 to 20"),
        (lambda m: m.search("x", min_score=1.5), "minScore must be a number from 0 to 1"),
        (lambda m: m.search("x", mode="fuzzy"), "mode 'fuzzy' is not one of"),
        (lambda m: m.search(b"\xff\xfe"), "not valid UTF-8"),
        (lambda m: m.search("x" * (MAX_ERROR_CHARS + 1)), "the limit is 32,000"),
        (lambda m: m.get("42"), "is not a solution id"),
        (lambda m: m.batch_get([]), "ask for 1 to 10"),
        (lambda m: m.batch_get(["6f1c1d9e-1111-4222-8333-944445555666"] * 11), "ask for 1 to 10"),
        (lambda m: m.batch_get("6f1c1d9e-1111-4222-8333-944445555666"), "must be a list"),
        (lambda m: m.delete("../../etc"), "is not a solution id"),
    ],
)
def test_bad_read_input_is_refused_clearly(memory: SolutionMemory, call, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InvalidInputError, match=message):
        call(memory)


def test_unknown_id_is_not_found(memory: SolutionMemory) -> None:
    with pytest.raises(NotFoundError, match="6f1c1d9e-1111-4222-8333-944445555666"):
        memory.get("6F1C1D9E-1111-4222-8333-944445555666")


def test_keyword_only_memory_and_reindex(db_path: Path) -> None:
    db = Database(db_path)
    keyword_only = SolutionMemory(db, None)
    sid = keyword_only.save(POSTGRES_DOWN).solution.id
    result = keyword_only.search("ECONNREFUSED")
    assert result.mode == "sparse" and result.hits[0].solution.id == sid
    with pytest.raises(InvalidInputError, match="keyword-only"):
        keyword_only.search("x", mode="semantic")

    with_model = SolutionMemory(db, get_embedder("fake"))
    assert with_model.search("postgres not running", mode="semantic").hits == []
    assert with_model.reindex() == 1
    assert with_model.reindex() == 0
    hits = with_model.search("connect ECONNREFUSED postgres", mode="semantic").hits
    assert hits[0].solution.id == sid
    db.close()
