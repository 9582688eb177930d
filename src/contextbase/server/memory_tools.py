"""Error-solution memory tools, named and shaped as Context8's.

``save-error-solution``, ``search-solutions``, ``get-solution-detail``,
``batch-get-solutions`` and ``delete-solution`` keep Context8's names and
argument names, so prompts and rules written for it work unchanged. The
resource ``contextbase://solutions/recent`` lists the latest solutions.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, TypeVar

import anyio
from mcp.server import MCPServer
from mcp.types import ToolAnnotations
from pydantic import Field

from contextbase.errors import NotFoundError
from contextbase.memory.format import format_detail, format_recent, format_saved, format_search
from contextbase.memory.models import ERROR_TYPES, MAX_ERROR_CHARS
from contextbase.memory.search import MODES
from contextbase.memory.service import MAX_LIMIT, SolutionMemory
from contextbase.server._errors import tool_errors
from contextbase.server.state import ServerState

T = TypeVar("T")
READ_ONLY = ToolAnnotations(readOnlyHint=True, openWorldHint=False)
WRITES = ToolAnnotations(readOnlyHint=False, destructiveHint=False, openWorldHint=False)
DELETES = ToolAnnotations(readOnlyHint=False, destructiveHint=True, openWorldHint=False)

SAVE_DESCRIPTION = """Save an error you fixed, with its root cause and fix, to the error memory.

Call it AFTER the fix is verified (the build passes, the test is green, the command
works) — never for a guess. Next time this or a similar error appears, in this or
another project, search-solutions finds it in milliseconds.

Abstract private details before calling: keep the technical pattern, replace project
names, internal hosts, customer data and proprietary identifiers with generic ones
(e.g. 'src/components/Widget.tsx', 'fetchData', 'api.example.com'). Secrets (API keys,
tokens, passwords, private keys, JWTs) and the home folder are redacted automatically
and the reply says what was removed, but do not rely on it.

Saving the same error with the same fix again updates the existing solution (its
save count grows) instead of adding a copy. Pass `environment` with the versions that
matter (e.g. {"python": "3.12", "mypy": "1.10"}) so later searches can prefer
solutions for the caller's versions."""

SEARCH_DESCRIPTION = """Search the local memory of solved errors. Call it BEFORE debugging an error.

Pass the error message as `query` (paste the error line and its code, e.g. 'connect
ECONNREFUSED 127.0.0.1:5432' or "error TS2339: Property 'x' does not exist"), or a few
keywords. Paths, line numbers, addresses and quoted names are normalised away; exact
error codes (ECONNREFUSED, TS2339, E0382, [attr-defined], KeyError, HTTP 404) decide:
a solution with the same code always ranks above one whose code differs.

Modes: hybrid (default: meaning + keywords), semantic, sparse (keywords only).
Scores are 0-1; results below `minScore` (default 0.3) are left out. Give
`environment` (e.g. {"node": "20.10"}) to rank solutions for your versions higher.
Returns previews with ids: read the best 1-3 with batch-get-solutions or
get-solution-detail before applying a fix."""

DETAIL_DESCRIPTION = """Full details of one saved error solution: error message, context,
root cause, fix, code changes, environment. `solutionId` is an id returned by search-solutions."""

BATCH_DESCRIPTION = """Full details of 1-10 saved error solutions at once (ids from
search-solutions). Prefer it to several get-solution-detail calls; unknown ids are listed."""

DELETE_DESCRIPTION = """Delete a saved error solution that is wrong or obsolete (id from
search-solutions). The deletion cannot be undone."""


def _memory(state: ServerState) -> SolutionMemory:
    return state.feature("memory", lambda s: SolutionMemory(s.db, s.embedder))


async def _run(func: Callable[[], T]) -> T:
    return await anyio.to_thread.run_sync(func)


def register(mcp: MCPServer, state: ServerState, *, read_only: bool) -> None:
    """Register the memory tools; the writing ones only when not ``read_only``."""

    @mcp.tool(name="search-solutions", description=SEARCH_DESCRIPTION, annotations=READ_ONLY)
    @tool_errors
    async def search_solutions(
        query: Annotated[
            str,
            Field(
                description="The error message (or keywords) to look up, "
                f"at most {MAX_ERROR_CHARS:,} characters."
            ),
        ],
        limit: Annotated[int, Field(description=f"Maximum number of results, 1-{MAX_LIMIT}.")] = 5,
        minScore: Annotated[
            float, Field(description="Leave out results scoring below this (0-1).")
        ] = 0.3,
        mode: Annotated[
            str,
            Field(
                description="hybrid (default), semantic or sparse (keywords only).",
                json_schema_extra={"enum": list(MODES)},
            ),
        ] = "hybrid",
        environment: Annotated[
            dict[str, Any] | str | None,
            Field(description='Your versions, e.g. {"python": "3.12", "django": "5.0"}.'),
        ] = None,
    ) -> str:
        def answer() -> str:
            memory = _memory(state)
            result = memory.search(
                query, limit=limit, min_score=minScore, mode=mode, environment=environment
            )
            return format_search(query, result.hits, result.mode, result.total, minScore)

        return await _run(answer)

    @mcp.tool(name="get-solution-detail", description=DETAIL_DESCRIPTION, annotations=READ_ONLY)
    @tool_errors
    async def get_solution_detail(
        solutionId: Annotated[str, Field(description="A solution id from search-solutions.")],
    ) -> str:
        return await _run(
            lambda: format_detail(_memory(state).get(solutionId, count_hit=not read_only))
        )

    @mcp.tool(name="batch-get-solutions", description=BATCH_DESCRIPTION, annotations=READ_ONLY)
    @tool_errors
    async def batch_get_solutions(
        solutionIds: Annotated[
            list[str], Field(description="1 to 10 solution ids from search-solutions.")
        ],
    ) -> str:
        def answer() -> str:
            found, missing = _memory(state).batch_get(solutionIds, count_hit=not read_only)
            if not found:
                raise NotFoundError(
                    f"None of the ids exist ({', '.join(missing)}); "
                    "search-solutions lists the ids that do."
                )
            text = "\n\n---\n\n".join(format_detail(s) for s in found)
            if missing:
                text += f"\n\nNot found: {', '.join(missing)}"
            return f"Retrieved {len(found)} solution(s):\n\n{text}"

        return await _run(answer)

    @mcp.resource(
        "contextbase://solutions/recent",
        name="recent-solutions",
        title="Recent error solutions",
        description="The 10 most recently saved or updated error solutions.",
        mime_type="text/plain",
    )
    async def recent_solutions() -> str:
        return await _run(lambda: format_recent(_memory(state).recent(10)))

    if read_only:
        return

    @mcp.tool(name="save-error-solution", description=SAVE_DESCRIPTION, annotations=WRITES)
    @tool_errors
    async def save_error_solution(
        errorMessage: Annotated[
            str,
            Field(
                description="The error message, with project-specific names abstracted "
                f"(at most {MAX_ERROR_CHARS:,} characters: the error and its nearest frames)."
            ),
        ],
        solution: Annotated[
            str, Field(description="The verified fix, step by step, with generic names.")
        ],
        title: Annotated[
            str | None,
            Field(description="A short generic title; defaults to the error's main line."),
        ] = None,
        errorType: Annotated[
            str | None,
            Field(
                description="Category: " + ", ".join(ERROR_TYPES) + " (default other).",
                json_schema_extra={"enum": list(ERROR_TYPES)},
            ),
        ] = None,
        context: Annotated[
            str | None, Field(description="When and where it happened, in generic terms.")
        ] = None,
        rootCause: Annotated[
            str | None, Field(description="Why it happened, as a technical explanation.")
        ] = None,
        tags: Annotated[
            list[str] | None, Field(description="Technology tags, e.g. ['react', 'hooks'].")
        ] = None,
        labels: Annotated[
            list[str] | None, Field(description="Optional labels or classifications.")
        ] = None,
        codeChanges: Annotated[
            str | None, Field(description="The code change or diff, abstracted.")
        ] = None,
        environment: Annotated[
            dict[str, Any] | str | None,
            Field(description='Versions that matter, e.g. {"node": "20.10.0", "next": "15.1"}.'),
        ] = None,
        projectPath: Annotated[
            str | None, Field(description="A generic project kind ('react-app'), not a path.")
        ] = None,
        cliLibraryId: Annotated[
            str | None,
            Field(description="Library id of the docs involved, e.g. '/pypi/fastapi/0.110'."),
        ] = None,
    ) -> str:
        fields = {
            "errorMessage": errorMessage,
            "solution": solution,
            "title": title,
            "errorType": errorType,
            "context": context,
            "rootCause": rootCause,
            "tags": tags,
            "labels": labels,
            "codeChanges": codeChanges,
            "environment": environment,
            "projectPath": projectPath,
            "cliLibraryId": cliLibraryId,
        }

        def answer() -> str:
            memory = _memory(state)
            result = memory.save(fields)
            return format_saved(result.solution, result.created, result.redacted, memory.count())

        return await _run(answer)

    @mcp.tool(name="delete-solution", description=DELETE_DESCRIPTION, annotations=DELETES)
    @tool_errors
    async def delete_solution(
        solutionId: Annotated[str, Field(description="The id of the solution to delete.")],
    ) -> str:
        removed = await _run(lambda: _memory(state).delete(solutionId))
        return f'Deleted solution {removed.id} "{removed.title}".'
