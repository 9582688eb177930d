"""Code graph commands: parse, list, remove, check, query, export."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from contextbase.cli._common import (
    console,
    db_option,
    echo_json,
    err_console,
    json_option,
    open_database,
    settings_for,
)
from contextbase.codegraph import CodeGraph, report


def _graph(db_path: str | None) -> CodeGraph:
    settings = settings_for(db_path)
    return CodeGraph(open_database(settings), cache=settings.home / "doc-source")


@click.group("graph")
def graph() -> None:
    """Code knowledge graph: parse libraries, check AI-written scripts for hallucinated APIs."""


@graph.command("parse")
@click.argument("source")
@click.option("--package", "as_package", is_flag=True, help="SOURCE is an installed package.")
@click.option("--git", "as_git", is_flag=True, help="SOURCE is a git URL.")
@click.option(
    "--python",
    "python",
    type=click.Path(dir_okay=False),
    help="Interpreter whose site-packages hold the package (default: this one).",
)
@click.option("--name", default=None, help="Name of the repository in the graph.")
@db_option
@json_option
def parse_command(
    source: str,
    as_package: bool,
    as_git: bool,
    python: str | None,
    name: str | None,
    db_path: str | None,
    as_json: bool,
) -> None:
    """Parse a git URL, a folder or an installed package into the graph (replacing it)."""
    kind = "package" if as_package or python else "git" if as_git else None
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        console=err_console,
        transient=True,
        disable=as_json,
    ) as progress:
        task = progress.add_task(f"parsing {source}", total=None)

        def step(done: int, total: int, _: object) -> None:
            progress.update(task, completed=done, total=total)

        repo = _graph(db_path).parse(source, kind=kind, python=python, name=name, progress=step)
    if as_json:
        echo_json(repo.as_dict())
        return
    console.print(
        f"[green]parsed[/green] {repo.name} {repo.version or ''}: {repo.file_count} files, "
        f"{repo.node_count} symbols in {repo.parse_seconds:.1f} s",
        highlight=False,
    )
    for path, error in repo.failed[:10]:
        err_console.print(f"  not parsed: {path} ({error})", highlight=False)


@graph.command("list")
@db_option
@json_option
def list_command(db_path: str | None, as_json: bool) -> None:
    """Repositories and packages in the graph."""
    repos = _graph(db_path).repositories()
    if as_json:
        echo_json([r.as_dict() for r in repos])
        return
    if not repos:
        console.print("No code graphs yet; add one with `contextbase graph parse`.")
    for repo in repos:
        console.print(
            f"{repo.name}  {repo.version or '-'}  {repo.source_kind}:{repo.source}  "
            f"{repo.file_count} files, {repo.node_count} symbols  ({repo.parsed_at})",
            highlight=False,
        )


@graph.command("remove")
@click.argument("name")
@db_option
def remove_command(name: str, db_path: str | None) -> None:
    """Delete a repository's graph."""
    _graph(db_path).remove(name)
    console.print(f"removed {name}")


@graph.command("check")
@click.argument("script", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--repo", "repos", multiple=True, help="Check only against these repositories.")
@click.option("--all", "include_valid", is_flag=True, help="Also list valid references (JSON).")
@click.option("--exit-code", is_flag=True, help="Exit with status 1 when hallucinations are found.")
@db_option
@json_option
def check_command(
    script: str,
    repos: tuple[str, ...],
    include_valid: bool,
    exit_code: bool,
    db_path: str | None,
    as_json: bool,
) -> None:
    """Check a Python script (or - for stdin) for hallucinated APIs."""
    graph_ = _graph(db_path)
    if script == "-":
        analysis = graph_.check(sys.stdin.read(), filename="<stdin>", repos=list(repos) or None)
    else:
        analysis = graph_.check_file(Path(script), repos=list(repos) or None)
    if as_json:
        echo_json(report.to_json(analysis, include_valid=include_valid))
    else:
        click.echo(report.to_markdown(analysis), nl=False)
    if exit_code and analysis.hallucinations:
        raise SystemExit(1)


@graph.command("query")
@click.argument("command", nargs=-1, required=True)
@db_option
def query_command(command: tuple[str, ...], db_path: str | None) -> None:
    """Run a query_knowledge_graph command: repos, explore, classes, class, method, query."""
    result = _graph(db_path).query(" ".join(command))
    sys.stdout.write(json.dumps(result, indent=2, ensure_ascii=False, default=str) + "\n")


@graph.command("export")
@click.argument("name")
@click.option("--output", "-o", type=click.Path(dir_okay=False), help="File (default: stdout).")
@db_option
def export_command(name: str, output: str | None, db_path: str | None) -> None:
    """Export a repository's graph as Cypher statements for Neo4j."""
    statements = _graph(db_path).export_cypher(name)
    if output is None:
        for statement in statements:
            sys.stdout.write(statement + "\n")
        return
    with open(output, "w", encoding="utf-8") as handle:
        count = 0
        for statement in statements:
            handle.write(statement + "\n")
            count += 1
    console.print(f"wrote {count} statements to {output}")
