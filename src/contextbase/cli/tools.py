"""Maintenance commands: doctor and eval."""

from __future__ import annotations

import click

from contextbase.cli._common import console, db_option, echo_json, json_option, settings_for


@click.command()
@db_option
@json_option
def doctor(db_path: str | None, as_json: bool) -> None:
    """Check that sqlite-vec, FTS5, the embedding model and the database work."""
    from contextbase.health import run_checks

    checks = run_checks(settings_for(db_path))
    if as_json:
        echo_json([vars(c) for c in checks])
    else:
        for check in checks:
            mark = "[green]ok[/green]" if check.ok else "[red]FAIL[/red]"
            console.print(f"{mark}  {check.name}: {check.detail}", highlight=False)
    if not all(c.ok for c in checks):
        raise SystemExit(1)


@click.command("eval")
@click.option("--queries", "queries_path", required=True, type=click.Path(dir_okay=False))
@click.option("--root", required=True, type=click.Path(file_okay=False))
@click.option("--library", "library_id", default=None, help="Only this library.")
@click.option("--k", default=10, show_default=True, type=click.IntRange(1, 100))
@click.option("--mode", type=click.Choice(["hybrid", "keyword", "vector"]), default="hybrid")
@click.option("--embedder", default=None)
@db_option
@json_option
def evaluate_command(
    queries_path: str,
    root: str,
    library_id: str | None,
    k: int,
    mode: str,
    embedder: str | None,
    db_path: str | None,
    as_json: bool,
) -> None:
    """Score retrieval on a JSONL query file: hit@5, recall@10, MRR@10."""
    from contextbase.cli.docs import _library_key, _service
    from contextbase.evaluation import evaluate, load_queries
    from contextbase.store.models import Filters

    service = _service(db_path, embedder)
    filters = Filters(library_id=_library_key(service, library_id) if library_id else None)
    report = evaluate(
        service.search, load_queries(queries_path), root, filters=filters, k=k, mode=mode
    )  # type: ignore[arg-type]
    if as_json:
        echo_json({"summary": report.summary(), "queries": [vars(q) for q in report.queries]})
        return
    for key, value in report.summary().items():
        console.print(f"{key}: {value}")


COMMANDS = [doctor, evaluate_command]
