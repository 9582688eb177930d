"""Fusing ranked lists from keyword and vector search.

Two methods, compared on the dev sets by ``benchmarks/bench_retrieval.py``:
reciprocal-rank fusion (rank only) and weighted fusion of min-max normalised
scores. Keys are any hashable id (chunk id, solution id, ...).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TypeVar

K = TypeVar("K", bound=Hashable)

RRF_K = 60


def reciprocal_rank_fusion(
    rankings: Sequence[Sequence[K]],
    weights: Sequence[float] | None = None,
    k: int = RRF_K,
) -> list[tuple[K, float]]:
    """Score each key by the sum of ``weight / (k + rank)`` over the rankings."""
    weights = weights or [1.0] * len(rankings)
    scores: dict[K, float] = {}
    for ranking, weight in zip(rankings, weights, strict=True):
        for rank, key in enumerate(ranking, start=1):
            scores[key] = scores.get(key, 0.0) + weight / (k + rank)
    return sorted(scores.items(), key=lambda item: item[1], reverse=True)


def normalise(scored: Sequence[tuple[K, float]]) -> dict[K, float]:
    """Min-max scale scores to [0, 1] (a single hit scores 1)."""
    if not scored:
        return {}
    values = [s for _, s in scored]
    low, high = min(values), max(values)
    span = high - low
    return {key: (1.0 if span == 0 else (score - low) / span) for key, score in scored}


def weighted_fusion(
    scored_lists: Sequence[Sequence[tuple[K, float]]],
    weights: Sequence[float],
) -> list[tuple[K, float]]:
    """Sum of weighted, min-max normalised scores (higher is better in every input)."""
    scores: dict[K, float] = {}
    for scored, weight in zip(scored_lists, weights, strict=True):
        for key, value in normalise(scored).items():
            scores[key] = scores.get(key, 0.0) + weight * value
    return sorted(scores.items(), key=lambda item: item[1], reverse=True)
