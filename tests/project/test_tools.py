"""The project tools through real MCP clients: in memory, two at once, and over stdio."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import types
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp.server import MCPServer

from contextbase.config import load_settings
from contextbase.project.service import ProjectService
from contextbase.server import project_tools
from contextbase.server.state import ServerState
from tests.project.conftest import SHOP, write_tree

pytestmark = pytest.mark.anyio
WRITING = {"save-discovery", "end-session"}
READING = {"get-project-context", "search-project-memory", "get-file-context", "list-sessions"}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _server(tmp_path: Path, *, read_only: bool = False) -> tuple[MCPServer, ServerState]:
    state = ServerState(load_settings(db=tmp_path / "cb.db", embedder="fake"))
    mcp = MCPServer("test")
    project_tools.register(mcp, state, read_only=read_only)
    return mcp, state


def _roots(*folders: Path) -> Any:
    async def answer(context: Any) -> types.ListRootsResult:
        return types.ListRootsResult(
            roots=[types.Root(uri=folder.as_uri(), name=folder.name) for folder in folders]
        )

    return answer


def _text(result: Any) -> str:
    return "\n".join(part.text for part in result.content if hasattr(part, "text"))


async def test_the_tools_use_the_client_root(tmp_path: Path) -> None:
    shop = write_tree(tmp_path / "shop", SHOP)
    mcp, state = _server(tmp_path)
    async with Client(mcp, list_roots_callback=_roots(shop), mode="legacy") as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert set(tools) == WRITING | READING
        schema = tools["save-discovery"].input_schema
        assert set(schema["required"]) == {"type", "content"}
        assert schema["properties"]["type"]["enum"] == ["pattern", "rule", "decision", "issue"]
        assert tools["list-sessions"].annotations.read_only_hint is True

        overview = _text(await client.call_tool("get-project-context", {"tokens": 1500}))
        assert overview.startswith("# Project shop (api)")
        assert (shop / ".context" / "project.yaml").exists()

        saved = await client.call_tool(
            "save-discovery",
            {"type": "rule", "content": "Services never import from routes", "module": "services"},
        )
        assert not saved.is_error and "Saved rule in module services" in _text(saved)
        bad = await client.call_tool("save-discovery", {"type": "idea", "content": "whatever x"})
        assert bad.is_error and "must be one of pattern, rule, decision, issue" in _text(bad)

        file_text = _text(
            await client.call_tool("get-file-context", {"path": "src/shop/services/orders.py"})
        )
        assert "Module: services. Role: core." in file_text
        assert "Services never import from routes" in file_text
        outside = await client.call_tool("get-file-context", {"path": "../secret.txt"})
        assert outside.is_error and "outside the project" in _text(outside)

        found = _text(
            await client.call_tool("search-project-memory", {"query": "import routes", "limit": 3})
        )
        assert "### rule · services\nServices never import from routes" in found

        ended = _text(
            await client.call_tool(
                "end-session", {"summary": "We decided to version the orders API under /v2."}
            )
        )
        assert "completed" in ended and "- decision: We decided to version" in ended
        listed = _text(await client.call_tool("list-sessions", {}))
        assert "completed" in listed and "We decided to version" in listed
    state.close()


async def test_without_roots_the_configured_project_is_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shop = write_tree(tmp_path / "shop", SHOP)
    monkeypatch.setenv("CONTEXTBASE_PROJECT", str(shop))
    mcp, state = _server(tmp_path)
    async with Client(mcp) as client:  # the default mode offers no back-channel for roots
        text = _text(await client.call_tool("get-file-context", {"path": "src/shop/main.py"}))
        assert "Module: shop. Role: entry." in text
    state.close()
    session = ProjectService(shop).list_sessions()[0]
    assert session.status == "completed" and session.metadata["endReason"] == "disconnect"


async def test_without_roots_or_project_the_working_directory_is_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shop = write_tree(tmp_path / "shop", SHOP)
    monkeypatch.chdir(shop)
    mcp, state = _server(tmp_path)
    async with Client(mcp) as client:
        text = _text(await client.call_tool("get-project-context", {"tokens": 300}))
        assert text.startswith("# Project shop (api)")
    state.close()


async def test_read_only_hides_the_writing_tools(tmp_path: Path) -> None:
    shop = write_tree(tmp_path / "shop", SHOP)
    mcp, state = _server(tmp_path, read_only=True)
    async with Client(mcp, list_roots_callback=_roots(shop), mode="legacy") as client:
        assert {t.name for t in (await client.list_tools()).tools} == READING
        text = _text(await client.call_tool("get-project-context", {}))
        assert "# Project shop" in text
    state.close()
    assert not (shop / ".context").exists()


async def test_two_clients_at_once_on_the_same_project(tmp_path: Path) -> None:
    """Two servers (as two editors would start) share the project's memory safely."""
    shop = write_tree(tmp_path / "shop", SHOP)
    servers = [_server(tmp_path / "a"), _server(tmp_path / "b")]
    errors: list[str] = []

    async def agent(index: int) -> None:
        mcp, _ = servers[index]
        async with Client(mcp, list_roots_callback=_roots(shop), mode="legacy") as client:
            for n in range(8):
                result = await client.call_tool(
                    "save-discovery",
                    {"type": "pattern", "content": f"Agent {index} learnt pattern number {n}"},
                )
                if result.is_error:
                    errors.append(_text(result))
                await client.call_tool("get-file-context", {"path": "src/shop/main.py"})
            await client.call_tool("end-session", {"summary": f"Always greet agent {index}."})

    async with anyio.create_task_group() as group:
        group.start_soon(agent, 0)
        group.start_soon(agent, 1)
    assert errors == []
    for _, state in servers:
        state.close()

    service = ProjectService(shop)
    sessions = service.list_sessions()
    assert len(sessions) == 2 and {s.status for s in sessions} == {"completed"}
    assert all(s.metadata["toolCallsCount"] == 17 for s in sessions)
    assert len(service.list_discoveries()) == 18  # 16 saved + 2 extracted rules
    hits = service.search_project_memory("Agent 1 learnt pattern number 7", 3)
    assert hits[0].item.content == "Agent 1 learnt pattern number 7"
    service.close()


async def test_two_clients_on_one_server_share_its_session(tmp_path: Path) -> None:
    shop = write_tree(tmp_path / "shop", SHOP)
    mcp, state = _server(tmp_path)
    async with (
        Client(mcp, list_roots_callback=_roots(shop), mode="legacy") as first,
        Client(mcp, list_roots_callback=_roots(shop), mode="legacy") as second,
    ):
        await first.call_tool("get-file-context", {"path": "src/shop/main.py"})
        await second.call_tool("get-file-context", {"path": "src/shop/main.py"})
        listed = _text(await second.call_tool("list-sessions", {}))
        assert listed.count("active") == 1 and "2 tool calls, 1 files" in listed
    state.close()


async def test_over_stdio_with_contextbase_serve(tmp_path: Path) -> None:
    shop = write_tree(tmp_path / "shop", SHOP)
    env = {**os.environ, "CONTEXTBASE_HOME": str(tmp_path / "home")}
    params = StdioServerParameters(
        command=sys.executable,
        args=[
            "-m",
            "contextbase",
            "serve",
            "--tools",
            "project",
            "--embedder",
            "fake",
            "--project",
            str(shop),
        ],
        env=env,
        cwd=str(tmp_path),  # not the project: --project wins over the working directory
    )
    async with Client(params) as client:
        text = _text(await client.call_tool("get-project-context", {}))
        assert text.startswith("# Project shop (api)")
        saved = await client.call_tool(
            "save-discovery", {"type": "decision", "content": "Chose uv to manage dependencies"}
        )
        assert not saved.is_error
    with anyio.fail_after(20):
        while True:  # the server completes its session while shutting down
            sessions = ProjectService(shop, read_only=True).list_sessions()
            if sessions and sessions[0].status == "completed":
                break
            await anyio.sleep(0.2)
    assert sessions[0].metadata["endReason"] == "disconnect"
