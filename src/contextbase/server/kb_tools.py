"""The knowledgebase tool, named and shaped as pgEdge's ``search_knowledgebase``."""

from __future__ import annotations

from typing import Annotated

import anyio
from mcp.server import MCPServer
from mcp.types import ToolAnnotations
from pydantic import Field

from contextbase.errors import InvalidInputError
from contextbase.kb.format import format_answer, format_products
from contextbase.kb.search import DEFAULT_TOP_N, MAX_TOP_N, KnowledgebaseSearch, local_fallback
from contextbase.server._errors import tool_errors
from contextbase.server.state import ServerState
from contextbase.store.sqlite import SQLiteStore

READ_ONLY = ToolAnnotations(readOnlyHint=True, openWorldHint=False)

DESCRIPTION = f"""Search the product documentation knowledgebase shipped with this server:
manuals of products and of several versions of each (for example PostgreSQL releases).

Use it whenever you need facts about these products that you may not know or may
misremember: SQL syntax, functions, configuration parameters, behaviour that changed
between versions. Ask a focused `query` in natural language or with exact terms.
Narrow with `project_names` and `project_versions` (names as listed by
`list_products=true`, which lists the projects and versions instead of searching).
Returns the `top_n` best passages (default {DEFAULT_TOP_N}, at most {MAX_TOP_N}), each
with project, version, title, section path, source and text."""


def _kb(state: ServerState) -> KnowledgebaseSearch:
    def build(s: ServerState) -> KnowledgebaseSearch:
        user_store = SQLiteStore(s.db) if s.settings.db.exists() else None
        keyword_only = s.settings.embedder.strip().lower() == "none"
        return KnowledgebaseSearch(
            s.settings.knowledgebases,
            s.embedder,
            user_store=user_store,
            fallback=None if keyword_only else local_fallback,
        )

    return state.feature("kb", build)


def _as_list(value: list[str] | str | None) -> list[str]:
    """Agents send one name as a string as often as a list: accept both."""
    if value is None:
        return []
    items = value.split(",") if isinstance(value, str) else value
    return [item.strip() for item in items if item and item.strip()]


def register(mcp: MCPServer, state: ServerState, *, read_only: bool) -> None:
    @mcp.tool(name="search_knowledgebase", description=DESCRIPTION, annotations=READ_ONLY)
    @tool_errors
    async def search_knowledgebase(
        query: Annotated[
            str | None, Field(description="What to look for (required unless list_products).")
        ] = None,
        project_names: Annotated[
            list[str] | str | None, Field(description="Only these projects, e.g. ['PostgreSQL'].")
        ] = None,
        project_versions: Annotated[
            list[str] | str | None, Field(description="Only these versions, e.g. ['17'].")
        ] = None,
        top_n: Annotated[
            int, Field(description=f"Passages to return (1 to {MAX_TOP_N}).", ge=1)
        ] = DEFAULT_TOP_N,
        list_products: Annotated[
            bool, Field(description="List the projects and versions instead of searching.")
        ] = False,
    ) -> str:
        names, versions = _as_list(project_names), _as_list(project_versions)
        if not list_products and not (query and query.strip()):
            raise InvalidInputError(
                "query is required: say what you are looking for (or set list_products)."
            )

        def answer() -> str:
            kb = _kb(state)
            if list_products:
                return format_products(kb.products(), kb.notes())
            return format_answer(kb.search(query or "", names, versions, top_n))

        return await anyio.to_thread.run_sync(answer)
