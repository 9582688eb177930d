"""Documentation commands: add, search, libraries, resolve, stats, doctor, eval."""

from __future__ import annotations

from typing import Any

import click

from contextbase.cli._common import (
    console,
    db_option,
    echo_json,
    json_option,
    open_database,
    settings_for,
)
from contextbase.cli.sources import crawl_options, run_add, web_options
from contextbase.config import Settings
from contextbase.docs.format import format_libraries
from contextbase.docs.service import DocsService
from contextbase.embed import Embedder, configured_embedder
from contextbase.errors import NotFoundError
from contextbase.ingest.sources import SourceSpec
from contextbase.store.models import Filters
from contextbase.store.sqlite import SQLiteStore


def _store(settings: Settings) -> SQLiteStore:
    return SQLiteStore(open_database(settings))


def _embedder(settings: Settings, spec: str | None) -> Embedder | None:
    return configured_embedder(spec or settings.embedder, **settings.embedder_options)


def _service(db_path: str | None, embedder: str | None = None) -> DocsService:
    settings = settings_for(db_path)
    return DocsService(_store(settings), _embedder(settings, embedder))


embedder_option = click.option(
    "--embedder",
    default=None,
    help="Embedding provider: local (default), none (keyword only), openai, voyage, ollama.",
)


@click.command()
@click.argument("source")
@click.option("--library", "library_name", help="Library name (default: from the source).")
@click.option(
    "--version",
    "version",
    default=None,
    help="Documentation version (default: the git --ref, else none).",
)
@click.option("--ecosystem", help="Package ecosystem: pypi, npm, crates.io, maven, ...")
@click.option("--language", help="Programming language.")
@click.option("--description", help="Short description of the library.")
@click.option("--include", multiple=True, help="Glob of files to index (repeatable).")
@click.option("--exclude", multiple=True, help="Glob of files to skip (repeatable).")
@click.option("--ref", default=None, help="Git branch or tag to index (git sources).")
@click.option(
    "--path",
    "docs_path",
    default=None,
    help="Documentation folder inside the folder or repository (e.g. docs/).",
)
@web_options
@embedder_option
@db_option
@json_option
def add(
    source: str,
    library_name: str | None,
    version: str | None,
    ecosystem: str | None,
    language: str | None,
    description: str | None,
    include: tuple[str, ...],
    exclude: tuple[str, ...],
    ref: str | None,
    docs_path: str | None,
    code_min_chars: int,
    embedder: str | None,
    db_path: str | None,
    as_json: bool,
    **web: Any,
) -> None:
    """Index documentation from a folder, a git repository or a website.

    SOURCE is a folder, a git URL (github.com/org/repo, *.git, file://, or a
    local repository with --ref), or an http(s) URL to crawl. Re-running
    updates the index incrementally.
    """
    spec = SourceSpec(
        source,
        library=library_name,
        version=version,
        ecosystem=ecosystem,
        language=language,
        description=description,
        include=include,
        exclude=exclude,
        ref=ref,
        path=docs_path,
        crawl=crawl_options(**web),
        code_min_chars=code_min_chars,
    )
    run_add(spec, db_path, embedder, as_json)


@click.command()
@click.argument("query")
@click.option("--library", "library_id", help="Library id (/ecosystem/name) or name.")
@click.option("--version", default=None, help="Only this documentation version.")
@click.option("--language", default=None)
@click.option("--ecosystem", default=None)
@click.option("--limit", default=5, show_default=True, type=click.IntRange(1, 100))
@click.option("--tokens", default=None, type=click.IntRange(50, 100_000), help="Token budget.")
@click.option("--mode", type=click.Choice(["hybrid", "keyword", "vector"]), default="hybrid")
@embedder_option
@db_option
@json_option
def search(
    query: str,
    library_id: str | None,
    version: str | None,
    language: str | None,
    ecosystem: str | None,
    limit: int,
    tokens: int | None,
    mode: str,
    embedder: str | None,
    db_path: str | None,
    as_json: bool,
) -> None:
    """Search the indexed documentation by meaning and by keyword."""
    service = _service(db_path, embedder)
    filters = Filters(version=version, language=language, ecosystem=ecosystem)
    if library_id:
        filters.library_id = _library_key(service, library_id)
    results = service.search.search(query, filters, limit=limit, tokens=tokens, mode=mode)  # type: ignore[arg-type]
    if as_json:
        echo_json(
            {
                "query": query,
                "mode": service.search.effective_mode(mode),  # type: ignore[arg-type]
                "results": [r.as_dict() for r in results],
            }
        )
        return
    if not results:
        console.print("No results.")
    for rank, result in enumerate(results, 1):
        console.rule(f"{rank}. {result.heading_path or result.title}  [dim]{result.score:.4f}")
        console.print(
            f"[dim]{result.library_id} {result.version}  {result.source}", highlight=False
        )
        console.print(result.text, markup=False, highlight=False, soft_wrap=True)


def _library_key(service: DocsService, text: str) -> str:
    library = service.store.get_library(text)
    if library is None and not text.startswith("/"):
        matches = service.resolve(text)
        library = matches[0].library if matches else None
    if library is None:
        raise NotFoundError(f"No library {text!r} is indexed; see 'contextbase libraries'.")
    return library.id


@click.group(invoke_without_command=True)
@db_option
@json_option
@click.pass_context
def libraries(ctx: click.Context, db_path: str | None, as_json: bool) -> None:
    """List indexed libraries (subcommands: list, show, remove)."""
    ctx.ensure_object(dict)
    ctx.obj.update(db_path=db_path, as_json=as_json)
    if ctx.invoked_subcommand is None:
        ctx.invoke(list_libraries, db_path=db_path, as_json=as_json)


@libraries.command("list")
@db_option
@json_option
def list_libraries(db_path: str | None, as_json: bool) -> None:
    """List indexed libraries with their versions and chunk counts."""
    summaries = _store(settings_for(db_path)).list_libraries()
    if as_json:
        echo_json(
            [
                {
                    "id": s.library.context7_id,
                    "name": s.library.name,
                    "versions": [vars(v) for v in s.versions],
                    "chunks": s.chunk_count,
                }
                for s in summaries
            ]
        )
        return
    console.print(format_libraries(summaries), markup=False, highlight=False)


@libraries.command("show")
@click.argument("library_id")
@db_option
@json_option
def show_library(library_id: str, db_path: str | None, as_json: bool) -> None:
    """Show every field of one library."""
    service = _service(db_path, "none")
    library = service.store.get_library(_library_key(service, library_id))
    assert library is not None
    if as_json:
        echo_json(library.model_dump())
        return
    for key, value in library.model_dump().items():
        if value not in (None, "", [], 0, 0.0):
            console.print(f"[bold]{key}[/bold]: {value}", highlight=False)


@libraries.command("remove")
@click.argument("library_id")
@click.option("--version", default=None, help="Remove only this version.")
@db_option
def remove_library(library_id: str, version: str | None, db_path: str | None) -> None:
    """Remove a library (or one version of it) and its documents."""
    service = _service(db_path, "none")
    key = _library_key(service, library_id)
    removed = service.store.remove_library(key, version)
    console.print(f"Removed {removed} documents.")


@click.command()
@click.argument("name")
@click.option("--query", default="", help="What you need it for (helps choose).")
@db_option
@json_option
def resolve(name: str, query: str, db_path: str | None, as_json: bool) -> None:
    """Find the library id for a name, like resolve-library-id."""
    service = _service(db_path, "none")
    matches = service.resolve(name, query)
    if as_json:
        echo_json(
            {
                "matches": [
                    {
                        "id": m.library.context7_id,
                        "name": m.library.name,
                        "score": round(m.score, 3),
                        "matched_by": m.matched_by,
                    }
                    for m in matches
                ],
                "suggestions": [] if matches else service.resolver.suggestions(name),
            }
        )
        return
    if not matches:
        suggestions = service.resolver.suggestions(name)
        console.print(f"No library matches {name!r}. Closest: {', '.join(suggestions) or 'none'}.")
        raise SystemExit(1)
    for m in matches:
        console.print(f"{m.library.context7_id}  {m.library.name}  ({m.matched_by}, {m.score:.1f})")


@click.command()
@db_option
@json_option
def stats(db_path: str | None, as_json: bool) -> None:
    """Counts of libraries, documents, chunks and vectors, and the database size."""
    figures = _store(settings_for(db_path)).stats()
    if as_json:
        echo_json(figures)
        return
    for key, value in figures.items():
        console.print(f"[bold]{key}[/bold]: {value}", highlight=False)


COMMANDS = [add, search, libraries, resolve, stats]
