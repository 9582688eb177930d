"""The sessions database: the seed's schema and constraints, and session states over time."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import apsw
import pytest

from contextbase.project.service import ProjectService
from contextbase.project.sessions import SessionStore, open_database
from tests.project.conftest import START, FakeClock


@pytest.fixture
def store(tmp_path: Path, clock: FakeClock) -> SessionStore:
    db = open_database(tmp_path / ".context" / "sessions.db")
    return SessionStore(db, "/work/p", clock=clock)


def test_schema_has_the_seed_tables_indexes_and_wal(store: SessionStore) -> None:
    db = store.db
    for table in ("sessions", "discoveries", "context_items", "schema_version"):
        assert db.table_exists(table)
    indexes = {r["name"] for r in db.query("SELECT name FROM sqlite_master WHERE type='index'")}
    assert {
        "idx_sessions_project",
        "idx_sessions_status",
        "idx_sessions_started",
        "idx_discoveries_session",
        "idx_discoveries_type",
        "idx_discoveries_module",
        "idx_discoveries_created",
        "idx_context_items_type",
        "idx_context_items_status",
        "idx_context_items_score",
        "idx_context_items_last_accessed",
    } <= indexes
    assert db.scalar("PRAGMA journal_mode") == "wal"
    assert db.scalar("SELECT version FROM schema_version WHERE component = 'project'") == 1
    again = open_database(db.path)  # migrating twice is a no-op
    assert again.scalar("SELECT count(*) FROM sessions") == 0


def test_check_constraints_and_cascade(store: SessionStore) -> None:
    db = store.db
    session = store.start()
    with pytest.raises(apsw.ConstraintError):
        db.execute(
            "INSERT INTO sessions(id, project_id, started_at, status)"
            " VALUES ('x', 'p', 1, 'paused')"
        )
    with pytest.raises(apsw.ConstraintError):
        db.execute("UPDATE sessions SET topics = '{}' WHERE id = ?", (session.id,))
    with pytest.raises(apsw.ConstraintError):
        db.execute(
            "INSERT INTO discoveries(id, session_id, type, content) VALUES ('d', ?, 'idea', ?)",
            (session.id, "long enough content"),
        )
    with pytest.raises(apsw.ConstraintError):
        db.execute(
            "INSERT INTO discoveries(id, session_id, type, content)"
            " VALUES ('d', ?, 'rule', 'short')",
            (session.id,),
        )
    with pytest.raises(apsw.ConstraintError):  # the session must exist
        db.execute(
            "INSERT INTO discoveries(id, session_id, type, content)"
            " VALUES ('d', 'nope', 'rule', ?)",
            ("long enough content",),
        )
    with pytest.raises(apsw.ConstraintError):
        db.execute(
            "INSERT INTO context_items(id, seq, key, type, content, last_accessed_at, status,"
            " score) VALUES ('i', 1, 'k', 'file', 'c', 1, 'active', 1.5)"
        )
    db.execute(
        "INSERT INTO discoveries(id, session_id, type, content) VALUES ('d', ?, 'rule', ?)",
        (session.id, "Always run the migrations first"),
    )
    db.execute("DELETE FROM sessions WHERE id = ?", (session.id,))
    assert db.scalar("SELECT count(*) FROM discoveries") == 0  # ON DELETE CASCADE


def test_states_follow_the_clock(store: SessionStore, clock: FakeClock) -> None:
    session = store.start()
    assert session.status == "active" and session.started_at == START * 1000
    clock.advance(minutes=10)
    store.record(session.id, tool="get-file-context", files=["a.py"], topic="auth")
    clock.advance(minutes=5)
    store.record(session.id, tool="get-file-context", files=["a.py", "b.py"])
    current = store.get(session.id)
    assert current is not None
    access = {f.path: f for f in current.files_accessed}
    assert access["a.py"].access_count == 2
    assert access["a.py"].first_accessed_at == (START + 600) * 1000
    assert access["a.py"].last_accessed_at == (START + 900) * 1000
    assert access["b.py"].access_count == 1
    assert current.topics == ["auth"]
    assert current.metadata["toolCallsCount"] == 2

    clock.advance(minutes=29)
    assert store.sweep() == []  # 29 idle minutes: still active
    clock.advance(minutes=2)
    assert store.sweep() == [session.id]
    done = store.get(session.id)
    assert done is not None and done.status == "completed"
    assert done.ended_at == (START + 900) * 1000  # when it was last active
    assert done.metadata["endReason"] == "inactivity"
    assert done.metadata["duration"] == 900_000

    clock.advance(days=6)
    store.sweep()
    assert store.get(session.id).status == "completed"  # type: ignore[union-attr]
    clock.advance(days=1)
    store.sweep()
    assert store.get(session.id).status == "archived"  # type: ignore[union-attr]
    assert store.counts() == {"active": 0, "completed": 0, "archived": 1}


def test_a_session_never_goes_back(store: SessionStore) -> None:
    session = store.start()
    ended = store.end(session.id, summary="done")
    assert ended.status == "completed" and ended.metadata["summary"] == "done"
    with pytest.raises(apsw.ConstraintError, match="earlier state"):
        store.db.execute("UPDATE sessions SET status = 'active' WHERE id = ?", (session.id,))
    store.record(session.id, tool="late", files=["x.py"])  # ignored: not active any more
    assert store.get(session.id).files_accessed == []  # type: ignore[union-attr]


def test_service_renews_an_idle_session_and_completes_on_close(
    shop: Path, make_service: Callable[..., ProjectService], clock: FakeClock
) -> None:
    service = make_service(shop)
    service.get_file_context("src/shop/main.py")
    first = service.list_sessions()[0]
    assert first.status == "active"
    assert first.to_dict()["filesAccessed"][0]["path"] == "src/shop/main.py"

    clock.advance(minutes=31)
    service.get_project_context()
    sessions = service.list_sessions()
    assert [s.status for s in sessions] == ["active", "completed"]
    assert sessions[1].id == first.id and sessions[1].metadata["endReason"] == "inactivity"

    service.close()
    reopened = ProjectService(shop, clock=clock)
    last = reopened.list_sessions()[0]
    assert last.status == "completed" and last.metadata["endReason"] == "disconnect"
    reopened.close()
