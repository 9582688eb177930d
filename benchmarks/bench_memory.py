"""Error-solution memory: quality, latency at scale, and concurrent processes.

1. Quality on ../shared/eval/mypy-errors: one solution per documented mypy
   error code, searched with each real message; precision@1 and recall@5 for
   sparse, semantic and hybrid search with the local model (plus a sweep of the
   hybrid weight and reciprocal-rank fusion for comparison).
2. Latency p50/p95/p99 of a search with 1,000, 10,000 and 100,000 stored
   solutions, and the database size. The real model embeds up to
   ``--model-max`` solutions; the largest sizes use the fake embedder at the
   model's dimension (384), which costs the vector search exactly the same.
3. Concurrency: N processes × M mixed saves and searches on one database file.

Usage: python benchmarks/bench_memory.py [--quick] [--skip quality,latency,concurrency]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import sys
import tempfile
import time
import uuid
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import SHARED, latency_ms, print_table, write_results
from _memory_data import (
    mypy_queries,
    mypy_solutions,
    synthetic_queries,
    synthetic_solution,
    synthetic_solutions,
)
from contextbase.embed import Embedder
from contextbase.embed.fake import FakeEmbedder
from contextbase.memory import SolutionMemory
from contextbase.memory.normalize import embedding_text
from contextbase.search.fusion import reciprocal_rank_fusion
from contextbase.store.db import Database, utcnow

DIMENSION = 384


class CachedQueries:
    """An embedder whose query vectors are computed once (to time retrieval alone)."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.provider, self.model, self.dimension = inner.provider, inner.model, inner.dimension
        self.embed_query = lru_cache(maxsize=None)(inner.embed_query)

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        return self.inner.embed_documents(texts)


def _local() -> Embedder:
    from contextbase.embed.local import LocalEmbedder

    return LocalEmbedder()


# -- 1. quality --------------------------------------------------------------------


def quality(work: Path) -> dict[str, Any]:
    folder = SHARED / "eval" / "mypy-errors"
    solutions = mypy_solutions(folder)
    queries = mypy_queries(folder)
    embedder = CachedQueries(_local())
    db = Database(work / "mypy.db")
    memory = SolutionMemory(db, embedder)
    code_of: dict[str, str] = {}
    started = time.perf_counter()
    for fields in solutions:
        saved = memory.save({k: v for k, v in fields.items() if k != "code"})
        code_of[saved.solution.id] = fields["code"]
    save_seconds = time.perf_counter() - started
    documented = set(code_of.values())
    judged = [(q, c) for q, c in queries if c in documented]

    def rankings(mode: str) -> list[list[str]]:
        return [
            [
                code_of[h.solution.id]
                for h in memory.search(q, limit=20, min_score=0, mode=mode).hits
            ]
            for q, _ in judged
        ]

    def metrics(ranked: list[list[str]]) -> dict[str, float]:
        truth = [c for _, c in judged]
        p1 = sum(r[:1] == [c] for r, c in zip(ranked, truth, strict=True)) / len(truth)
        r5 = sum(c in r[:5] for r, c in zip(ranked, truth, strict=True)) / len(truth)
        mrr = sum(1 / (r.index(c) + 1) if c in r else 0 for r, c in zip(ranked, truth, strict=True))
        return {"p@1": round(p1, 3), "recall@5": round(r5, 3), "mrr": round(mrr / len(truth), 3)}

    rows: list[dict[str, Any]] = []
    per_mode = {mode: rankings(mode) for mode in ("sparse", "semantic")}
    for mode, ranked in per_mode.items():
        rows.append({"method": mode, **metrics(ranked)})
    default_weight = memory.searcher.semantic_weight
    for weight in (0.3, 0.4, 0.5, 0.6, 0.7):
        memory.searcher.semantic_weight = weight
        label = f"hybrid w={weight}" + (" (default)" if weight == default_weight else "")
        rows.append({"method": label, **metrics(rankings("hybrid"))})
    memory.searcher.semantic_weight = default_weight
    fused = [
        [key for key, _ in reciprocal_rank_fusion([sparse, semantic])]
        for sparse, semantic in zip(per_mode["sparse"], per_mode["semantic"], strict=True)
    ]
    rows.append({"method": "rrf(sparse, semantic)", **metrics(fused)})

    # What an agent gets with the defaults (limit 5, minScore 0.3, hybrid).
    defaults = [[code_of[h.solution.id] for h in memory.search(q).hits] for q, _ in judged]
    in_defaults = sum(c in r for r, (_, c) in zip(defaults, judged, strict=True)) / len(judged)
    empty = sum(not r for r in defaults) / len(judged)
    db.close()
    print_table(
        f"Quality: {len(judged)} real mypy messages vs {len(solutions)} documented codes "
        "(local model)",
        rows,
    )
    print(
        f"defaults (hybrid, limit 5, minScore 0.3): right solution listed for "
        f"{in_defaults:.1%} of messages, nothing listed for {empty:.1%}"
    )
    return {
        "solutions": len(solutions),
        "queries": len(judged),
        "queries_without_documented_code": len(queries) - len(judged),
        "save_seconds": round(save_seconds, 2),
        "methods": rows,
        "defaults_recall": round(in_defaults, 3),
        "defaults_empty": round(empty, 3),
    }


# -- 2. latency ------------------------------------------------------------------


def _records(count: int, seed: int) -> list[str]:
    now = utcnow()
    lines = []
    for fields in synthetic_solutions(count, seed):
        fields.update(id=str(uuid.uuid4()), createdAt=now, updatedAt=now)
        lines.append(json.dumps(fields))
    return lines


def _db_size(db: Database) -> float:
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
    return round(os.path.getsize(db.path) / 1e6, 1)


def _measure(memory: SolutionMemory, queries: list[str], mode: str) -> dict[str, float]:
    samples = []
    for query in queries:
        started = time.perf_counter()
        memory.search(query, mode=mode)
        samples.append(time.perf_counter() - started)
    return latency_ms(samples)


def _series(
    path: Path, fill: Embedder, sizes: list[int], queries: list[str], variants: dict[str, Embedder]
) -> list[dict[str, Any]]:
    """Grow one database through ``sizes``; at each size time every variant and mode."""
    db = Database(path)
    loader = SolutionMemory(db, fill)
    runs: list[dict[str, Any]] = []
    loaded = 0
    for size in sizes:
        started = time.perf_counter()
        loader.import_jsonl(_records(size - loaded, seed=size))
        rate = round((size - loaded) / (time.perf_counter() - started))
        loaded = size
        size_mb = _db_size(db)
        for name, embedder in variants.items():
            memory = SolutionMemory(db, embedder)
            # One untimed pass caches the query vectors (retrieval-only variants)
            # and warms SQLite's pages; a query embedded live is warmed once.
            for query in queries if isinstance(embedder, CachedQueries) else queries[:1]:
                memory.search(query)
            for mode in ("hybrid", "sparse", "semantic"):
                runs.append(
                    {
                        "setup": name,
                        "solutions": size,
                        "mode": mode,
                        **_measure(memory, queries, mode),
                        "db_mb": size_mb,
                        "fill_per_s": rate,
                    }
                )
        print(f"  {path.stem}: {size} solutions measured", flush=True)
    db.close()
    return runs


def latency(work: Path, sizes: list[int], model_max: int, query_count: int) -> dict[str, Any]:
    queries = synthetic_queries(query_count, seed=99)
    runs: list[dict[str, Any]] = []
    model_sizes = [s for s in sizes if s <= model_max]
    embedding: dict[str, float] = {}
    if model_sizes:
        local = _local()
        local.embed_query("warm up")
        samples = []
        for query in queries:
            started = time.perf_counter()
            local.embed_query(embedding_text(query))
            samples.append(time.perf_counter() - started)
        embedding = latency_ms(samples)
        print(f"local model, one query embedded: {embedding}")
        variants = {
            "local model, query embedded": local,
            "local model, retrieval only": CachedQueries(local),
        }
        runs += _series(work / "local.db", local, model_sizes, queries, variants)
    fake = CachedQueries(FakeEmbedder(DIMENSION))
    runs += _series(work / "fake.db", fake, sizes, queries, {"fake-384, retrieval only": fake})
    columns = ("setup", "solutions", "mode", "p50_ms", "p95_ms", "p99_ms", "db_mb", "fill_per_s")
    print_table(
        f"Search latency ({len(queries)} fresh error messages, limit 5)",
        [{c: run[c] for c in columns} for run in runs],
    )
    return {
        "queries": len(queries),
        "query_embedding_local_model": embedding,
        "load_average": os.getloadavg(),
        "runs": runs,
        "seed_paper_ms": {"1000": [65, 110, 145], "10000": [550, 950, 1200]},
    }


# -- 3. concurrency --------------------------------------------------------------


def _worker(args: tuple[str, int, int]) -> dict[str, Any]:
    path, worker, operations = args
    rng = random.Random(1000 + worker)
    db = Database(path)
    memory = SolutionMemory(db, FakeEmbedder(DIMENSION))
    errors: list[str] = []
    saves: list[float] = []
    searches: list[float] = []
    ids: list[str] = []
    start = time.time()
    for op in range(operations):
        began = time.perf_counter()
        try:
            if op % 2 == 0:
                ids.append(memory.save(synthetic_solution(rng)).solution.id)
                saves.append(time.perf_counter() - began)
            else:
                memory.search(synthetic_solution(rng)["errorMessage"])
                searches.append(time.perf_counter() - began)
        except Exception as exc:  # every failure is counted and reported
            errors.append(f"{type(exc).__name__}: {exc}")
    end = time.time()
    db.close()
    return {
        "errors": errors,
        "ids": ids,
        "saves": saves,
        "searches": searches,
        "start": start,
        "end": end,
    }


def concurrency(work: Path, processes: int, operations: int, prefill: int) -> dict[str, Any]:
    path = work / "concurrency.db"
    db = Database(path)
    SolutionMemory(db, FakeEmbedder(DIMENSION)).import_jsonl(_records(prefill, seed=7))
    db.close()
    with multiprocessing.get_context("spawn").Pool(processes) as pool:
        results = pool.map(_worker, [(str(path), w, operations) for w in range(processes)])
    errors = [e for r in results for e in r["errors"]]
    save_calls = sum(len(r["ids"]) for r in results)
    wall = max(r["end"] for r in results) - min(r["start"] for r in results)
    db = Database(path)
    rows = db.scalar("SELECT count(*) FROM solutions")
    saved_total = db.scalar("SELECT sum(save_count) FROM solutions")
    distinct_ids = {i for r in results for i in r["ids"]}
    found = db.scalar(
        "SELECT count(*) FROM solutions WHERE id IN (SELECT value FROM json_each(?))",
        (json.dumps(sorted(distinct_ids)),),
    )
    db.close()
    lost = (prefill + save_calls - saved_total) + (len(distinct_ids) - found)
    summary = {
        "processes": processes,
        "operations_per_process": operations,
        "prefilled": prefill,
        "errors": len(errors),
        "error_samples": errors[:5],
        "database_locked_errors": sum("locked" in e for e in errors),
        "save_calls": save_calls,
        "lost_writes": lost,
        "rows_after": rows,
        "merged_near_duplicates": prefill + save_calls - rows,
        "wall_seconds": round(wall, 2),
        "ops_per_second": round(processes * operations / wall, 1),
        "save_latency": latency_ms([s for r in results for s in r["saves"]]),
        "search_latency": latency_ms([s for r in results for s in r["searches"]]),
    }
    print_table(
        f"Concurrency: {processes} processes × {operations} ops (half saves, half searches)",
        [{k: v for k, v in summary.items() if not isinstance(v, dict | list)}],
    )
    print(f"save latency {summary['save_latency']}\nsearch latency {summary['search_latency']}")
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="A small, fast run.")
    parser.add_argument("--skip", default="", help="Comma-separated parts to skip.")
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument(
        "--model-max", type=int, default=10_000, help="Largest size embedded with the real model."
    )
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--processes", type=int, default=16)
    parser.add_argument("--operations", type=int, default=500)
    args = parser.parse_args()
    if args.quick:
        args.sizes, args.model_max, args.queries = "1000,5000", 1000, 50
        args.processes, args.operations = 4, 100
    skip = set(filter(None, args.skip.split(",")))
    results: dict[str, Any] = {"quick": args.quick}
    with tempfile.TemporaryDirectory(prefix="bench-memory-") as tmp:
        work = Path(tmp)
        if "quality" not in skip:
            results["quality"] = quality(work)
        if "latency" not in skip:
            sizes = [int(s) for s in args.sizes.split(",")]
            results["latency"] = latency(work, sizes, args.model_max, args.queries)
        if "concurrency" not in skip:
            results["concurrency"] = concurrency(
                work, args.processes, args.operations, prefill=1000
            )
    write_results("memory", results)


if __name__ == "__main__":
    main()
