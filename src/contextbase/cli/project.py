"""``contextbase project``: the project memory (profile, sessions, discoveries, context)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from contextbase.cli._common import console, echo_json, json_option, settings_for
from contextbase.embed import configured_embedder
from contextbase.project import render
from contextbase.project.discoveries import DISCOVERY_TYPES
from contextbase.project.profile import dump_profile
from contextbase.project.service import ProjectService

path_argument = click.argument(
    "path", required=False, default=".", type=click.Path(file_okay=False, exists=True)
)
embedder_option = click.option(
    "--embedder",
    default=None,
    help="Embedding provider for searches: local (default), none, openai, voyage, ollama.",
)


def _service(
    path: str, embedder: str | None = None, *, embed: bool = False, writes: bool = False
) -> ProjectService:
    """The project's memory as the CLI sees it: no session is recorded; read-only unless
    the command ``writes``."""
    model = None
    if embed:
        settings = settings_for(None)
        model = configured_embedder(embedder or settings.embedder, **settings.embedder_options)
    return ProjectService(Path(path), embedder=model, record=False, read_only=not writes)


def _print(text: str) -> None:
    console.print(text, markup=False, highlight=False, soft_wrap=True)


@click.group()
def project() -> None:
    """The project memory: profile (.context/project.yaml), sessions, discoveries, context."""


def _scan(path: str, as_json: bool, verb: str) -> None:
    service = _service(path, writes=True)
    profile, created = service.scan()
    if as_json:
        echo_json(profile.model_dump(mode="json", exclude_none=True))
        return
    p = profile.project
    action = "Created" if created else verb
    _print(f"{action} {service.profile_file}")
    _print(f"{p.name}: {p.type}, {profile.architecture.pattern}, {len(profile.modules)} modules.")
    _print(
        f"Stack: {', '.join(profile.tech.stack) or 'none detected'}; {profile.tech.runtime};"
        f" {profile.tech.package_manager}."
    )


@project.command()
@path_argument
@json_option
def init(path: str, as_json: bool) -> None:
    """Scan PATH (default: here) and write .context/project.yaml (merging into an existing one)."""
    _scan(path, as_json, "Updated")


@project.command()
@path_argument
@json_option
def scan(path: str, as_json: bool) -> None:
    """Re-scan PATH; what people or the agent wrote into project.yaml is kept."""
    _scan(path, as_json, "Re-scanned")


@project.command()
@path_argument
@json_option
def show(path: str, as_json: bool) -> None:
    """Print the project profile."""
    profile = _service(path).profile()
    if as_json:
        echo_json(profile.model_dump(mode="json", exclude_none=True))
    else:
        _print(dump_profile(profile))


@project.command()
@path_argument
@click.option("--query", "-q", default=None, help="Return the best matches for this instead.")
@click.option(
    "--tokens",
    type=click.IntRange(200, 100_000),
    default=None,
    help="Most tokens to print (default 5,000).",
)
@embedder_option
@json_option
def context(
    path: str, query: str | None, tokens: int | None, embedder: str | None, as_json: bool
) -> None:
    """What get-project-context gives an agent: the profile plus the best items."""
    view = _service(path, embedder, embed=bool(query)).get_project_context(query, tokens)
    if as_json:
        echo_json(view.to_dict())
    else:
        _print(view.text)


@project.command()
@path_argument
@click.option("--status", type=click.Choice(["active", "completed", "archived"]), default=None)
@click.option("--limit", type=click.IntRange(1, 10_000), default=20, show_default=True)
@json_option
def sessions(path: str, status: str | None, limit: int, as_json: bool) -> None:
    """List coding sessions, newest first."""
    found = _service(path).list_sessions(limit, status)
    if as_json:
        echo_json([s.to_dict() for s in found])
    elif not found:
        _print("No sessions recorded yet.")
    else:
        _print("\n".join(render.session_line(s) for s in found))


@project.command()
@path_argument
@click.option("--type", "kind", type=click.Choice(DISCOVERY_TYPES), default=None)
@click.option("--module", default=None, help="Only this module's discoveries.")
@click.option("--search", default=None, help="Search discoveries and other items instead.")
@click.option("--limit", type=click.IntRange(1, 10_000), default=50, show_default=True)
@embedder_option
@json_option
def discoveries(
    path: str,
    kind: str | None,
    module: str | None,
    search: str | None,
    limit: int,
    embedder: str | None,
    as_json: bool,
) -> None:
    """List discoveries (patterns, rules, decisions, issues), or search the memory."""
    service = _service(path, embedder, embed=bool(search))
    if search:
        hits = service.search_project_memory(search, min(limit, 100))
        if as_json:
            echo_json([h.to_dict() for h in hits])
        else:
            _print("\n\n".join(render.item_block(h.item) for h in hits) or "No matches.")
        return
    found = service.list_discoveries(kind, module, limit)
    if as_json:
        echo_json([d.to_dict() for d in found])
    elif not found:
        _print("No discoveries yet.")
    else:
        _print("\n".join(f"- [{d.type}] {d.content} ({d.module or 'no module'})" for d in found))


@project.command()
@path_argument
@json_option
def prune(path: str, as_json: bool) -> None:
    """Rescore the context items and archive the lowest scores if over the budget."""
    rescored, result = _service(path, writes=True).prune()
    if as_json:
        echo_json({"rescored": rescored, **result.__dict__})
        return
    _print(
        f"Rescored {rescored} items. Active tokens {result.tokens_before:,} → "
        f"{result.tokens_after:,} of a {result.budget:,}-token budget; "
        f"{result.archived} items archived."
    )


@project.command()
@path_argument
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False),
    default=None,
    help="Write to this file instead of standard output.",
)
def export(path: str, output: str | None) -> None:
    """Export profile, sessions, discoveries and context items as JSON."""
    data = _service(path).export()
    if output:
        Path(output).write_text(json.dumps(data, indent=2, ensure_ascii=False), encoding="utf-8")
        _print(f"Exported to {output}.")
    else:
        echo_json(data)
