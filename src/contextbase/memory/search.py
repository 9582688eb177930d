"""Ranking stored solutions against an error: keyword, semantic and hybrid.

Every score is in [0, 1] and means the same thing whatever the database size,
so ``minScore`` is a fixed threshold rather than a fraction of the best hit:

* **keyword** — the share of the query that the solution explains: each
  distinct query term weighs its inverse document frequency (exact error codes
  ×2, quoted names ×0.35); a term found in the title, error, codes or tags
  counts fully, one found only in context, root cause or solution counts half.
  FTS5 BM25 picks the candidates and breaks ties (×0.8–1.0).
* **semantic** — cosine similarity of the embeddings, clipped at 0.
* **hybrid** — ``SEMANTIC_WEIGHT × semantic + (1 − SEMANTIC_WEIGHT) × keyword``.

Then, in order: when the caller gives an environment, ``s = (1 − ENV_BOOST) × s
+ ENV_BOOST × m``, where ``m`` is how well the solution's versions match (1 same
major.minor, 0.5 same major, 0 different; 0.5 when it names none of them); and
exact error codes decide. When the query carries
codes (``ECONNREFUSED``, ``TS2339``, ``[attr-defined]``, ``KeyError``), a
solution sharing one scores ``0.5 + 0.5 × s``; one whose code of the same kind
differs scores ``0.49 × s``, so it can never outrank a match; others keep ``s``.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from contextbase.embed import Embedder
from contextbase.errors import InvalidInputError
from contextbase.memory.models import SearchFilters, SearchHit
from contextbase.memory.normalize import (
    PLACEHOLDER,
    code_family,
    code_value,
    embedding_text,
    normalize_error,
)
from contextbase.memory.store import SolutionStore, row_to_solution
from contextbase.search.fts import match_expression, query_terms

MODES = ("hybrid", "semantic", "sparse")
SEMANTIC_WEIGHT = 0.5
"""Share of the semantic score in hybrid mode (measured on the mypy dev set, see benchmarks)."""
ENV_BOOST = 0.1
CODE_WEIGHT, WORD_WEIGHT, IDENTIFIER_WEIGHT = 2.0, 1.0, 0.15
PROSE_CREDIT = 0.5
MIN_IDENTIFIER = 3
"""Quoted names shorter than this (``"x"``, ``"f"``) say nothing about the error."""
COMMON_SHARE = 0.2
"""With 1,000+ solutions, terms found in more than this share are left out of the
MATCH query (they still count in the score): they rank nothing and cost time."""
PROSE_CHARS = 2000
BM25_SHARE = 0.2
"""How much of the keyword score BM25 (relative to the best hit) decides; coverage does the rest."""


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

        rows = self.store.by_pks(candidates)
        best_bm25 = max((score for _, score in keyword_hits), default=0.0) or 1.0
        bm25 = dict(keyword_hits)
        cosines = dict(semantic_hits)
        if query_vector is not None:
            missing = [pk for pk in candidates if pk not in cosines]
            cosines.update(self._cosines(query_vector, missing))

        hits: list[SearchHit] = []
        for row in rows:
            pk = row["pk"]
            semantic = max(0.0, min(1.0, cosines.get(pk, 0.0))) if use_semantic else None
            keyword = None
            if use_keyword:
                keyword = self._coverage(plan, row) * (
                    1 - BM25_SHARE + BM25_SHARE * bm25.get(pk, 0.0) / best_bm25
                )
            if semantic is not None and keyword is not None:
                base = self.semantic_weight * semantic + (1 - self.semantic_weight) * keyword
            else:
                base = semantic if semantic is not None else (keyword or 0.0)
            solution = row_to_solution(row)
            env_match = environment_match(environment or {}, solution.environment)
            if environment:
                neutral = 0.5 if env_match is None else env_match
                base = (1 - ENV_BOOST) * base + ENV_BOOST * neutral
            verdict, matched = code_verdict(plan.codes, solution.error_codes)
            score = _tiered(base, verdict)
            if score >= min_score:
                hits.append(
                    SearchHit(solution, score, semantic, keyword, verdict, matched, env_match)
                )
        hits.sort(key=lambda h: (h.score, h.solution.updated_at), reverse=True)
        return hits[:limit]

    # -- query --------------------------------------------------------------------

    def _plan(self, query: str) -> QueryPlan:
        normalized = normalize_error(query)
        roles: dict[str, float] = {}
        for text, weight in (
            (" ".join(code_value(c) for c in normalized.codes), CODE_WEIGHT),
            (normalized.searchable, WORD_WEIGHT),
            (" ".join(i for i in normalized.identifiers if len(i) >= MIN_IDENTIFIER), IDENTIFIER_WEIGHT),
        ):
            for term in query_terms(text):
                roles[term] = max(roles.get(term, 0.0), weight)
        term_tokens = {term: tuple(self.store.tokens(term)) for term in roles}
        token_roles: dict[str, float] = {}
        for term, tokens in term_tokens.items():
            for token in tokens:
                token_roles[token] = max(token_roles.get(token, 0.0), roles[term])
        frequencies = self.store.document_frequencies(token_roles)
        total = self.store.count()
        weights = {
            token: role * _idf(frequencies[token], total) for token, role in token_roles.items()
        }
        return QueryPlan(normalized.codes, tuple(roles), weights, term_tokens, frequencies, total)

    def _keyword_candidates(self, plan: QueryPlan, depth: int) -> list[tuple[int, float]]:
        terms = [t for t in plan.terms if plan.term_tokens[t]]
        if plan.total >= 1000:
            limit = COMMON_SHARE * plan.total
            rare = [
                t
                for t in terms
                if any(plan.frequencies.get(tok, 0) <= limit for tok in plan.term_tokens[t])
            ]
            terms = rare or terms
        # Terms are query_terms output (alphanumeric words); "_" keeps a multi-word
        # term together as one phrase when match_expression quotes it again.
        expression = match_expression(" ".join(t.replace(" ", "_") for t in terms))
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

    def _cosines(self, vector: list[float], pks: Sequence[int]) -> dict[int, float]:
        if not pks or self.embedder is None:
            return {}
        space = self.store.existing_space(self.embedder)
        if space is None:
            return {}
        raw = self.store.vector_table(space).raw(list(pks))
        query = np.asarray(vector, dtype=np.float32)
        query_norm = float(np.linalg.norm(query)) or 1.0
        found: dict[int, float] = {}
        for pk, blob in raw.items():
            stored = np.frombuffer(blob, dtype=np.float32)
            norm = float(np.linalg.norm(stored)) or 1.0
            found[pk] = float(stored @ query) / (norm * query_norm)
        return found

    # -- scoring ------------------------------------------------------------------

    def _coverage(self, plan: QueryPlan, row: Mapping[str, Any]) -> float:
        total = sum(plan.token_weights.values())
        if total <= 0:
            return 0.0
        key_text = "\n".join(
            (
                row["title"],
                PLACEHOLDER.sub(" ", row["error_normalized"]),
                row["error_identifiers"],
                " ".join(code_value(c) for c in _codes(row)),
                " ".join(_json_list(row["tags"]) + _json_list(row["labels"])),
            )
        )
        key = set(self.store.tokens(key_text))
        prose_text = "\n".join(
            (
                row["context"][:PROSE_CHARS],
                row["root_cause"][:PROSE_CHARS],
                row["solution"][:PROSE_CHARS],
            )
        )
        prose = set(self.store.tokens(prose_text))
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


def _codes(row: Mapping[str, Any]) -> list[str]:
    return _json_list(row["error_codes"])


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
