"""Retrieval evaluation at document level: hit@5, recall@10, MRR@10.

A query file holds one JSON object a line: ``{"id", "query", "gold": [paths]}``
with gold paths relative to a root folder. A returned chunk is a hit when its
source file, made relative to that root, is a gold path; so the root may be a
parent of several indexed libraries.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from contextbase.errors import InvalidInputError
from contextbase.search.hybrid import DocSearch, Mode
from contextbase.store.models import Filters


@dataclass
class EvalQuery:
    id: str
    query: str
    gold: set[str]


@dataclass
class QueryOutcome:
    id: str
    ranked: list[str]
    gold: list[str]
    hit_at_5: float
    recall_at_10: float
    mrr_at_10: float
    seconds: float


@dataclass
class EvalReport:
    mode: str
    queries: list[QueryOutcome] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        n = len(self.queries) or 1
        latencies = sorted(q.seconds for q in self.queries) or [0.0]
        return {
            "mode": self.mode,
            "queries": len(self.queries),
            "hit@5": round(sum(q.hit_at_5 for q in self.queries) / n, 4),
            "recall@10": round(sum(q.recall_at_10 for q in self.queries) / n, 4),
            "mrr@10": round(sum(q.mrr_at_10 for q in self.queries) / n, 4),
            "latency_p50_ms": round(1000 * latencies[len(latencies) // 2], 2),
            "latency_p95_ms": round(1000 * latencies[int(len(latencies) * 0.95) - 1 or 0], 2),
        }


def load_queries(path: str | Path) -> list[EvalQuery]:
    queries = []
    for number, line in enumerate(_lines(path), 1):
        try:
            item = json.loads(line)
            queries.append(
                EvalQuery(str(item.get("id", number)), str(item["query"]), set(item["gold"]))
            )
        except (ValueError, KeyError, TypeError) as exc:
            raise InvalidInputError(
                f"Line {number} of {path} is not a query object with 'query' and 'gold'."
            ) from exc
    if not queries:
        raise InvalidInputError(f"{path} holds no queries.")
    return queries


def _lines(path: str | Path) -> Iterator[str]:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise InvalidInputError(f"Cannot read the query file {path}: {exc.strerror}.") from exc
    return (line for line in text.splitlines() if line.strip())


def evaluate(
    search: DocSearch,
    queries: list[EvalQuery],
    root: str | Path,
    *,
    filters: Filters | None = None,
    k: int = 10,
    mode: Mode = "hybrid",
) -> EvalReport:
    root_path = Path(root).expanduser().resolve()
    report = EvalReport(mode=search.effective_mode(mode))
    roots = _document_roots(search)
    for query in queries:
        started = time.perf_counter()
        results = search.search(query.query, filters, limit=k * 5, mode=mode)
        seconds = time.perf_counter() - started
        ranked: list[str] = []
        for result in results:
            path = _relative(roots.get(result.document_id, ""), result.source, root_path)
            if path not in ranked:
                ranked.append(path)
            if len(ranked) == k:
                break
        report.queries.append(_score(query, ranked, seconds))
    return report


def _document_roots(search: DocSearch) -> dict[int, str]:
    return {
        doc_id: meta.get("root", "") for doc_id, meta in search.store.document_metadata().items()
    }


def _relative(document_root: str, source: str, root: Path) -> str:
    path = Path(document_root) / source if document_root else Path(source)
    try:
        return path.resolve().relative_to(root).as_posix()
    except ValueError:
        return source


def _score(query: EvalQuery, ranked: list[str], seconds: float) -> QueryOutcome:
    gold = query.gold
    found = [path in gold for path in ranked]
    first = next((i for i, hit in enumerate(found[:10], 1) if hit), None)
    return QueryOutcome(
        id=query.id,
        ranked=ranked,
        gold=sorted(gold),
        hit_at_5=1.0 if any(found[:5]) else 0.0,
        recall_at_10=len(set(ranked[:10]) & gold) / len(gold) if gold else 0.0,
        mrr_at_10=1.0 / first if first else 0.0,
        seconds=seconds,
    )
