"""Fixtures shared by every test: a private CONTEXTBASE_HOME and paths to shared data."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


@pytest.fixture(autouse=True)
def private_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own data directory, never the user's ~/.contextbase."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("CONTEXTBASE_HOME", str(home))
    for name in (
        "CONTEXTBASE_DB",
        "CONTEXTBASE_EMBEDDER",
        "CONTEXTBASE_TOKEN",
        "CONTEXTBASE_KNOWLEDGEBASES",
        "CONTEXTBASE_PROJECT",
    ):
        monkeypatch.delenv(name, raising=False)
    return home


@pytest.fixture(scope="session")
def shared() -> Path:
    if not SHARED.is_dir():
        pytest.skip("../shared (corpora and dev sets) is not beside the repository")
    return SHARED


@pytest.fixture(scope="session")
def local_embedder():  # type: ignore[no-untyped-def]
    """The real all-MiniLM-L6-v2 model, loaded once per test session."""
    from contextbase.embed.local import LocalEmbedder, is_available

    if not is_available():
        pytest.skip("the local embedding model (contextbase[local]) is not installed")
    return LocalEmbedder()
