"""`contextbase solutions ...`: through click's runner and the real console script."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from contextbase.cli import main


def _run(*args: str, input: str | bytes | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["solutions", *args], input=input)
    return result.exit_code, result.output


def test_save_search_show_export_import_delete(tmp_path: Path) -> None:
    db = str(tmp_path / "cli.db")
    code, out = _run(
        "save",
        "--db",
        db,
        "--embedder",
        "fake",
        "--json",
        "--error",
        'main.py:3: error: "Resource" has no attribute "id"  [attr-defined]',
        "--solution",
        "Define the attribute in __init__ or fix the typo.",
        "--type",
        "compile",
        "--tag",
        "mypy",
        "--env",
        "mypy=1.10",
        "--root-cause",
        "Typo.",
    )
    assert code == 0, out
    saved = json.loads(out)
    sid = saved["solution"]["id"]
    assert saved["created"] and saved["solution"]["environment"] == {"mypy": "1.10"}

    code, out = _run(
        "search",
        "--db",
        db,
        "--embedder",
        "fake",
        'other.py:99: error: "str" has no attribute "trim"  [attr-defined]',
    )
    # The title keeps its brackets: output is printed literally, not as rich markup.
    assert code == 0 and f"[{sid}]" in out and '"id"  [attr-defined] — score' in out

    code, out = _run(
        "search",
        "--db",
        db,
        "--embedder",
        "fake",
        "--json",
        "--type",
        "runtime",
        "attr-defined",
        "--min-score",
        "0",
    )
    assert code == 0 and json.loads(out)["hits"] == []

    code, out = _run("show", "--db", db, sid)
    assert code == 0 and "[attr-defined]" in out and "## Root cause" in out

    export = tmp_path / "export.jsonl"
    code, _ = _run("export", "--db", db, str(export))
    assert code == 0 and len(export.read_text().splitlines()) == 1

    other = str(tmp_path / "other.db")
    for expected in (
        {"added": 1, "updated": 0, "unchanged": 0},
        {"added": 0, "updated": 0, "unchanged": 1},
    ):
        code, out = _run("import", "--db", other, "--embedder", "fake", "--json", str(export))
        assert code == 0 and {k: json.loads(out)[k] for k in expected} == expected

    code, out = _run("delete", "--db", db, sid, input="n\n")
    assert code == 1 and "Aborted" in out
    code, out = _run("delete", "--db", db, "--yes", sid)
    assert code == 0 and sid in out


def test_errors_are_one_line_and_exit_one(tmp_path: Path) -> None:
    db = str(tmp_path / "cli.db")
    code, out = _run("save", "--db", db, "--embedder", "fake", "--error", " ", "--solution", "x")
    assert code == 1 and "errorMessage is empty" in out and "Traceback" not in out
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"caf\xe9 error")
    code, out = _run(
        "save", "--db", db, "--embedder", "fake", "--error-file", str(bad), "--solution", "x"
    )
    assert code == 1 and "not valid UTF-8" in out
    code, out = _run("show", "--db", db, "6f1c1d9e-1111-4222-8333-944445555666")
    assert code == 1 and "No solution has the id" in out
    code, out = _run("search", "--db", db, "x", "--limit", "21")
    assert code == 2 and "21" in out
    code, out = _run("save", "--db", db, "--error", "x", "--solution", "y", "--env", "novalue")
    assert code == 1 and "NAME=VERSION" in out


def test_console_script_round_trip(tmp_path: Path) -> None:
    script = shutil.which("contextbase", path=str(Path(sys.executable).parent))
    assert script is not None
    db = str(tmp_path / "script.db")
    env = {**os.environ, "CONTEXTBASE_EMBEDDER": "fake"}
    saved = subprocess.run(
        [
            script,
            "solutions",
            "save",
            "--db",
            db,
            "--json",
            "--error-file",
            "-",
            "--solution",
            "pip install requests",
        ],
        input=b"ModuleNotFoundError: No module named 'requests'",
        capture_output=True,
        env=env,
        check=True,
    )
    sid = json.loads(saved.stdout)["solution"]["id"]
    found = subprocess.run(
        [
            script,
            "solutions",
            "search",
            "--db",
            db,
            "--json",
            "ModuleNotFoundError: No module named 'httpx'",
        ],
        capture_output=True,
        env=env,
        check=True,
    )
    assert json.loads(found.stdout)["hits"][0]["id"] == sid
    exported = subprocess.run(
        [script, "solutions", "export", "--db", db], capture_output=True, env=env, check=True
    )
    assert json.loads(exported.stdout.splitlines()[0])["id"] == sid
