"""Indexing speed, search latency and retrieval quality on the DS-1000 dev set.

Indexes ../shared/corpora/devdocs-html/numpy~1.22 and pandas~1 keyword-only and
with the local model, times the pure model on the same chunks, and scores
keyword, vector and hybrid retrieval (several fusions) with hit@5, recall@10
and MRR@10.

    .venv/bin/python benchmarks/bench_retrieval.py [--chunk-tokens 350] [--limit-pages N]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import SHARED, latency_ms, print_table, timed, write_results
from contextbase.chunk import ChunkOptions
from contextbase.embed.local import LocalEmbedder
from contextbase.evaluation import evaluate, load_queries
from contextbase.ingest.folder import iter_folder
from contextbase.ingest.library import prepare_library
from contextbase.ingest.pipeline import Indexer
from contextbase.search.hybrid import DocSearch, SearchSettings
from contextbase.store.db import Database
from contextbase.store.sqlite import SQLiteStore

LIBRARIES = {"numpy": "numpy~1.22", "pandas": "pandas~1"}
FUSIONS = [
    ("rrf 1:1", SearchSettings("rrf", 1.0, 1.0)),
    ("rrf 1:2", SearchSettings("rrf", 1.0, 2.0)),
    ("rrf 2:1", SearchSettings("rrf", 2.0, 1.0)),
    ("weighted 0.3/0.7", SearchSettings("weighted", 0.3, 0.7)),
    ("weighted 0.5/0.5", SearchSettings("weighted", 0.5, 0.5)),
    ("weighted 0.7/0.3", SearchSettings("weighted", 0.7, 0.3)),
]


def index(db_path: Path, corpus: Path, embedder, options: ChunkOptions, limit: int | None):  # type: ignore[no-untyped-def]
    store = SQLiteStore(Database(db_path))
    reports = {}
    for name, folder in LIBRARIES.items():
        library = prepare_library(store, name, {}, ecosystem="pypi", language="Python")
        files = list(iter_folder(corpus / folder))[:limit]
        indexer = Indexer(store, [embedder] if embedder else [], options)
        reports[name] = indexer.index(library, "", files)
    return store, reports


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--chunk-tokens", type=int, default=350)
    parser.add_argument("--overlap-tokens", type=int, default=40)
    parser.add_argument("--limit-pages", type=int, default=None)
    parser.add_argument("--keep", type=Path, default=None, help="keep databases in this folder")
    parser.add_argument("--name", default="retrieval")
    args = parser.parse_args()

    corpus = SHARED / "corpora" / "devdocs-html"
    queries = load_queries(SHARED / "eval" / "ds1000-docs.jsonl")
    work = args.keep or Path(tempfile.mkdtemp(prefix="cb-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    options = ChunkOptions(args.chunk_tokens, args.overlap_tokens)

    for stale in ("keyword.db", "local.db"):
        for suffix in ("", "-wal", "-shm"):
            (work / f"{stale}{suffix}").unlink(missing_ok=True)

    (kw_store, _), kw_seconds = timed(
        lambda: index(work / "keyword.db", corpus, None, options, args.limit_pages)
    )
    model = LocalEmbedder()
    model.embed_query("warm up")
    (vec_store, vec_reports), vec_seconds = timed(
        lambda: index(work / "local.db", corpus, model, options, args.limit_pages)
    )
    texts = [
        f"{row['heading_path']}\n\n{row['text']}" if row["heading_path"] else row["text"]
        for row in vec_store.db.query("SELECT heading_path, text FROM chunks ORDER BY id")
    ]
    unique = list(dict.fromkeys(texts))
    _, model_seconds = timed(lambda: model.embed_documents(unique))

    pages = sum(r.files for r in vec_reports.values())
    chunks = sum(r.chunks for r in vec_reports.values())
    for db in (kw_store.db, vec_store.db):
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    indexing = {
        "pages": pages,
        "chunks": chunks,
        "chunk_tokens": args.chunk_tokens,
        "keyword_only_seconds": round(kw_seconds, 1),
        "local_embeddings_seconds": round(vec_seconds, 1),
        "pure_model_seconds": round(model_seconds, 1),
        "pipeline_over_model_ratio": round(vec_seconds / model_seconds, 3),
        "stage_seconds": {
            stage: round(sum(r.seconds[stage] for r in vec_reports.values()), 1)
            for stage in ("parse", "chunk", "embed", "store")
        },
        "db_bytes_keyword_only": (work / "keyword.db").stat().st_size,
        "db_bytes_with_vectors": (work / "local.db").stat().st_size,
    }
    print_table("Indexing", [indexing | {"stage_seconds": str(indexing["stage_seconds"])}])

    rows = []
    for label, mode, settings in [
        ("keyword", "keyword", SearchSettings()),
        ("vector", "vector", SearchSettings()),
        *[(f"hybrid {name}", "hybrid", s) for name, s in FUSIONS],
    ]:
        search = DocSearch(vec_store, model, settings)
        started = time.perf_counter()
        report = evaluate(search, queries, corpus, mode=mode)  # type: ignore[arg-type]
        summary = report.summary()
        rows.append(
            {
                "method": label,
                "hit@5": summary["hit@5"],
                "recall@10": summary["recall@10"],
                "mrr@10": summary["mrr@10"],
                **latency_ms([q.seconds for q in report.queries]),
                "seconds": round(time.perf_counter() - started, 1),
            }
        )
    print_table(f"DS-1000 dev set ({len(queries)} queries), document level", rows)
    write_results(args.name, {"indexing": indexing, "retrieval": rows})
    if args.keep is None:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    main()
