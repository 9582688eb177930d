"""The Crawl4AI-RAG feature: sources, RAG queries over crawled pages, code example search.

Results are shaped as the Crawl4AI RAG server shapes them (``url``,
``content``, ``metadata``, ``similarity``) so its users can switch.
``similarity`` is the cosine similarity between the query and the result
when an embedding model is configured, and the keyword score scaled to
0..1 otherwise; ``score`` is the fused rank score results are ordered by.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Sequence
from typing import Any

from contextbase.embed import Embedder
from contextbase.errors import InvalidInputError, NotFoundError
from contextbase.rag.store import RagStore, Source, StoredExample
from contextbase.search.fts import match_expression
from contextbase.search.fusion import reciprocal_rank_fusion
from contextbase.search.hybrid import DocSearch, SearchResult
from contextbase.store.models import Filters
from contextbase.store.sqlite import SQLiteStore
from contextbase.store.vectors import Space, VectorTable, find_space

MAX_MATCHES = 50
CANDIDATES = 50


class RagService:
    def __init__(self, store: SQLiteStore, embedder: Embedder | None) -> None:
        self.store = store
        self.rag = RagStore(store)
        self.embedder = embedder
        self.search = DocSearch(store, embedder)

    def sources(self) -> list[Source]:
        return self.rag.list_sources()

    def _space(self) -> Space | None:
        if self.embedder is None:
            return None
        e = self.embedder
        return find_space(self.store.db, e.provider, e.model, e.dimension)

    def _libraries(self, key: str | None) -> list[str] | None:
        if not key:
            return None
        ids = self.rag.library_ids_for(key.strip())
        if not ids:
            known = ", ".join(s.source_id for s in self.rag.list_sources()) or "none"
            raise NotFoundError(f"No source {key!r}; call get_available_sources (known: {known}).")
        return ids

    def rag_query(self, query: str, source: str | None = None, match_count: int = 5) -> dict:
        """Chunks of crawled pages (or any indexed library) that answer ``query``."""
        match_count = _check(query, match_count)
        library_ids = self._libraries(source)
        mode = self.search.effective_mode("hybrid")
        results: list[SearchResult] = []
        for library_id in library_ids or [None]:
            results += self.search.search(
                query, Filters(library_id=library_id), limit=match_count, mode=mode
            )
        results.sort(key=lambda r: r.score, reverse=True)
        results = results[:match_count]
        source_ids = self._source_ids()
        space = self._space()
        similarity = self._similarities(
            self.store.chunk_vectors(space) if space else None,
            query,
            [r.chunk_id for r in results],
            [r.score for r in results],
        )
        return {
            "success": True,
            "query": query,
            "source_filter": source,
            "search_mode": mode,
            "reranking_applied": False,
            "results": [
                {
                    "url": r.source,
                    "content": r.text,
                    "metadata": {
                        "title": r.title,
                        "headers": r.heading_path,
                        "chunk_index": r.chunk_indexes[0],
                        "chunk_indexes": r.chunk_indexes,
                        "library_id": r.library_id,
                        "version": r.version,
                        "source_id": source_ids.get(r.library_id, r.library_id),
                    },
                    "similarity": round(similarity[i], 4),
                    "score": round(r.score, 6),
                }
                for i, r in enumerate(results)
            ],
            "count": len(results),
        }

    def search_code_examples(
        self, query: str, source_id: str | None = None, match_count: int = 5
    ) -> dict:
        """Code examples whose code or summary matches ``query`` (hybrid search)."""
        match_count = _check(query, match_count)
        library_ids = self._libraries(source_id)
        keyword: list[tuple[int, float]] = []
        match = match_expression(query)
        if match:
            keyword = self.rag.keyword_search(match, library_ids, CANDIDATES)
        vector: list[tuple[int, float]] = []
        space = self._space()
        if space is not None and self.embedder is not None:
            vector = self.rag.vector_search(
                space, self.embedder.embed_query(query), library_ids, CANDIDATES
            )
        mode = "hybrid" if space is not None else "keyword"
        ranked = reciprocal_rank_fusion([[i for i, _ in keyword], [i for i, _ in vector]])
        examples = self.rag.get_examples([i for i, _ in ranked[: match_count * 2]])
        chosen: list[tuple[StoredExample, float]] = []
        seen: set[str] = set()
        for example_id, score in ranked:
            example = examples.get(example_id)
            if example is None or example.content in seen:
                continue
            seen.add(example.content)
            chosen.append((example, score))
            if len(chosen) == match_count:
                break
        keyword_scores = dict(keyword)
        source_ids = self._source_ids()
        similarity = self._similarities(
            self.rag.code_vectors(space) if space else None,
            query,
            [e.id for e, _ in chosen],
            [keyword_scores.get(e.id, 0.0) for e, _ in chosen],
        )
        return {
            "success": True,
            "query": query,
            "source_filter": source_id,
            "search_mode": mode,
            "reranking_applied": False,
            "results": [
                {
                    "url": e.url,
                    "code": e.content,
                    "summary": e.summary,
                    "metadata": {
                        "language": e.language,
                        "headers": e.heading_path,
                        "chunk_number": e.chunk_number,
                        "context_before": e.context_before,
                        "context_after": e.context_after,
                        "library_id": e.library_id,
                        "version": e.version,
                    },
                    "source_id": source_ids.get(e.library_id, e.library_id),
                    "similarity": round(similarity[i], 4),
                    "score": round(score, 6),
                }
                for i, (e, score) in enumerate(chosen)
            ],
            "count": len(chosen),
        }

    def _source_ids(self) -> dict[str, str]:
        """Source id of each library that came from a site or repository."""
        return {s.library_id: s.source_id for s in self.rag.list_sources()}

    def _similarities(
        self,
        table: VectorTable | None,
        query: str,
        ids: Sequence[int],
        fallback: Sequence[float],
    ) -> list[float]:
        """Cosine similarity of each row's vector to the query; scaled scores without one."""
        if table is None or self.embedder is None or not ids:
            top = max(fallback, default=0.0) or 1.0
            return [max(0.0, s) / top for s in fallback]
        query_vector = self.embedder.embed_query(query)
        raw = table.raw(list(ids))
        return [_cosine(query_vector, raw[i]) if i in raw else 0.0 for i in ids]


def _check(query: str, match_count: int) -> int:
    if not query or not query.strip():
        raise InvalidInputError("The query is empty; say what you are looking for.")
    if not isinstance(match_count, int) or match_count < 1:
        raise InvalidInputError("match_count must be a positive whole number.")
    return min(match_count, MAX_MATCHES)


def _cosine(a: Sequence[float], blob: bytes) -> float:
    b = array("f", blob)
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0


def as_json_sources(sources: Sequence[Source]) -> dict[str, Any]:
    return {
        "success": True,
        "sources": [
            {
                "source_id": s.source_id,
                "summary": s.summary,
                "total_words": s.total_word_count,
                "total_word_count": s.total_word_count,
                "kind": s.kind,
                "url": s.url,
                "library_id": s.library_id,
                "version": s.version,
                "documents": s.document_count,
                "code_examples": s.code_example_count,
                "created_at": s.created_at,
                "updated_at": s.updated_at,
            }
            for s in sources
        ],
        "count": len(sources),
    }
