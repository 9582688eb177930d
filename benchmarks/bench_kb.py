"""kb-builder and search_knowledgebase on the real PostgreSQL manual (DocBook SGML).

1. Builds a knowledgebase of ../shared/corpora/postgresql-18-sgml as one version
   with the local model: files, chunks, time, size, texts embedded.
2. Declares the same manual as five versions (14 to 18) and builds again: the
   four new versions reuse every vector, so they should cost almost nothing;
   reports the time and embedding ratios against the first version.
3. Times ``search_knowledgebase`` through an in-memory MCP client (p50/p95),
   unfiltered and filtered to one version.

    .venv/bin/python benchmarks/bench_kb.py [--quick] [--keep DIR]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import SHARED, latency_ms, print_table, write_results
from contextbase.config import load_settings
from contextbase.kb.build import BuildSummary, build
from contextbase.kb.config import load_config
from contextbase.server import kb_tools
from contextbase.server.state import ServerState

CORPUS = SHARED / "corpora" / "postgresql-18-sgml"
VERSIONS = ["18", "17", "16", "15", "14"]
QUICK_FILES = 40
QUERIES = [
    "How do I create a partial index?",
    "What does work_mem control?",
    "configure streaming replication to a standby",
    "MERGE statement syntax",
    "jsonb containment operator",
    "what happens at a checkpoint",
    "difference between VACUUM FULL and plain VACUUM",
    "create a role that can log in",
    "pg_dump custom archive format",
    "rank() window function",
    "LISTEN and NOTIFY",
    "GIN index for full text search",
    "partition a table by range",
    "logical replication publication and subscription",
    "EXPLAIN ANALYZE with BUFFERS",
    "autovacuum_vacuum_scale_factor",
    "serializable transaction isolation",
    "CREATE EXTENSION",
    "postgres_fdw foreign tables",
    "generate_series function",
]


def corpus_copy(dest: Path, limit: int | None) -> Path:
    """The corpus, or its first ``limit`` files (sorted) copied under ``dest``."""
    if limit is None:
        return CORPUS
    files = sorted(p for p in CORPUS.rglob("*.sgml") if p.is_file())[:limit]
    for path in files:
        target = dest / path.relative_to(CORPUS)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, target)
    return dest


def write_config(folder: Path, corpus: Path, versions: list[str]) -> Path:
    path = folder / "kb.yaml"
    data = {
        "output": "pg.db",
        "embeddings": {"providers": [{"provider": "local"}]},
        "sources": [
            {"local_path": str(corpus), "project_name": "PostgreSQL", "project_version": v}
            for v in versions
        ],
    }
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def run_build(config: Path) -> BuildSummary:
    started = time.perf_counter()
    summary = build(load_config(config))
    print(f"  built in {time.perf_counter() - started:.1f} s", flush=True)
    return summary


async def query_latency(db: Path) -> dict[str, Any]:
    from mcp.client import Client
    from mcp.server import MCPServer

    state = ServerState(load_settings(knowledgebases=[db], embedder="local"))
    mcp = MCPServer("bench")
    kb_tools.register(mcp, state, read_only=True)
    results: dict[str, Any] = {}
    async with Client(mcp) as client:
        await client.call_tool("search_knowledgebase", {"query": "warm up the model"})
        for label, extra in (("all versions", {}), ("version 17", {"project_versions": ["17"]})):
            samples: list[float] = []
            for query in QUERIES:
                started = time.perf_counter()
                reply = await client.call_tool("search_knowledgebase", {"query": query, **extra})
                samples.append(time.perf_counter() - started)
                assert not reply.is_error, reply.content
            results[label] = latency_ms(samples)
        first = await client.call_tool("search_knowledgebase", {"query": QUERIES[0], "top_n": 1})
        results["example"] = first.content[0].text[:600]
    state.close()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help=f"first {QUICK_FILES} files only")
    parser.add_argument("--keep", type=Path, default=None, help="build in this folder")
    args = parser.parse_args()
    if not CORPUS.is_dir():
        sys.exit(f"{CORPUS} is missing")
    work = args.keep or Path(tempfile.mkdtemp(prefix="bench-kb-"))
    work.mkdir(parents=True, exist_ok=True)
    corpus = corpus_copy(work / "corpus", QUICK_FILES if args.quick else None)

    print("one version ...", flush=True)
    first = run_build(write_config(work, corpus, VERSIONS[:1]))
    base = first.sources[0]
    local = first.providers[0]
    print("five versions ...", flush=True)
    five = run_build(write_config(work, corpus, VERSIONS))
    added = [s for s in five.sources if s.version != VERSIONS[0]]
    added_seconds = sum(s.seconds for s in added) / len(added)
    added_embedded = five.providers[0].embedded
    print("queries ...", flush=True)
    latency = anyio.run(query_latency, five.output)

    build_rows = [
        {
            "build": "1 version",
            "files": base.files,
            "chunks": first.chunks,
            "embedded": local.embedded,
            "seconds": round(base.seconds, 1),
            "size_MB": round(first.size_bytes / 1e6, 1),
        },
        {
            "build": "+4 versions",
            "files": sum(s.files for s in added),
            "chunks": five.chunks - first.chunks,
            "embedded": added_embedded,
            "seconds": round(sum(s.seconds for s in added), 1),
            "size_MB": round(five.size_bytes / 1e6, 1),
        },
    ]
    ratios = {
        "time_per_added_version_over_first": round(added_seconds / base.seconds, 4),
        "embedded_texts_added_versions_over_first": round(added_embedded / local.embedded, 4),
        "reused_vectors_added_versions": sum(s.reused_vectors for s in added),
    }
    print_table("kb-builder (local all-MiniLM-L6-v2)", build_rows)
    print_table("cost of a repeated version", [ratios])
    print_table(
        "search_knowledgebase latency (in-memory MCP client, top_n=5)",
        [{"filter": k, **v} for k, v in latency.items() if k != "example"],
    )
    print("\nexample answer:\n" + latency["example"])
    write_results(
        "kb-quick" if args.quick else "kb",
        {
            "corpus": str(CORPUS.relative_to(SHARED.parent)) + (" (quick)" if args.quick else ""),
            "build": build_rows,
            "first_version": {
                "files": base.files,
                "indexed": base.indexed,
                "skipped": base.skipped,
                "chunks": first.chunks,
                "seconds": base.seconds,
                "embedding_seconds": local.seconds,
                "embedded_texts": local.embedded,
                "embedding_batches": local.requests,
                "size_bytes": first.size_bytes,
            },
            "five_versions": {
                "chunks": five.chunks,
                "vectors": five.providers[0].vectors,
                "size_bytes": five.size_bytes,
                "per_version_seconds": {s.version: s.seconds for s in five.sources},
                **ratios,
            },
            "latency": {k: v for k, v in latency.items() if k != "example"},
        },
    )
    if args.keep is None:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
