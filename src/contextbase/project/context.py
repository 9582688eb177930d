"""Context items: what the agent has in view, scored, searchable and pruned to a budget.

An item is a file, a module, a discovery or a session, with its text and a
token estimate. Its score in [0, 1] is

    score = w · recency + (1 − w) · access
    recency = 2^(−age / half-life)          (age since the last access)
    access  = 1 − e^(−accesses / saturation)

with w = 0.6, a 24-hour half-life and a saturation of 5 accesses by default.
Scores are refreshed every ``scorer_interval_seconds`` (5 minutes) when the
project is used. When active items hold more than ``prune_threshold`` (80 %)
of ``max_tokens`` (100,000), the lowest-scored are archived until
``prune_target`` (64 %) remains. Archived items are never deleted: they stay
in the full-text and vector indexes, and an access makes them active again.
"""

from __future__ import annotations

import math
import time
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from contextbase.embed import Embedder, space_key
from contextbase.project.sessions import Clock, iso, to_ms
from contextbase.project.settings import ProjectSettings
from contextbase.search.fts import identifier_parts, match_expression
from contextbase.search.fusion import reciprocal_rank_fusion
from contextbase.store import vectors
from contextbase.store.db import Database, from_json, to_json
from contextbase.tokens import estimate_tokens

ITEM_TYPES = ("file", "module", "discovery", "session")
VECTOR_PURPOSE = "project_items"
CANDIDATES = 50
PAGE = 256
LN2 = math.log(2)


@dataclass
class ContextItem:
    id: str
    seq: int
    key: str
    type: str
    content: str
    metadata: dict[str, Any]
    score: float
    recency_factor: float
    access_factor: float
    last_accessed_at: int
    access_count: int
    tokens: int
    status: str
    created_at: int

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> ContextItem:
        values = {k: row[k] for k in cls.__dataclass_fields__ if k != "metadata"}
        return cls(metadata=from_json(row["metadata_json"], {}), **values)

    @property
    def source(self) -> str:
        return str(self.metadata.get("source") or self.key)

    def to_dict(self) -> dict[str, Any]:
        """The seed's ContextItem shape."""
        return {
            "id": self.id,
            "type": self.type,
            "content": self.content,
            "metadata": self.metadata,
            "scoring": {
                "score": round(self.score, 4),
                "recencyFactor": round(self.recency_factor, 4),
                "accessFactor": round(self.access_factor, 4),
                "lastAccessedAt": iso(self.last_accessed_at),
                "accessCount": self.access_count,
            },
            "tokens": self.tokens,
            "status": self.status,
        }


@dataclass
class PruneResult:
    archived: int
    tokens_before: int
    tokens_after: int
    budget: int
    archived_keys: list[str] = field(default_factory=list)


def compute_score(
    age_ms: float, accesses: int, settings: ProjectSettings
) -> tuple[float, float, float]:
    """``(score, recency factor, access factor)`` of an item."""
    half_life_ms = settings.recency_half_life_hours * 3_600_000
    recency = math.exp(-LN2 * max(0.0, age_ms) / half_life_ms)
    access = 1.0 - math.exp(-max(0, accesses) / settings.access_saturation)
    weight = settings.recency_weight
    score = min(1.0, max(0.0, weight * recency + (1.0 - weight) * access))
    return score, recency, access


class ContextItems:
    def __init__(
        self,
        db: Database,
        settings: ProjectSettings,
        *,
        embedder: Embedder | None = None,
        clock: Clock = time.time,
    ) -> None:
        self.db = db
        self.settings = settings
        self.embedder = embedder
        self.clock = clock
        self._table: vectors.VectorTable | None = None

    # -- vectors ------------------------------------------------------------

    def vector_table(self) -> vectors.VectorTable | None:
        if self.embedder is None or not self.db.vec_available:
            return None
        if self._table is None:
            provider, model, dimension = space_key(self.embedder)
            if self.db.readonly:
                found = vectors.find_space(self.db, provider, model, dimension)
                if found is None:
                    return None
                space = found
            else:
                space = vectors.ensure_space(self.db, provider, model, dimension)
            self._table = vectors.VectorTable(self.db, VECTOR_PURPOSE, space, ("type",))
        return self._table

    def embedding_label(self) -> str | None:
        table = self.vector_table()
        return table.space.label if table else None

    def _embed(self, texts: Sequence[str]) -> list[list[float]] | None:
        if self.vector_table() is None or not texts:
            return None
        assert self.embedder is not None
        return self.embedder.embed_documents(list(texts))

    def ensure_vectors(self, batch: int = 64) -> int:
        """Embed items that have no vector in the current space (e.g. after a model change)."""
        table = self.vector_table()
        if table is None:
            return 0
        table.create()
        total = self.db.scalar("SELECT count(*) FROM context_items")
        if table.count() >= total:
            return 0
        rows = self.db.query(
            f"SELECT seq, type, content FROM context_items WHERE seq NOT IN"
            f" (SELECT rowid FROM {table.name}) ORDER BY seq"
        )
        for start in range(0, len(rows), batch):
            chunk = rows[start : start + batch]
            embedded = self._embed([r["content"] for r in chunk]) or []
            table.upsert((r["seq"], v, (r["type"],)) for r, v in zip(chunk, embedded, strict=True))
        return len(rows)

    # -- items --------------------------------------------------------------

    def get(self, key: str) -> ContextItem | None:
        row = self.db.query_one("SELECT * FROM context_items WHERE key = ?", (key,))
        return ContextItem.from_row(row) if row else None

    def by_seq(self, seqs: Iterable[int]) -> dict[int, ContextItem]:
        wanted = list(seqs)
        found: dict[int, ContextItem] = {}
        for start in range(0, len(wanted), 500):
            batch = wanted[start : start + 500]
            marks = ", ".join("?" for _ in batch)
            for row in self.db.query(f"SELECT * FROM context_items WHERE seq IN ({marks})", batch):
                found[row["seq"]] = ContextItem.from_row(row)
        return found

    def upsert(
        self,
        key: str,
        kind: str,
        content: str,
        metadata: dict[str, Any],
        *,
        access: bool = False,
    ) -> ContextItem:
        """Create or refresh an item; ``access`` counts it as used (and re-activates it)."""
        existing = self.get(key)
        changed = existing is None or existing.content != content
        vectors = self._embed([content]) if changed else None
        with self.db.transaction():
            self._write(key, kind, content, metadata, access, vectors[0] if vectors else None)
        item = self.get(key)
        assert item is not None
        return item

    def upsert_many(
        self, entries: Sequence[tuple[str, str, str, dict[str, Any]]], batch: int = 256
    ) -> int:
        """Create or refresh ``(key, type, content, metadata)`` items, embedding them in batches;
        no access is counted. Returns how many were new or changed."""
        known: dict[str, str] = {}
        keys = [entry[0] for entry in entries]
        for start in range(0, len(keys), 500):
            part = keys[start : start + 500]
            marks = ", ".join("?" for _ in part)
            for row in self.db.query(
                f"SELECT key, content FROM context_items WHERE key IN ({marks})", part
            ):
                known[row["key"]] = row["content"]
        changed = [entry for entry in entries if known.get(entry[0]) != entry[2]]
        for start in range(0, len(changed), batch):
            chunk = changed[start : start + batch]
            vectors: list[list[float] | None] = list(
                self._embed([entry[2] for entry in chunk]) or [None] * len(chunk)
            )
            with self.db.transaction():
                for (key, kind, content, metadata), vector in zip(chunk, vectors, strict=True):
                    self._write(key, kind, content, metadata, False, vector)
        return len(changed)

    def _write(
        self,
        key: str,
        kind: str,
        content: str,
        metadata: dict[str, Any],
        access: bool,
        vector: list[float] | None,
    ) -> None:
        """Insert or update one item and its indexes; the caller holds a transaction."""
        if kind not in ITEM_TYPES:
            raise ValueError(f"not a context item type: {kind}")
        now = to_ms(self.clock())
        metadata = {"source": key, **metadata}
        existing = self.get(key)
        if existing is None:
            seq = int(self.db.scalar("SELECT coalesce(max(seq), 0) + 1 FROM context_items"))
            accesses = 1 if access else 0
            score, recency, access_factor = compute_score(0, accesses, self.settings)
            self.db.execute(
                "INSERT INTO context_items(id, seq, key, type, content, metadata_json, score,"
                " recency_factor, access_factor, last_accessed_at, access_count, tokens,"
                " status, created_at, updated_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'active', ?, ?)",
                (
                    str(uuid.uuid4()),
                    seq,
                    key,
                    kind,
                    content,
                    to_json(metadata),
                    score,
                    recency,
                    access_factor,
                    now,
                    accesses,
                    estimate_tokens(content),
                    now,
                    now,
                ),
            )
        else:
            seq = existing.seq
            accesses = existing.access_count + (1 if access else 0)
            last = now if access else existing.last_accessed_at
            score, recency, access_factor = compute_score(now - last, accesses, self.settings)
            self.db.execute(
                "UPDATE context_items SET content = ?, metadata_json = ?, tokens = ?,"
                " access_count = ?, last_accessed_at = ?, score = ?, recency_factor = ?,"
                " access_factor = ?, status = ?, updated_at = ? WHERE seq = ?",
                (
                    content,
                    to_json(metadata),
                    estimate_tokens(content),
                    accesses,
                    last,
                    score,
                    recency,
                    access_factor,
                    "active" if access else existing.status,
                    now,
                    seq,
                ),
            )
        if existing is None or existing.content != content:
            self.db.execute("DELETE FROM context_items_fts WHERE rowid = ?", (seq,))
            self.db.execute(
                "INSERT INTO context_items_fts(rowid, content, source, identifiers)"
                " VALUES (?, ?, ?, ?)",
                (seq, content, _source_text(key, kind, metadata), identifier_parts(content)),
            )
            table = self.vector_table()
            if table is not None and vector is not None:
                table.upsert([(seq, vector, (kind,))])

    def touch(self, key: str) -> ContextItem | None:
        item = self.get(key)
        if item is None:
            return None
        return self.upsert(key, item.type, item.content, item.metadata, access=True)

    # -- scoring and pruning -----------------------------------------------

    def rescore(self) -> int:
        """Refresh the scores of the active items from the clock; how many were rescored."""
        s = self.settings
        now = to_ms(self.clock())
        half_life_ms = s.recency_half_life_hours * 3_600_000
        recency = f"exp(-{LN2!r} * max(0, :now - last_accessed_at) / :half_life)"
        access = "(1.0 - exp(-access_count / :saturation))"
        with self.db.transaction():
            self.db.execute(
                f"UPDATE context_items SET recency_factor = {recency},"
                f" access_factor = {access},"
                f" score = min(1.0, max(0.0, :w * {recency} + (1.0 - :w) * {access})),"
                " updated_at = :now WHERE status = 'active'",
                {
                    "now": now,
                    "half_life": half_life_ms,
                    "saturation": s.access_saturation,
                    "w": s.recency_weight,
                },
            )
            return int(self.db.conn.changes())

    def active_tokens(self) -> int:
        return int(
            self.db.scalar(
                "SELECT coalesce(sum(tokens), 0) FROM context_items WHERE status = 'active'"
            )
        )

    def prune(self) -> PruneResult:
        """Archive the lowest scores once active items pass the threshold of the budget."""
        budget = self.settings.max_tokens
        with self.db.transaction():
            total = self.active_tokens()
            if total <= self.settings.prune_threshold * budget:
                return PruneResult(0, total, total, budget)
            target = self.settings.prune_target * budget
            remaining = total
            archived: list[tuple[int, str]] = []
            for row in self.db.query(
                "SELECT seq, key, tokens FROM context_items WHERE status = 'active'"
                " ORDER BY score ASC, last_accessed_at ASC, seq ASC"
            ):
                if remaining <= target:
                    break
                archived.append((row["seq"], row["key"]))
                remaining -= row["tokens"]
            now = to_ms(self.clock())
            self.db.executemany(
                "UPDATE context_items SET status = 'archived', updated_at = ? WHERE seq = ?",
                [(now, seq) for seq, _ in archived],
            )
        return PruneResult(len(archived), total, remaining, budget, [k for _, k in archived])

    def best(self, budget: int) -> list[ContextItem]:
        """The highest-scored active items that fit in ``budget`` tokens together."""
        chosen: list[int] = []
        remaining = budget
        offset = 0
        while remaining >= 20:  # read a page at a time: a budget fills long before 10,000 rows
            rows = self.db.query(
                "SELECT seq, tokens FROM context_items WHERE status = 'active'"
                " ORDER BY score DESC, last_accessed_at DESC, seq DESC LIMIT ? OFFSET ?",
                (PAGE, offset),
            )
            for row in rows:
                if row["tokens"] <= remaining:
                    chosen.append(row["seq"])
                    remaining -= row["tokens"]
            if len(rows) < PAGE:
                break
            offset += PAGE
        items = self.by_seq(chosen)
        return [items[seq] for seq in chosen if seq in items]

    def counts(self) -> dict[str, Any]:
        rows = self.db.query(
            "SELECT status, count(*) AS n, coalesce(sum(tokens), 0) AS tokens"
            " FROM context_items GROUP BY status"
        )
        result: dict[str, Any] = {"active": 0, "archived": 0, "activeTokens": 0}
        for row in rows:
            result[row["status"]] = row["n"]
            if row["status"] == "active":
                result["activeTokens"] = row["tokens"]
        return result

    # -- search ---------------------------------------------------------------

    def search(
        self, query: str, limit: int = 10, *, kind: str | None = None
    ) -> list[tuple[ContextItem, float]]:
        """Hybrid search (BM25 + vectors, reciprocal-rank fusion) over all items, archived too."""
        rankings: list[list[int]] = []
        expression = match_expression(query)
        if expression:
            type_filter = " AND c.type = ?" if kind else ""
            rows = self.db.query(
                "SELECT f.rowid AS seq FROM context_items_fts f"
                " JOIN context_items c ON c.seq = f.rowid"
                f" WHERE context_items_fts MATCH ?{type_filter}"
                " ORDER BY bm25(context_items_fts, 1.0, 0.5, 0.5) LIMIT ?",
                (expression, *([kind] if kind else []), CANDIDATES),
            )
            rankings.append([r["seq"] for r in rows])
        table = self.vector_table()
        if table is not None and query.strip():
            assert self.embedder is not None
            vector = self.embedder.embed_query(query)
            hits = table.knn(vector, CANDIDATES, where={"type": kind} if kind else None)
            rankings.append([seq for seq, _ in hits])
        fused = reciprocal_rank_fusion([r for r in rankings if r])[:limit]
        items = self.by_seq(seq for seq, _ in fused)
        return [(items[seq], score) for seq, score in fused if seq in items]


def _source_text(key: str, kind: str, metadata: dict[str, Any]) -> str:
    parts = [key.replace(":", " ").replace("/", " "), kind]
    for name in ("module", "discoveryType"):
        if metadata.get(name):
            parts.append(str(metadata[name]))
    return " ".join(parts)
