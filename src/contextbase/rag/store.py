"""Sources and code examples on SQLite, beside the documentation store."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from contextbase.rag import schema
from contextbase.rag.code_examples import CodeExample
from contextbase.search.fts import identifier_parts
from contextbase.store.db import from_json, to_json, utcnow
from contextbase.store.sqlite import SQLiteStore
from contextbase.store.vectors import Space, VectorTable, list_spaces

CODE_VECTOR_METADATA = ("library_id",)


@dataclass
class Source:
    """One crawled site or repository (Crawl4AI's ``sources`` row)."""

    source_id: str
    kind: str
    url: str
    library_id: str
    version: str = ""
    summary: str = ""
    total_word_count: int = 0
    document_count: int = 0
    code_example_count: int = 0
    metadata: dict[str, Any] = field(default_factory=dict)
    created_at: str = ""
    updated_at: str = ""

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class StoredExample:
    id: int
    document_id: int
    library_id: str
    version: str
    url: str
    chunk_number: int
    language: str
    content: str
    summary: str
    context_before: str
    context_after: str
    heading_path: str


class RagStore:
    """The ``sources``, ``code_examples`` and ``document_stats`` tables of one database."""

    def __init__(self, store: SQLiteStore) -> None:
        self.docs = store
        self.db = store.db
        self.db.migrate("sources", schema.MIGRATIONS)

    # -- sources ------------------------------------------------------------

    def upsert_source(self, source: Source) -> Source:
        """Insert or update a source; its counts are recomputed from the documents."""
        now = utcnow()
        with self.db.transaction():
            self.db.execute(
                "INSERT INTO sources(source_id, kind, url, library_id, version, summary, metadata,"
                " created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?)"
                " ON CONFLICT(source_id) DO UPDATE SET kind=excluded.kind, url=excluded.url,"
                " library_id=excluded.library_id, version=excluded.version,"
                " summary=excluded.summary, metadata=excluded.metadata,"
                " updated_at=excluded.updated_at",
                (
                    source.source_id,
                    source.kind,
                    source.url,
                    source.library_id,
                    source.version,
                    source.summary,
                    to_json(source.metadata),
                    now,
                    now,
                ),
            )
            self.db.execute(
                "UPDATE sources SET"
                " document_count = (SELECT count(*) FROM documents d"
                "   WHERE d.library_id = sources.library_id AND d.version = sources.version),"
                " total_word_count = (SELECT coalesce(sum(s.word_count), 0) FROM documents d"
                "   JOIN document_stats s ON s.document_id = d.id"
                "   WHERE d.library_id = sources.library_id AND d.version = sources.version),"
                " code_example_count = (SELECT count(*) FROM code_examples c"
                "   WHERE c.library_id = sources.library_id AND c.version = sources.version)"
                " WHERE source_id = ?",
                (source.source_id,),
            )
        found = self.get_source(source.source_id)
        assert found is not None
        return found

    def get_source(self, source_id: str) -> Source | None:
        row = self.db.query_one("SELECT * FROM sources WHERE source_id = ?", (source_id,))
        return _source(row) if row else None

    def list_sources(self) -> list[Source]:
        return [_source(row) for row in self.db.query("SELECT * FROM sources ORDER BY source_id")]

    def library_ids_for(self, key: str) -> list[str]:
        """Library ids a filter names: a source id, a library id or a Context7 id."""
        rows = self.db.query("SELECT DISTINCT library_id FROM sources WHERE source_id = ?", (key,))
        if rows:
            return [row["library_id"] for row in rows]
        library = self.docs.get_library(key)
        return [library.id] if library else []

    # -- per-document rows, written inside the document's transaction -------

    def record_document(
        self,
        document_id: int,
        library_id: str,
        version: str,
        url: str,
        word_count: int,
        examples: Sequence[CodeExample],
        vectors: dict[Space, Sequence[Sequence[float] | bytes]],
    ) -> None:
        now = utcnow()
        with self.db.transaction():
            self.db.execute(
                "INSERT OR REPLACE INTO document_stats(document_id, word_count) VALUES (?, ?)",
                (document_id, word_count),
            )
            ids: list[int] = []
            for example in examples:
                self.db.execute(
                    "INSERT INTO code_examples(document_id, library_id, version, url,"
                    " chunk_number, language, content, summary, context_before, context_after,"
                    " heading_path, identifiers, content_hash, created_at)"
                    " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                    (
                        document_id,
                        library_id,
                        version,
                        url,
                        example.index,
                        example.language,
                        example.code,
                        example.summary,
                        example.context_before,
                        example.context_after,
                        example.heading_path,
                        identifier_parts(example.code),
                        example.content_hash,
                        now,
                    ),
                )
                ids.append(int(self.db.scalar("SELECT last_insert_rowid()")))
            for space, vecs in vectors.items():
                self.code_vectors(space).upsert(
                    [(i, v, (library_id,)) for i, v in zip(ids, vecs, strict=True)]
                )

    # -- vectors --------------------------------------------------------------

    def code_vectors(self, space: Space) -> VectorTable:
        """The vec0 table of code example vectors in ``space``, with its clean-up trigger.

        The trigger deletes a vector with its row however the row goes (a
        replaced document, a removed library), so no path can leave orphans.
        """
        table = VectorTable(self.db, "code_examples", space, CODE_VECTOR_METADATA)
        if not table.exists():
            with self.db.transaction():
                table.create()
                self.db.execute(
                    f"CREATE TRIGGER IF NOT EXISTS {table.name}_delete AFTER DELETE ON"
                    f" code_examples BEGIN DELETE FROM {table.name} WHERE rowid = old.id; END"
                )
        return table

    def vectors_by_hash(self, space: Space, hashes: Sequence[str]) -> dict[str, bytes]:
        """Stored vectors of examples with these content hashes, for reuse."""
        table = VectorTable(self.db, "code_examples", space, CODE_VECTOR_METADATA)
        if not hashes or not table.exists():
            return {}
        by_id: dict[int, str] = {}
        for start in range(0, len(hashes), 500):
            batch = list(hashes[start : start + 500])
            marks = ", ".join("?" for _ in batch)
            for row in self.db.execute(
                f"SELECT id, content_hash FROM code_examples WHERE content_hash IN ({marks})",
                batch,
            ):
                by_id[int(row[0])] = row[1]
        found: dict[str, bytes] = {}
        for rowid, blob in table.raw(list(by_id)).items():
            found.setdefault(by_id[rowid], blob)
        return found

    # -- search ---------------------------------------------------------------

    def keyword_search(
        self, match: str, library_ids: Sequence[str] | None, limit: int
    ) -> list[tuple[int, float]]:
        """Example ids and BM25 scores (higher is better) for an FTS5 MATCH expression."""
        clause, params = _library_clause(library_ids)
        rows = self.db.execute(
            "SELECT c.id, bm25(code_examples_fts, 1.0, 2.0, 1.0, 0.5) AS rank"
            " FROM code_examples_fts JOIN code_examples c ON c.id = code_examples_fts.rowid"
            f" WHERE code_examples_fts MATCH ?{clause} ORDER BY rank LIMIT ?",
            (match, *params, limit),
        ).fetchall()
        return [(int(i), -float(rank)) for i, rank in rows]

    def vector_search(
        self,
        space: Space,
        vector: Sequence[float],
        library_ids: Sequence[str] | None,
        limit: int,
    ) -> list[tuple[int, float]]:
        table = VectorTable(self.db, "code_examples", space, CODE_VECTOR_METADATA)
        if library_ids is None:
            return table.knn(vector, limit)
        hits: list[tuple[int, float]] = []
        for library_id in library_ids:
            hits += table.knn(vector, limit, {"library_id": library_id})
        return sorted(hits, key=lambda hit: hit[1], reverse=True)[:limit]

    def get_examples(self, ids: Sequence[int]) -> dict[int, StoredExample]:
        found: dict[int, StoredExample] = {}
        for start in range(0, len(ids), 500):
            batch = list(ids[start : start + 500])
            marks = ", ".join("?" for _ in batch)
            for row in self.db.query(
                "SELECT id, document_id, library_id, version, url, chunk_number, language,"
                " content, summary, context_before, context_after, heading_path"
                f" FROM code_examples WHERE id IN ({marks})",
                batch,
            ):
                found[row["id"]] = StoredExample(**row)
        return found

    def count_examples(self, library_id: str | None = None) -> int:
        if library_id is None:
            return int(self.db.scalar("SELECT count(*) FROM code_examples"))
        return int(
            self.db.scalar("SELECT count(*) FROM code_examples WHERE library_id = ?", (library_id,))
        )

    def spaces(self) -> list[Space]:
        return list_spaces(self.db)


def _library_clause(library_ids: Sequence[str] | None) -> tuple[str, list[str]]:
    if library_ids is None:
        return "", []
    marks = ", ".join("?" for _ in library_ids) or "NULL"
    return f" AND c.library_id IN ({marks})", list(library_ids)


def _source(row: dict[str, Any]) -> Source:
    data = dict(row)
    data["metadata"] = from_json(data.get("metadata"), {})
    return Source(**data)
