"""One SQLite database file, opened through apsw with FTS5 and sqlite-vec.

Every feature (documents, solutions, code graph, ...) keeps its tables in the
same file and brings its own migrations, applied under a component name in
``schema_version``. WAL mode plus a busy timeout gives many readers and one
writer across processes; writes start with ``BEGIN IMMEDIATE`` so two writers
queue on the lock instead of failing half-way through a transaction.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import apsw

from contextbase.errors import SchemaVersionError, StoreError

Migration = str | Callable[["Database"], None]
"""A migration step: a SQL script, or a function that receives the database."""

BUSY_TIMEOUT_MS = 60_000
MMAP_BYTES = 256 * 1024 * 1024


def utcnow() -> str:
    """Timestamps are stored as ISO 8601 text in UTC."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def to_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


def from_json(text: str | None, default: Any = None) -> Any:
    if not text:
        return default
    return json.loads(text)


class Database:
    """A connection to one contextbase database file.

    Thread-safe for the server's worker threads: apsw serialises calls on one
    connection, and ``transaction`` holds a re-entrant lock so statements of two
    threads never interleave inside one transaction.
    """

    def __init__(self, path: str | Path, *, readonly: bool = False) -> None:
        self.path = Path(path).expanduser()
        self.readonly = readonly
        if readonly:
            if not self.path.exists():
                raise StoreError(f"The database {self.path} does not exist.")
            flags = apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_URI
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            flags = apsw.SQLITE_OPEN_READWRITE | apsw.SQLITE_OPEN_CREATE | apsw.SQLITE_OPEN_URI
        try:
            self.conn = apsw.Connection(str(self.path), flags=flags)
            self.conn.set_busy_timeout(BUSY_TIMEOUT_MS)
            self.vec_available = _load_sqlite_vec(self.conn)
            if not readonly:
                self.conn.execute("PRAGMA journal_mode=WAL")
                self.conn.execute("PRAGMA synchronous=NORMAL")
            self.conn.execute("PRAGMA foreign_keys=ON")
            # Memory-mapped reads make brute-force vector scans markedly faster.
            self.conn.execute(f"PRAGMA mmap_size={MMAP_BYTES}")
            self.conn.execute("SELECT count(*) FROM sqlite_master").fetchall()
        except apsw.Error as exc:
            raise StoreError(f"Cannot open the database {self.path}: {exc}.") from exc
        self._lock = threading.RLock()
        self._depth = 0

    # -- statements -------------------------------------------------------

    def execute(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> apsw.Cursor:
        with self._lock:
            return self.conn.execute(sql, params)

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        with self._lock:
            self.conn.executemany(sql, rows)

    def query(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> list[dict[str, Any]]:
        """Run a SELECT and return its rows as dicts."""
        with self._lock:
            cursor = self.conn.execute(sql, params)
            try:
                names = [d[0] for d in cursor.getdescription()]
            except apsw.ExecutionCompleteError:
                return []
            return [dict(zip(names, row, strict=True)) for row in cursor]

    def query_one(
        self, sql: str, params: Sequence[Any] | dict[str, Any] = ()
    ) -> dict[str, Any] | None:
        rows = self.query(sql, params)
        return rows[0] if rows else None

    def scalar(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> Any:
        with self._lock:
            row = self.conn.execute(sql, params).fetchone()
        return row[0] if row else None

    @contextmanager
    def transaction(self) -> Iterator[Database]:
        """A write transaction; nested calls join the outer one.

        ``BEGIN IMMEDIATE`` takes the write lock up front (waiting up to the busy
        timeout), so concurrent writers serialise instead of failing mid-way.
        """
        with self._lock:
            if self._depth:
                self._depth += 1
                try:
                    yield self
                finally:
                    self._depth -= 1
                return
            try:
                self.conn.execute("BEGIN IMMEDIATE")
            except apsw.BusyError as exc:
                raise StoreError(
                    f"The database {self.path} stayed locked by another process for "
                    f"{BUSY_TIMEOUT_MS // 1000} s."
                ) from exc
            self._depth = 1
            try:
                yield self
            except BaseException:
                self._depth = 0
                self.conn.execute("ROLLBACK")
                raise
            self._depth = 0
            self.conn.execute("COMMIT")

    # -- schema -----------------------------------------------------------

    def migrate(self, component: str, migrations: Sequence[Migration]) -> None:
        """Bring one component's tables up to ``len(migrations)``.

        Refuses a database whose component is newer than this code knows.
        """
        if self.readonly:
            self._check_version(component, len(migrations))
            return
        with self.transaction():
            self.conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_version ("
                " component TEXT PRIMARY KEY, version INTEGER NOT NULL, updated_at TEXT NOT NULL)"
            )
            current = self._check_version(component, len(migrations))
            for step in migrations[current:]:
                if callable(step):
                    step(self)
                else:
                    self.conn.execute(step)
            if current < len(migrations):
                self.conn.execute(
                    "INSERT INTO schema_version(component, version, updated_at) VALUES (?, ?, ?)"
                    " ON CONFLICT(component) DO UPDATE SET version=excluded.version,"
                    " updated_at=excluded.updated_at",
                    (component, len(migrations), utcnow()),
                )

    def _check_version(self, component: str, known: int) -> int:
        has_table = self.scalar(
            "SELECT 1 FROM sqlite_master WHERE type='table' AND name='schema_version'"
        )
        current = (
            self.scalar("SELECT version FROM schema_version WHERE component=?", (component,))
            if has_table
            else None
        ) or 0
        if current > known:
            raise SchemaVersionError(
                f"The database {self.path} was written by a newer contextbase "
                f"({component} schema {current}, this version knows {known}); upgrade contextbase."
            )
        return int(current)

    def table_exists(self, name: str) -> bool:
        return bool(
            self.scalar(
                "SELECT 1 FROM sqlite_master WHERE type IN ('table','view') AND name=?", (name,)
            )
        )

    def close(self) -> None:
        self.conn.close()


def _load_sqlite_vec(conn: apsw.Connection) -> bool:
    try:
        import sqlite_vec
    except ImportError:
        return False
    try:
        conn.enable_load_extension(True)
        conn.load_extension(sqlite_vec.loadable_path())
        conn.enable_load_extension(False)
    except apsw.Error:
        return False
    return True
