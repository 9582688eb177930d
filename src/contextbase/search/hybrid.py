"""Hybrid retrieval over documentation chunks.

BM25 (FTS5) and vector KNN each produce a ranked candidate list; the lists
are fused (weighted score fusion by default, chosen on the DS-1000 dev set by
``benchmarks/bench_retrieval.py``), duplicates dropped, adjacent chunks of one
document merged, and the result cut to a token budget.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from contextbase.embed import Embedder
from contextbase.errors import InvalidInputError
from contextbase.search.fts import match_expression
from contextbase.search.fusion import reciprocal_rank_fusion, weighted_fusion
from contextbase.store.base import Store
from contextbase.store.models import ChunkRecord, Filters
from contextbase.store.vectors import Space
from contextbase.tokens import estimate_tokens, truncate_to_tokens

Mode = Literal["hybrid", "keyword", "vector"]
Fusion = Literal["rrf", "weighted"]
MODES = ("hybrid", "keyword", "vector")
MAX_QUERY_CHARS = 10_000


@dataclass
class SearchResult:
    chunk_id: int
    document_id: int
    library_id: str
    version: str
    source: str
    title: str
    heading_path: str
    text: str
    score: float
    chunk_indexes: list[int] = field(default_factory=list)
    chunk_paths: list[str] = field(default_factory=list)

    @property
    def tokens(self) -> int:
        return estimate_tokens(self.text)

    def as_dict(self) -> dict[str, object]:
        return {
            "library_id": self.library_id,
            "version": self.version,
            "source": self.source,
            "title": self.title,
            "heading_path": self.heading_path,
            "text": self.text,
            "score": round(self.score, 6),
            "chunk_id": self.chunk_id,
            "chunk_indexes": self.chunk_indexes,
        }


@dataclass
class SearchSettings:
    """How keyword and vector rankings are fused.

    The default, weighted score fusion at 0.3 keyword / 0.7 vector, had the best
    MRR@10 and hit@5 of the fusions compared on the DS-1000 dev set
    (``benchmarks/bench_retrieval.py``; reciprocal-rank fusion 1:1 was clearly worse).
    """

    fusion: Fusion = "weighted"
    keyword_weight: float = 0.3
    vector_weight: float = 0.7
    candidates: int = 50
    merge_adjacent: bool = True


class DocSearch:
    """Search one store's chunks with an optional embedder (None: keyword only)."""

    def __init__(
        self,
        store: Store,
        embedder: Embedder | None,
        settings: SearchSettings | None = None,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.settings = settings or SearchSettings()

    def space(self) -> Space | None:
        """The stored space the embedder writes into, if this database has it."""
        if self.embedder is None:
            return None
        wanted = (self.embedder.provider, self.embedder.model, self.embedder.dimension)
        return next(
            (s for s in self.store.spaces() if (s.provider, s.model, s.dimension) == wanted), None
        )

    def effective_mode(self, mode: Mode) -> Mode:
        if mode not in MODES:
            raise InvalidInputError(f"Search mode must be one of {', '.join(MODES)}, not {mode!r}.")
        if mode != "keyword" and self.space() is None:
            return "keyword"
        return mode

    def search(
        self,
        query: str,
        filters: Filters | None = None,
        *,
        limit: int = 10,
        tokens: int | None = None,
        mode: Mode = "hybrid",
    ) -> list[SearchResult]:
        query = query.strip()
        if not query:
            raise InvalidInputError("The query is empty; say what you are looking for.")
        if len(query) > MAX_QUERY_CHARS:
            query = query[:MAX_QUERY_CHARS]
        if limit < 1:
            raise InvalidInputError("The result limit must be at least 1.")
        filters = filters or Filters()
        mode = self.effective_mode(mode)
        ranked = self._ranked(query, filters, mode, max(self.settings.candidates, limit * 3))
        results = self._results(ranked)
        if self.settings.merge_adjacent:
            results = _merge_adjacent(results)
        results = results[:limit]
        return fit_budget(results, tokens) if tokens else results

    def _ranked(
        self, query: str, filters: Filters, mode: Mode, candidates: int
    ) -> list[tuple[int, float]]:
        keyword: list[tuple[int, float]] = []
        vector: list[tuple[int, float]] = []
        if mode in ("keyword", "hybrid"):
            match = match_expression(query)
            if match:
                keyword = self.store.keyword_search(match, filters, candidates)
        if mode in ("vector", "hybrid"):
            space = self.space()
            assert space is not None and self.embedder is not None
            vector = self.store.vector_search(
                space, self.embedder.embed_query(query), filters, candidates
            )
        if mode == "keyword":
            return keyword
        if mode == "vector":
            return vector
        weights = (self.settings.keyword_weight, self.settings.vector_weight)
        if self.settings.fusion == "weighted":
            return weighted_fusion([keyword, vector], weights)
        return reciprocal_rank_fusion([[k for k, _ in keyword], [k for k, _ in vector]], weights)

    def _results(self, ranked: Sequence[tuple[int, float]]) -> list[SearchResult]:
        chunks = self.store.get_chunks([chunk_id for chunk_id, _ in ranked])
        results: list[SearchResult] = []
        seen_content: set[str] = set()
        for chunk_id, score in ranked:
            chunk = chunks.get(chunk_id)
            if chunk is None or chunk.content_hash in seen_content:
                continue
            seen_content.add(chunk.content_hash)
            results.append(_result(chunk, score))
        return results


def _result(chunk: ChunkRecord, score: float) -> SearchResult:
    return SearchResult(
        chunk_id=chunk.id,
        document_id=chunk.document_id,
        library_id=chunk.library_id,
        version=chunk.version,
        source=chunk.source,
        title=chunk.title,
        heading_path=chunk.heading_path,
        text=chunk.text,
        score=score,
        chunk_indexes=[chunk.chunk_index],
        chunk_paths=[chunk.heading_path],
    )


def _merge_adjacent(results: list[SearchResult]) -> list[SearchResult]:
    """Join hits that are neighbouring chunks of one document into one result.

    The merged result takes the place (and score) of its best-ranked part, and
    its text runs in document order.
    """
    merged: list[SearchResult] = []
    by_document: dict[int, list[SearchResult]] = {}
    for result in results:
        group = by_document.setdefault(result.document_id, [])
        for other in group:
            indexes = other.chunk_indexes
            if result.chunk_indexes[0] in (min(indexes) - 1, max(indexes) + 1):
                _join(other, result)
                break
        else:
            group.append(result)
            merged.append(result)
    return merged


def _join(merged: SearchResult, neighbour: SearchResult) -> None:
    """Add a neighbouring chunk to a result, keeping document order and headings.

    When the chunk where the two meet sits under another heading, that heading
    is written into the text so the reader still sees the structure.
    """
    before = neighbour.chunk_indexes[0] < min(merged.chunk_indexes)
    if before:
        text = _headed(merged.text, merged.chunk_paths[0], neighbour.heading_path)
        merged.text = f"{neighbour.text}\n\n{text}"
        merged.chunk_indexes.insert(0, neighbour.chunk_indexes[0])
        merged.chunk_paths.insert(0, neighbour.heading_path)
    else:
        text = _headed(neighbour.text, neighbour.heading_path, merged.chunk_paths[-1])
        merged.text = f"{merged.text}\n\n{text}"
        merged.chunk_indexes.append(neighbour.chunk_indexes[0])
        merged.chunk_paths.append(neighbour.heading_path)
    merged.heading_path = _common_path(merged.chunk_paths)


def _headed(text: str, path: str, previous_path: str) -> str:
    """``text`` with its own heading in front when it differs from what precedes it."""
    if not path or path == previous_path:
        return text
    parts = path.split(" > ")
    heading = f"{'#' * min(len(parts), 6)} {parts[-1]}"
    return text if text.lstrip().startswith(heading) else f"{heading}\n\n{text}"


def _common_path(paths: list[str]) -> str:
    split = [p.split(" > ") for p in paths]
    common: list[str] = []
    for parts in zip(*split, strict=False):
        if len(set(parts)) > 1:
            break
        common.append(parts[0])
    return " > ".join(common) or paths[0]


def fit_budget(results: list[SearchResult], tokens: int) -> list[SearchResult]:
    """Keep results, best first, until their text reaches ``tokens``.

    The result that crosses the budget is shortened when enough room is left
    for it to be useful; otherwise the list stops before it.
    """
    kept: list[SearchResult] = []
    used = 0
    for result in results:
        room = tokens - used
        if result.tokens <= room:
            kept.append(result)
            used += result.tokens
            continue
        if room >= 100 or not kept:
            result.text = truncate_to_tokens(result.text, max(room, 50))
            kept.append(result)
        break
    return kept
