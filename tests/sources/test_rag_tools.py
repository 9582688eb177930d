"""The Crawl4AI-style tools through a real MCP client (in memory)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client import Client
from mcp.server import MCPServer

from contextbase.config import load_settings
from contextbase.server.rag_tools import register
from contextbase.server.state import ServerState
from tests.sources.site import Site

pytestmark = pytest.mark.anyio

CRAWL_TOOLS = {"crawl_single_page", "smart_crawl_url", "cancel_job"}
READ_TOOLS = {
    "get_available_sources",
    "perform_rag_query",
    "search_code_examples",
    "list_jobs",
    "get_job",
}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def build(
    tmp_path: Path, *, allow_private: bool = True, read_only: bool = False, embedder: str = "fake"
) -> tuple[MCPServer, ServerState]:
    settings = load_settings(db=tmp_path / "mcp.db", embedder=embedder)
    settings.server.allow_private_urls = allow_private
    state = ServerState(settings)
    server = MCPServer("test")
    register(server, state, read_only=read_only)
    return server, state


@pytest.fixture
async def client(tmp_path: Path) -> AsyncIterator[Client]:
    server, state = build(tmp_path)
    async with Client(server) as connected:
        yield connected
    await anyio.to_thread.run_sync(state.close)


async def call(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, result.content[0].text  # type: ignore[union-attr]
    return json.loads(result.content[0].text)  # type: ignore[union-attr]


async def test_crawl_then_query_sources_pages_and_code(client: Client, docs_site: Site) -> None:
    names = {tool.name for tool in (await client.list_tools()).tools}
    assert names >= CRAWL_TOOLS | READ_TOOLS

    crawled = await call(client, "smart_crawl_url", url=docs_site.url("/llms/"), wait_seconds=30)
    assert crawled["success"] and crawled["status"] == "completed"
    assert crawled["crawl_type"] == "llms"
    assert crawled["pages_crawled"] == 3 and crawled["chunks_stored"] >= 3
    port = docs_site.base.rsplit(":", 1)[1]
    assert crawled["source_id"] == f"127.0.0.1:{port}/llms"

    single = await call(client, "crawl_single_page", url=docs_site.url("/bfs/code"))
    assert single["crawl_type"] == "single" and single["code_examples_stored"] == 1

    listing = await call(client, "get_available_sources")
    assert listing["count"] == 2
    llms = next(s for s in listing["sources"] if s["source_id"].endswith("/llms"))
    assert llms["summary"] == "A fixture documentation set for the crawler tests."
    assert llms["total_words"] > 10

    rag = await call(
        client, "perform_rag_query", query="deployment", source=crawled["source_id"], match_count=2
    )
    assert rag["success"] and rag["source_filter"] == crawled["source_id"]
    top = rag["results"][0]
    assert top["url"] == docs_site.url("/llms/beta.md")
    assert "deployment" in top["content"]
    assert top["metadata"]["source_id"] == crawled["source_id"]
    assert 0 < top["similarity"] <= 1

    code = await call(client, "search_code_examples", query="path parameter type annotation")
    assert code["count"] == 1
    assert code["results"][0]["url"] == docs_site.url("/bfs/code")
    assert "read_item" in code["results"][0]["code"]
    assert code["results"][0]["summary"].startswith("Path parameters")

    missing = await client.call_tool("perform_rag_query", {"query": "x", "source": "nope.org"})
    assert missing.is_error and "get_available_sources" in missing.content[0].text  # type: ignore[union-attr]


async def test_a_long_crawl_becomes_a_job_with_progress(client: Client, slow_site: Site) -> None:
    updates: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        updates.append((progress, total, message))

    result = await client.call_tool(
        "smart_crawl_url",
        {"url": slow_site.url("/slow/"), "max_concurrent": 2, "wait_seconds": 1.5},
        progress_callback=on_progress,
    )
    started = json.loads(result.content[0].text)  # type: ignore[union-attr]
    assert started["status"] == "running" and "get_job" in started["message"]
    assert updates and "pages fetched" in str(updates[-1][2])
    job_id = started["job_id"]

    jobs = await call(client, "list_jobs", status="running")
    assert [j["job_id"] for j in jobs["jobs"]] == [job_id]
    running = await call(client, "get_job", job_id=job_id)
    assert running["progress"]["phase"] in ("crawling", "indexing")

    cancelled = await call(client, "cancel_job", job_id=job_id)
    assert cancelled["cancel_requested"] or cancelled["status"] == "cancelled"
    with anyio.fail_after(20):
        while (job := await call(client, "get_job", job_id=job_id))["status"] == "running":
            await anyio.sleep(0.1)
    assert job["status"] == "cancelled" and job["result"]["cancelled"] is True


async def test_read_only_hides_crawling_and_private_urls_are_refused(
    tmp_path: Path, docs_site: Site
) -> None:
    server, state = build(tmp_path / "ro", read_only=True)
    async with Client(server) as ro:
        names = {tool.name for tool in (await ro.list_tools()).tools}
    assert not names & CRAWL_TOOLS and names >= READ_TOOLS

    server, state = build(tmp_path / "strict", allow_private=False)
    async with Client(server) as strict:
        refused = await strict.call_tool("smart_crawl_url", {"url": docs_site.url("/llms/")})
    assert refused.is_error
    assert "allow_private_urls" in refused.content[0].text  # type: ignore[union-attr]
    assert docs_site.log == []
    await anyio.to_thread.run_sync(state.close)


@pytest.mark.model
async def test_rag_query_with_the_local_model(tmp_path: Path, docs_site: Site) -> None:
    server, state = build(tmp_path, embedder="local")
    async with Client(server) as connected:
        await call(connected, "smart_crawl_url", url=docs_site.url("/llms/"), wait_seconds=60)
        rag = await call(
            connected, "perform_rag_query", query="how do I ship the application to production?"
        )
    assert rag["search_mode"] == "hybrid"
    assert rag["results"][0]["url"] == docs_site.url("/llms/beta.md")
    assert rag["results"][0]["similarity"] > 0.2
    await anyio.to_thread.run_sync(state.close)
