"""The documentation store on SQLite: libraries, documents, chunks, FTS5, vectors."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from contextbase.errors import NotFoundError
from contextbase.search.fts import identifier_parts
from contextbase.store import schema, vectors
from contextbase.store.db import Database, from_json, to_json, utcnow
from contextbase.store.models import (
    RELATION_FIELDS,
    ChunkRecord,
    DocumentRecord,
    Filters,
    Library,
    LibrarySummary,
    LibraryVersion,
    normalise_term,
)
from contextbase.store.vectors import Space, VectorTable

_LIBRARY_COLUMNS = [
    name
    for name in Library.model_fields
    if name not in {"aliases", "keywords", *RELATION_FIELDS.values()}
]
CHUNK_VECTOR_METADATA = ("library_id", "version")


class SQLiteStore:
    """Implements the ``Store`` protocol on one SQLite database."""

    def __init__(self, db: Database) -> None:
        self.db = db
        db.migrate("docs", schema.MIGRATIONS)
        vectors.migrate(db)

    # -- libraries --------------------------------------------------------

    def upsert_library(self, library: Library) -> Library:
        now = utcnow()
        existing = self.get_library(library.id)
        library = library.model_copy(
            update={
                "created_at": existing.created_at if existing else (library.created_at or now),
                "updated_at": now,
            }
        )
        values = library.model_dump()
        columns = ", ".join(_LIBRARY_COLUMNS)
        marks = ", ".join(f":{c}" for c in _LIBRARY_COLUMNS)
        updates = ", ".join(f"{c}=excluded.{c}" for c in _LIBRARY_COLUMNS if c != "id")
        with self.db.transaction():
            self.db.execute(
                f"INSERT INTO libraries({columns}) VALUES ({marks})"
                f" ON CONFLICT(id) DO UPDATE SET {updates}",
                {c: values[c] for c in _LIBRARY_COLUMNS},
            )
            self.db.execute("DELETE FROM library_terms WHERE library_id = ?", (library.id,))
            self.db.execute("DELETE FROM library_relations WHERE library_id = ?", (library.id,))
            for kind, terms in (("alias", library.aliases), ("keyword", library.keywords)):
                for term in terms:
                    self.db.execute(
                        "INSERT OR IGNORE INTO library_terms(library_id, kind, term, norm)"
                        " VALUES (?, ?, ?, ?)",
                        (library.id, kind, term, normalise_term(term)),
                    )
            for kind, field in RELATION_FIELDS.items():
                for target in values[field]:
                    self.db.execute(
                        "INSERT OR IGNORE INTO library_relations(library_id, kind, target)"
                        " VALUES (?, ?, ?)",
                        (library.id, kind, target),
                    )
        return library

    def get_library(self, key: str) -> Library | None:
        """A library by its id (``lib-pypi-x``) or Context7 id (``/pypi/x``)."""
        row = self.db.query_one(
            "SELECT * FROM libraries WHERE id = ? OR context7_id = ?", (key, key)
        )
        return self._library(row) if row else None

    def all_libraries(self) -> list[Library]:
        rows = self.db.query("SELECT * FROM libraries ORDER BY lower(name)")
        return [self._library(row) for row in rows]

    def _library(self, row: dict[str, Any]) -> Library:
        terms = self.db.query(
            "SELECT kind, term FROM library_terms WHERE library_id = ? ORDER BY rowid",
            (row["id"],),
        )
        relations = self.db.query(
            "SELECT kind, target FROM library_relations WHERE library_id = ? ORDER BY rowid",
            (row["id"],),
        )
        data = dict(row)
        data["aliases"] = [t["term"] for t in terms if t["kind"] == "alias"]
        data["keywords"] = [t["term"] for t in terms if t["kind"] == "keyword"]
        for kind, field in RELATION_FIELDS.items():
            data[field] = [r["target"] for r in relations if r["kind"] == kind]
        return Library.model_validate(data)

    def list_libraries(self) -> list[LibrarySummary]:
        counts: dict[str, list[LibraryVersion]] = {}
        for row in self.db.query(
            "SELECT d.library_id, d.version, count(DISTINCT d.id) AS documents,"
            " count(c.id) AS chunks FROM documents d LEFT JOIN chunks c ON c.document_id = d.id"
            " GROUP BY d.library_id, d.version ORDER BY d.library_id, d.version"
        ):
            counts.setdefault(row["library_id"], []).append(
                LibraryVersion(row["version"], row["documents"], row["chunks"])
            )
        return [LibrarySummary(lib, counts.get(lib.id, [])) for lib in self.all_libraries()]

    def remove_library(self, library_id: str, version: str | None = None) -> int:
        """Delete a library (or one of its versions); returns the documents removed."""
        library = self.get_library(library_id)
        if library is None:
            raise NotFoundError(f"No library {library_id!r} is indexed.")
        with self.db.transaction():
            if version is None:
                doc_ids = self._ids("SELECT id FROM documents WHERE library_id = ?", library.id)
            else:
                doc_ids = self._ids(
                    "SELECT id FROM documents WHERE library_id = ? AND version = ?",
                    library.id,
                    version,
                )
            self._delete_documents(doc_ids)
            if version is None:
                self.db.execute("DELETE FROM libraries WHERE id = ?", (library.id,))
            else:
                self.refresh_library(library.id)
        return len(doc_ids)

    def refresh_library(self, library_id: str) -> None:
        """Recompute cached counts and the indexing time of a library."""
        self.db.execute(
            "UPDATE libraries SET document_count ="
            " (SELECT count(*) FROM chunks WHERE library_id = ?), last_indexed_at = ?,"
            " updated_at = ? WHERE id = ?",
            (library_id, utcnow(), utcnow(), library_id),
        )

    # -- documents and chunks ---------------------------------------------

    def document_checksums(self, library_id: str, version: str) -> dict[str, str]:
        rows = self.db.query(
            "SELECT source, checksum FROM documents WHERE library_id = ? AND version = ?",
            (library_id, version),
        )
        return {row["source"]: row["checksum"] for row in rows}

    def replace_document(
        self,
        document: DocumentRecord,
        chunks: Sequence[ChunkRecord],
        embeddings: dict[Space, Sequence[Sequence[float] | bytes]] | None = None,
    ) -> int:
        """Store a document and its chunks (and vectors), replacing any earlier version.

        One transaction: a process killed half-way leaves the old document or
        the new one, never a mix. Vectors may be float lists or serialised blobs.
        """
        library = self.get_library(document.library_id)
        if library is None:
            raise NotFoundError(f"No library {document.library_id!r} is indexed.")
        now = utcnow()
        with self.db.transaction():
            old = self._ids(
                "SELECT id FROM documents WHERE library_id = ? AND version = ? AND source = ?",
                document.library_id,
                document.version,
                document.source,
            )
            self._delete_documents(old)
            self.db.execute(
                "INSERT INTO documents(library_id, version, source, source_type, format, title,"
                " checksum, metadata, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?)",
                (
                    document.library_id,
                    document.version,
                    document.source,
                    document.source_type,
                    document.format,
                    document.title,
                    document.checksum,
                    to_json(document.metadata),
                    now,
                    now,
                ),
            )
            document_id = int(self.db.scalar("SELECT last_insert_rowid()"))
            chunk_ids: list[int] = []
            for chunk in chunks:
                self.db.execute(
                    "INSERT INTO chunks(document_id, library_id, version, title, heading_path,"
                    " text, identifiers, chunk_index, chunk_total, token_count, content_hash,"
                    " metadata, created_at, library_name, language, ecosystem)"
                    " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                    (
                        document_id,
                        document.library_id,
                        document.version,
                        chunk.title,
                        chunk.heading_path,
                        chunk.text,
                        identifier_parts(chunk.text),
                        chunk.chunk_index,
                        chunk.chunk_total,
                        chunk.token_count,
                        chunk.content_hash,
                        to_json(chunk.metadata),
                        now,
                        library.name,
                        library.language,
                        library.ecosystem,
                    ),
                )
                chunk_ids.append(int(self.db.scalar("SELECT last_insert_rowid()")))
            for space, vecs in (embeddings or {}).items():
                table = self.chunk_vectors(space)
                meta = (document.library_id, document.version)
                table.upsert([(i, v, meta) for i, v in zip(chunk_ids, vecs, strict=True)])
        return document_id

    def remove_documents(self, library_id: str, version: str, sources: Iterable[str]) -> int:
        removed = 0
        with self.db.transaction():
            for source in sources:
                ids = self._ids(
                    "SELECT id FROM documents WHERE library_id = ? AND version = ? AND source = ?",
                    library_id,
                    version,
                    source,
                )
                self._delete_documents(ids)
                removed += len(ids)
        return removed

    def _delete_documents(self, document_ids: Sequence[int]) -> None:
        if not document_ids:
            return
        chunk_ids: list[int] = []
        for doc_id in document_ids:
            chunk_ids += self._ids("SELECT id FROM chunks WHERE document_id = ?", doc_id)
        for space in vectors.list_spaces(self.db):
            self.chunk_vectors(space).delete(chunk_ids)
        for doc_id in document_ids:
            self.db.execute("DELETE FROM chunks WHERE document_id = ?", (doc_id,))
            self.db.execute("DELETE FROM documents WHERE id = ?", (doc_id,))

    def _ids(self, sql: str, *params: Any) -> list[int]:
        return [int(row[0]) for row in self.db.execute(sql, params)]

    def document_metadata(self) -> dict[int, dict[str, Any]]:
        """Metadata of every document by id (e.g. the folder it was read from)."""
        rows = self.db.query("SELECT id, metadata FROM documents")
        return {row["id"]: from_json(row["metadata"], {}) for row in rows}

    def get_chunks(self, ids: Sequence[int]) -> dict[int, ChunkRecord]:
        found: dict[int, ChunkRecord] = {}
        for start in range(0, len(ids), 500):
            batch = list(ids[start : start + 500])
            marks = ", ".join("?" for _ in batch)
            for row in self.db.query(
                "SELECT c.*, d.source FROM chunks c JOIN documents d ON d.id = c.document_id"
                f" WHERE c.id IN ({marks})",
                batch,
            ):
                found[row["id"]] = _chunk(row)
        return found

    def document_chunks(self, document_id: int, indexes: Sequence[int]) -> list[ChunkRecord]:
        if not indexes:
            return []
        marks = ", ".join("?" for _ in indexes)
        rows = self.db.query(
            "SELECT c.*, d.source FROM chunks c JOIN documents d ON d.id = c.document_id"
            f" WHERE c.document_id = ? AND c.chunk_index IN ({marks}) ORDER BY c.chunk_index",
            (document_id, *indexes),
        )
        return [_chunk(row) for row in rows]

    # -- vectors ----------------------------------------------------------

    def chunk_vectors(self, space: Space) -> VectorTable:
        return VectorTable(self.db, "chunks", space, CHUNK_VECTOR_METADATA)

    def vectors_by_content(self, space: Space, hashes: Sequence[str]) -> dict[str, bytes]:
        """Stored vectors of chunks with the given content hashes, for reuse."""
        table = self.chunk_vectors(space)
        if not hashes or not table.exists():
            return {}
        ids_by_hash: dict[int, str] = {}
        for start in range(0, len(hashes), 500):
            batch = list(hashes[start : start + 500])
            marks = ", ".join("?" for _ in batch)
            for row in self.db.execute(
                f"SELECT id, content_hash FROM chunks WHERE content_hash IN ({marks})", batch
            ):
                ids_by_hash[int(row[0])] = row[1]
        found: dict[str, bytes] = {}
        for rowid, blob in table.raw(list(ids_by_hash)).items():
            found.setdefault(ids_by_hash[rowid], blob)
        return found

    def chunks_missing_vectors(self, space: Space, limit: int = 256) -> list[ChunkRecord]:
        """Chunks that have no vector in ``space`` yet (for filling a new provider)."""
        table = self.chunk_vectors(space)
        if table.exists():
            rows = self.db.query(
                "SELECT c.*, d.source FROM chunks c JOIN documents d ON d.id = c.document_id"
                f" WHERE c.id NOT IN (SELECT rowid FROM {table.name}) ORDER BY c.id LIMIT ?",
                (limit,),
            )
        else:
            rows = self.db.query(
                "SELECT c.*, d.source FROM chunks c JOIN documents d ON d.id = c.document_id"
                " ORDER BY c.id LIMIT ?",
                (limit,),
            )
        return [_chunk(row) for row in rows]

    # -- search -----------------------------------------------------------

    def keyword_search(self, match: str, filters: Filters, limit: int) -> list[tuple[int, float]]:
        """Chunk ids and BM25 scores (higher is better) for an FTS5 MATCH expression."""
        clauses, params = _filter_sql(filters)
        rows = self.db.execute(
            "SELECT c.id, bm25(chunks_fts, 1.0, 2.0, 2.0, 0.5) AS rank FROM chunks_fts"
            " JOIN chunks c ON c.id = chunks_fts.rowid"
            f" WHERE chunks_fts MATCH ?{clauses} ORDER BY rank LIMIT ?",
            (match, *params, limit),
        ).fetchall()
        return [(int(chunk_id), -float(rank)) for chunk_id, rank in rows]

    def vector_search(
        self, space: Space, vector: Sequence[float], filters: Filters, limit: int
    ) -> list[tuple[int, float]]:
        table = self.chunk_vectors(space)
        where: dict[str, str] = {}
        if filters.library_id:
            where["library_id"] = filters.library_id
        if filters.version is not None:
            where["version"] = filters.version
        if filters.language or filters.ecosystem:
            # Only libraries can be filtered inside the KNN query; query each match.
            hits: list[tuple[int, float]] = []
            for library_id in self._library_ids(filters):
                hits += table.knn(vector, limit, {**where, "library_id": library_id})
            return sorted(hits, key=lambda hit: hit[1], reverse=True)[:limit]
        return table.knn(vector, limit, where)

    def _library_ids(self, filters: Filters) -> list[str]:
        clauses, params = ["1=1"], []
        if filters.library_id:
            clauses.append("id = ?")
            params.append(filters.library_id)
        if filters.language:
            clauses.append("lower(language) = lower(?)")
            params.append(filters.language)
        if filters.ecosystem:
            clauses.append("lower(ecosystem) = lower(?)")
            params.append(filters.ecosystem)
        rows = self.db.execute(f"SELECT id FROM libraries WHERE {' AND '.join(clauses)}", params)
        return [str(row[0]) for row in rows]

    def code_snippet_counts(self) -> dict[str, int]:
        """Chunks holding code, per library (Context7's "Code Snippets")."""
        rows = self.db.query(
            "SELECT library_id, count(*) AS n FROM chunks"
            " WHERE json_extract(metadata, '$.has_code') = 1 GROUP BY library_id"
        )
        return {row["library_id"]: row["n"] for row in rows}

    def spaces(self) -> list[Space]:
        return vectors.list_spaces(self.db)

    def stats(self) -> dict[str, Any]:
        return {
            "libraries": self.db.scalar("SELECT count(*) FROM libraries"),
            "documents": self.db.scalar("SELECT count(*) FROM documents"),
            "chunks": self.db.scalar("SELECT count(*) FROM chunks"),
            "embedding_spaces": [
                {"space": s.label, "vectors": self.chunk_vectors(s).count()} for s in self.spaces()
            ],
            "database": str(self.db.path),
            "size_bytes": self.db.path.stat().st_size if self.db.path.exists() else 0,
        }


def _filter_sql(filters: Filters) -> tuple[str, list[Any]]:
    clauses, params = "", []
    if filters.library_id:
        clauses += " AND c.library_id = ?"
        params.append(filters.library_id)
    if filters.version is not None:
        clauses += " AND c.version = ?"
        params.append(filters.version)
    if filters.language:
        clauses += " AND lower(c.language) = lower(?)"
        params.append(filters.language)
    if filters.ecosystem:
        clauses += " AND lower(c.ecosystem) = lower(?)"
        params.append(filters.ecosystem)
    return clauses, params


def _chunk(row: dict[str, Any]) -> ChunkRecord:
    return ChunkRecord(
        id=row["id"],
        document_id=row["document_id"],
        library_id=row["library_id"],
        version=row["version"],
        title=row["title"],
        heading_path=row["heading_path"],
        text=row["text"],
        chunk_index=row["chunk_index"],
        chunk_total=row["chunk_total"],
        token_count=row["token_count"],
        content_hash=row["content_hash"],
        metadata=from_json(row["metadata"], {}),
        source=row.get("source", ""),
    )
