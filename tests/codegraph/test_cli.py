"""`contextbase graph ...` through click's runner, and once through the console script."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from contextbase.cli.graph import graph
from tests.codegraph.conftest import SHOP, write_tree

SCRIPT = """\
from shop import Product, Client
import requests
p = Product(1, "tea")
p.save()
p.sav()
Client("http://x", timout=2)
p.label.upper()
"""


def _run(*args: str) -> str:
    result = CliRunner().invoke(graph, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def test_parse_list_check_query_export_remove(tmp_path: Path) -> None:
    write_tree(tmp_path, SHOP)
    db = str(tmp_path / "g.db")
    parsed = json.loads(_run("parse", str(tmp_path / "shop"), "--db", db, "--json"))
    assert parsed["name"] == "shop" and parsed["file_count"] == 6
    assert json.loads(_run("list", "--db", db, "--json"))[0]["node_count"] == parsed["node_count"]

    script = tmp_path / "script.py"
    script.write_text(SCRIPT)
    report = json.loads(_run("check", str(script), "--db", db, "--json"))
    assert [(h["line"], h["kind"], h["suggestion"]) for h in report["hallucinations"]] == [
        (5, "method_call", "save"), (6, "class_instantiation", "timeout")]  # fmt: skip
    for finding in report["hallucinations"]:
        assert set(finding) >= {"line", "column", "kind", "name", "message", "suggestion",
                                "confidence"}  # fmt: skip
    summary = report["summary"]
    assert summary["hallucinations"] == 2 and summary["not_checked_modules"] == ["requests"]
    assert summary["hallucination_rate"] == round(2 / summary["references_checked"], 4)
    assert report["uncertain"] == [] and report["not_checked"] == ["requests"]

    markdown = _run("check", str(script), "--db", db)
    assert "## Hallucinations" in markdown and "replace 'sav' with 'save'" in markdown
    failing = CliRunner().invoke(graph, ["check", str(script), "--db", db, "--exit-code"])
    assert failing.exit_code == 1

    classes = json.loads(_run("query", "class", "Basket", "--db", db))["classes"]
    assert classes[0]["qualname"] == "shop.models.Basket"
    rows = json.loads(_run("query", "query SELECT count(*) AS n FROM codegraph_repos", "--db", db))
    assert rows["rows"] == [{"n": 1}]
    cypher = tmp_path / "shop.cypher"
    assert "wrote" in _run("export", "shop", "-o", str(cypher), "--db", db)
    assert "CREATE (n:CodeNode:Class)" in cypher.read_text()
    _run("remove", "shop", "--db", db)
    assert json.loads(_run("list", "--db", db, "--json")) == []


def test_errors_are_one_sentence_through_the_console_script(tmp_path: Path) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text("x = (\n")
    done = subprocess.run(
        [sys.executable, "-m", "contextbase", "graph", "check", str(broken), "--db",
         str(tmp_path / "g.db")],
        capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 1
    assert "does not parse" in done.stderr and "Traceback" not in done.stderr
