"""The CLI end to end through the real console script, in a temporary CONTEXTBASE_HOME."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.sample_docs import copy_numpy_sample

CLI = [sys.executable, "-m", "contextbase"]


def run(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [*CLI, *args], capture_output=True, text=True, timeout=300, env={**os.environ}
    )
    if check and done.returncode != 0:
        raise AssertionError(f"{args} failed: {done.stderr}")
    return done


def test_cli_end_to_end(shared: Path, tmp_path: Path, private_home: Path) -> None:
    docs = copy_numpy_sample(shared, tmp_path)
    added = json.loads(
        run(
            "add",
            str(docs),
            "--library",
            "numpy",
            "--ecosystem",
            "pypi",
            "--version",
            "1.22",
            "--embedder",
            "fake",
            "--json",
        ).stdout
    )
    assert added["library"] == "/pypi/numpy" and added["indexed"] == 20
    assert (private_home / "contextbase.db").exists()

    again = json.loads(
        run(
            "add",
            str(docs),
            "--library",
            "numpy",
            "--ecosystem",
            "pypi",
            "--version",
            "1.22",
            "--embedder",
            "fake",
            "--json",
        ).stdout
    )
    assert again["unchanged"] == 20 and again["indexed"] == 0

    found = json.loads(
        run(
            "search", "np.vstack", "--library", "/pypi/numpy", "--embedder", "fake", "--json"
        ).stdout
    )
    assert found["results"][0]["source"].endswith("numpy.vstack.html")
    assert set(found["results"][0]) >= {
        "library_id",
        "version",
        "source",
        "title",
        "heading_path",
        "text",
        "score",
    }

    keyword = json.loads(
        run("search", "cumulative sum", "--mode", "keyword", "--limit", "2", "--json").stdout
    )
    assert keyword["mode"] == "keyword" and len(keyword["results"]) <= 2

    listed = json.loads(run("libraries", "--json").stdout)
    assert listed[0]["id"] == "/pypi/numpy" and listed[0]["versions"][0]["version"] == "1.22"
    assert "numpy" in run("resolve", "nunpy").stdout
    assert json.loads(run("stats", "--json").stdout)["documents"] == 20
    shown = json.loads(run("libraries", "show", "/pypi/numpy", "--json").stdout)
    assert shown["ecosystem"] == "pypi" and shown["document_count"] > 0

    queries = tmp_path / "q.jsonl"
    queries.write_text(
        json.dumps(
            {
                "id": "1",
                "query": "stack arrays in sequence vertically",
                "gold": ["numpy~1.22/reference/generated/numpy.vstack.html"],
            }
        )
        + "\n"
    )
    scored = json.loads(
        run(
            "eval",
            "--queries",
            str(queries),
            "--root",
            str(tmp_path),
            "--embedder",
            "fake",
            "--json",
        ).stdout
    )
    assert scored["summary"]["queries"] == 1 and scored["summary"]["hit@5"] == 1.0
    assert scored["queries"][0]["ranked"][0].startswith("numpy~1.22/")

    removed = run("libraries", "remove", "/pypi/numpy")
    assert "Removed 20" in removed.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("search", "x", "--library", "/pypi/missing"), "No library"),
        (("add", "/no/such/folder", "--library", "x"), "does not exist"),
        (("libraries", "remove", "/pypi/missing"), "No library"),
        (("eval", "--queries", "/no/file.jsonl", "--root", "/tmp"), "Cannot read"),
        (("search", "   "), "query is empty"),
    ],
)
def test_errors_are_one_sentence(args: tuple[str, ...], message: str) -> None:
    done = run(*args, check=False)
    assert done.returncode != 0
    assert message in done.stderr
    assert "Traceback" not in done.stderr


def test_keyword_only_without_model(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "x.md").write_text("# Title\n\nuseState keeps ECONNREFUSED snake_case values.\n")
    run("add", str(docs), "--library", "x", "--embedder", "none")
    for query in ("useState", "ECONNREFUSED", "snake_case", "snake case"):
        found = json.loads(run("search", query, "--embedder", "none", "--json").stdout)
        assert found["mode"] == "keyword" and found["results"], query


def test_doctor(tmp_path: Path) -> None:
    done = run("doctor", "--json", check=False)
    checks = {c["name"]: c for c in json.loads(done.stdout)}
    assert checks["sqlite"]["ok"] and "sqlite-vec" in checks["sqlite"]["detail"]
