"""The ``Store`` protocol: what the documentation features need from a backend.

``SQLiteStore`` implements it on one SQLite file. The search, resolver and docs
layers are written against this protocol, so another backend (PostgreSQL with
pgvector) can be added without touching them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from contextbase.store.models import (
    ChunkRecord,
    DocumentRecord,
    Filters,
    Library,
    LibrarySummary,
)
from contextbase.store.vectors import Space


class Store(Protocol):
    def upsert_library(self, library: Library) -> Library: ...

    def get_library(self, key: str) -> Library | None: ...

    def all_libraries(self) -> list[Library]: ...

    def list_libraries(self) -> list[LibrarySummary]: ...

    def remove_library(self, library_id: str, version: str | None = None) -> int: ...

    def document_checksums(self, library_id: str, version: str) -> dict[str, str]: ...

    def replace_document(
        self,
        document: DocumentRecord,
        chunks: Sequence[ChunkRecord],
        embeddings: dict[Space, Sequence[Sequence[float] | bytes]] | None = None,
    ) -> int: ...

    def remove_documents(self, library_id: str, version: str, sources: Iterable[str]) -> int: ...

    def document_metadata(self) -> dict[int, dict[str, Any]]: ...

    def get_chunks(self, ids: Sequence[int]) -> dict[int, ChunkRecord]: ...

    def keyword_search(
        self, match: str, filters: Filters, limit: int
    ) -> list[tuple[int, float]]: ...

    def vector_search(
        self, space: Space, vector: Sequence[float], filters: Filters, limit: int
    ) -> list[tuple[int, float]]: ...

    def code_snippet_counts(self) -> dict[str, int]: ...

    def spaces(self) -> list[Space]: ...

    def stats(self) -> dict[str, Any]: ...
