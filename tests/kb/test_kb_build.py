"""kb-builder end to end: git and local sources, several providers, incremental and
resumable builds, vectors reused across versions, a file that ships read-only."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import apsw
import pytest

from contextbase.embed import get_embedder
from contextbase.embed.fake import FakeEmbedder
from contextbase.errors import ConfigError, ContextbaseError, EmbeddingError
from contextbase.kb.build import BuildSummary, build
from contextbase.kb.config import load_config
from contextbase.kb.search import KnowledgebaseSearch
from contextbase.store.db import Database
from tests.embed.remote_api_server import EmbeddingAPI
from tests.kb.conftest import MANUAL, WriteConfig, git, openai_provider, write_tree

SCRIPT = Path(sys.executable).with_name("kb-builder")
BUILDER = (
    [str(SCRIPT)]
    if SCRIPT.exists()
    else [sys.executable, "-c", "from contextbase.kb.cli import main; main()"]
)


def run_builder(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*BUILDER, *args], capture_output=True, text=True, timeout=120)


def rows(db_path: Path) -> set[tuple[Any, ...]]:
    """What a build stored, independent of row ids: one tuple per chunk."""
    db = Database(db_path, readonly=True)
    try:
        found = db.query(
            "SELECT c.library_id, c.version, d.source, c.chunk_index, c.content_hash"
            " FROM chunks c JOIN documents d ON d.id = c.document_id"
        )
    finally:
        db.close()
    return {tuple(row.values()) for row in found}


def vector_counts(db_path: Path) -> dict[str, int]:
    db = Database(db_path, readonly=True)
    try:
        spaces = db.query("SELECT id, provider, model, dimension FROM embedding_spaces")
        return {
            f"{s['provider']}:{s['model']}/{s['dimension']}": int(
                db.scalar(f"SELECT count(*) FROM vec_chunks_{int(s['id'])}")
            )
            for s in spaces
        }
    finally:
        db.close()


def distinct_contents(db_path: Path) -> int:
    return len({row[-1] for row in rows(db_path)})


def api_texts(api: EmbeddingAPI) -> int:
    return sum(len(batch) for batch in api.inputs())


def test_end_to_end_git_and_local_sources(
    tmp_path: Path,
    git_repo: Path,
    local_guide: Path,
    api: EmbeddingAPI,
    key_file: Path,
    write_config: WriteConfig,
) -> None:
    config = write_config(
        {
            "embeddings": {"providers": [{"provider": "fake"}, openai_provider(api, key_file)]},
            "sources": [
                {
                    "git_url": git_repo.as_uri(),
                    "tag": "v1.0",
                    "docs_path": "docs",
                    "project_name": "Widgetbase",
                    "project_version": "1.0",
                },
                {"local_path": "guide", "project_name": "Gizmo", "project_version": "2.3"},
            ],
        }
    )
    done = run_builder("--config", str(config), "--json")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    output = tmp_path / "pgedge-nla-kb.db"
    assert summary["output"] == str(output)
    by_project = {s["project"]: s for s in summary["sources"]}
    # The tag has the four manual pages; the later commit's sharding.md is not in it.
    assert by_project["Widgetbase"]["files"] == len(MANUAL)
    assert by_project["Widgetbase"]["indexed"] == len(MANUAL)
    assert by_project["Widgetbase"]["commit"] == git(git_repo, "rev-parse", "v1.0").strip()
    assert by_project["Gizmo"]["indexed"] == 2
    chunks = summary["chunks"]
    assert chunks == sum(s["chunks"] for s in summary["sources"]) >= 6
    providers = {p["provider"]: p for p in summary["providers"]}
    openai = providers["openai:text-embedding-3-small (1536-d)"]
    assert openai["vectors"] == providers["fake:hash (64-d)"]["vectors"] == chunks
    assert openai["requests"] == len(api.requests) >= 1
    assert openai["tokens"] > 0 and openai["embedded"] == api_texts(api)
    assert summary["size_bytes"] == output.stat().st_size
    assert (tmp_path / "doc-source").is_dir()
    assert "Widgetbase 1.0: 4 files, 4 indexed" in done.stderr

    stored = rows(output)
    assert {(r[0], r[1]) for r in stored} == {("lib-kb-widgetbase", "1.0"), ("lib-kb-gizmo", "2.3")}
    assert {r[2] for r in stored if r[0] == "lib-kb-widgetbase"} == set(MANUAL)
    db = Database(output, readonly=True)
    url = json.loads(db.scalar("SELECT metadata FROM documents WHERE source = 'indexes.md'"))["url"]
    title = db.scalar("SELECT title FROM documents WHERE source = 'config.sgml'")
    db.close()
    assert url == f"{git_repo.as_uri()}/blob/v1.0/docs/indexes.md"
    assert title == "Memory settings"

    requests = len(api.requests)
    again = run_builder("--config", str(config), "--json")
    assert again.returncode == 0, again.stderr
    second = json.loads(again.stdout)
    assert [s["unchanged"] for s in second["sources"]] == [len(MANUAL), 2]
    assert [s["indexed"] for s in second["sources"]] == [0, 0]
    assert len(api.requests) == requests
    assert rows(output) == stored


def test_versions_reuse_vectors(
    tmp_path: Path, api: EmbeddingAPI, key_file: Path, write_config: WriteConfig
) -> None:
    manual = write_tree(tmp_path / "manual", MANUAL)
    versions = ["14", "15", "16", "17", "18"]
    config = write_config(
        {
            "embeddings": {"providers": [{"provider": "fake"}, openai_provider(api, key_file)]},
            "sources": [
                {"local_path": str(manual), "project_name": "Widgetbase", "project_version": v}
                for v in versions
            ],
        }
    )
    loaded = load_config(config)
    fake = FakeEmbedder()
    openai = get_embedder("openai:text-embedding-3-small", api_key_file=key_file, base_url=api.url)
    assert openai is not None
    first = build(loaded, sources=["Widgetbase@14"], embedders=[fake, openai])
    unique = distinct_contents(first.output)
    calls, texts = fake.calls, api_texts(api)
    assert texts == unique == first.new_chunks

    rest = build(loaded, embedders=[fake, openai])
    assert [s.version for s in rest.sources] == versions
    assert rest.sources[0].unchanged == len(MANUAL)
    for later in rest.sources[1:]:
        assert later.indexed == len(MANUAL)
        assert later.reused_vectors == 2 * later.chunks  # both providers, every chunk
    assert fake.calls == calls and api_texts(api) == texts  # nothing embedded again
    assert rest.chunks == 5 * unique
    assert vector_counts(rest.output) == {
        "fake:hash/64": 5 * unique,
        "openai:text-embedding-3-small/1536": 5 * unique,
    }


def test_add_missing_embeddings_without_rechunking(
    tmp_path: Path,
    local_guide: Path,
    api: EmbeddingAPI,
    key_file: Path,
    write_config: WriteConfig,
) -> None:
    manual = write_tree(tmp_path / "manual", MANUAL)
    sources = [
        {"local_path": str(manual), "project_name": "Widgetbase", "project_version": "1"},
        {"local_path": str(manual), "project_name": "Widgetbase", "project_version": "2"},
        {"local_path": str(local_guide), "project_name": "Gizmo", "project_version": "1"},
    ]
    first = build(
        load_config(
            write_config({"embeddings": {"providers": [{"provider": "fake"}]}, "sources": sources})
        )
    )
    db = Database(first.output, readonly=True)
    chunk_ids = db.query("SELECT id, content_hash FROM chunks ORDER BY id")
    db.close()

    providers = [{"provider": "fake"}, openai_provider(api, key_file)]
    loaded = load_config(write_config({"embeddings": {"providers": providers}, "sources": sources}))
    filled = build(loaded, only_missing_embeddings=True)
    assert filled.sources == []  # no source was pulled, parsed or chunked
    assert filled.filled_vectors == first.chunks
    assert api_texts(api) == distinct_contents(first.output)  # each content once
    assert vector_counts(first.output)["openai:text-embedding-3-small/1536"] == first.chunks
    db = Database(first.output, readonly=True)
    assert db.query("SELECT id, content_hash FROM chunks ORDER BY id") == chunk_ids
    db.close()

    # A normal run fills a newly added provider the same way before checking sources.
    requests = len(api.requests)
    providers.append({"provider": "fake", "model": "32"})
    again = build(
        load_config(write_config({"embeddings": {"providers": providers}, "sources": sources}))
    )
    assert again.filled_vectors == first.chunks
    assert all(s.indexed == 0 for s in again.sources)
    assert len(api.requests) == requests
    assert vector_counts(first.output)["fake:hash/32"] == first.chunks


class FailingEmbedder(FakeEmbedder):
    """The fake embedder, failing on its ``fail_on``-th call as a provider outage would."""

    def __init__(self, fail_on: int) -> None:
        super().__init__()
        self.fail_on = fail_on

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        if self.calls + 1 == self.fail_on:
            self.calls += 1
            raise EmbeddingError("The provider failed half-way.")
        return super().embed_documents(texts)


def test_failed_build_resumes_where_it_stopped(
    tmp_path: Path, local_guide: Path, write_config: WriteConfig
) -> None:
    manual = write_tree(tmp_path / "manual", MANUAL)
    config = write_config(
        {
            "output": "kb.db",
            "embeddings": {"providers": [{"provider": "fake"}]},
            "sources": [
                {"local_path": str(local_guide), "project_name": "Gizmo", "project_version": "1"},
                {"local_path": str(manual), "project_name": "Widgetbase", "project_version": "1"},
            ],
        }
    )
    loaded = load_config(config)
    with pytest.raises(EmbeddingError):
        build(loaded, embedders=[FailingEmbedder(fail_on=2)])
    partial = rows(tmp_path / "kb.db")
    assert {r[0] for r in partial} == {"lib-kb-gizmo"}  # the first source is whole

    resumed_embedder = FakeEmbedder()
    resumed = build(loaded, embedders=[resumed_embedder])
    assert [(s.unchanged, s.indexed) for s in resumed.sources] == [(2, 0), (0, len(MANUAL))]
    clean = build(loaded, output=tmp_path / "clean.db")
    assert rows(tmp_path / "kb.db") == rows(tmp_path / "clean.db")
    assert vector_counts(tmp_path / "kb.db") == vector_counts(tmp_path / "clean.db")
    assert resumed.sources[1].chunks == clean.sources[1].chunks


def _many_pages(root: Path, count: int) -> Path:
    for n in range(count):
        sections = "\n\n".join(
            f"## Topic {n}.{s}\n\nPage {n} section {s} explains setting number {n * 10 + s}: "
            "what it controls, its default value, and when an operator should change it."
            for s in range(4)
        )
        write_tree(root, {f"page{n:03}.md": f"# Page {n}\n\n{sections}\n"})
    return root


PAGES = 320


def _stored(path: Path) -> bool:
    """Whether a build in progress has stored its first documents."""
    if not path.exists():
        return False
    try:
        db = Database(path, readonly=True)
    except ContextbaseError:
        return False
    try:
        return db.table_exists("documents") and bool(db.scalar("SELECT count(*) FROM documents"))
    finally:
        db.close()


def test_killed_build_resumes(
    tmp_path: Path, api: EmbeddingAPI, key_file: Path, write_config: WriteConfig
) -> None:
    pages = _many_pages(tmp_path / "pages", PAGES)
    config = write_config(
        {
            "output": "kb.db",
            "chunking": {"target_tokens": 50, "min_tokens": 10},
            "embeddings": {
                "providers": [openai_provider(api, key_file, batch_size=64, max_concurrency=1)]
            },
            "sources": [
                {"local_path": str(pages), "project_name": "Pages", "project_version": "1"}
            ],
        }
    )
    api.delay = lambda seen: 0.2
    proc = subprocess.Popen(
        [*BUILDER, "--config", str(config), "--quiet"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 120
    # 320 pages of 4 chunks take two embedding rounds; kill as soon as the first
    # round's documents are stored.
    while time.monotonic() < deadline and proc.poll() is None and not _stored(tmp_path / "kb.db"):
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    assert proc.returncode == -signal.SIGKILL

    db = Database(tmp_path / "kb.db")  # usable as it is after the kill
    assert db.scalar("PRAGMA integrity_check") == "ok"
    documents = db.scalar("SELECT count(*) FROM documents")
    # Every stored document is whole: all its chunks, each with its vector.
    assert (
        db.scalar(
            "SELECT count(*) FROM chunks c WHERE chunk_total !="
            " (SELECT count(*) FROM chunks o WHERE o.document_id = c.document_id)"
        )
        == 0
    )
    vectors = db.scalar("SELECT count(*) FROM vec_chunks_1")
    assert db.scalar("SELECT count(*) FROM chunks") == vectors
    db.close()
    assert 0 < documents < PAGES

    api.delay = lambda seen: 0.0
    before = api_texts(api)
    done = run_builder("--config", str(config), "--json")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["sources"][0]["unchanged"] == documents
    assert summary["sources"][0]["indexed"] == PAGES - documents
    resumed_texts = api_texts(api) - before
    clean = run_builder("--config", str(config), "--output", str(tmp_path / "clean.db"))
    assert clean.returncode == 0, clean.stderr
    assert rows(tmp_path / "kb.db") == rows(tmp_path / "clean.db")
    assert resumed_texts < api_texts(api) - before - resumed_texts  # less than a full build


def test_shipped_file_opens_read_only(
    tmp_path: Path, local_guide: Path, write_config: WriteConfig
) -> None:
    config = write_config(
        {
            "embeddings": {"providers": [{"provider": "fake"}]},
            "sources": [
                {"local_path": str(local_guide), "project_name": "Gizmo", "project_version": "1"}
            ],
        }
    )
    summary = build(load_config(config))
    output = summary.output
    assert not Path(f"{output}-wal").exists() and not Path(f"{output}-shm").exists()
    digest = hashlib.sha256(output.read_bytes()).hexdigest()
    raw = apsw.Connection(str(output), flags=apsw.SQLITE_OPEN_READONLY)
    assert raw.execute("PRAGMA journal_mode").fetchall() == [("delete",)]
    raw.close()

    kb = KnowledgebaseSearch([output], FakeEmbedder())
    answer = kb.search("restart the agent")
    assert answer.hits[0].source == "troubleshooting.md"
    with pytest.raises(apsw.ReadOnlyError):
        kb._opened()[0].store.db.execute("DELETE FROM chunks")
    kb.close()
    assert hashlib.sha256(output.read_bytes()).hexdigest() == digest
    assert not Path(f"{output}-wal").exists()


def test_changed_chunking_rechunks_and_reuses_vectors(
    tmp_path: Path, write_config: WriteConfig
) -> None:
    manual = write_tree(tmp_path / "manual", MANUAL)
    data: dict[str, Any] = {
        "embeddings": {"providers": [{"provider": "fake"}]},
        "sources": [{"local_path": str(manual), "project_name": "W", "project_version": "1"}],
    }
    first = build(load_config(write_config(data)))
    data["chunking"] = {"target_tokens": 60, "min_tokens": 0}
    fake = FakeEmbedder()
    second = build(load_config(write_config(data)), embedders=[fake])
    assert second.sources[0].indexed == len(MANUAL)
    assert second.chunks > first.chunks
    before = build(load_config(write_config(data)), embedders=[fake])
    assert before.sources[0].unchanged == len(MANUAL)


def test_versions_no_longer_configured_are_removed(
    tmp_path: Path, local_guide: Path, write_config: WriteConfig
) -> None:
    manual = write_tree(tmp_path / "manual", MANUAL)
    sources = [
        {"local_path": str(manual), "project_name": "Widgetbase", "project_version": "1"},
        {"local_path": str(manual), "project_name": "Widgetbase", "project_version": "2"},
        {"local_path": str(local_guide), "project_name": "Gizmo", "project_version": "1"},
    ]
    providers = {"providers": [{"provider": "fake"}]}
    build(load_config(write_config({"embeddings": providers, "sources": sources})))
    summary: BuildSummary = build(
        load_config(write_config({"embeddings": providers, "sources": sources[1:2]}))
    )
    assert sorted(summary.pruned_versions) == ["Gizmo 1", "Widgetbase 1"]
    assert {(r[0], r[1]) for r in rows(summary.output)} == {("lib-kb-widgetbase", "2")}
    assert vector_counts(summary.output)["fake:hash/64"] == summary.chunks


def test_docs_path_missing_in_repository(git_repo: Path, write_config: WriteConfig) -> None:
    config = write_config(
        {
            "embeddings": {"providers": [{"provider": "fake"}]},
            "sources": [
                {
                    "git_url": git_repo.as_uri(),
                    "branch": "main",
                    "docs_path": "manual",
                    "project_name": "Widgetbase",
                    "project_version": "2",
                }
            ],
        }
    )
    with pytest.raises(
        ConfigError,
        match=(r"at 'sources\[0\]\.docs_path': the folder manual is not in file://.* at main\.$"),
    ):
        build(load_config(config))
