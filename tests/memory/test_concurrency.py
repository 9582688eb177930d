"""Several processes (one per editor's MCP server) share one database file."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

from contextbase.memory import SolutionMemory
from contextbase.store.db import Database

WORKERS = 4
OPERATIONS = 50
SHARED_AT = 25
"""The operation (a search slot) at which each worker saves the shared solution."""
SHARED = {
    "errorMessage": "Error: listen EADDRINUSE: address already in use :::3000",
    "solution": "Stop the other process holding the port, or start on another port.",
}


def _work(args: tuple[str, int]) -> tuple[list[str], list[str]]:
    """Half saves, half searches; every worker also saves the same shared solution once."""
    from contextbase.embed import get_embedder

    path, worker = args
    errors: list[str] = []
    saved: list[str] = []
    db = Database(path)
    memory = SolutionMemory(db, get_embedder("fake"))
    for op in range(OPERATIONS):
        try:
            if op == SHARED_AT:
                memory.save(SHARED)
            elif op % 2 == 0:
                result = memory.save(
                    {
                        "errorMessage": f"RuntimeError: job w{worker}x{op} failed in stage "
                        f"s{op * 7 + worker}",
                        "solution": f"Fix number w{worker}x{op}: restart stage s{op * 7 + worker}",
                        "tags": [f"worker{worker}"],
                    }
                )
                saved.append(result.solution.id)
            else:
                memory.search(f"RuntimeError job w{worker}x{op - 1} failed", limit=3)
        except Exception as exc:  # the test reports every failure, whatever it is
            errors.append(f"{type(exc).__name__}: {exc}")
    db.close()
    return saved, errors


def test_processes_share_one_database_without_locks_or_lost_writes(tmp_path: Path) -> None:
    path = str(tmp_path / "shared.db")
    with multiprocessing.get_context("spawn").Pool(WORKERS) as pool:
        results = pool.map(_work, [(path, w) for w in range(WORKERS)])
    errors = [e for _, errs in results for e in errs]
    assert errors == []
    saved = [sid for ids, _ in results for sid in ids]
    assert len(saved) == WORKERS * OPERATIONS // 2 == len(set(saved))

    db = Database(path)
    memory = SolutionMemory(db, None)
    assert memory.count() == len(saved) + 1
    found, missing = memory.batch_get(saved[:10])
    assert missing == [] and len(found) == 10
    shared = memory.search(SHARED["errorMessage"], limit=1).hits[0].solution
    assert shared.save_count == WORKERS
    fts_docs = db.scalar("SELECT doc FROM solutions_fts_vocab WHERE term = 'runtimeerror'")
    assert fts_docs == len(saved)
    db.close()
