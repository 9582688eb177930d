"""Crawl and RAG tools, named and shaped as the Crawl4AI RAG MCP server's.

``crawl_single_page``, ``smart_crawl_url``, ``get_available_sources``,
``perform_rag_query`` and ``search_code_examples`` keep Crawl4AI's names,
arguments and JSON answers, so its users can switch. Crawls run as
background jobs: a crawl that is not done within ``wait_seconds`` (5 s by
default) answers with a ``job_id`` at once, so clients with a 60 s request
timeout do not fail; ``get_job``, ``list_jobs`` and ``cancel_job`` follow and
control it. While a tool waits it sends MCP progress notifications when the
client asked for them (a progress token in the request).

The crawl tools refuse private, loopback and link-local addresses unless
``server.allow_private_urls`` is set (see ``ingest.web.ssrf``); they are
writers and hidden in read-only mode.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

import anyio
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.types import ToolAnnotations
from pydantic import Field

from contextbase.chunk import ChunkOptions
from contextbase.ingest.sources import AddProgress, AddResult, SourceSpec, add_source
from contextbase.ingest.web.crawler import CrawlOptions
from contextbase.ingest.web.fetch import FetchOptions
from contextbase.ingest.web.ssrf import UrlGuard
from contextbase.ingest.web.urls import require_url
from contextbase.jobs import Job, JobHandle, JobRunner, JobStore
from contextbase.rag.service import RagService, as_json_sources
from contextbase.server._errors import tool_errors
from contextbase.server.state import ServerState
from contextbase.store.sqlite import SQLiteStore

READ_ONLY = ToolAnnotations(readOnlyHint=True, openWorldHint=False)
CRAWLS = ToolAnnotations(readOnlyHint=False, destructiveHint=False, openWorldHint=True)
WAIT_SECONDS = 5.0
POLL_SECONDS = 0.25
MAX_WAIT_SECONDS = 50.0

SINGLE_DESCRIPTION = """Crawl one web page and store its content for RAG queries.

Fetches the page (no link following), converts it to Markdown, splits it into chunks,
embeds them and extracts its code examples. The page's site becomes a source
(see get_available_sources). Answers with counts, or with a job_id when it takes
longer than a few seconds (follow it with get_job)."""

SMART_DESCRIPTION = """Crawl a documentation site (or an llms.txt, a sitemap, a .txt/.md file) and
store it for RAG queries.

Detects the best way in: llms.txt files and .txt/.md URLs are fetched directly,
sitemaps are read, otherwise links under the URL's path are followed breadth-first
up to max_depth. robots.txt is respected. Re-crawling a site is incremental. Crawls
longer than a few seconds continue in the background: the answer then carries a
job_id to follow with get_job or stop with cancel_job."""

SOURCES_DESCRIPTION = """List the crawled sites and repositories (sources) with their summaries and
word counts. Use a source_id as the `source` of perform_rag_query or the `source_id`
of search_code_examples to search one site only."""

RAG_DESCRIPTION = """Search crawled documentation by meaning and keyword; returns the best chunks
with their URL, content, metadata and similarity. Pass `source` (a source_id from
get_available_sources) to search one site only."""

CODE_DESCRIPTION = """Search the code examples extracted from crawled and indexed documentation:
each result has the code, a summary of what it does, its URL and language. Pass
`source_id` to search one site or repository only."""


def _service(state: ServerState) -> RagService:
    return state.feature("rag", lambda s: RagService(SQLiteStore(s.db), s.embedder))


def _runner(state: ServerState) -> JobRunner:
    return state.feature("jobs", lambda s: JobRunner(JobStore(s.db)))


def _dump(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


def crawl_answer(url: str, result: AddResult, job_id: str) -> dict[str, Any]:
    """A finished crawl, shaped as Crawl4AI's crawl tools answer."""
    report, crawl = result.report, result.crawl
    return {
        "success": True,
        "url": url,
        "job_id": job_id,
        "crawl_type": crawl.strategy if crawl else result.kind,
        "pages_crawled": crawl.fetched if crawl else report.files,
        "documents_indexed": report.indexed,
        "documents_unchanged": report.unchanged,
        "documents_removed": report.removed,
        "chunks_stored": report.chunks,
        "code_examples_stored": result.code_examples,
        "source_id": result.source.source_id if result.source else None,
        "total_word_count": result.source.total_word_count if result.source else 0,
        "library_id": result.library.context7_id,
        "pages_failed": crawl.failed if crawl else 0,
        "failures": crawl.failures[:10] if crawl else [],
        "complete": crawl.complete if crawl else True,
        "cancelled": result.cancelled,
    }


def register(mcp: MCPServer, state: ServerState, *, read_only: bool) -> None:
    async def run(func, *args):  # type: ignore[no-untyped-def]
        return await anyio.to_thread.run_sync(func, *args)

    async def start_crawl(
        ctx: Context,
        url: str,
        options: CrawlOptions,
        chunk_size: int | None,
        library: str | None,
        version: str | None,
        wait_seconds: float,
    ) -> str:
        start = require_url(url)
        settings = state.settings
        options.allow_private = settings.server.allow_private_urls
        await UrlGuard(options.allow_private).check(start)  # refuse at once, not in the job
        spec = SourceSpec(start, library=library, version=version, crawl=options)
        chunks = ChunkOptions(
            _tokens(chunk_size) if chunk_size else settings.chunk_tokens,
            settings.chunk_overlap_tokens,
        )
        params = {
            "url": start,
            "single_page": options.single_page,
            "max_depth": options.max_depth,
            "max_pages": options.max_pages,
            "max_concurrent": options.fetch.max_concurrent,
            "chunk_size": chunk_size,
        }

        def work(handle: JobHandle) -> dict[str, Any]:
            embedder = state.embedder
            result = add_source(
                state.db,
                settings,
                spec,
                embedders=[embedder] if embedder else [],
                chunk_options=chunks,
                on_progress=lambda progress: handle.progress(progress.as_dict()),
                cancelled=handle.cancelled,
            )
            return crawl_answer(start, result, handle.job_id)

        runner = await run(_runner, state)
        job = await run(runner.submit, "crawl", params, work)
        job = await wait_for(ctx, runner, job, min(max(wait_seconds, 0.0), MAX_WAIT_SECONDS))
        return _dump(_job_answer(job))

    async def wait_for(ctx: Context, runner: JobRunner, job: Job, seconds: float) -> Job:
        """Wait up to ``seconds`` for a job, sending progress notifications meanwhile."""
        deadline = anyio.current_time() + seconds
        reported: dict[str, Any] = {}
        while True:
            job = await run(runner.wait, job.id, POLL_SECONDS)
            if job.finished or anyio.current_time() >= deadline:
                return job
            handle = runner.handle(job.id)
            latest = handle.latest if handle else job.progress
            if latest and latest != reported:
                reported = latest
                progress = AddProgress(**latest)
                total = progress.fetched + progress.queued + progress.failed
                await ctx.report_progress(
                    progress.fetched + progress.failed,
                    total or None,
                    f"{progress.phase}: {progress.fetched} pages fetched, {progress.queued}"
                    f" queued, {progress.failed} failed, {progress.chunks} chunks stored",
                )

    if not read_only:

        @mcp.tool(name="crawl_single_page", description=SINGLE_DESCRIPTION, annotations=CRAWLS)
        @tool_errors
        async def crawl_single_page(
            url: Annotated[str, Field(description="URL of the page to crawl.")],
            ctx: Context,
            library: Annotated[
                str | None, Field(description="Library to store it in (default: the domain).")
            ] = None,
            version: Annotated[str | None, Field(description="Documentation version.")] = None,
            wait_seconds: Annotated[
                float, Field(description="Seconds to wait before answering with a job id.")
            ] = WAIT_SECONDS,
        ) -> str:
            options = CrawlOptions(single_page=True, max_pages=1)
            return await start_crawl(ctx, url, options, None, library, version, wait_seconds)

        @mcp.tool(name="smart_crawl_url", description=SMART_DESCRIPTION, annotations=CRAWLS)
        @tool_errors
        async def smart_crawl_url(
            url: Annotated[str, Field(description="Start URL: a docs page, llms.txt or sitemap.")],
            ctx: Context,
            max_depth: Annotated[
                int, Field(description="Link levels to follow from the start page.", ge=0, le=10)
            ] = 3,
            max_concurrent: Annotated[
                int, Field(description="Pages fetched at the same time.", ge=1, le=50)
            ] = 10,
            chunk_size: Annotated[
                int | None,
                Field(
                    description="Target chunk size in characters (about 4 per token); "
                    "default: the configured size, tuned for retrieval.",
                    ge=400,
                    le=20_000,
                ),
            ] = None,
            max_pages: Annotated[
                int, Field(description="Most pages to crawl.", ge=1, le=100_000)
            ] = 1000,
            library: Annotated[
                str | None, Field(description="Library to store it in (default: the domain).")
            ] = None,
            version: Annotated[str | None, Field(description="Documentation version.")] = None,
            wait_seconds: Annotated[
                float, Field(description="Seconds to wait before answering with a job id.")
            ] = WAIT_SECONDS,
        ) -> str:
            options = CrawlOptions(
                max_depth=max_depth,
                max_pages=max_pages,
                fetch=FetchOptions(max_concurrent=max_concurrent),
            )
            return await start_crawl(ctx, url, options, chunk_size, library, version, wait_seconds)

        @mcp.tool(
            name="cancel_job",
            description="Stop a running crawl job after its current page (pages done stay).",
            annotations=ToolAnnotations(readOnlyHint=False, destructiveHint=False),
        )
        @tool_errors
        async def cancel_job(
            job_id: Annotated[str, Field(description="The job_id a crawl tool answered.")],
        ) -> str:
            runner = await run(_runner, state)
            return _dump(_job_answer(await run(runner.cancel, job_id)))

    @mcp.tool(name="get_available_sources", description=SOURCES_DESCRIPTION, annotations=READ_ONLY)
    @tool_errors
    async def get_available_sources() -> str:
        return _dump(await run(lambda: as_json_sources(_service(state).sources())))

    @mcp.tool(name="perform_rag_query", description=RAG_DESCRIPTION, annotations=READ_ONLY)
    @tool_errors
    async def perform_rag_query(
        query: Annotated[str, Field(description="What to search for.")],
        source: Annotated[
            str | None, Field(description="A source_id from get_available_sources.")
        ] = None,
        match_count: Annotated[int, Field(description="Results to return.", ge=1, le=50)] = 5,
    ) -> str:
        return _dump(await run(lambda: _service(state).rag_query(query, source, match_count)))

    @mcp.tool(name="search_code_examples", description=CODE_DESCRIPTION, annotations=READ_ONLY)
    @tool_errors
    async def search_code_examples(
        query: Annotated[str, Field(description="What the code should do.")],
        source_id: Annotated[
            str | None, Field(description="A source_id from get_available_sources.")
        ] = None,
        match_count: Annotated[int, Field(description="Results to return.", ge=1, le=50)] = 5,
    ) -> str:
        return _dump(
            await run(lambda: _service(state).search_code_examples(query, source_id, match_count))
        )

    @mcp.tool(
        name="list_jobs",
        description="List recent crawl jobs and their status.",
        annotations=READ_ONLY,
    )
    @tool_errors
    async def list_jobs(
        status: Annotated[
            str | None,
            Field(
                description="Only jobs with this status: queued, running, completed, failed, "
                "cancelled or interrupted."
            ),
        ] = None,
        limit: Annotated[int, Field(description="Most jobs to list.", ge=1, le=200)] = 20,
    ) -> str:
        def answer() -> dict[str, Any]:
            jobs = _runner(state).store.list(status, limit)
            return {"success": True, "jobs": [_job_answer(j) for j in jobs], "count": len(jobs)}

        return _dump(await run(answer))

    @mcp.tool(
        name="get_job",
        description="Status, progress and result of one crawl job.",
        annotations=READ_ONLY,
    )
    @tool_errors
    async def get_job(
        job_id: Annotated[str, Field(description="The job_id a crawl tool answered.")],
    ) -> str:
        return _dump(_job_answer(await run(lambda: _runner(state).store.get(job_id))))


def _tokens(chunk_chars: int) -> int:
    """Crawl4AI sizes chunks in characters; the chunker counts tokens (about 4 characters)."""
    return max(50, min(4000, chunk_chars // 4))


def _job_answer(job: Job) -> dict[str, Any]:
    if job.status == "completed" and isinstance(job.result, dict):
        return {**job.result, "status": job.status}
    answer = {"success": job.status not in ("failed", "interrupted"), **job.as_dict()}
    if not job.finished:
        answer["message"] = (
            "The crawl continues in the background; call get_job with this job_id to follow "
            "it, or cancel_job to stop it."
        )
    return answer
