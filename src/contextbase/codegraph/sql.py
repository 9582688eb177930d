"""Read-only SQL over the graph tables, bounded in rows and time.

The statement runs on its own read-only connection, under an authorizer that
permits reading the three ``codegraph_*`` tables and nothing else (no other
feature's tables, no PRAGMA, no ATTACH, no writes), and a progress handler
that interrupts it after the time limit. Exactly one SELECT (or WITH … SELECT)
statement is accepted.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import apsw
import apsw.ext

from contextbase.codegraph.store import TABLES
from contextbase.errors import InvalidInputError
from contextbase.store.db import Database

MAX_ROWS = 200
TIME_LIMIT_SECONDS = 2.0
_ALLOWED_ACTIONS = {
    apsw.SQLITE_SELECT,
    apsw.SQLITE_READ,
    apsw.SQLITE_FUNCTION,
    apsw.SQLITE_RECURSIVE,
}
_DENIED_FUNCTIONS = {"load_extension", "readfile", "writefile", "edit", "fts3_tokenizer"}
_SELECT = re.compile(r"^\s*(select|with)\b", re.IGNORECASE)


def _authorizer(
    action: int, first: str | None, second: str | None, database: str | None, *_: Any
) -> int:
    if action not in _ALLOWED_ACTIONS:
        return apsw.SQLITE_DENY
    # A read with no database is of a CTE; real tables must be ours, in the main database.
    if (
        action == apsw.SQLITE_READ
        and database is not None
        and (database != "main" or first not in TABLES)
    ):
        return apsw.SQLITE_DENY
    if action == apsw.SQLITE_FUNCTION and (second or "").lower() in _DENIED_FUNCTIONS:
        return apsw.SQLITE_DENY
    return apsw.SQLITE_OK


def run_readonly(
    path: str | Path, sql: str, *, max_rows: int = MAX_ROWS, seconds: float = TIME_LIMIT_SECONDS
) -> dict[str, Any]:
    """Run one SELECT on the graph tables; at most ``max_rows`` rows within ``seconds``."""
    if not _SELECT.match(sql):
        raise InvalidInputError("Only a single SELECT (or WITH … SELECT) statement is allowed.")
    db = Database(path, readonly=True)
    try:
        conn = db.conn
        conn.set_authorizer(_authorizer)
        deadline = time.monotonic() + seconds
        conn.set_progress_handler(lambda: time.monotonic() > deadline, 1000)
        try:
            info = apsw.ext.query_info(conn, sql)
        except apsw.AuthError as exc:
            raise InvalidInputError(
                f"The query may only read the tables {', '.join(TABLES)} ({exc})."
            ) from exc
        except apsw.Error as exc:
            raise InvalidInputError(f"The query is not valid SQL: {exc}.") from exc
        if (info.query_remaining or "").strip(" \t\n;"):
            raise InvalidInputError(
                "Only one statement is allowed; remove everything after the first ';'."
            )
        return _fetch(conn, info.first_query, max_rows, seconds)
    finally:
        db.close()


def _fetch(conn: apsw.Connection, sql: str, max_rows: int, seconds: float) -> dict[str, Any]:
    cursor = conn.cursor()
    rows: list[dict[str, Any]] = []
    truncated = False
    try:
        results = cursor.execute(sql)
        columns: list[str] = []
        for row in results:
            if not columns:
                columns = [d[0] for d in cursor.get_description()]
            if len(rows) == max_rows:
                truncated = True
                break
            rows.append(dict(zip(columns, row, strict=True)))
    except apsw.InterruptError as exc:
        raise InvalidInputError(
            f"The query ran longer than {seconds:g} s and was stopped; add a WHERE or LIMIT."
        ) from exc
    except apsw.Error as exc:
        raise InvalidInputError(f"The query failed: {exc}.") from exc
    return {"rows": rows, "row_count": len(rows), "truncated": truncated, "max_rows": max_rows}
