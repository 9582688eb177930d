"""A real installed package: click, read from this virtualenv's site-packages."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from contextbase.cli.graph import graph

SCRIPT = """\
import click

@click.command()
@click.option("--count", default=1, help="Number of greetings.")
@click.argument("name")
def hello(count: int, name: str) -> None:
    for _ in range(count):
        click.echo(f"Hello {name}!")
    click.secho("done", fg="green", bold=True)
    click.echo_colored("done")
    ctx = click.get_current_context()
    ctx.exit(0)
    click.style("x", colour="red")
"""


def test_check_a_script_against_installed_click(tmp_path: Path) -> None:
    db = str(tmp_path / "g.db")
    runner = CliRunner()
    parsed = runner.invoke(graph, ["parse", "click", "--package", "--db", db, "--json"])
    assert parsed.exit_code == 0, parsed.output
    assert json.loads(parsed.output)["source_kind"] == "package"
    script = tmp_path / "hello.py"
    script.write_text(SCRIPT)
    checked = runner.invoke(graph, ["check", str(script), "--db", db, "--json"])
    report = json.loads(checked.output)
    found = [(h["line"], h["name"], h["suggestion"]) for h in report["hallucinations"]]
    assert found == [(10, "click.echo_colored", "echo"), (13, "click.style", None)]
    assert report["summary"]["valid"] >= 8
