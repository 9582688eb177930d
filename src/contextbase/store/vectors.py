"""Embedding spaces and their sqlite-vec tables.

A database holds vectors from any number of spaces, each space being one
``(provider, model, dimension)``. Every feature that stores vectors (document
chunks, code examples, solutions, discoveries) owns one vec0 table per space,
named ``vec_<purpose>_<space id>``, whose rowid is the id of the row it embeds.
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from contextbase.errors import EmbeddingError, StoreError
from contextbase.store.db import Database, utcnow

MIGRATIONS = [
    """
    CREATE TABLE embedding_spaces (
        id INTEGER PRIMARY KEY,
        provider TEXT NOT NULL,
        model TEXT NOT NULL,
        dimension INTEGER NOT NULL CHECK (dimension > 0),
        created_at TEXT NOT NULL,
        UNIQUE (provider, model, dimension)
    )
    """,
]

_PURPOSE = re.compile(r"^[a-z][a-z0-9_]{0,30}$")
_METADATA = re.compile(r"^[a-z][a-z0-9_]{0,30}$")
KNN_LIMIT = 4096
"""sqlite-vec answers at most this many neighbours per query."""


@dataclass(frozen=True)
class Space:
    id: int
    provider: str
    model: str
    dimension: int

    @property
    def label(self) -> str:
        return f"{self.provider}:{self.model} ({self.dimension}-d)"


def migrate(db: Database) -> None:
    db.migrate("vectors", MIGRATIONS)


def list_spaces(db: Database) -> list[Space]:
    if not db.table_exists("embedding_spaces"):
        return []
    rows = db.query("SELECT id, provider, model, dimension FROM embedding_spaces ORDER BY id")
    return [Space(**row) for row in rows]


def find_space(db: Database, provider: str, model: str, dimension: int) -> Space | None:
    for space in list_spaces(db):
        if (space.provider, space.model, space.dimension) == (provider, model, dimension):
            return space
    return None


def ensure_space(db: Database, provider: str, model: str, dimension: int) -> Space:
    with db.transaction():
        db.execute(
            "INSERT INTO embedding_spaces(provider, model, dimension, created_at)"
            " VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
            (provider, model, dimension, utcnow()),
        )
    space = find_space(db, provider, model, dimension)
    assert space is not None
    return space


class VectorTable:
    """The vec0 table holding one feature's vectors in one space."""

    def __init__(
        self, db: Database, purpose: str, space: Space, metadata: Sequence[str] = ()
    ) -> None:
        if not _PURPOSE.match(purpose) or not all(_METADATA.match(m) for m in metadata):
            raise ValueError(f"invalid vector table name parts: {purpose!r} {metadata!r}")
        if not db.vec_available:
            raise StoreError("sqlite-vec could not be loaded; vector search is unavailable.")
        self.db = db
        self.space = space
        self.metadata = tuple(metadata)
        self.name = f"vec_{purpose}_{space.id}"

    def exists(self) -> bool:
        return self.db.table_exists(self.name)

    def create(self) -> None:
        columns = "".join(f", {column} text" for column in self.metadata)
        self.db.execute(
            f"CREATE VIRTUAL TABLE IF NOT EXISTS {self.name} USING vec0("
            f"embedding float[{self.space.dimension}] distance_metric=cosine{columns})"
        )

    def _check(self, vector: Sequence[float] | bytes) -> bytes:
        if isinstance(vector, bytes):
            if len(vector) != 4 * self.space.dimension:
                raise EmbeddingError(f"A stored vector does not fit the {self.space.label} space.")
            return vector
        if len(vector) != self.space.dimension:
            raise EmbeddingError(
                f"A {len(vector)}-d vector cannot go into the {self.space.label} space."
            )
        return array("f", vector).tobytes()

    def upsert(self, rows: Iterable[tuple[int, Sequence[float] | bytes, Sequence[str]]]) -> None:
        """Insert or replace ``(rowid, vector, metadata values)`` rows.

        A vector is a float sequence or one already serialised (reused as is).
        """
        self.create()
        placeholders = ", ".join("?" for _ in range(2 + len(self.metadata)))
        columns = "".join(f", {column}" for column in self.metadata)
        with self.db.transaction():
            for rowid, vector, meta in rows:
                self.db.execute(f"DELETE FROM {self.name} WHERE rowid = ?", (rowid,))
                self.db.execute(
                    f"INSERT INTO {self.name}(rowid, embedding{columns}) VALUES ({placeholders})",
                    (rowid, self._check(vector), *meta),
                )

    def delete(self, rowids: Iterable[int]) -> None:
        if not self.exists():
            return
        with self.db.transaction():
            for rowid in rowids:
                self.db.execute(f"DELETE FROM {self.name} WHERE rowid = ?", (rowid,))

    def raw(self, rowids: Sequence[int]) -> dict[int, bytes]:
        """Serialised vectors of the given rows that have one."""
        if not rowids or not self.exists():
            return {}
        found: dict[int, bytes] = {}
        for start in range(0, len(rowids), 500):
            batch = list(rowids[start : start + 500])
            marks = ", ".join("?" for _ in batch)
            for row in self.db.execute(
                f"SELECT rowid, embedding FROM {self.name} WHERE rowid IN ({marks})", batch
            ):
                found[row[0]] = row[1]
        return found

    def count(self) -> int:
        if not self.exists():
            return 0
        return int(self.db.scalar(f"SELECT count(*) FROM {self.name}"))

    def knn(
        self, vector: Sequence[float], k: int, where: dict[str, str] | None = None
    ) -> list[tuple[int, float]]:
        """Nearest rows as ``(rowid, cosine similarity)``, best first.

        ``where`` filters on metadata columns inside the KNN query, so a filter
        never starves the result the way filtering after the fact would.
        """
        if not self.exists():
            return []
        filters = where or {}
        unknown = set(filters) - set(self.metadata)
        if unknown:
            raise ValueError(f"not a metadata column of {self.name}: {sorted(unknown)}")
        clauses = "".join(f" AND {column} = ?" for column in filters)
        rows = self.db.execute(
            f"SELECT rowid, distance FROM {self.name} WHERE embedding MATCH ? AND k = ?"
            f"{clauses} ORDER BY distance",
            (self._check(vector), min(k, KNN_LIMIT), *filters.values()),
        ).fetchall()
        return [(int(rowid), 1.0 - float(distance)) for rowid, distance in rows]
