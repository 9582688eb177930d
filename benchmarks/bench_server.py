"""MCP server start-up and query-docs latency, through the official SDK client over stdio.

Needs a database with NumPy and pandas indexed with the local model, e.g. the one
``bench_retrieval.py --keep DIR`` leaves in ``DIR/local.db``:

    .venv/bin/python benchmarks/bench_server.py --db DIR/local.db [--queries 271]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import anyio
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import SHARED, latency_ms, print_table, write_results


def _params(db: Path) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "contextbase", "serve", "--db", str(db), "--tools", "docs"],
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
    )


async def measure(db: Path, queries: list[dict[str, str]], starts: int) -> dict[str, object]:
    initialize: list[float] = []
    for _ in range(starts):
        started = time.perf_counter()
        async with Client(_params(db)):
            initialize.append(time.perf_counter() - started)

    started = time.perf_counter()
    async with Client(_params(db)) as client:
        await client.call_tool(
            "query-docs",
            {"libraryId": f"/pypi/{queries[0]['library']}", "query": queries[0]["query"]},
        )
        cold = time.perf_counter() - started
        warm: list[float] = []
        for item in queries:
            began = time.perf_counter()
            result = await client.call_tool(
                "query-docs", {"libraryId": f"/pypi/{item['library']}", "query": item["query"]}
            )
            warm.append(time.perf_counter() - began)
            assert not result.is_error
    return {
        "initialize": latency_ms(initialize),
        "first_query_docs_cold_ms": round(cold * 1000, 1),
        "query_docs_warm": latency_ms(warm),
        "queries": len(warm),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--db", type=Path, required=True)
    parser.add_argument("--queries", type=int, default=271)
    parser.add_argument("--starts", type=int, default=5)
    args = parser.parse_args()
    lines = (SHARED / "eval" / "ds1000-docs.jsonl").read_text().splitlines()
    queries = [json.loads(line) for line in lines if line.strip()][: args.queries]
    figures = anyio.run(measure, args.db, queries, args.starts)
    print_table(
        "MCP server over stdio",
        [
            {"measure": "process start → initialize", **figures["initialize"]},  # type: ignore[dict-item]
            {"measure": "query-docs warm", **figures["query_docs_warm"]},  # type: ignore[dict-item]
        ],
    )
    print(f"first query-docs (cold, model loads): {figures['first_query_docs_cold_ms']} ms")
    write_results("server", figures)


if __name__ == "__main__":
    main()
