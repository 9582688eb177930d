"""``search_knowledgebase`` through real MCP clients, against files kb-builder built."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp.server import MCPServer

from contextbase.config import load_settings
from contextbase.embed.fake import FakeEmbedder
from contextbase.errors import NotFoundError
from contextbase.ingest.folder import iter_folder
from contextbase.ingest.library import prepare_library
from contextbase.ingest.pipeline import Indexer
from contextbase.kb.build import build
from contextbase.kb.config import load_config
from contextbase.kb.format import SEPARATOR
from contextbase.kb.search import KnowledgebaseSearch
from contextbase.server import kb_tools
from contextbase.server.state import ServerState
from contextbase.store.db import Database
from contextbase.store.sqlite import SQLiteStore
from tests.embed.remote_api_server import EmbeddingAPI
from tests.kb.conftest import MANUAL, WriteConfig, openai_provider, write_tree

pytestmark = pytest.mark.anyio

VACUUM_18 = """Vacuuming
=========

In release 18 the VACUUM command also truncates empty pages at the end of a table, and
autovacuum_vacuum_max_threshold caps how many dead tuples trigger it on huge tables.
"""


@pytest.fixture
def kb_file(
    tmp_path: Path, local_guide: Path, api: EmbeddingAPI, key_file: Path, write_config: WriteConfig
) -> Path:
    """Widgetbase 16, 17 and 18 (18 rewrote the vacuum page) and Gizmo 2.3, embedded by
    the fake provider and by OpenAI (the local test server)."""
    old = write_tree(tmp_path / "manual-17", MANUAL)
    new = write_tree(tmp_path / "manual-18", {**MANUAL, "vacuum.rst": VACUUM_18})
    config = write_config(
        {
            "output": "widgets.db",
            "embeddings": {"providers": [{"provider": "fake"}, openai_provider(api, key_file)]},
            "sources": [
                {"local_path": str(old), "project_name": "Widgetbase", "project_version": "16"},
                {"local_path": str(old), "project_name": "Widgetbase", "project_version": "17"},
                {"local_path": str(new), "project_name": "Widgetbase", "project_version": "18"},
                {"local_path": str(local_guide), "project_name": "Gizmo", "project_version": "2.3"},
            ],
        }
    )
    return build(load_config(config)).output


def server_for(**settings: Any) -> tuple[MCPServer, ServerState]:
    state = ServerState(load_settings(**settings))
    mcp = MCPServer("test")
    kb_tools.register(mcp, state, read_only=True)
    return mcp, state


def text_of(result: Any) -> str:
    return "\n".join(part.text for part in result.content if hasattr(part, "text"))


async def call(client: Client, **arguments: Any) -> str:
    result = await client.call_tool("search_knowledgebase", arguments)
    assert not result.is_error, text_of(result)
    return text_of(result)


async def test_search_with_the_deployment_provider(
    kb_file: Path, api: EmbeddingAPI, key_file: Path
) -> None:
    mcp, state = server_for(
        knowledgebases=[kb_file],
        embedder="openai:text-embedding-3-small",
        embedder_options={"base_url": api.url, "api_key_file": str(key_file)},
    )
    async with Client(mcp) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        schema = tools["search_knowledgebase"].input_schema["properties"]
        assert set(schema) == {
            "query",
            "project_names",
            "project_versions",
            "top_n",
            "list_products",
        }

        products = await call(client, list_products=True)
        assert "- Widgetbase: versions 16, 17, 18" in products
        assert "- Gizmo: version 2.3" in products

        requests = len(api.requests)
        text = await call(client, query="partial index WHERE predicate hot rows")
        assert len(api.requests) == requests + 1  # the query, embedded once
        assert "vectors of openai:text-embedding-3-small (1536-d)" in text
        first = text.split(SEPARATOR)[1]
        assert first.startswith("\n### 1. Widgetbase 18: Indexes")
        assert "Same text in versions: 16, 17, 18" in first
        assert "A partial index covers only the rows" in first
        assert text.count("A partial index covers only the rows") == 1  # not once per version

        pinned = await call(
            client,
            query="vacuum dead tuples",
            project_names="widgetbase",
            project_versions=["17"],
            top_n=1,
        )
        assert "### 1. Widgetbase 17: Vacuuming" in pinned
        assert "Same text in versions: 16, 17" in pinned
        assert "truncates empty pages" not in pinned and "### 2." not in pinned

        newest = await call(
            client, query="vacuum truncates empty pages", top_n=1, project_versions="v18"
        )
        assert "### 1. Widgetbase 18: Vacuuming" in newest and "Same text" not in newest

        gizmo = await call(
            client, query="restart the agent firewall port", project_names=["Gizmo"], top_n=20
        )
        assert "Gizmo 2.3" in gizmo and "Widgetbase" not in gizmo.split("\n", 1)[1]

        unknown = await client.call_tool(
            "search_knowledgebase", {"query": "x", "project_names": ["Postgres"]}
        )
        assert unknown.is_error
        assert text_of(unknown).endswith(
            "No project named Postgres is in the knowledgebase; "
            "the projects are: Gizmo, Widgetbase."
        )
        no_version = await client.call_tool(
            "search_knowledgebase", {"query": "x", "project_versions": ["9.6"]}
        )
        assert "the versions are: Gizmo 2.3; Widgetbase 16, 17, 18." in text_of(no_version)
        missing = await client.call_tool("search_knowledgebase", {"top_n": 3})
        assert missing.is_error and "query is required" in text_of(missing)
        zero = await client.call_tool("search_knowledgebase", {"query": "x", "top_n": 0})
        assert zero.is_error

        many = await call(client, query="the", top_n=50)
        assert many.count(SEPARATOR) <= 20
    state.close()


async def test_keyword_only_when_no_space_matches(kb_file: Path) -> None:
    mcp, state = server_for(knowledgebases=[kb_file], embedder="fake:32")
    async with Client(mcp) as client:
        text = await call(client, query="wal_level replica standby")
    assert (
        "widgets.db: keyword-only (it has no vectors of fake:hash (32-d); its spaces: "
        "fake:hash (64-d), openai:text-embedding-3-small (1536-d))"
    ) in text
    assert "### 1. Widgetbase 18: Replication" in text
    state.close()


def test_falls_back_to_another_space_the_deployment_can_embed(kb_file: Path) -> None:
    def fallback(space: Any) -> FakeEmbedder | None:
        return FakeEmbedder(space.dimension) if space.provider == "fake" else None

    kb = KnowledgebaseSearch([kb_file], FakeEmbedder(32), fallback=fallback)
    answer = kb.search("memory a sort may use before spilling")
    assert answer.methods == ["widgets.db: hybrid (keyword + vectors of fake:hash (64-d))"]
    assert answer.hits[0].title == "Memory settings"
    assert answer.hits[0].versions == ["16", "17", "18"]
    kb.close()


async def test_provider_outage_gives_keyword_results(
    kb_file: Path, api: EmbeddingAPI, key_file: Path
) -> None:
    mcp, state = server_for(
        knowledgebases=[kb_file],
        embedder="openai:text-embedding-3-small",
        embedder_options={"base_url": api.url, "api_key_file": str(key_file)},
    )
    api.queue(401, {"error": {"message": "bad key"}})
    async with Client(mcp) as client:
        text = await call(client, query="synchronous_standby_names")
    assert "### 1. Widgetbase 18: Replication" in text
    assert (
        "Note: Vector search in widgets.db failed (OpenAI rejected the API key from the "
        f"key file {key_file} (HTTP 401).); keyword results only."
    ) in text
    state.close()


async def test_several_files_and_the_users_database(
    tmp_path: Path, kb_file: Path, write_config: WriteConfig
) -> None:
    internal = write_tree(
        tmp_path / "internal",
        {
            "oncall.md": (
                "# On-call\n\nPage the storage team through the Orbit pager when replication lag "
                "exceeds five minutes.\n"
            )
        },
    )
    user_db = tmp_path / "home" / "contextbase.db"
    build(
        load_config(
            write_config(
                {
                    "output": str(user_db),
                    "embeddings": {"providers": [{"provider": "fake"}]},
                    "sources": [
                        {
                            "local_path": str(internal),
                            "project_name": "Runbook",
                            "project_version": "2024",
                        }
                    ],
                },
                name="user.yaml",
            )
        )
    )
    store = SQLiteStore(Database(user_db))
    library = prepare_library(store, "orbitlib", {}, ecosystem="pypi")
    Indexer(store, [FakeEmbedder()]).index(library, "1.0", iter_folder(internal))
    store.db.close()

    mcp, state = server_for(
        db=user_db, knowledgebases=[kb_file, tmp_path / "gone.db"], embedder="fake"
    )
    async with Client(mcp) as client:
        products = await call(client, list_products=True)
        text = await call(client, query="Orbit pager replication lag", top_n=3)
    assert "- Runbook: version 2024 [your database]" in products
    assert "- Widgetbase: versions 16, 17, 18 [widgets.db]" in products
    assert "orbitlib" not in products  # documentation libraries are not knowledgebase projects
    assert f"Note: The knowledgebase {tmp_path / 'gone.db'} was skipped: The database" in products
    assert "### 1. Runbook 2024: On-call" in text, text
    assert "your database: hybrid (keyword + vectors of fake:hash (64-d))" in text
    assert text.count("orbitlib") == 0
    state.close()


def test_nothing_configured(tmp_path: Path) -> None:
    kb = KnowledgebaseSearch([tmp_path / "none.db"], FakeEmbedder())
    with pytest.raises(
        NotFoundError,
        match=(
            r"^No knowledgebase is available: build one with kb-builder and serve it with "
            r"'contextbase serve --kb FILE'.* The knowledgebase .*none\.db was skipped"
        ),
    ):
        kb.search("anything")


async def test_over_stdio(kb_file: Path, tmp_path: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=[
            "-m",
            "contextbase",
            "serve",
            "--tools",
            "kb",
            "--kb",
            str(kb_file),
            "--embedder",
            "fake",
            "--db",
            str(tmp_path / "user.db"),
        ],
        env={**os.environ},
    )
    async with Client(params) as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        assert names == {"search_knowledgebase"}
        text = await call(client, query="autovacuum naptime scale factor", top_n=2)
    assert "vectors of fake:hash (64-d)" in text
    assert "Vacuuming" in text
