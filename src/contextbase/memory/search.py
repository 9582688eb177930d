"""Ranking stored solutions against an error: keyword, semantic and hybrid.

Every score is in [0, 1] and means the same thing whatever the database size,
so ``minScore`` is a fixed threshold rather than a fraction of the best hit:

* **keyword** — the share of the query that the solution explains: each
  distinct query term weighs its inverse document frequency (exact error codes
  ×2, quoted names of 3+ characters ×0.15); a term found in the title, error,
  codes or tags counts fully, one found only in context, root cause or solution
  counts half. FTS5 BM25 picks the candidates and breaks ties (×0.8–1.0).
* **semantic** — cosine similarity of the embeddings, clipped at 0. A keyword
  candidate outside the vector search's top hits gets the similarity of the last
  of them, an upper bound (reading its vector would cost a lookup each).
* **hybrid** — ``SEMANTIC_WEIGHT × semantic + (1 − SEMANTIC_WEIGHT) × keyword``.

Then, in order: when the caller gives an environment, ``s = (1 − ENV_BOOST) × s
+ ENV_BOOST × m``, where ``m`` is how well the solution's versions match (1 same
major.minor, 0.5 same major, 0 different; 0.5 when it names none of them); and
exact error codes decide. When the query carries codes (``ECONNREFUSED``,
``TS2339``, ``[attr-defined]``, ``KeyError``), a solution sharing one scores
``0.5 + 0.5 × s``; one whose code of the same kind differs scores ``0.49 × s``,
so it can never outrank a match; others keep ``s``.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from contextbase.embed import Embedder
from contextbase.errors import InvalidInputError
from contextbase.memory.models import SearchFilters, SearchHit
from contextbase.memory.normalize import (
    code_family,
    code_value,
    embedding_text,
    normalize_error,
)
from contextbase.memory.store import SolutionStore, row_to_solution
from contextbase.search.fts import match_expression, query_terms

MODES = ("hybrid", "semantic", "sparse")
SEMANTIC_WEIGHT = 0.4
"""Share of the semantic score in hybrid mode. On the mypy dev set (benchmarks/bench_memory.py)
0.4 gave the best precision@1 of 0.3–0.7, all within two points of each other."""
ENV_BOOST = 0.1
CODE_WEIGHT, WORD_WEIGHT, IDENTIFIER_WEIGHT = 2.0, 1.0, 0.15
PROSE_CREDIT = 0.5
MIN_IDENTIFIER = 3
"""Quoted names shorter than this (``"x"``, ``"f"``) say nothing about the error."""
POSTINGS_BUDGET = 20_000
"""Most rows the MATCH query may touch; common terms beyond it still count in the score."""
DF_CACHE_SIZE = 50_000
FREQUENCY_DRIFT = 0.05
"""Cached document frequencies are reused until the number of solutions moves this much."""
BM25_SHARE = 0.2
"""How much of the keyword score BM25 (relative to the best hit) decides; coverage does the rest."""


@dataclass(frozen=True)
class _Scored:
    score: float
    updated_at: str
    pk: int
    semantic: float | None
    keyword: float | None
    verdict: str
    matched: tuple[str, ...]
    env_match: float | None


@dataclass(frozen=True)
class QueryPlan:
    """A query broken into weighted, tokenised terms."""

    codes: tuple[str, ...]
    terms: tuple[str, ...]
    """Search terms (``query_terms`` form) for the MATCH expression."""
    token_weights: dict[str, float]
    """Each stemmed token's weight (role × idf)."""
    term_tokens: dict[str, tuple[str, ...]]
    frequencies: dict[str, int]
    """How many solutions contain each token."""
    total: int
    """How many solutions there are."""


@dataclass(frozen=True)
class _Evidence:
    """What the candidate searches found, for scoring each candidate."""

    plan: QueryPlan
    bm25: dict[int, float]
    best_bm25: float
    cosines: dict[int, float]
    unseen: float
    use_keyword: bool
    use_semantic: bool


class SolutionSearch:
    def __init__(
        self,
        store: SolutionStore,
        embedder: Embedder | None,
        *,
        semantic_weight: float = SEMANTIC_WEIGHT,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.semantic_weight = semantic_weight
        self._df_cache: dict[str, tuple[int, int]] = {}

    def search(
        self,
        query: str,
        *,
        limit: int,
        min_score: float,
        mode: str,
        environment: Mapping[str, Any] | None = None,
        filters: SearchFilters | None = None,
    ) -> list[SearchHit]:
        """Best solutions for ``query``, at most ``limit``, each scoring ``min_score`` or more."""
        if mode == "semantic" and self.embedder is None:
            raise InvalidInputError(
                "Semantic search needs an embedding model, and this server runs keyword-only "
                "(embedder 'none'); use mode 'sparse' or 'hybrid'."
            )
        use_semantic = mode in ("semantic", "hybrid") and self.embedder is not None
        use_keyword = mode in ("sparse", "hybrid")
        # The model runs before any database read, so no snapshot is held while it works.
        query_vector = (
            self.embedder.embed_query(embedding_text(query))
            if use_semantic and self.embedder
            else None
        )
        plan = self._plan(query)
        depth = max(limit * 6, 40) * (5 if filters else 1)

        keyword_hits = self._keyword_candidates(plan, depth) if use_keyword else []
        semantic_hits = self._semantic_candidates(query_vector, depth) if use_semantic else []
        pks: dict[int, None] = dict.fromkeys(pk for pk, _ in keyword_hits)
        pks.update(dict.fromkeys(pk for pk, _ in semantic_hits))
        pks.update(dict.fromkeys(self.store.pks_with_codes(plan.codes, 50)))
        candidates = list(pks)
        if filters:
            allowed = self.store.filter_pks(candidates, filters)
            candidates = [pk for pk in candidates if pk in allowed]
        if not candidates:
            return []

        cosines = dict(semantic_hits)
        evidence = _Evidence(
            plan=plan,
            bm25=dict(keyword_hits),
            best_bm25=max((score for _, score in keyword_hits), default=0.0) or 1.0,
            cosines=cosines,
            # A candidate the vector search did not return is at most as similar as
            # its last hit; reading its vector instead costs a vec0 lookup each (slow).
            unseen=min(cosines.values()) if len(cosines) >= depth else 0.0,
            use_keyword=use_keyword,
            use_semantic=use_semantic,
        )
        scored = [
            s
            for row in self.store.scoring_rows(candidates)
            if (s := self._score(row, evidence, environment)).score >= min_score
        ]
        scored.sort(key=lambda s: (s.score, s.updated_at), reverse=True)
        top = scored[:limit]
        solutions = {
            row["pk"]: row_to_solution(row) for row in self.store.by_pks([s.pk for s in top])
        }
        return [
            SearchHit(
                solutions[s.pk], s.score, s.semantic, s.keyword, s.verdict, s.matched, s.env_match
            )
            for s in top
            if s.pk in solutions
        ]

    def _score(
        self, row: Mapping[str, Any], ev: _Evidence, environment: Mapping[str, Any] | None
    ) -> _Scored:
        semantic: float | None = None
        keyword: float | None = None
        if ev.use_semantic:
            semantic = max(0.0, min(1.0, ev.cosines.get(row["pk"], ev.unseen)))
        if ev.use_keyword:
            relative = ev.bm25.get(row["pk"], 0.0) / ev.best_bm25
            keyword = _coverage(ev.plan, row) * (1 - BM25_SHARE + BM25_SHARE * relative)
        if semantic is not None and keyword is not None:
            base = self.semantic_weight * semantic + (1 - self.semantic_weight) * keyword
        else:
            base = semantic if semantic is not None else (keyword or 0.0)
        env_match = None
        if environment:
            env_match = environment_match(environment, json.loads(row["environment"]))
            base = (1 - ENV_BOOST) * base + ENV_BOOST * (0.5 if env_match is None else env_match)
        verdict, matched = code_verdict(ev.plan.codes, _json_list(row["error_codes"]))
        return _Scored(
            _tiered(base, verdict),
            row["updated_at"],
            row["pk"],
            semantic,
            keyword,
            verdict,
            matched,
            env_match,
        )

    # -- query --------------------------------------------------------------------

    def _frequencies(self, tokens: list[str], total: int) -> dict[str, int]:
        """Document frequencies, cached: fts5vocab counts a term by reading its whole
        doclist, and an IDF a few percent stale ranks the same."""
        tolerance = max(50, FREQUENCY_DRIFT * total)
        found: dict[str, int] = {}
        stale: list[str] = []
        for token in tokens:
            cached = self._df_cache.get(token)
            if cached and abs(cached[1] - total) <= tolerance:
                found[token] = cached[0]
            else:
                stale.append(token)
        for token, frequency in self.store.document_frequencies(stale).items():
            self._df_cache[token] = (frequency, total)
            found[token] = frequency
        if len(self._df_cache) > DF_CACHE_SIZE:
            self._df_cache.clear()
        return found

    def _plan(self, query: str) -> QueryPlan:
        normalized = normalize_error(query)
        roles: dict[str, float] = {}
        for text, weight in (
            (" ".join(code_value(c) for c in normalized.codes), CODE_WEIGHT),
            (normalized.searchable, WORD_WEIGHT),
            (
                " ".join(i for i in normalized.identifiers if len(i) >= MIN_IDENTIFIER),
                IDENTIFIER_WEIGHT,
            ),
        ):
            for term in query_terms(text):
                roles[term] = max(roles.get(term, 0.0), weight)
        term_tokens = {term: tuple(self.store.tokens(term)) for term in roles}
        token_roles: dict[str, float] = {}
        for term, tokens in term_tokens.items():
            for token in tokens:
                token_roles[token] = max(token_roles.get(token, 0.0), roles[term])
        total = self.store.count()
        frequencies = self._frequencies(list(token_roles), total)
        weights = {
            token: role * _idf(frequencies[token], total) for token, role in token_roles.items()
        }
        return QueryPlan(normalized.codes, tuple(roles), weights, term_tokens, frequencies, total)

    def _keyword_candidates(self, plan: QueryPlan, depth: int) -> list[tuple[int, float]]:
        """BM25's best rows for the query's rarest terms, within a postings budget.

        BM25 scores every row a term matches, so a term found in a large share of
        the solutions costs time and ranks nothing; the rarest terms are kept until
        their postings would pass ``POSTINGS_BUDGET`` (the rarest always stays).
        """

        def postings(term: str) -> int:
            return min(plan.frequencies.get(tok, 0) for tok in plan.term_tokens[term])

        terms = sorted((t for t in plan.terms if plan.term_tokens[t]), key=postings)
        kept: list[str] = []
        spent = 0
        for term in terms:
            if kept and spent + postings(term) > POSTINGS_BUDGET:
                break
            kept.append(term)
            spent += postings(term)
        # Terms are query_terms output (alphanumeric words); "_" keeps a multi-word
        # term together as one phrase when match_expression quotes it again.
        expression = match_expression(" ".join(t.replace(" ", "_") for t in kept))
        if expression is None:
            return []
        return self.store.bm25(expression, depth)

    def _semantic_candidates(
        self, vector: list[float] | None, depth: int
    ) -> list[tuple[int, float]]:
        if vector is None or self.embedder is None:
            return []
        space = self.store.existing_space(self.embedder)
        if space is None:
            return []
        return self.store.vector_table(space).knn(vector, depth)


def _coverage(plan: QueryPlan, row: Mapping[str, Any]) -> float:
    """IDF-weighted share of the query's tokens the solution contains (prose counts half)."""
    total = sum(plan.token_weights.values())
    if total <= 0:
        return 0.0
    key = set(row["key_terms"].split())
    prose = set(row["prose_terms"].split())
    found = 0.0
    for token, weight in plan.token_weights.items():
        if token in key:
            found += weight
        elif token in prose:
            found += PROSE_CREDIT * weight
    return found / total


def _idf(frequency: int, total: int) -> float:
    return math.log(1.0 + (total - frequency + 0.5) / (frequency + 0.5))


def _tiered(base: float, verdict: str) -> float:
    if verdict == "match":
        return 0.5 + 0.5 * base
    if verdict == "conflict":
        return 0.49 * base
    return base


def code_verdict(query_codes: Sequence[str], codes: Sequence[str]) -> tuple[str, tuple[str, ...]]:
    """``match`` if a code is shared, ``conflict`` if a same-kind code differs, else ``none``."""
    if not query_codes:
        return "none", ()
    matched = tuple(c for c in query_codes if c in codes)
    if matched:
        return "match", matched
    families = {code_family(c) for c in query_codes}
    if any(code_family(c) in families for c in codes):
        return "conflict", ()
    return "none", ()


def _json_list(text: str) -> list[str]:
    value = json.loads(text) if text else []
    return [str(v) for v in value] if isinstance(value, list) else []


# -- environment ---------------------------------------------------------------

_NUMBERS = re.compile(r"\d+")


def flatten_environment(environment: Mapping[str, Any]) -> dict[str, str]:
    """Leaf values by their last key, lower-cased.

    ``{"runtime": {"node": "20"}}`` becomes ``{"node": "20"}``.
    """
    flat: dict[str, str] = {}

    def walk(value: Any, key: str) -> None:
        if isinstance(value, Mapping):
            for k, v in value.items():
                walk(v, str(k).lower())
        elif key and value is not None and not isinstance(value, list | tuple):
            flat[key] = str(value)

    walk(environment, "")
    return flat


def version_similarity(wanted: str, stored: str) -> float:
    """1 for the same major.minor, 0.5 for the same major, 0 otherwise (text: equal or not)."""
    a, b = _NUMBERS.findall(wanted), _NUMBERS.findall(stored)
    if not a or not b:
        return 1.0 if wanted.strip().casefold() == stored.strip().casefold() else 0.0
    if a[:2] == b[:2] or (len(a) == 1 and a[0] == b[0]):
        return 1.0
    return 0.5 if a[0] == b[0] else 0.0


def environment_match(wanted: Mapping[str, Any], stored: Mapping[str, Any]) -> float | None:
    """Mean version similarity over the keys both environments name; ``None`` if none."""
    if not wanted or not stored:
        return None
    a, b = flatten_environment(wanted), flatten_environment(stored)
    shared = [k for k in a if k in b]
    if not shared:
        return None
    return sum(version_similarity(a[k], b[k]) for k in shared) / len(shared)


def validate_mode(mode: str | None) -> str:
    value = (mode or "hybrid").strip().lower()
    if value not in MODES:
        raise InvalidInputError(f"mode {mode!r} is not one of {', '.join(MODES)}.")
    return value
