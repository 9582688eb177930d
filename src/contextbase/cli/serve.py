"""``contextbase serve``: the MCP server."""

from __future__ import annotations

import click

from contextbase.cli._common import db_option, settings_for
from contextbase.config import TOOL_GROUPS


@click.command()
@click.option(
    "--transport", type=click.Choice(["stdio", "http"]), default="stdio", show_default=True
)
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8765, show_default=True, type=click.IntRange(1, 65535))
@click.option(
    "--token",
    default=None,
    envvar="CONTEXTBASE_TOKEN",
    help="Bearer token HTTP clients must send (required off loopback).",
)
@click.option(
    "--tools",
    default=None,
    help=f"Comma-separated tool groups to enable ({','.join(TOOL_GROUPS)}).",
)
@click.option("--read-only", is_flag=True, help="Hide every tool that writes.")
@click.option(
    "--allow-private-urls",
    is_flag=True,
    help="Let the crawl tools fetch private, loopback and link-local addresses.",
)
@click.option("--embedder", default=None, help="Embedding provider for queries.")
@click.option(
    "--kb",
    "knowledgebases",
    multiple=True,
    type=click.Path(dir_okay=False),
    help="Knowledgebase file to serve (repeatable).",
)
@click.option(
    "--project",
    default=None,
    type=click.Path(file_okay=False),
    help="Project folder for the project tools (default: client root or cwd).",
)
@db_option
def serve(
    transport: str,
    host: str,
    port: int,
    token: str | None,
    tools: str | None,
    read_only: bool,
    allow_private_urls: bool,
    embedder: str | None,
    knowledgebases: tuple[str, ...],
    project: str | None,
    db_path: str | None,
) -> None:
    """Run the MCP server over stdio (default) or streamable HTTP at /mcp."""
    from contextbase.server.app import serve as run_server

    settings = settings_for(db_path, embedder=embedder)
    server = settings.server
    if tools:
        server.tools = [t.strip() for t in tools.split(",") if t.strip()]
    server.read_only = server.read_only or read_only
    server.token = token or server.token
    server.allow_private_urls = server.allow_private_urls or allow_private_urls
    if project:
        server.project = project  # type: ignore[assignment]
    if knowledgebases:
        settings.knowledgebases = [*settings.knowledgebases, *knowledgebases]  # type: ignore[list-item]
    run_server(settings, transport, host, port)
