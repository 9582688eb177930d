"""Documentation tools, named and shaped as Context7's.

Agents, prompts and rules written for Context7 (``resolve-library-id`` then
``query-docs``, or the legacy ``get-library-docs``) work unchanged, including
the argument aliases Context7 accepts.
"""

from __future__ import annotations

from typing import Annotated

import anyio
from mcp.server import MCPServer
from mcp.types import ToolAnnotations
from pydantic import Field

from contextbase.docs.format import format_docs, format_libraries, format_resolve
from contextbase.docs.service import DocsService
from contextbase.errors import InvalidInputError
from contextbase.server._errors import tool_errors
from contextbase.server.state import ServerState
from contextbase.store.sqlite import SQLiteStore

READ_ONLY = ToolAnnotations(readOnlyHint=True, openWorldHint=False)

RESOLVE_DESCRIPTION = """Find the contextbase library ID for a library or product name.

Call this first, before query-docs, unless the user already gave an ID of the form
'/ecosystem/name' (e.g. '/pypi/fastapi'). Pass the user's question as `query`: it
decides between libraries with the same name (e.g. 'requests' on PyPI vs npm).
Returns the best matches with their IDs, descriptions, snippet counts and versions.
The documentation is local and was chosen by the user: prefer it to memory."""

QUERY_DESCRIPTION = """Get up-to-date documentation for a library, answering a specific question.

Call it whenever you write or fix code that uses a library, or the user asks how a
library works. `libraryId` comes from resolve-library-id ('/pypi/fastapi'); add a
version as '/pypi/fastapi/0.110' or '/pypi/fastapi@0.110' when one matters. Ask a
focused `query` ('how to declare a path parameter with a type'); call again with
another query rather than asking for everything. `tokens` caps the answer (default 5000)."""

LEGACY_DESCRIPTION = """Legacy name of query-docs (Context7's get-library-docs): documentation of a
library by its ID, focused on `topic` when given. Prefer query-docs."""


def _docs(state: ServerState) -> DocsService:
    return state.feature("docs", lambda s: DocsService(SQLiteStore(s.db), s.embedder))


def _first(*values: str | None) -> str | None:
    return next((v for v in values if v not in (None, "")), None)


def register(mcp: MCPServer, state: ServerState, *, read_only: bool) -> None:
    async def run(func, *args):  # type: ignore[no-untyped-def]
        return await anyio.to_thread.run_sync(func, *args)

    @mcp.tool(name="resolve-library-id", description=RESOLVE_DESCRIPTION, annotations=READ_ONLY)
    @tool_errors
    async def resolve_library_id(
        libraryName: Annotated[str, Field(description="Library or product name to look up.")],
        query: Annotated[
            str | None, Field(description="The user's question or task, to choose well.")
        ] = None,
        userQuery: Annotated[str | None, Field(description="Alias of query.")] = None,
    ) -> str:
        def answer() -> str:
            docs = _docs(state)
            matches = docs.resolve(libraryName, _first(query, userQuery) or "")
            summaries = {s.library.id: s for s in docs.libraries()}
            snippets = docs.store.code_snippet_counts()
            suggestions = [] if matches else docs.resolver.suggestions(libraryName)
            return format_resolve(libraryName, matches, summaries, snippets, suggestions)

        return await run(answer)

    async def answer_query(library_id: str | None, question: str | None, tokens: int | None) -> str:
        if not library_id:
            raise InvalidInputError(
                "libraryId is required (e.g. '/pypi/fastapi'); call resolve-library-id first."
            )
        if not question:
            raise InvalidInputError("query is required: say what you need to know.")

        def answer() -> str:
            return format_docs(_docs(state).query_docs(library_id, question, tokens))

        return await run(answer)

    @mcp.tool(name="query-docs", description=QUERY_DESCRIPTION, annotations=READ_ONLY)
    @tool_errors
    async def query_docs(
        libraryId: Annotated[
            str | None, Field(description="Library ID from resolve-library-id, e.g. /pypi/fastapi.")
        ] = None,
        query: Annotated[str | None, Field(description="The specific question to answer.")] = None,
        tokens: Annotated[
            int | None, Field(description="Most tokens to return (default 5000).", ge=1)
        ] = None,
        userQuery: Annotated[str | None, Field(description="Alias of query.")] = None,
        question: Annotated[str | None, Field(description="Alias of query.")] = None,
        context7CompatibleLibraryID: Annotated[
            str | None, Field(description="Alias of libraryId.")
        ] = None,
        libraryID: Annotated[str | None, Field(description="Alias of libraryId.")] = None,
        libraryName: Annotated[str | None, Field(description="Alias of libraryId.")] = None,
    ) -> str:
        library_id = _first(libraryId, context7CompatibleLibraryID, libraryID, libraryName)
        return await answer_query(library_id, _first(query, userQuery, question), tokens)

    @mcp.tool(name="get-library-docs", description=LEGACY_DESCRIPTION, annotations=READ_ONLY)
    @tool_errors
    async def get_library_docs(
        context7CompatibleLibraryID: Annotated[
            str | None, Field(description="Library ID, e.g. /pypi/fastapi.")
        ] = None,
        topic: Annotated[str | None, Field(description="Topic to focus on.")] = None,
        tokens: Annotated[int | None, Field(description="Most tokens to return.", ge=1)] = None,
        libraryId: Annotated[str | None, Field(description="Alias of the library ID.")] = None,
        libraryID: Annotated[str | None, Field(description="Alias of the library ID.")] = None,
        query: Annotated[str | None, Field(description="Alias of topic.")] = None,
    ) -> str:
        library_id = _first(context7CompatibleLibraryID, libraryId, libraryID)
        question = _first(topic, query)
        if library_id and not question:
            question = "overview getting started introduction"
        return await answer_query(library_id, question, tokens)

    @mcp.tool(
        name="list-libraries",
        description="List the libraries indexed locally, with versions and chunk counts.",
        annotations=READ_ONLY,
    )
    @tool_errors
    async def list_libraries() -> str:
        return await run(lambda: format_libraries(_docs(state).libraries()))

    @mcp.resource(
        "contextbase://libraries",
        name="libraries",
        description="Indexed libraries with their versions and chunk counts.",
        mime_type="text/plain",
    )
    async def libraries_resource() -> str:
        return await run(lambda: format_libraries(_docs(state).libraries()))
