"""Checks behind ``contextbase doctor``."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

from contextbase.config import Settings
from contextbase.errors import ContextbaseError


@dataclass
class Check:
    name: str
    ok: bool
    detail: str


def run_checks(settings: Settings) -> list[Check]:
    return [_sqlite(), _database(settings), _model(settings)]


def _sqlite() -> Check:
    from contextbase.store.db import Database

    with tempfile.TemporaryDirectory() as folder:
        db = Database(Path(folder) / "check.db")
        try:
            version = db.scalar("SELECT sqlite_version()")
            db.execute("CREATE VIRTUAL TABLE t USING fts5(x)")
            if not db.vec_available:
                return Check(
                    "sqlite", False, f"SQLite {version} with FTS5, but sqlite-vec failed to load"
                )
            vec = db.scalar("SELECT vec_version()")
            return Check("sqlite", True, f"SQLite {version}, FTS5, sqlite-vec {vec}")
        except Exception as exc:
            return Check("sqlite", False, str(exc))
        finally:
            db.close()


def _database(settings: Settings) -> Check:
    if not settings.db.exists():
        return Check("database", True, f"{settings.db} does not exist yet (created on first add)")
    try:
        from contextbase.store.db import Database
        from contextbase.store.sqlite import SQLiteStore

        figures = SQLiteStore(Database(settings.db)).stats()
    except ContextbaseError as exc:
        return Check("database", False, str(exc))
    return Check(
        "database",
        True,
        f"{settings.db}: {figures['libraries']} libraries, {figures['chunks']} chunks",
    )


def _model(settings: Settings) -> Check:
    from contextbase.embed import get_embedder

    try:
        embedder = get_embedder(settings.embedder, **settings.embedder_options)
        if embedder is None:
            return Check("embeddings", True, "keyword-only (embedder: none)")
        vector = embedder.embed_query("doctor check")
    except ContextbaseError as exc:
        return Check("embeddings", False, str(exc))
    return Check(
        "embeddings", True, f"{embedder.provider}:{embedder.model} gives {len(vector)}-d vectors"
    )
