"""The ``contextbase`` command line.

Each command group lives in its own module and is thin: parse options, call a
feature, print. Every ContextbaseError becomes one sentence on stderr and exit
status 1 (2 for usage errors, as click does).
"""

from __future__ import annotations

import sys

import click

from contextbase.cli._common import err_console
from contextbase.errors import ContextbaseError, UserError


class _Main(click.Group):
    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except ContextbaseError as exc:
            prefix = "Error" if isinstance(exc, UserError) else "Failed"
            err_console.print(f"[red]{prefix}:[/red] {exc}", highlight=False, soft_wrap=True)
            sys.exit(1)
        except KeyboardInterrupt:
            err_console.print("Interrupted; work done so far is saved.")
            sys.exit(130)


@click.group(cls=_Main, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="contextbase")
def main() -> None:
    """contextbase: documentation, memory and code knowledge for coding agents, over MCP."""


def _register() -> None:
    from contextbase.cli import docs, serve, tools

    for command in [*docs.COMMANDS, *tools.COMMANDS, serve.serve]:
        main.add_command(command)

    from contextbase.cli.memory import solutions

    main.add_command(solutions)

    from contextbase.cli.project import project

    main.add_command(project)

    from contextbase.cli.graph import graph

    main.add_command(graph)

    from contextbase.cli import sources

    for command in sources.COMMANDS:
        main.add_command(command)


_register()
