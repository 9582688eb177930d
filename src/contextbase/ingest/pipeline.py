"""Incremental indexing of a library version from any source.

Unchanged files (same checksum, vectors present in every configured space,
or flagged ``unchanged`` by their source) are skipped; changed files replace
their document atomically; files the source no longer has are removed.
Chunks of several documents are embedded together in batches, which keeps
the model busy, and each document is then written in its own transaction,
so a killed process leaves only whole documents behind and a re-run picks
up where it stopped.

Observers derive more rows from each stored document (code examples, word
counts): they prepare a batch outside any transaction, where slow work such
as embedding belongs, and write inside each document's own transaction, so
a document and what was derived from it are stored together or not at all.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from contextbase.chunk import Chunk, ChunkOptions, chunk_markdown
from contextbase.embed import Embedder
from contextbase.errors import ContextbaseError
from contextbase.ingest.files import SourceFile
from contextbase.parse import ParsedDocument, parse_document
from contextbase.store.models import ChunkRecord, DocumentRecord, Library
from contextbase.store.sqlite import SQLiteStore
from contextbase.store.vectors import Space, ensure_space

log = logging.getLogger("contextbase.ingest")

EMBED_BATCH = 1024
"""Chunks embedded together: a large batch lets the model sort texts by length and pad
less; documents are still written one transaction each."""


@dataclass
class IndexReport:
    files: int = 0
    indexed: int = 0
    unchanged: int = 0
    skipped: list[str] = field(default_factory=list)
    removed: int = 0
    chunks: int = 0
    vectors: dict[str, int] = field(default_factory=dict)
    reused_vectors: int = 0
    seconds: dict[str, float] = field(
        default_factory=lambda: {
            "parse": 0.0,
            "chunk": 0.0,
            "embed": 0.0,
            "observers": 0.0,
            "store": 0.0,
        }
    )

    def as_dict(self) -> dict[str, object]:
        return {
            "files": self.files,
            "indexed": self.indexed,
            "unchanged": self.unchanged,
            "skipped": self.skipped,
            "removed": self.removed,
            "chunks": self.chunks,
            "vectors": self.vectors,
            "reused_vectors": self.reused_vectors,
            "seconds": {k: round(v, 3) for k, v in self.seconds.items()},
        }


@dataclass
class _Pending:
    file: SourceFile
    parsed: ParsedDocument
    chunks: list[Chunk]


@dataclass(frozen=True)
class IndexedDocument:
    """A document about to be stored, as observers see it."""

    library: Library
    record: DocumentRecord
    parsed: ParsedDocument


class DocumentObserver(Protocol):
    """Derives more rows from each document the Indexer stores."""

    def prepare(self, documents: Sequence[IndexedDocument]) -> list[Callable[[int], None]]:
        """Work out what to write for a batch of documents, outside any transaction.

        Returns one writer per document, in order; the Indexer calls it with the
        stored document's id inside the transaction that stores the document.
        """
        ...


Progress = Callable[[str, int], None]
"""Called with an event (``file``, ``chunks``) and a count."""


class Indexer:
    def __init__(
        self,
        store: SQLiteStore,
        embedders: Sequence[Embedder] = (),
        chunk_options: ChunkOptions | None = None,
        progress: Progress | None = None,
        observers: Sequence[DocumentObserver] = (),
    ) -> None:
        self.store = store
        self.embedders = list(embedders)
        self.chunk_options = chunk_options or ChunkOptions()
        self.progress = progress or (lambda event, count: None)
        self.observers = list(observers)
        self._spaces: dict[int, Space] = {}

    def _space(self, embedder: Embedder) -> Space:
        key = id(embedder)
        if key not in self._spaces:
            self._spaces[key] = ensure_space(
                self.store.db, embedder.provider, embedder.model, embedder.dimension
            )
        return self._spaces[key]

    def index(
        self,
        library: Library,
        version: str,
        files: Iterable[SourceFile],
        *,
        remove_missing: bool = True,
    ) -> IndexReport:
        """Index ``files`` as ``library``/``version``; remove documents not seen when complete."""
        report = IndexReport()
        known = self.store.document_checksums(library.id, version)
        complete = self.documents_with_all_vectors(library.id, version)
        seen: set[str] = set()
        pending: list[_Pending] = []
        for file in files:
            report.files += 1
            seen.add(file.source)
            self.progress("file", 1)
            if file.unchanged and file.source in known:
                report.unchanged += 1
                continue
            if known.get(file.source) == file.checksum and file.source in complete:
                report.unchanged += 1
                continue
            started = time.perf_counter()
            try:
                parsed = parse_document(file.data, file.source, file.content_type)
            except ContextbaseError as exc:
                parsed = None
                log.warning("Skipped %s: %s", file.source, exc)
            report.seconds["parse"] += time.perf_counter() - started
            if parsed is None or not parsed.markdown.strip():
                report.skipped.append(file.source)
                continue
            started = time.perf_counter()
            chunks = chunk_markdown(parsed.markdown, parsed.title, self.chunk_options)
            report.seconds["chunk"] += time.perf_counter() - started
            pending.append(_Pending(file, parsed, chunks))
            if sum(len(p.chunks) for p in pending) >= EMBED_BATCH:
                self._flush(library, version, pending, report)
                pending = []
        self._flush(library, version, pending, report)
        if remove_missing:
            gone = [source for source in known if source not in seen]
            report.removed = self.store.remove_documents(library.id, version, gone)
        with self.store.db.transaction():
            self.store.refresh_library(library.id)
        return report

    def documents_with_all_vectors(self, library_id: str, version: str) -> set[str]:
        """Sources whose chunks all have a vector in every configured space."""
        rows = self.store.db.query(
            "SELECT d.source, c.id FROM documents d JOIN chunks c ON c.document_id = d.id"
            " WHERE d.library_id = ? AND d.version = ?",
            (library_id, version),
        )
        sources = {row["source"] for row in rows} | set(
            self.store.document_checksums(library_id, version)
        )
        for embedder in self.embedders:
            table = self.store.chunk_vectors(self._space(embedder))
            have = set(table.raw([row["id"] for row in rows]))
            sources -= {row["source"] for row in rows if row["id"] not in have}
        return sources

    def _flush(
        self, library: Library, version: str, pending: list[_Pending], report: IndexReport
    ) -> None:
        if not pending:
            return
        all_chunks = [chunk for item in pending for chunk in item.chunks]
        started = time.perf_counter()
        vectors = {self._space(e): self._embed(e, all_chunks, report) for e in self.embedders}
        report.seconds["embed"] += time.perf_counter() - started
        documents = [
            IndexedDocument(
                library,
                DocumentRecord(
                    library_id=library.id,
                    version=version,
                    source=item.file.source,
                    source_type=item.file.source_type,
                    format=item.parsed.format,
                    title=item.parsed.title,
                    checksum=item.file.checksum,
                    metadata={**item.parsed.metadata, **item.file.metadata},
                ),
                item.parsed,
            )
            for item in pending
        ]
        started = time.perf_counter()
        writers = [observer.prepare(documents) for observer in self.observers]
        report.seconds["observers"] += time.perf_counter() - started
        started = time.perf_counter()
        offset = 0
        for position, (item, document) in enumerate(zip(pending, documents, strict=True)):
            count = len(item.chunks)
            records = [_record(chunk, item.parsed.title) for chunk in item.chunks]
            embeddings = {space: vecs[offset : offset + count] for space, vecs in vectors.items()}
            with self.store.db.transaction():
                document_id = self.store.replace_document(document.record, records, embeddings)
                for observer_writers in writers:
                    observer_writers[position](document_id)
            offset += count
            report.indexed += 1
            report.chunks += count
            self.progress("chunks", count)
        report.seconds["store"] += time.perf_counter() - started

    def _embed(
        self, embedder: Embedder, chunks: list[Chunk], report: IndexReport
    ) -> list[list[float] | bytes]:
        """Vectors for ``chunks``, reusing stored ones for identical content."""
        space = self._space(embedder)
        reusable = self.store.vectors_by_content(space, [c.content_hash for c in chunks])
        todo = [c for c in chunks if c.content_hash not in reusable]
        fresh: dict[str, list[float]] = {}
        unique = list({c.content_hash: c for c in todo}.values())
        if unique:
            vecs = embedder.embed_documents([c.embedding_text() for c in unique])
            fresh = {c.content_hash: v for c, v in zip(unique, vecs, strict=True)}
        report.reused_vectors += len(chunks) - len(todo)
        report.vectors[space.label] = report.vectors.get(space.label, 0) + len(chunks)
        return [reusable.get(c.content_hash) or fresh[c.content_hash] for c in chunks]


def _record(chunk: Chunk, title: str) -> ChunkRecord:
    return ChunkRecord(
        text=chunk.text,
        title=title,
        heading_path=chunk.heading_path,
        chunk_index=chunk.index,
        chunk_total=chunk.total,
        token_count=chunk.token_count,
        content_hash=chunk.content_hash,
        metadata={"has_code": chunk.has_code},
    )
