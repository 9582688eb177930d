"""The memory tools through real MCP clients: in-memory, and over stdio to `contextbase serve`."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp.server import MCPServer

from contextbase.config import load_settings
from contextbase.server import memory_tools
from contextbase.server.state import ServerState
from tests.memory.conftest import POSTGRES_DOWN

pytestmark = pytest.mark.anyio
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
WRITING = {"save-error-solution", "delete-solution"}
READING = {"search-solutions", "get-solution-detail", "batch-get-solutions"}


def _server(db: Path, *, read_only: bool = False) -> tuple[MCPServer, ServerState]:
    state = ServerState(load_settings(db=db, embedder="fake"))
    mcp = MCPServer("test")
    memory_tools.register(mcp, state, read_only=read_only)
    return mcp, state


def _text(result) -> str:  # type: ignore[no-untyped-def]
    return "\n".join(part.text for part in result.content if hasattr(part, "text"))


async def test_save_search_read_delete_through_a_client(tmp_path: Path) -> None:
    mcp, state = _server(tmp_path / "m.db")
    async with Client(mcp) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert set(tools) >= WRITING | READING
        save_schema = tools["save-error-solution"].input_schema
        assert set(save_schema["required"]) == {"errorMessage", "solution"}
        assert {
            "title",
            "errorType",
            "context",
            "rootCause",
            "tags",
            "labels",
            "codeChanges",
            "environment",
            "projectPath",
            "cliLibraryId",
        } <= set(save_schema["properties"])
        assert "AFTER the fix is verified" in tools["save-error-solution"].description
        assert "BEFORE debugging" in tools["search-solutions"].description
        assert "Abstract private details" in tools["save-error-solution"].description

        saved = await client.call_tool(
            "save-error-solution",
            {**POSTGRES_DOWN, "context": "Local dev with DATABASE_URL=postgres://u:Secret99@h/db"},
        )
        text = _text(saved)
        assert not saved.is_error
        assert "Saved new solution" in text and "url_password ×1" in text
        sid = UUID.search(text).group(0)  # type: ignore[union-attr]

        again = _text(await client.call_tool("save-error-solution", POSTGRES_DOWN))
        assert f"Updated existing solution {sid}" in again and "saved 2 times" in again

        found = _text(
            await client.call_tool(
                "search-solutions", {"query": "connect ECONNREFUSED 127.0.0.1:5433"}
            )
        )
        assert f"[{sid}]" in found and "score" in found and "same error code ECONNREFUSED" in found

        sparse = _text(
            await client.call_tool(
                "search-solutions", {"query": "ECONNREFUSED", "mode": "sparse", "limit": 1}
            )
        )
        assert f"[{sid}]" in sparse and "(sparse search" in sparse

        env = _text(
            await client.call_tool(
                "search-solutions", {"query": "ECONNREFUSED", "environment": {"node": "20.10"}}
            )
        )
        assert "environment match 1.00" in env

        detail = _text(await client.call_tool("get-solution-detail", {"solutionId": sid}))
        assert "## Root cause" in detail and "PostgreSQL service" in detail
        assert "Secret99" not in detail and "<redacted:url_password>" in detail

        batch = _text(
            await client.call_tool(
                "batch-get-solutions",
                {"solutionIds": [sid, "6f1c1d9e-1111-4222-8333-944445555666"]},
            )
        )
        assert "Retrieved 1 solution(s)" in batch
        assert "Not found: 6f1c1d9e-1111-4222-8333-944445555666" in batch

        recent = await client.read_resource("contextbase://solutions/recent")
        assert sid in recent.contents[0].text

        deleted = _text(await client.call_tool("delete-solution", {"solutionId": sid}))
        assert f"Deleted solution {sid}" in deleted
        empty = _text(await client.call_tool("search-solutions", {"query": "ECONNREFUSED"}))
        assert "No saved solution scored" in empty and "save-error-solution" in empty
    state.close()


@pytest.mark.parametrize(
    ("tool", "arguments", "message"),
    [
        ("save-error-solution", {"errorMessage": "", "solution": "x"}, "errorMessage is empty"),
        (
            "save-error-solution",
            {"errorMessage": "x" * (1024 * 1024), "solution": "x"},
            "the limit is 32,000",
        ),
        (
            "save-error-solution",
            {"errorMessage": "bad \udcff byte", "solution": "x"},
            "not valid UTF-8",
        ),
        (
            "save-error-solution",
            {"errorMessage": "x", "solution": "y", "errorType": "oops"},
            "is not one of",
        ),
        ("search-solutions", {"query": "x", "limit": 50}, "from 1 to 20"),
        ("search-solutions", {"query": "x", "limit": 0}, "from 1 to 20"),
        ("search-solutions", {"query": "x", "mode": "magic"}, "mode 'magic'"),
        ("search-solutions", {"query": "x", "minScore": -1}, "minScore"),
        ("get-solution-detail", {"solutionId": "abc"}, "is not a solution id"),
        (
            "get-solution-detail",
            {"solutionId": "6f1c1d9e-1111-4222-8333-944445555666"},
            "No solution has the id",
        ),
        ("batch-get-solutions", {"solutionIds": []}, "ask for 1 to 10"),
        (
            "batch-get-solutions",
            {"solutionIds": ["6f1c1d9e-1111-4222-8333-944445555666"]},
            "None of the ids exist",
        ),
        (
            "delete-solution",
            {"solutionId": "6f1c1d9e-1111-4222-8333-944445555666"},
            "nothing was deleted",
        ),
    ],
)
async def test_bad_input_gives_one_clear_tool_error(
    tmp_path: Path, tool: str, arguments: dict[str, object], message: str
) -> None:
    mcp, state = _server(tmp_path / "m.db")
    async with Client(mcp) as client:
        result = await client.call_tool(tool, arguments)
        assert result.is_error
        text = _text(result)
        assert message in text and "Traceback" not in text
        ok = await client.call_tool("search-solutions", {"query": "still serving"})
        assert not ok.is_error
    state.close()


async def test_read_only_hides_writing_tools(tmp_path: Path) -> None:
    mcp, state = _server(tmp_path / "m.db", read_only=True)
    async with Client(mcp) as client:
        names = {t.name for t in (await client.list_tools()).tools}
        assert names == READING
    state.close()


async def test_tools_over_stdio_subprocess(tmp_path: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=[
            "-m",
            "contextbase",
            "serve",
            "--db",
            str(tmp_path / "m.db"),
            "--tools",
            "memory",
            "--embedder",
            "fake",
        ],
        env={**os.environ},
    )
    async with Client(params) as client:
        names = {t.name for t in (await client.list_tools()).tools}
        assert names >= WRITING | READING
        saved = _text(
            await client.call_tool(
                "save-error-solution",
                {
                    "errorMessage": "error TS2339: Property 'map' does not exist on type 'string'.",
                    "solution": "Type the variable as string[].",
                    "tags": ["typescript"],
                },
            )
        )
        sid = UUID.search(saved).group(0)  # type: ignore[union-attr]
        found = _text(
            await client.call_tool(
                "search-solutions",
                {
                    "query": "src/x.ts(9,2): error TS2339: Property 'foo' does not "
                    "exist on type 'Bar'."
                },
            )
        )
        assert found.index(sid) > 0 and "same error code TS2339" in found
