"""Project memory tools (the Context Tool MVP): profile, discoveries, sessions, file context.

The project is the client's workspace root when the client lists its roots
(the first ``file://`` root that is a folder), else the server's ``--project``
folder (``settings.server.project``: ``--project`` or ``CONTEXTBASE_PROJECT``), else the
server's working directory. A session starts with the first project tool call
of this server process and is completed by ``end-session``, after 30 minutes
without a call, or when the server shuts down.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, TypeVar
from urllib.parse import unquote, urlparse

import anyio
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.types import ToolAnnotations
from pydantic import Field

from contextbase.project import render
from contextbase.project.discoveries import DISCOVERY_TYPES, MAX_CHARS, MIN_CHARS
from contextbase.project.service import ProjectMemory, ProjectService
from contextbase.server._errors import tool_errors
from contextbase.server.state import ServerState

T = TypeVar("T")
READS = ToolAnnotations(readOnlyHint=True, openWorldHint=False)
RECORDS = ToolAnnotations(readOnlyHint=False, destructiveHint=False, openWorldHint=False)
ROOTS_TIMEOUT_S = 5.0

CONTEXT_DESCRIPTION = """What this project is and what was learnt in it: call it at the START of
a task. Without `query`: the project profile (name, type, stack, runtime, architecture, modules
with their dependencies, patterns, rules and known issues) plus the most relevant remembered
items (recently and often used files, modules, discoveries, past sessions) within `tokens`.
With `query` (e.g. 'how are auth tokens refreshed'): the profile plus the best matches among
discoveries and remembered items, archived ones included."""

SAVE_DESCRIPTION = f"""Remember something learnt about this project for later sessions.
`type`: pattern (how the code does things: 'Repositories return domain objects, never rows'),
rule (a constraint: 'Sessions expire after 7 days'), decision (a choice and why: 'Chose SQLite
over Postgres for single-user installs'), issue (a problem and its fix: 'Token refresh races
when two tabs refresh, fixed by a mutex in TokenManager'). `content`: one self-contained
statement, {MIN_CHARS}-{MAX_CHARS} characters. `module`: the module it concerns (see
get-project-context); guessed from the text when left out. Saving the same text twice keeps
one copy."""

SEARCH_DESCRIPTION = """Search the project memory — discoveries (patterns, rules, decisions,
issues), files, modules and past sessions — by meaning and keywords. Returns the best matches
with their type, module and source."""

FILE_DESCRIPTION = """What the project knows about one file before you read or change it: its
module, role (entry, config, core, test), description, the module's dependencies and
dependents, and the patterns, rules and known issues that apply. `path` is relative to the
project root (or absolute inside it). Records the access, so often-used files rank higher."""

END_DESCRIPTION = """End the current coding session. Pass a short `summary` of what was done
and learnt: statements such as 'We decided to …', 'Always …', 'Never …' or 'X fails when …,
fixed by …' become discoveries automatically, and discoveries are written into the project
profile. The next project tool call starts a new session."""

SESSIONS_DESCRIPTION = """Recent coding sessions in this project, newest first: state (active,
completed, archived), tool calls, files touched, discoveries and summary."""


def configured_root(state: ServerState) -> Path:
    """``--project`` (or CONTEXTBASE_PROJECT, both in the settings), else the working directory."""
    return Path(state.settings.server.project or Path.cwd())


async def client_root(ctx: Context) -> Path | None:
    """The client's first ``file://`` workspace root that is a folder, if it lists roots."""
    try:
        session = ctx.session
        capabilities = session.client_capabilities
        if capabilities is None or capabilities.roots is None or not session.can_send_request:
            return None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # roots are deprecated in 2026 protocol versions
            with anyio.fail_after(ROOTS_TIMEOUT_S):
                result = await session.list_roots()
    except Exception:  # a client that cannot answer simply has no roots
        return None
    for root in result.roots:
        uri = urlparse(str(root.uri))
        if uri.scheme == "file":
            path = Path(unquote(uri.path))
            if path.is_dir():
                return path
    return None


def _memory(state: ServerState, read_only: bool) -> ProjectMemory:
    return state.feature(
        "project", lambda s: ProjectMemory(lambda: s.embedder, read_only=read_only)
    )


def register(mcp: MCPServer, state: ServerState, *, read_only: bool) -> None:
    """Register the project tools; save-discovery and end-session only when not ``read_only``."""

    async def run(ctx: Context, work: Callable[[ProjectService], T]) -> T:
        root = await client_root(ctx) or configured_root(state)

        def call() -> T:
            return work(_memory(state, read_only).for_root(root))

        return await anyio.to_thread.run_sync(call)

    @mcp.tool(name="get-project-context", description=CONTEXT_DESCRIPTION, annotations=RECORDS)
    @tool_errors
    async def get_project_context(
        ctx: Context,
        query: Annotated[
            str | None, Field(description="What you are working on; leave out for an overview.")
        ] = None,
        tokens: Annotated[
            int | None,
            Field(description="Most tokens to return (default 5,000).", ge=200, le=100_000),
        ] = None,
    ) -> str:
        view = await run(ctx, lambda p: p.get_project_context(query, tokens))
        return view.text

    @mcp.tool(name="search-project-memory", description=SEARCH_DESCRIPTION, annotations=RECORDS)
    @tool_errors
    async def search_project_memory(
        ctx: Context,
        query: Annotated[str, Field(description="What to look for.")],
        limit: Annotated[int, Field(description="Most results, 1-100.", ge=1, le=100)] = 10,
    ) -> str:
        hits = await run(ctx, lambda p: p.search_project_memory(query, limit))
        if not hits:
            return f"Nothing in the project memory matches “{query}”."
        blocks = [render.item_block(hit.item) for hit in hits]
        return f"# {len(hits)} matches for “{query}”\n\n" + "\n\n".join(blocks)

    @mcp.tool(name="get-file-context", description=FILE_DESCRIPTION, annotations=RECORDS)
    @tool_errors
    async def get_file_context(
        ctx: Context,
        path: Annotated[str, Field(description="The file, relative to the project root.")],
    ) -> str:
        context = await run(ctx, lambda p: p.get_file_context(path))
        return context.to_text()

    @mcp.tool(name="list-sessions", description=SESSIONS_DESCRIPTION, annotations=READS)
    @tool_errors
    async def list_sessions(
        ctx: Context,
        limit: Annotated[int, Field(description="Most sessions, 1-200.", ge=1, le=200)] = 20,
    ) -> str:
        sessions = await run(ctx, lambda p: p.list_sessions(limit))
        if not sessions:
            return "No sessions recorded in this project yet."
        return "# Sessions\n" + "\n".join(render.session_line(s) for s in sessions)

    if read_only:
        return

    @mcp.tool(name="save-discovery", description=SAVE_DESCRIPTION, annotations=RECORDS)
    @tool_errors
    async def save_discovery(
        ctx: Context,
        type: Annotated[
            str,
            Field(
                description="pattern, rule, decision or issue.",
                json_schema_extra={"enum": list(DISCOVERY_TYPES)},
            ),
        ],
        content: Annotated[
            str, Field(description=f"The discovery, {MIN_CHARS}-{MAX_CHARS} characters.")
        ],
        module: Annotated[
            str | None, Field(description="The module it concerns (optional).")
        ] = None,
    ) -> str:
        discovery = await run(ctx, lambda p: p.save_discovery(type, content, module))
        where = f" in module {discovery.module}" if discovery.module else ""
        return f"Saved {discovery.type}{where} (id {discovery.id})."

    @mcp.tool(name="end-session", description=END_DESCRIPTION, annotations=RECORDS)
    @tool_errors
    async def end_session(
        ctx: Context,
        summary: Annotated[
            str | None, Field(description="What was done and learnt in this session.")
        ] = None,
    ) -> str:
        ended = await run(ctx, lambda p: p.end_session(summary))
        lines = [f"Session {ended.session.id} completed."]
        if ended.discoveries:
            lines.append(f"{len(ended.discoveries)} discoveries extracted:")
            lines += [f"- {d.type}: {d.content}" for d in ended.discoveries]
        return "\n".join(lines)
