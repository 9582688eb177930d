from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.sample_docs import copy_numpy_sample


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
def numpy_db(shared: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database with ~20 NumPy pages as /pypi/numpy 1.22, indexed with the fake embedder."""
    work = tmp_path_factory.mktemp("numpy")
    docs = copy_numpy_sample(shared, work)
    db = work / "docs.db"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "contextbase",
            "add",
            str(docs),
            "--library",
            "numpy",
            "--ecosystem",
            "pypi",
            "--language",
            "Python",
            "--version",
            "1.22",
            "--embedder",
            "fake",
            "--db",
            str(db),
            "--description",
            "Array computing for Python",
        ],
        check=True,
        capture_output=True,
    )
    return db
