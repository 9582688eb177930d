"""Hybrid search with the real local model on a small real corpus."""

from __future__ import annotations

from pathlib import Path

import pytest

from contextbase.ingest.folder import iter_folder
from contextbase.ingest.library import prepare_library
from contextbase.ingest.pipeline import Indexer
from contextbase.search.hybrid import DocSearch
from contextbase.store.db import Database
from contextbase.store.models import Filters
from contextbase.store.sqlite import SQLiteStore
from tests.sample_docs import copy_fastapi_sample, copy_numpy_sample


@pytest.fixture(scope="module")
def store(shared: Path, tmp_path_factory: pytest.TempPathFactory, local_embedder) -> SQLiteStore:  # type: ignore[no-untyped-def]
    work = tmp_path_factory.mktemp("model")
    store = SQLiteStore(Database(work / "db.sqlite"))
    numpy = prepare_library(store, "numpy", {}, ecosystem="pypi", language="Python")
    Indexer(store, [local_embedder]).index(
        numpy, "1.22", iter_folder(copy_numpy_sample(shared, work))
    )
    fastapi = prepare_library(store, "fastapi", {}, ecosystem="pypi", language="Python")
    Indexer(store, [local_embedder]).index(
        fastapi, "", iter_folder(copy_fastapi_sample(shared, work))
    )
    return store


@pytest.mark.model
def test_semantic_query_finds_the_right_page(store: SQLiteStore, local_embedder) -> None:  # type: ignore[no-untyped-def]
    search = DocSearch(store, local_embedder)
    results = search.search(
        "stack arrays vertically", Filters("lib-pypi-numpy"), limit=3, mode="vector"
    )
    assert any("vstack" in r.source for r in results)


@pytest.mark.model
def test_hybrid_finds_identifiers_and_meaning(store: SQLiteStore, local_embedder) -> None:  # type: ignore[no-untyped-def]
    search = DocSearch(store, local_embedder)
    by_name = search.search("np.argsort", limit=3)
    assert "argsort" in by_name[0].source
    assert by_name[0].library_id == "lib-pypi-numpy" and by_name[0].version == "1.22"
    by_meaning = search.search("indices that would sort an array", limit=5)
    assert any("argsort" in r.source for r in by_meaning)
    scoped = search.search("sort", Filters(library_id="lib-pypi-fastapi"), limit=5)
    assert all(r.library_id == "lib-pypi-fastapi" for r in scoped)


@pytest.mark.model
def test_token_budget_caps_text(store: SQLiteStore, local_embedder) -> None:  # type: ignore[no-untyped-def]
    search = DocSearch(store, local_embedder)
    results = search.search("array", limit=20, tokens=300)
    assert sum(r.tokens for r in results) <= 300
    assert results
