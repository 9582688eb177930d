from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from contextbase.embed.fake import FakeEmbedder
from contextbase.ingest.folder import iter_folder
from contextbase.ingest.library import prepare_library
from contextbase.ingest.pipeline import Indexer
from contextbase.store.db import Database
from contextbase.store.sqlite import SQLiteStore


def _write(folder: Path, name: str, text: str) -> None:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _index(store: SQLiteStore, folder: Path, embedder: FakeEmbedder):  # type: ignore[no-untyped-def]
    library = prepare_library(store, "demo", {}, ecosystem="pypi")
    return Indexer(store, [embedder]).index(library, "1.0", iter_folder(folder))


def test_incremental_reindex(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    _write(docs, "a.md", "# Alpha\n\nThe alpha page talks about apples.\n")
    _write(docs, "b.md", "# Beta\n\nThe beta page talks about bananas.\n")
    _write(docs, "sub/c.rst", "Gamma\n=====\n\nThe gamma page talks about grapes.\n")
    (docs / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00binary")
    (docs / "binary.txt").write_bytes(b"\x00\x01\x02\x03" * 100)
    store = SQLiteStore(Database(tmp_path / "db.sqlite"))
    fake = FakeEmbedder(16)

    first = _index(store, docs, fake)
    assert (first.indexed, first.unchanged) == (3, 0)
    assert "binary.txt" in first.skipped
    calls = fake.calls

    second = _index(store, docs, fake)
    assert (second.indexed, second.unchanged, second.removed) == (0, 3, 0)
    assert fake.calls == calls

    _write(docs, "a.md", "# Alpha\n\nThe alpha page now talks about apricots.\n")
    (docs / "b.md").unlink()
    third = _index(store, docs, fake)
    assert (third.indexed, third.unchanged, third.removed) == (1, 1, 1)
    sources = {r["source"] for r in store.db.query("SELECT source FROM documents")}
    assert sources == {"a.md", "sub/c.rst"}
    assert store.keyword_search(
        '"apricots"', __import__("contextbase.store.models").store.models.Filters(), 5
    )
    assert not store.keyword_search(
        '"bananas"', __import__("contextbase.store.models").store.models.Filters(), 5
    )
    library = store.get_library("/pypi/demo")
    assert library is not None and library.document_count == store.db.scalar(
        "SELECT count(*) FROM chunks"
    )


def test_identical_content_embedded_once_across_versions(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    for i in range(5):
        _write(docs, f"p{i}.md", f"# Page {i}\n\nContent of page {i} about topic {i}.\n")
    store = SQLiteStore(Database(tmp_path / "db.sqlite"))
    fake = FakeEmbedder(16)
    library = prepare_library(store, "demo", {}, ecosystem="pypi")
    Indexer(store, [fake]).index(library, "1", iter_folder(docs))
    calls = fake.calls
    report = Indexer(store, [fake]).index(library, "2", iter_folder(docs))
    assert fake.calls == calls
    assert report.reused_vectors == report.chunks == 5


@pytest.mark.slow
def test_killed_mid_index_leaves_consistent_database(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    for i in range(400):
        _write(docs, f"p{i:03}.md", f"# Page {i}\n\n" + f"Sentence {i} about things. " * 200)
    db = tmp_path / "db.sqlite"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "contextbase",
            "add",
            str(docs),
            "--library",
            "demo",
            "--embedder",
            "fake",
            "--db",
            str(db),
            "--json",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ},
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        time.sleep(0.2)
        try:
            count = Database(db).scalar("SELECT count(*) FROM documents") if db.exists() else 0
        except Exception:
            count = 0
        if count and count > 20:
            break
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    store = SQLiteStore(Database(db))
    done = store.db.scalar("SELECT count(*) FROM documents")
    assert 0 < done < 400
    # every stored document is whole: chunk_total chunks, FTS rows and vectors for each
    broken = store.db.scalar(
        "SELECT count(*) FROM documents d WHERE (SELECT count(*) FROM chunks c"
        " WHERE c.document_id = d.id) != (SELECT max(chunk_total) FROM chunks c"
        " WHERE c.document_id = d.id)"
    )
    assert broken == 0
    assert store.db.scalar("SELECT count(*) FROM chunks_fts") == store.db.scalar(
        "SELECT count(*) FROM chunks"
    )
    space = store.spaces()[0]
    assert store.chunk_vectors(space).count() == store.db.scalar("SELECT count(*) FROM chunks")
    assert store.db.scalar("PRAGMA integrity_check") == "ok"
    fake = FakeEmbedder(64)
    library = prepare_library(store, "demo", {})
    report = Indexer(store, [fake]).index(library, "", iter_folder(docs))
    assert report.unchanged == done and report.indexed == 400 - done
