from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from contextbase.embed import get_embedder
from contextbase.memory import SolutionMemory
from contextbase.store.db import Database


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "memory.db"


@pytest.fixture
def memory(db_path: Path) -> Iterator[SolutionMemory]:
    """A memory on a fresh database file, with the fast hashed-words embedder."""
    db = Database(db_path)
    yield SolutionMemory(db, get_embedder("fake"), home=Path("/home/tester"))
    db.close()


POSTGRES_DOWN = {
    "errorMessage": "Error: connect ECONNREFUSED 127.0.0.1:5432\n"
    "    at TCPConnectWrap.afterConnect [as oncomplete] (node:net:1555:16)",
    "errorType": "network",
    "rootCause": "The PostgreSQL service was not running on the machine.",
    "solution": "Start PostgreSQL (brew services start postgresql@14) and retry.",
    "tags": ["node", "postgres"],
    "environment": {"node": "20.10.0", "postgres": "14.9"},
}
