"""``kb-builder``: build a knowledgebase file from a YAML configuration.

A tool for the people who build knowledgebases (see docs/knowledgebase.md),
not for end users. Progress goes to stderr, the summary to stdout.
"""

from __future__ import annotations

import json
import sys

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn
from rich.table import Table

from contextbase.errors import ContextbaseError, UserError
from contextbase.kb.build import BuildEvents, BuildSummary, SourceStats, build
from contextbase.kb.config import DEFAULT_CONFIG, SourceConfig, load_config

err_console = Console(stderr=True)
console = Console()


class ConsoleEvents(BuildEvents):
    """Progress bars per source and per provider (plain lines when not a terminal)."""

    def __init__(self, progress: Progress, quiet: bool) -> None:
        self.progress = progress
        self.quiet = quiet
        self.source_task: TaskID | None = None
        self.provider_tasks: dict[str, TaskID] = {}

    def _say(self, text: str) -> None:
        if not self.quiet:
            self.progress.console.print(text, highlight=False, soft_wrap=True)

    def filling(self, provider: str, missing: int) -> None:
        self._say(f"Filling {missing} missing vectors of {provider}")

    def source_started(self, source: SourceConfig, files: int) -> None:
        if self.source_task is not None:
            self.progress.remove_task(self.source_task)
        self.source_task = self.progress.add_task(source.name, total=files)

    def file_done(self, source: SourceConfig) -> None:
        if self.source_task is not None:
            self.progress.advance(self.source_task)

    def source_finished(self, stats: SourceStats) -> None:
        self._say(
            f"{stats.project} {stats.version}: {stats.files} files, {stats.indexed} indexed, "
            f"{stats.unchanged} unchanged, {stats.removed} removed, {stats.chunks} chunks, "
            f"{stats.reused_vectors} vectors reused ({stats.seconds:.1f} s)"
        )

    def embedded(self, provider: str, count: int) -> None:
        task = self.provider_tasks.get(provider)
        if task is None:
            task = self.progress.add_task(f"embedded by {provider}", total=None)
            self.provider_tasks[provider] = task
        self.progress.advance(task, count)


def print_summary(summary: BuildSummary) -> None:
    """The final summary: sources, providers, totals."""
    sources = Table(title="Sources", title_justify="left")
    for column in (
        "project",
        "version",
        "files",
        "indexed",
        "unchanged",
        "removed",
        "chunks",
        "reused",
        "seconds",
    ):
        sources.add_column(column, justify="left" if column in ("project", "version") else "right")
    for s in summary.sources:
        sources.add_row(
            s.project,
            s.version,
            str(s.files),
            str(s.indexed),
            str(s.unchanged),
            str(s.removed),
            str(s.chunks),
            str(s.reused_vectors),
            f"{s.seconds:.1f}",
        )
    providers = Table(title="Embedding providers", title_justify="left")
    for column in ("space", "vectors", "embedded now", "API calls", "tokens", "seconds"):
        providers.add_column(column, justify="left" if column == "space" else "right")
    for p in summary.providers:
        tokens = "-" if p.tokens is None else f"{p.tokens:,}"
        providers.add_row(
            p.provider,
            f"{p.vectors:,}",
            f"{p.embedded:,}",
            f"{p.requests:,}",
            tokens,
            f"{p.seconds:.1f}",
        )
    if summary.sources:
        console.print(sources)
    if summary.providers:
        console.print(providers)
    if summary.filled_vectors:
        console.print(f"Filled {summary.filled_vectors:,} missing vectors.")
    if summary.pruned_versions:
        console.print(
            f"Removed versions no longer configured: {', '.join(summary.pruned_versions)}"
        )
    console.print(
        f"{summary.output}: {summary.files:,} files, {summary.documents:,} documents, "
        f"{summary.chunks:,} chunks, {summary.size_bytes / 1e6:.1f} MB, "
        f"built in {summary.seconds:.1f} s.",
        highlight=False,
        soft_wrap=True,
    )


RESUME_HINT = "The documents finished so far are saved; run kb-builder again to resume."


class _Command(click.Command):
    """Turns a ContextbaseError into one sentence and exit status 1."""

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except ContextbaseError as exc:
            if isinstance(exc, UserError):
                message = f"[red]Error:[/red] {exc}"
            else:
                message = f"[red]Failed:[/red] {exc} {RESUME_HINT}"
            err_console.print(message, highlight=False, soft_wrap=True)
            sys.exit(1)
        except KeyboardInterrupt:
            err_console.print(f"Interrupted. {RESUME_HINT}", soft_wrap=True)
            sys.exit(130)


@click.command(cls=_Command, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--config",
    "config_path",
    type=click.Path(dir_okay=False),
    default=None,
    help=f"Configuration file (default: {DEFAULT_CONFIG} in the current directory).",
)
@click.option(
    "--output",
    type=click.Path(dir_okay=False),
    default=None,
    help="Knowledgebase file to write (default: the configuration's output, "
    "else pgedge-nla-kb.db beside the configuration file).",
)
@click.option(
    "--add-missing-embeddings",
    is_flag=True,
    help="Only fill vectors missing for a configured provider; do not pull sources.",
)
@click.option(
    "--source",
    "sources",
    multiple=True,
    metavar="NAME",
    help="Build only this source: a project name or NAME@VERSION (repeatable).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
@click.option("--quiet", is_flag=True, help="No progress output.")
@click.version_option(package_name="contextbase")
def kb_builder(
    config_path: str | None,
    output: str | None,
    add_missing_embeddings: bool,
    sources: tuple[str, ...],
    as_json: bool,
    quiet: bool,
) -> None:
    """Build a knowledgebase file (SQLite, with one embedding space per provider) from the
    documentation sources a YAML configuration lists. Runs are incremental: run it again
    after an interruption or a change and it does only what is left."""
    loaded = load_config(config_path)
    progress = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        console=err_console,
        disable=quiet or not err_console.is_terminal,
    )
    events = ConsoleEvents(progress, quiet)
    with progress:
        summary = build(
            loaded,
            output=output,
            only_missing_embeddings=add_missing_embeddings,
            sources=sources,
            events=events,
        )
    if as_json:
        sys.stdout.write(json.dumps(summary.as_dict(), indent=2) + "\n")
    else:
        print_summary(summary)


def main() -> None:
    """Console script entry point."""
    kb_builder()
