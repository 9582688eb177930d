from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from contextbase.embed.fake import FakeEmbedder
from contextbase.errors import NotFoundError, SchemaVersionError
from contextbase.store.db import Database
from contextbase.store.models import ChunkRecord, DocumentRecord, Filters, Library
from contextbase.store.sqlite import SQLiteStore
from contextbase.store.vectors import ensure_space


def _store(tmp_path: Path) -> SQLiteStore:
    return SQLiteStore(Database(tmp_path / "docs.db"))


def _chunk(text: str, index: int = 0, total: int = 1) -> ChunkRecord:
    return ChunkRecord(
        text=text,
        title="T",
        heading_path="T > S",
        chunk_index=index,
        chunk_total=total,
        token_count=len(text) // 4,
        content_hash=f"h-{text}",
    )


def test_wal_mode_and_extensions(tmp_path: Path) -> None:
    store = _store(tmp_path)
    assert store.db.scalar("PRAGMA journal_mode") == "wal"
    assert store.db.vec_available
    assert store.db.scalar("SELECT version FROM schema_version WHERE component='docs'") >= 1


def test_newer_schema_is_refused(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.db.execute("UPDATE schema_version SET version = 999 WHERE component = 'docs'")
    store.db.close()
    with pytest.raises(SchemaVersionError, match="newer contextbase"):
        SQLiteStore(Database(tmp_path / "docs.db"))


def test_library_terms_and_relations_are_queryable(tmp_path: Path) -> None:
    store = _store(tmp_path)
    lib = Library.new(
        "React",
        "npm",
        aliases=["ReactJS", "react.js"],
        keywords=["ui", "jsx"],
        related_libraries=["redux"],
        supersedes=["create-react-app"],
    )
    store.upsert_library(lib)
    assert (
        store.db.scalar("SELECT library_id FROM library_terms WHERE kind='keyword' AND term='jsx'")
        == "lib-npm-react"
    )
    assert (
        store.db.scalar("SELECT target FROM library_relations WHERE kind='supersedes'")
        == "create-react-app"
    )
    again = store.get_library("/npm/react")
    assert again is not None and again.aliases == ["ReactJS", "react.js"]
    assert again.related_libraries == ["redux"]


def test_replace_document_is_atomic_and_cleans_vectors(tmp_path: Path) -> None:
    store = _store(tmp_path)
    lib = store.upsert_library(Library.new("demo", "pypi"))
    fake = FakeEmbedder(8)
    space = ensure_space(store.db, fake.provider, fake.model, fake.dimension)
    doc = DocumentRecord(lib.id, "1", "a.md", "file", "markdown", "A", "sum1")
    chunks = [_chunk("alpha beta", 0, 2), _chunk("gamma delta", 1, 2)]
    store.replace_document(doc, chunks, {space: fake.embed_documents([c.text for c in chunks])})
    assert store.chunk_vectors(space).count() == 2
    replacement = [_chunk("epsilon")]
    store.replace_document(doc, replacement, {space: fake.embed_documents(["epsilon"])})
    assert store.db.scalar("SELECT count(*) FROM chunks") == 1
    assert store.chunk_vectors(space).count() == 1
    hits = store.keyword_search('"epsilon"', Filters(library_id=lib.id), 5)
    assert len(hits) == 1
    assert store.keyword_search('"alpha"', Filters(), 5) == []


def test_vector_filter_runs_inside_knn(tmp_path: Path) -> None:
    store = _store(tmp_path)
    fake = FakeEmbedder(16)
    space = ensure_space(store.db, fake.provider, fake.model, fake.dimension)
    for name in ("one", "two"):
        lib = store.upsert_library(Library.new(name, "pypi"))
        texts = [f"{name} shared words {i}" for i in range(30)]
        store.replace_document(
            DocumentRecord(lib.id, "", "x.md", "file", "markdown", name, name),
            [_chunk(t, i, 30) for i, t in enumerate(texts)],
            {space: fake.embed_documents(texts)},
        )
    hits = store.vector_search(space, fake.embed_query("two shared"), Filters("lib-pypi-two"), 5)
    chunks = store.get_chunks([h[0] for h in hits])
    assert len(hits) == 5 and {c.library_id for c in chunks.values()} == {"lib-pypi-two"}


def test_remove_library_version(tmp_path: Path) -> None:
    store = _store(tmp_path)
    lib = store.upsert_library(Library.new("demo", "pypi"))
    for version in ("1", "2"):
        store.replace_document(
            DocumentRecord(lib.id, version, "a.md", "file", "markdown", "A", version),
            [_chunk(f"text {version}")],
        )
    assert store.remove_library(lib.id, "1") == 1
    assert [v.version for v in store.list_libraries()[0].versions] == ["2"]
    store.remove_library(lib.id)
    assert store.list_libraries() == []
    with pytest.raises(NotFoundError):
        store.remove_library(lib.id)


def test_concurrent_writers_across_processes(tmp_path: Path) -> None:
    """Four processes write at once; none sees 'database is locked', none loses a row."""
    path = tmp_path / "shared.db"
    SQLiteStore(Database(path)).upsert_library(Library.new("demo", "pypi"))
    script = f"""
import sys
from contextbase.store.db import Database
from contextbase.store.models import ChunkRecord, DocumentRecord
from contextbase.store.sqlite import SQLiteStore
store = SQLiteStore(Database({str(path)!r}))
worker = sys.argv[1]
for i in range(40):
    doc = DocumentRecord("lib-pypi-demo", "", f"{{worker}}-{{i}}.md", "file", "markdown", "t", "c")
    chunk = ChunkRecord("text", "t", "t", 0, 1, 1, f"{{worker}}-{{i}}")
    store.replace_document(doc, [chunk])
    store.keyword_search('"text"', __import__("contextbase.store.models").store.models.Filters(), 3)
"""
    procs = [subprocess.Popen([sys.executable, "-c", script, str(w)]) for w in range(4)]
    assert [p.wait(timeout=120) for p in procs] == [0, 0, 0, 0]
    assert SQLiteStore(Database(path)).db.scalar("SELECT count(*) FROM documents") == 160


def test_vector_search_by_language_and_ecosystem(tmp_path: Path) -> None:
    store = _store(tmp_path)
    fake = FakeEmbedder(16)
    space = ensure_space(store.db, fake.provider, fake.model, fake.dimension)
    for name, eco, lang in (("py", "pypi", "Python"), ("js", "npm", "JavaScript")):
        lib = store.upsert_library(Library.new(name, eco, language=lang))
        store.replace_document(
            DocumentRecord(lib.id, "", "x.md", "file", "markdown", name, name),
            [_chunk(f"{name} words")],
            {space: fake.embed_documents([f"{name} words"])},
        )
    by_language = store.vector_search(
        space, fake.embed_query("words"), Filters(language="python"), 5
    )
    by_ecosystem = store.vector_search(
        space, fake.embed_query("words"), Filters(ecosystem="npm"), 5
    )
    assert [store.get_chunks([h[0]])[h[0]].library_id for h in by_language] == ["lib-pypi-py"]
    assert [store.get_chunks([h[0]])[h[0]].library_id for h in by_ecosystem] == ["lib-npm-js"]
