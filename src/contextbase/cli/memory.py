"""``contextbase solutions``: the error-solution memory from the command line."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

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
from contextbase.memory.format import format_detail, format_saved, format_search
from contextbase.memory.models import ERROR_TYPES, SearchFilters
from contextbase.memory.search import MODES
from contextbase.memory.service import MAX_LIMIT, SolutionMemory

embedder_option = click.option(
    "--embedder",
    default=None,
    help="Embedding provider: local (default), none (keyword only), openai, voyage, ollama.",
)


def _memory(
    db_path: str | None, embedder: str | None = None, *, embed: bool = True
) -> SolutionMemory:
    settings = settings_for(db_path)
    model = (
        configured_embedder(embedder or settings.embedder, **settings.embedder_options)
        if embed
        else None
    )
    return SolutionMemory(open_database(settings), model)


def _print(text: str) -> None:
    """User content may hold [brackets]; print it literally, never as rich markup."""
    console.print(text, markup=False, highlight=False, soft_wrap=True)


def _read_text(value: str | None, path: str | None, name: str) -> str | None:
    """An option given inline or as a file (``-`` is stdin), read as strict UTF-8."""
    if path is None:
        return value
    data = sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInputError(
            f"{name} file {path} is not valid UTF-8 (byte 0x{data[exc.start]:02x} at {exc.start})."
        ) from exc


def _environment(pairs: tuple[str, ...]) -> dict[str, str]:
    environment: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise InvalidInputError(
                f"--env {pair!r} must look like NAME=VERSION, e.g. python=3.12."
            )
        environment[key.strip()] = value.strip()
    return environment


@click.group()
def solutions() -> None:
    """Remember solved errors and find them again (Context8-style memory)."""


@solutions.command()
@click.option("--error", "error_message", help="The error message.")
@click.option(
    "--error-file",
    type=click.Path(dir_okay=False, allow_dash=True),
    help="Read the error from a file ('-' for stdin).",
)
@click.option("--solution", "solution_text", help="The verified fix.")
@click.option(
    "--solution-file",
    type=click.Path(exists=True, dir_okay=False),
    help="Read the fix from a file.",
)
@click.option("--title", help="Short generic title (default: the error's main line).")
@click.option("--type", "error_type", type=click.Choice(ERROR_TYPES), help="Error category.")
@click.option("--context", help="When and where it happened.")
@click.option("--root-cause", help="Why it happened.")
@click.option(
    "--code-changes-file",
    type=click.Path(exists=True, dir_okay=False),
    help="A diff or code change.",
)
@click.option("--tag", "tags", multiple=True, help="Tag (repeatable).")
@click.option("--label", "labels", multiple=True, help="Label (repeatable).")
@click.option(
    "--env", "env_pairs", multiple=True, help="NAME=VERSION (repeatable), e.g. python=3.12."
)
@click.option("--project", "project_path", help="Generic project kind, e.g. react-app.")
@click.option("--library", "cli_library_id", help="Library id, e.g. /pypi/fastapi/0.110.")
@embedder_option
@db_option
@json_option
def save(
    error_message: str | None,
    error_file: str | None,
    solution_text: str | None,
    solution_file: str | None,
    title: str | None,
    error_type: str | None,
    context: str | None,
    root_cause: str | None,
    code_changes_file: str | None,
    tags: tuple[str, ...],
    labels: tuple[str, ...],
    env_pairs: tuple[str, ...],
    project_path: str | None,
    cli_library_id: str | None,
    embedder: str | None,
    db_path: str | None,
    as_json: bool,
) -> None:
    """Save a solved error (secrets are redacted; a near-duplicate is updated)."""
    fields: dict[str, Any] = {
        "errorMessage": _read_text(error_message, error_file, "--error-file"),
        "solution": _read_text(solution_text, solution_file, "--solution-file"),
        "title": title,
        "errorType": error_type,
        "context": context,
        "rootCause": root_cause,
        "codeChanges": _read_text(None, code_changes_file, "--code-changes-file"),
        "tags": list(tags),
        "labels": list(labels),
        "environment": _environment(env_pairs),
        "projectPath": project_path,
        "cliLibraryId": cli_library_id,
    }
    memory = _memory(db_path, embedder)
    result = memory.save(fields)
    if as_json:
        echo_json(
            {
                "created": result.created,
                "redacted": result.redacted,
                "solution": result.solution.to_dict(),
            }
        )
        return
    _print(format_saved(result.solution, result.created, result.redacted, memory.count()))


@solutions.command()
@click.argument("query")
@click.option("--limit", default=5, show_default=True, type=click.IntRange(1, MAX_LIMIT))
@click.option("--min-score", default=0.3, show_default=True, type=click.FloatRange(0, 1))
@click.option("--mode", default="hybrid", show_default=True, type=click.Choice(MODES))
@click.option("--env", "env_pairs", multiple=True, help="Your versions, NAME=VERSION (repeatable).")
@click.option(
    "--type", "error_type", type=click.Choice(ERROR_TYPES), help="Only this error category."
)
@click.option("--tag", "tags", multiple=True, help="Only solutions with this tag (repeatable).")
@click.option(
    "--label", "labels", multiple=True, help="Only solutions with this label (repeatable)."
)
@click.option("--project", "project_path", help="Only solutions of this project kind.")
@click.option("--library", "cli_library_id", help="Only solutions linked to this library id.")
@embedder_option
@db_option
@json_option
def search(
    query: str,
    limit: int,
    min_score: float,
    mode: str,
    env_pairs: tuple[str, ...],
    error_type: str | None,
    tags: tuple[str, ...],
    labels: tuple[str, ...],
    project_path: str | None,
    cli_library_id: str | None,
    embedder: str | None,
    db_path: str | None,
    as_json: bool,
) -> None:
    """Search saved solutions for an error message or keywords."""
    memory = _memory(db_path, embedder, embed=mode != "sparse")
    filters = SearchFilters(
        error_type, tuple(t.lower() for t in tags), labels, project_path, cli_library_id
    )
    result = memory.search(
        query,
        limit=limit,
        min_score=min_score,
        mode=mode,
        environment=_environment(env_pairs),
        filters=filters,
    )
    if as_json:
        echo_json(
            {"mode": result.mode, "total": result.total, "hits": [h.to_dict() for h in result.hits]}
        )
        return
    _print(format_search(query, result.hits, result.mode, result.total, min_score))


@solutions.command()
@click.argument("solution_id")
@db_option
@json_option
def show(solution_id: str, db_path: str | None, as_json: bool) -> None:
    """Show one solution in full."""
    solution = _memory(db_path, embed=False).get(solution_id)
    if as_json:
        echo_json(solution.to_dict())
        return
    _print(format_detail(solution))


@solutions.command()
@click.argument("solution_id")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@db_option
def delete(solution_id: str, yes: bool, db_path: str | None) -> None:
    """Delete one solution."""
    memory = _memory(db_path, embed=False)
    solution = memory.get(solution_id, count_hit=False)
    if not yes:
        click.confirm(f'Delete "{solution.title}"?', abort=True)
    memory.delete(solution.id)
    _print(f"Deleted {solution.id}.")


@solutions.command("export")
@click.argument("output", type=click.Path(dir_okay=False, allow_dash=True), default="-")
@db_option
def export_(output: str, db_path: str | None) -> None:
    """Write every solution as JSON Lines to OUTPUT (default: stdout)."""
    memory = _memory(db_path, embed=False)
    if output == "-":
        count = memory.export_jsonl(sys.stdout)
    else:
        with open(output, "w", encoding="utf-8") as out:
            count = memory.export_jsonl(out)
    err_console.print(f"Exported {count} solution(s).", markup=False, highlight=False)


@solutions.command("import")
@click.argument("source", type=click.Path(exists=True, dir_okay=False, allow_dash=True))
@embedder_option
@db_option
@json_option
def import_(source: str, embedder: str | None, db_path: str | None, as_json: bool) -> None:
    """Import JSON Lines written by export; importing the same file again changes nothing."""
    memory = _memory(db_path, embedder)
    if source == "-":
        report = memory.import_jsonl(sys.stdin.buffer)
    else:
        with open(source, "rb") as lines:
            report = memory.import_jsonl(lines)
    summary = {
        "added": report.added,
        "updated": report.updated,
        "unchanged": report.unchanged,
        "redacted": report.redacted,
    }
    if as_json:
        echo_json(summary)
        return
    _print(
        f"Imported: {report.added} added, {report.updated} updated, {report.unchanged} unchanged."
    )
