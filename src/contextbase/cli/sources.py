"""Source commands: crawl, sources, jobs; and the runner ``add`` shares with ``crawl``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from contextbase.cli._common import (
    console,
    db_option,
    echo_json,
    err_console,
    json_option,
    open_database,
    settings_for,
)
from contextbase.embed import configured_embedder
from contextbase.errors import InvalidInputError
from contextbase.ingest.sources import AddProgress, AddResult, SourceSpec, add_source, source_kind
from contextbase.ingest.web.crawler import CrawlOptions
from contextbase.ingest.web.fetch import FetchOptions
from contextbase.jobs import JobHandle, JobStore, run_here
from contextbase.rag.code_examples import DEFAULT_MIN_CHARS
from contextbase.rag.store import RagStore
from contextbase.store.sqlite import SQLiteStore

F = TypeVar("F", bound=Callable[..., Any])

_WEB_OPTIONS = [
    click.option(
        "--max-depth",
        default=3,
        show_default=True,
        type=click.IntRange(0, 20),
        help="Link levels to follow from the start page (link crawls).",
    ),
    click.option(
        "--max-pages",
        default=1000,
        show_default=True,
        type=click.IntRange(1),
        help="Most pages to fetch.",
    ),
    click.option(
        "--max-concurrent",
        default=10,
        show_default=True,
        type=click.IntRange(1, 100),
        help="Pages fetched at the same time.",
    ),
    click.option(
        "--include-url",
        multiple=True,
        help="Only crawl URLs matching this glob or substring (repeatable).",
    ),
    click.option(
        "--exclude-url",
        multiple=True,
        help="Skip URLs matching this glob or substring (repeatable).",
    ),
    click.option(
        "--render",
        is_flag=True,
        help="Render pages with headless Chromium (JavaScript-built docs).",
    ),
    click.option("--single-page", is_flag=True, help="Fetch only the given page."),
    click.option("--no-robots", is_flag=True, help="Ignore robots.txt (your own sites only)."),
    click.option(
        "--code-min-chars",
        default=DEFAULT_MIN_CHARS,
        show_default=True,
        type=click.IntRange(1),
        help="Shortest code block kept as a code example.",
    ),
]


def web_options(func: F) -> F:
    """The crawl options ``add`` and ``crawl`` share."""
    for option in reversed(_WEB_OPTIONS):
        func = option(func)
    return func


def crawl_options(
    max_depth: int,
    max_pages: int,
    max_concurrent: int,
    include_url: tuple[str, ...],
    exclude_url: tuple[str, ...],
    render: bool,
    single_page: bool,
    no_robots: bool,
) -> CrawlOptions:
    """Crawl options from the command line; the CLI may fetch private addresses (see ssrf)."""
    return CrawlOptions(
        max_depth=max_depth,
        max_pages=max_pages,
        include=include_url,
        exclude=exclude_url,
        single_page=single_page,
        render=render,
        respect_robots=not no_robots,
        allow_private=True,
        fetch=FetchOptions(max_concurrent=max_concurrent),
    )


class _ProgressDisplay:
    """Progress bars on stderr: files for folders, pages fetched/queued/failed for sites."""

    def __init__(self, quiet: bool) -> None:
        self.bars = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[detail]}"),
            TimeElapsedColumn(),
            console=err_console,
            disable=quiet,
            transient=True,
        )
        self.task = self.bars.add_task("Starting", total=None, detail="")

    def __call__(self, p: AddProgress) -> None:
        if p.total_files is not None:
            done, total = p.files, p.total_files
            detail = f"{p.chunks} chunks"
        else:
            done = p.fetched + p.failed
            total = done + p.queued
            detail = f"fetched {p.fetched}, queued {p.queued}, failed {p.failed}; {p.chunks} chunks"
        self.bars.update(
            self.task,
            description=p.phase.capitalize(),
            completed=done,
            total=total or None,
            detail=detail,
        )


def run_add(spec: SourceSpec, db_path: str | None, embedder: str | None, as_json: bool) -> None:
    """Add a source with progress bars, then print what happened."""
    settings = settings_for(db_path)
    db = open_database(settings)
    model = configured_embedder(embedder or settings.embedder, **settings.embedder_options)
    display = _ProgressDisplay(quiet=as_json)
    outcome: dict[str, AddResult] = {}

    def work(handle: JobHandle | None = None) -> dict[str, Any]:
        def report(progress: AddProgress) -> None:
            display(progress)
            if handle is not None:
                handle.progress(progress.as_dict())

        result = add_source(
            db,
            settings,
            spec,
            embedders=[model] if model else [],
            on_progress=report,
            cancelled=handle.cancelled if handle else None,
        )
        outcome["result"] = result
        return result.as_dict()

    with display.bars:
        if source_kind(spec.location, spec.ref) == "web":
            run_here(JobStore(db), "crawl", {"url": spec.location, "via": "cli"}, work)
        else:
            work()
    result = outcome["result"]
    if as_json:
        echo_json(result.as_dict())
        return
    _print_result(result, embedded=model is not None)


def _print_result(result: AddResult, embedded: bool) -> None:
    report, library = result.report, result.library
    version = f"/{result.version}" if result.version else ""
    console.print(
        f"Indexed {library.name} ({library.context7_id}{version}): "
        f"{report.indexed} new or changed, {report.unchanged} unchanged, "
        f"{len(report.skipped)} skipped, {report.removed} removed; {report.chunks} chunks, "
        f"{result.code_examples} code examples.",
        highlight=False,
    )
    crawl = result.crawl
    if crawl is not None:
        state = (
            "cancelled"
            if crawl.cancelled
            else (
                "complete" if crawl.complete else f"stopped at {crawl.fetched} pages (--max-pages)"
            )
        )
        console.print(
            f"Crawled {crawl.fetched} pages ({crawl.strategy}, {state}); {crawl.unchanged} not "
            f"modified, {crawl.failed} failed, {crawl.skipped} skipped.",
            highlight=False,
        )
        for failure in crawl.failures[:5]:
            console.print(
                f"  failed: {failure['url']}: {failure['reason']}", highlight=False, markup=False
            )
    if not embedded:
        console.print("Keyword-only index: no embedding model was used.")


@click.command()
@click.argument("url")
@click.option("--library", "library_name", help="Library name (default: the site's domain).")
@click.option("--version", "version", default=None, help="Documentation version.")
@click.option("--description", help="Short description of the site.")
@web_options
@click.option("--embedder", default=None, help="Embedding provider (default: settings).")
@db_option
@json_option
def crawl(
    url: str,
    library_name: str | None,
    version: str | None,
    description: str | None,
    code_min_chars: int,
    embedder: str | None,
    db_path: str | None,
    as_json: bool,
    **web: Any,
) -> None:
    """Crawl a documentation website (llms.txt, sitemap or links) and index it."""
    if source_kind(url) != "web":
        raise InvalidInputError(f"{url!r} is not a website URL; use 'contextbase add' for it.")
    spec = SourceSpec(
        url,
        library=library_name,
        version=version,
        description=description,
        crawl=crawl_options(**web),
        code_min_chars=code_min_chars,
    )
    run_add(spec, db_path, embedder, as_json)


@click.command()
@db_option
@json_option
def sources(db_path: str | None, as_json: bool) -> None:
    """List crawled sites and repositories (the sources table)."""
    db = open_database(settings_for(db_path))
    rows = RagStore(SQLiteStore(db)).list_sources()
    if as_json:
        echo_json([s.as_dict() for s in rows])
        return
    if not rows:
        console.print("No sources yet; add one with 'contextbase crawl URL' or 'contextbase add'.")
        return
    table = Table("source", "kind", "library", "version", "docs", "words", "code", "updated")
    for s in rows:
        table.add_row(
            s.source_id,
            s.kind,
            s.library_id,
            s.version,
            str(s.document_count),
            str(s.total_word_count),
            str(s.code_example_count),
            s.updated_at,
        )
    console.print(table)


@click.group(invoke_without_command=True)
@click.option("--status", default=None, help="Only jobs with this status.")
@db_option
@json_option
@click.pass_context
def jobs(ctx: click.Context, status: str | None, db_path: str | None, as_json: bool) -> None:
    """List background crawl jobs (subcommands: list, show, cancel)."""
    if ctx.invoked_subcommand is None:
        ctx.invoke(list_jobs, status=status, db_path=db_path, as_json=as_json)


def _jobs(db_path: str | None) -> JobStore:
    return JobStore(open_database(settings_for(db_path)))


@jobs.command("list")
@click.option("--status", default=None, help="Only jobs with this status.")
@db_option
@json_option
def list_jobs(status: str | None, db_path: str | None, as_json: bool) -> None:
    """List recent jobs, newest first."""
    found = _jobs(db_path).list(status)
    if as_json:
        echo_json([j.as_dict() for j in found])
        return
    if not found:
        console.print("No jobs.")
        return
    table = Table("job", "kind", "status", "url", "progress", "created")
    for job in found:
        p = job.progress
        progress = f"{p.get('fetched', 0)} fetched, {p.get('failed', 0)} failed" if p else ""
        table.add_row(
            job.id, job.kind, job.status, str(job.params.get("url", "")), progress, job.created_at
        )
    console.print(table)


@jobs.command("show")
@click.argument("job_id")
@db_option
def show_job(job_id: str, db_path: str | None) -> None:
    """Show one job as JSON."""
    echo_json(_jobs(db_path).get(job_id).as_dict())


@jobs.command("cancel")
@click.argument("job_id")
@db_option
def cancel_job(job_id: str, db_path: str | None) -> None:
    """Ask a job to stop after its current page."""
    job = _jobs(db_path).request_cancel(job_id)
    console.print(
        f"Job {job.id}: {job.status}{' (cancel requested)' if job.cancel_requested else ''}."
    )


COMMANDS = [crawl, sources, jobs]
