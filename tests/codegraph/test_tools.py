"""The graph tools through real MCP clients: in memory, and over stdio to `contextbase serve`."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp.server import MCPServer

from contextbase.codegraph import CodeGraph
from contextbase.config import load_settings
from contextbase.server import graph_tools
from contextbase.server.state import ServerState
from contextbase.store.db import Database
from tests.codegraph.conftest import SHOP, write_tree

pytestmark = pytest.mark.anyio
WRITING = {"parse_github_repository", "parse_repository"}
READING = {"check_ai_script_hallucinations", "query_knowledge_graph"}
SCRIPT = "from shop import Client\nc = Client('http://x')\nc.get('/a')\nc.gets('/a')\n"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def roots(tmp_path: Path) -> Path:
    allowed = tmp_path / "allowed"
    write_tree(allowed, SHOP)
    (allowed / "script.py").write_text(SCRIPT)
    (tmp_path / "outside.py").write_text(SCRIPT)
    (allowed / "escape.py").symlink_to(tmp_path / "outside.py")
    (allowed / "escape_dir").symlink_to(tmp_path, target_is_directory=True)
    return allowed


def _server(tmp_path: Path, roots: Path, *, read_only: bool = False) -> MCPServer:
    settings = load_settings(db=tmp_path / "g.db", embedder="none")
    settings.server.script_roots = [roots]
    mcp = MCPServer("test")
    graph_tools.register(mcp, ServerState(settings), read_only=read_only)
    return mcp


def _text(result) -> str:  # type: ignore[no-untyped-def]
    return "\n".join(part.text for part in result.content if hasattr(part, "text"))


async def test_parse_check_and_query_through_a_client(tmp_path: Path, roots: Path) -> None:
    async with Client(_server(tmp_path, roots)) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert set(tools) == WRITING | READING
        assert set(tools["check_ai_script_hallucinations"].input_schema["properties"]) >= {
            "script", "script_path"}  # fmt: skip

        parsed = await client.call_tool("parse_repository", {"source": str(roots / "shop")})
        assert not parsed.is_error, _text(parsed)
        assert json.loads(_text(parsed))["repository"] == "shop"

        checked = await client.call_tool("check_ai_script_hallucinations", {"script": SCRIPT})
        report = json.loads(_text(checked))
        [wrong] = report["hallucinations"]
        assert (wrong["line"], wrong["kind"], wrong["suggestion"]) == (4, "method_call", "get")
        assert set(wrong) >= {"line", "column", "kind", "name", "message", "suggestion",
                              "confidence"}  # fmt: skip
        assert report["summary"]["hallucinations"] == 1 and report["recommendations"]

        by_path = await client.call_tool(
            "check_ai_script_hallucinations",
            {"script_path": str(roots / "script.py"), "format": "markdown"},
        )
        assert "# Hallucination check" in _text(by_path) and "gets" in _text(by_path)

        queried = json.loads(_text(await client.call_tool(
            "query_knowledge_graph", {"command": "class Client"})))  # fmt: skip
        assert queried["classes"][0]["qualname"] == "shop.client.Client"
        sql = await client.call_tool(
            "query_knowledge_graph", {"command": "query DELETE FROM codegraph_nodes"}
        )
        assert sql.is_error and "SELECT" in _text(sql)


async def test_paths_are_confined_to_the_allowed_roots(tmp_path: Path, roots: Path) -> None:
    async with Client(_server(tmp_path, roots)) as client:
        outside = [
            tmp_path / "outside.py",
            roots / "escape.py",
            roots / "escape_dir" / "outside.py",
        ]
        for path in ["../../etc/passwd", "/etc/passwd", *map(str, outside)]:
            result = await client.call_tool("check_ai_script_hallucinations", {"script_path": path})
            assert result.is_error, path
            assert "outside the folders this server may read" in _text(result)
        parsed = await client.call_tool("parse_repository", {"source": str(tmp_path)})
        assert parsed.is_error and "outside the folders" in _text(parsed)
        file_url = await client.call_tool("parse_repository", {"source": tmp_path.as_uri()})
        assert file_url.is_error
        github = await client.call_tool("parse_github_repository", {"repo_url": "/etc"})
        assert github.is_error and "not a git URL" in _text(github)


async def test_bad_inputs_are_clear_tool_errors(tmp_path: Path, roots: Path) -> None:
    async with Client(_server(tmp_path, roots, read_only=True)) as client:
        names = {t.name for t in (await client.list_tools()).tools}
        assert names == READING  # writers are hidden in read-only mode
        broken = await client.call_tool(
            "check_ai_script_hallucinations", {"script": "def broken(:\n    pass\n"}
        )
        assert broken.is_error and "does not parse" in _text(broken) and "line 1" in _text(broken)
        neither = await client.call_tool("check_ai_script_hallucinations", {})
        assert neither.is_error and "exactly one" in _text(neither)
        missing = await client.call_tool(
            "check_ai_script_hallucinations", {"script_path": str(roots / "nope.py")}
        )
        assert missing.is_error and "does not exist" in _text(missing)


async def test_over_stdio_with_contextbase_serve(tmp_path: Path) -> None:
    write_tree(tmp_path, SHOP)
    db = tmp_path / "g.db"
    CodeGraph(Database(db), cache=tmp_path / "cache").parse(str(tmp_path / "shop"))
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "contextbase", "serve", "--db", str(db), "--tools", "graph", "--read-only"],
        env={**os.environ},
    )
    async with Client(params) as client:
        names = {t.name for t in (await client.list_tools()).tools}
        assert names == READING
        result = await client.call_tool("check_ai_script_hallucinations", {"script": SCRIPT})
        assert json.loads(_text(result))["hallucinations"][0]["name"].endswith("Client.gets")
        repos = json.loads(_text(await client.call_tool("query_knowledge_graph",
                                                        {"command": "repos"})))  # fmt: skip
        assert repos["repositories"][0]["name"] == "shop"
