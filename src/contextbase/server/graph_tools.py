"""Code graph tools, named after the Crawl4AI RAG server's knowledge-graph tools.

``parse_github_repository`` and ``parse_repository`` write (they are not offered
in read-only mode); ``check_ai_script_hallucinations`` and
``query_knowledge_graph`` only read. A server never reads a file or folder the
user did not allow: paths must lie under ``server.script_roots`` or the
directory the server was started in, after symlinks are resolved.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, Literal

import anyio
from mcp.server import MCPServer
from mcp.types import ToolAnnotations
from pydantic import Field

from contextbase.codegraph import CodeGraph, report
from contextbase.codegraph.sources import classify
from contextbase.errors import InvalidInputError
from contextbase.server._errors import tool_errors
from contextbase.server.state import ServerState

READ_ONLY = ToolAnnotations(readOnlyHint=True, openWorldHint=False)
WRITES = ToolAnnotations(readOnlyHint=False, destructiveHint=False, idempotentHint=True)

PARSE_GITHUB_DESCRIPTION = """Parse a git repository (shallow clone) into the code knowledge graph:
its modules, classes, methods with signatures, functions, attributes and imports. Re-parsing
replaces the repository's graph. Needed before check_ai_script_hallucinations can check code
that uses it. Example: repo_url='https://github.com/encode/httpx.git'."""

PARSE_DESCRIPTION = """Parse a source into the code knowledge graph: a git URL, a folder path
(under the server's allowed roots), or the import name of an installed package ('httpx',
'pydantic') so scripts are checked against the version actually installed."""

CHECK_DESCRIPTION = """Check an AI-written Python script for hallucinated APIs before running it:
imports of names a module does not have, methods or attributes a class does not have (along
its MRO), and calls with arguments the function does not accept (unknown keywords, too many
positional, missing required). Pass the script text as `script` (preferred) or a
`script_path` under the allowed roots. Only libraries in the graph are checked (see
query_knowledge_graph 'repos'); others are listed as not checked. Returns JSON (or Markdown)
with each finding's line, column, kind, name, message, suggestion and confidence."""

QUERY_DESCRIPTION = """Explore the code knowledge graph. Commands: 'repos' (parsed repositories),
'explore <repo>', 'classes [repo]', 'class <name>' (bases, MRO, members with signatures),
'method <name> [class]', and 'query <SELECT ...>' (read-only SQL over codegraph_repos,
codegraph_nodes(id, repo_id, kind, name, qualname, parent, module, file, line, signature, data)
and codegraph_edges(repo_id, kind, src, dst, target); at most 200 rows, 2 seconds)."""


def _graph(state: ServerState) -> CodeGraph:
    return state.feature(
        "codegraph", lambda s: CodeGraph(s.db, cache=s.settings.home / "doc-source")
    )


def confined_path(text: str, roots: list[Path]) -> Path:
    """``text`` as a resolved path, refused unless it lies under one of ``roots``."""
    candidate = Path(text).expanduser()
    if not candidate.is_absolute():
        candidate = Path.cwd() / candidate
    resolved = candidate.resolve()
    allowed = [root.expanduser().resolve() for root in roots]
    if not any(resolved.is_relative_to(root) for root in allowed):
        shown = ", ".join(str(root) for root in allowed)
        raise InvalidInputError(
            f"The path {text!r} is outside the folders this server may read ({shown}); "
            "add its folder to server.script_roots."
        )
    return resolved


def register(mcp: MCPServer, state: ServerState, *, read_only: bool) -> None:
    def roots() -> list[Path]:
        return [*state.settings.server.script_roots, Path.cwd()]

    def parse(source: str, kind: Literal["git"] | None = None) -> str:
        if kind is None and source.lower().startswith("file:"):
            raise InvalidInputError("Pass a folder path instead of a file:// URL.")
        detected = kind or classify(source)
        if detected == "folder":
            source = str(confined_path(source, roots()))
        repo = _graph(state).parse(source, kind=detected)
        return json.dumps(
            {
                "success": True,
                "repository": repo.name,
                "source": repo.source,
                "version": repo.version,
                "files": repo.file_count,
                "nodes": repo.node_count,
                "files_not_parsed": len(repo.failed),
                "parse_seconds": repo.parse_seconds,
            }
        )

    if not read_only:

        @mcp.tool(
            name="parse_github_repository",
            description=PARSE_GITHUB_DESCRIPTION,
            annotations=WRITES,
        )
        @tool_errors
        async def parse_github_repository(
            repo_url: Annotated[str, Field(description="Git URL (https:// or git@host:path).")],
        ) -> str:
            if classify(repo_url) != "git" or repo_url.lower().startswith("file:"):
                raise InvalidInputError(f"{repo_url!r} is not a git URL.")
            return await anyio.to_thread.run_sync(parse, repo_url, "git")

        @mcp.tool(name="parse_repository", description=PARSE_DESCRIPTION, annotations=WRITES)
        @tool_errors
        async def parse_repository(
            source: Annotated[
                str, Field(description="Git URL, folder path, or installed package name.")
            ],
        ) -> str:
            return await anyio.to_thread.run_sync(parse, source)

    @mcp.tool(
        name="check_ai_script_hallucinations", description=CHECK_DESCRIPTION, annotations=READ_ONLY
    )
    @tool_errors
    async def check_ai_script_hallucinations(
        script: Annotated[str | None, Field(description="The Python script's text.")] = None,
        script_path: Annotated[
            str | None, Field(description="Path of the script, under the allowed roots.")
        ] = None,
        format: Annotated[
            Literal["json", "markdown"], Field(description="Report format.")
        ] = "json",
    ) -> str:
        if (script is None) == (script_path is None):
            raise InvalidInputError("Pass exactly one of `script` (text) or `script_path`.")

        def check() -> str:
            graph = _graph(state)
            if script_path is not None:
                analysis = graph.check_file(confined_path(script_path, roots()))
            else:
                analysis = graph.check(script or "")
            if format == "markdown":
                return report.to_markdown(analysis)
            return json.dumps(report.to_json(analysis), indent=2)

        return await anyio.to_thread.run_sync(check)

    @mcp.tool(name="query_knowledge_graph", description=QUERY_DESCRIPTION, annotations=READ_ONLY)
    @tool_errors
    async def query_knowledge_graph(
        command: Annotated[
            str, Field(description="e.g. 'repos', 'class Client', 'query SELECT ...'")
        ],
    ) -> str:
        def run() -> dict[str, Any]:
            return _graph(state).query(command)

        return json.dumps(await anyio.to_thread.run_sync(run), indent=2, default=str)
