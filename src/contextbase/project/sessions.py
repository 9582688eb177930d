"""The sessions database ``.context/sessions.db`` and coding sessions.

The schema is the Context Tool MVP's (``sessions``, ``discoveries``,
``context_items``, with their CHECK constraints, cascading foreign key and
indexes; timestamps are Unix milliseconds), applied through
``Database.migrate("project", ...)``: the seed's one-row ``schema_version``
table becomes the store's per-component ``schema_version``. Additions: JSON
columns are checked to hold the right JSON type, discovery content to be
10–1,000 characters, a trigger keeps session states from going backwards, and
context items carry ``key`` (what the item is about: ``file:src/app.py``) and
``seq`` (its row in the full-text and vector indexes).

A session is ``active`` from the first tool call of an MCP client in the
project, ``completed`` when the client ends it or disconnects or after 30
minutes without a call, and ``archived`` 7 days after it ended. Time comes
from an injectable clock (seconds since the epoch), so tests can move it.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from contextbase.search.fts import TOKENIZER
from contextbase.store import vectors
from contextbase.store.db import Database, from_json, to_json

Clock = Callable[[], float]
"""Seconds since the epoch; ``time.time`` unless a test fixes it."""

SESSION_STATES = ("active", "completed", "archived")
MAX_TOPICS = 50
MAX_NOTES = 200
MAX_NOTE_CHARS = 2_000

SCHEMA = f"""
CREATE TABLE sessions (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL,
  started_at INTEGER NOT NULL,
  ended_at INTEGER,
  status TEXT NOT NULL CHECK(status IN ('active', 'completed', 'archived')),
  files_accessed TEXT NOT NULL DEFAULT '[]' CHECK(json_type(files_accessed) = 'array'),
  topics TEXT NOT NULL DEFAULT '[]' CHECK(json_type(topics) = 'array'),
  metadata TEXT NOT NULL DEFAULT '{{}}' CHECK(json_type(metadata) = 'object'),
  created_at INTEGER NOT NULL DEFAULT (unixepoch() * 1000),
  updated_at INTEGER NOT NULL DEFAULT (unixepoch() * 1000),
  CHECK(ended_at IS NULL OR ended_at >= started_at)
);
CREATE INDEX idx_sessions_project ON sessions(project_id);
CREATE INDEX idx_sessions_status ON sessions(status);
CREATE INDEX idx_sessions_started ON sessions(started_at DESC);
CREATE TRIGGER sessions_status_forward BEFORE UPDATE OF status ON sessions
WHEN (CASE NEW.status WHEN 'active' THEN 0 WHEN 'completed' THEN 1 ELSE 2 END)
   < (CASE OLD.status WHEN 'active' THEN 0 WHEN 'completed' THEN 1 ELSE 2 END)
BEGIN
  SELECT RAISE(ABORT, 'a session cannot go back to an earlier state');
END;

CREATE TABLE discoveries (
  id TEXT PRIMARY KEY,
  session_id TEXT NOT NULL,
  type TEXT NOT NULL CHECK(type IN ('pattern', 'rule', 'decision', 'issue')),
  content TEXT NOT NULL CHECK(length(content) BETWEEN 10 AND 1000),
  module TEXT,
  context_json TEXT NOT NULL DEFAULT '{{}}' CHECK(json_type(context_json) = 'object'),
  embedding_id TEXT,
  embedding_model TEXT,
  created_at INTEGER NOT NULL DEFAULT (unixepoch() * 1000),
  FOREIGN KEY (session_id) REFERENCES sessions(id) ON DELETE CASCADE
);
CREATE INDEX idx_discoveries_session ON discoveries(session_id);
CREATE INDEX idx_discoveries_type ON discoveries(type);
CREATE INDEX idx_discoveries_module ON discoveries(module);
CREATE INDEX idx_discoveries_created ON discoveries(created_at DESC);

CREATE TABLE context_items (
  id TEXT PRIMARY KEY,
  seq INTEGER NOT NULL UNIQUE,
  key TEXT NOT NULL UNIQUE,
  type TEXT NOT NULL CHECK(type IN ('file', 'module', 'discovery', 'session')),
  content TEXT NOT NULL,
  metadata_json TEXT NOT NULL DEFAULT '{{}}' CHECK(json_type(metadata_json) = 'object'),
  score REAL NOT NULL DEFAULT 0.0 CHECK(score BETWEEN 0 AND 1),
  recency_factor REAL NOT NULL DEFAULT 0.0 CHECK(recency_factor BETWEEN 0 AND 1),
  access_factor REAL NOT NULL DEFAULT 0.0 CHECK(access_factor BETWEEN 0 AND 1),
  last_accessed_at INTEGER NOT NULL,
  access_count INTEGER NOT NULL DEFAULT 0 CHECK(access_count >= 0),
  tokens INTEGER NOT NULL DEFAULT 0 CHECK(tokens >= 0),
  status TEXT NOT NULL CHECK(status IN ('active', 'archived')),
  created_at INTEGER NOT NULL DEFAULT (unixepoch() * 1000),
  updated_at INTEGER NOT NULL DEFAULT (unixepoch() * 1000)
);
CREATE INDEX idx_context_items_type ON context_items(type);
CREATE INDEX idx_context_items_status ON context_items(status);
CREATE INDEX idx_context_items_score ON context_items(score DESC);
CREATE INDEX idx_context_items_last_accessed ON context_items(last_accessed_at DESC);
CREATE INDEX idx_context_items_status_score ON context_items(status, score DESC);

CREATE VIRTUAL TABLE context_items_fts USING fts5(
  content, source, identifiers, tokenize='{TOKENIZER}'
);
"""

MIGRATIONS = [SCHEMA]


def open_database(path: Path, *, readonly: bool = False) -> Database:
    """The project's sessions database, migrated to the current schema."""
    db = Database(path, readonly=readonly)
    vectors.migrate(db)
    db.migrate("project", MIGRATIONS)
    return db


def to_ms(seconds: float) -> int:
    return int(seconds * 1000)


def iso(ms: int | None) -> str | None:
    if ms is None:
        return None
    moment = datetime.fromtimestamp(ms / 1000, UTC)
    return moment.isoformat(timespec="seconds").replace("+00:00", "Z")


@dataclass
class FileAccess:
    path: str
    access_count: int
    first_accessed_at: int
    last_accessed_at: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "accessCount": self.access_count,
            "firstAccessedAt": iso(self.first_accessed_at),
            "lastAccessedAt": iso(self.last_accessed_at),
        }


@dataclass
class Session:
    id: str
    project_id: str
    started_at: int
    ended_at: int | None
    status: str
    updated_at: int
    files_accessed: list[FileAccess] = field(default_factory=list)
    topics: list[str] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> Session:
        return cls(
            id=row["id"],
            project_id=row["project_id"],
            started_at=row["started_at"],
            ended_at=row["ended_at"],
            status=row["status"],
            updated_at=row["updated_at"],
            files_accessed=[
                FileAccess(f["path"], f["accessCount"], f["firstAccessedAt"], f["lastAccessedAt"])
                for f in from_json(row["files_accessed"], [])
            ],
            topics=from_json(row["topics"], []),
            metadata=from_json(row["metadata"], {}),
        )

    def to_dict(self) -> dict[str, Any]:
        """The seed's Session shape (camelCase, ISO dates); notes stay internal."""
        metadata = {k: v for k, v in self.metadata.items() if k != "notes"}
        return {
            "id": self.id,
            "projectId": self.project_id,
            "startedAt": iso(self.started_at),
            "endedAt": iso(self.ended_at),
            "status": self.status,
            "filesAccessed": [f.to_dict() for f in self.files_accessed],
            "topics": self.topics,
            "metadata": metadata,
        }


class SessionStore:
    """Creates sessions, records their activity and moves them through their states."""

    def __init__(
        self,
        db: Database,
        project_id: str,
        *,
        clock: Clock = time.time,
        timeout_minutes: float = 30.0,
        archive_after_days: float = 7.0,
    ) -> None:
        self.db = db
        self.project_id = project_id
        self.clock = clock
        self.timeout_ms = to_ms(timeout_minutes * 60)
        self.archive_after_ms = to_ms(archive_after_days * 86_400)

    def now(self) -> int:
        return to_ms(self.clock())

    def start(self) -> Session:
        now = self.now()
        metadata = {"toolCallsCount": 0, "discoveryCount": 0, "notes": []}
        session_id = str(uuid.uuid4())
        with self.db.transaction():
            self.db.execute(
                "INSERT INTO sessions(id, project_id, started_at, status, metadata,"
                " created_at, updated_at) VALUES (?, ?, ?, 'active', ?, ?, ?)",
                (session_id, self.project_id, now, to_json(metadata), now, now),
            )
        session = self.get(session_id)
        assert session is not None
        return session

    def get(self, session_id: str) -> Session | None:
        row = self.db.query_one("SELECT * FROM sessions WHERE id = ?", (session_id,))
        return Session.from_row(row) if row else None

    def is_live(self, session: Session) -> bool:
        """Active, and not idle for longer than the timeout."""
        return session.status == "active" and self.now() - session.updated_at <= self.timeout_ms

    def record(
        self,
        session_id: str,
        *,
        tool: str | None = None,
        files: Iterable[str] = (),
        topic: str | None = None,
        notes: Iterable[str] = (),
        discoveries: int = 0,
    ) -> None:
        """Count a tool call, the files it touched, its topic and the text it carried."""
        now = self.now()
        with self.db.transaction():
            session = self.get(session_id)
            if session is None or session.status != "active":
                return
            metadata = session.metadata
            if tool:
                metadata["toolCallsCount"] = metadata.get("toolCallsCount", 0) + 1
            metadata["discoveryCount"] = metadata.get("discoveryCount", 0) + discoveries
            kept = metadata.setdefault("notes", [])
            kept += [n[:MAX_NOTE_CHARS] for n in notes if n and n.strip()]
            metadata["notes"] = kept[-MAX_NOTES:]
            topics = session.topics
            if topic and topic not in topics:
                topics = [*topics, topic][-MAX_TOPICS:]
            accesses = {f.path: f for f in session.files_accessed}
            for path in files:
                entry = accesses.get(path)
                if entry is None:
                    accesses[path] = FileAccess(path, 1, now, now)
                else:
                    entry.access_count += 1
                    entry.last_accessed_at = now
            stored = [
                {
                    "path": f.path,
                    "accessCount": f.access_count,
                    "firstAccessedAt": f.first_accessed_at,
                    "lastAccessedAt": f.last_accessed_at,
                }
                for f in accesses.values()
            ]
            self.db.execute(
                "UPDATE sessions SET files_accessed = ?, topics = ?, metadata = ?, updated_at = ?"
                " WHERE id = ?",
                (to_json(stored), to_json(topics), to_json(metadata), now, session_id),
            )

    def count_discoveries(self, session_id: str, count: int) -> None:
        """Add discoveries extracted after the session ended to its count."""
        with self.db.transaction():
            self.db.execute(
                "UPDATE sessions SET metadata = json_set(metadata, '$.discoveryCount',"
                " coalesce(json_extract(metadata, '$.discoveryCount'), 0) + ?) WHERE id = ?",
                (count, session_id),
            )

    def end(self, session_id: str, *, summary: str | None = None, reason: str = "ended") -> Session:
        """Complete an active session (a completed one only gains the summary)."""
        now = self.now()
        with self.db.transaction():
            session = self.get(session_id)
            if session is None:
                raise KeyError(session_id)
            metadata = session.metadata
            if summary:
                metadata["summary"] = summary
            if session.status == "active":
                metadata["duration"] = now - session.started_at
                metadata["endReason"] = reason
                self.db.execute(
                    "UPDATE sessions SET status = 'completed', ended_at = ?, metadata = ?,"
                    " updated_at = ? WHERE id = ?",
                    (now, to_json(metadata), now, session_id),
                )
            else:
                self.db.execute(
                    "UPDATE sessions SET metadata = ?, updated_at = ? WHERE id = ?",
                    (to_json(metadata), now, session_id),
                )
        ended = self.get(session_id)
        assert ended is not None
        return ended

    def sweep(self) -> list[str]:
        """Complete idle sessions and archive old ones; the ids of sessions just completed."""
        now = self.now()
        with self.db.transaction():
            idle = self.db.query(
                "UPDATE sessions SET status = 'completed', ended_at = updated_at,"
                " metadata = json_set(metadata, '$.duration', updated_at - started_at,"
                " '$.endReason', 'inactivity'), updated_at = ?"
                " WHERE status = 'active' AND updated_at < ? RETURNING id",
                (now, now - self.timeout_ms),
            )
            self.db.execute(
                "UPDATE sessions SET status = 'archived', updated_at = ?"
                " WHERE status = 'completed' AND ended_at < ?",
                (now, now - self.archive_after_ms),
            )
        return [row["id"] for row in idle]

    def list(self, *, limit: int = 20, status: str | None = None) -> list[Session]:
        if status:
            rows = self.db.query(
                "SELECT * FROM sessions WHERE status = ? ORDER BY started_at DESC LIMIT ?",
                (status, limit),
            )
        else:
            rows = self.db.query(
                "SELECT * FROM sessions ORDER BY started_at DESC LIMIT ?", (limit,)
            )
        return [Session.from_row(row) for row in rows]

    def counts(self) -> dict[str, int]:
        rows = self.db.query("SELECT status, count(*) AS n FROM sessions GROUP BY status")
        return {state: 0 for state in SESSION_STATES} | {r["status"]: r["n"] for r in rows}
