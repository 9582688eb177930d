"""``contextbase project …`` through click, and once through the real console script."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from click.testing import CliRunner

from contextbase.cli import main
from contextbase.project.service import ProjectService
from tests.project.conftest import SHOP, write_tree


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["project", *args])
    return result.exit_code, result.output


def test_init_show_scan_context(tmp_path: Path) -> None:
    shop = write_tree(tmp_path / "shop", SHOP)
    code, out = run("init", str(shop))
    assert code == 0, out
    assert "Created" in out and "shop: api, layered, 4 modules." in out
    assert "Stack: FastAPI 0.110, SQLAlchemy 2; Python 3.11; uv." in out

    code, out = run("show", str(shop))
    assert code == 0 and "packageManager: uv" in out
    code, out = run("show", str(shop), "--json")
    assert json.loads(out)["architecture"]["pattern"] == "layered"

    code, out = run("scan", str(shop))
    assert code == 0 and "Re-scanned" in out

    code, out = run("context", str(shop), "--tokens", "300")
    assert code == 0 and out.startswith("# Project shop (api)")
    code, out = run("context", str(shop), "--query", "models", "--embedder", "none", "--json")
    assert json.loads(out)["query"] == "models"


def test_sessions_discoveries_prune_export(tmp_path: Path) -> None:
    shop = write_tree(tmp_path / "shop", SHOP)
    code, out = run("sessions", str(shop))
    assert code == 0 and "No sessions recorded yet." in out
    service = ProjectService(shop)
    service.save_discovery("rule", "Never expose internal order ids")
    service.end_session("We decided to keep prices in cents.")
    service.close()

    code, out = run("sessions", str(shop), "--json")
    assert json.loads(out)[0]["status"] == "completed"
    code, out = run("discoveries", str(shop))
    assert "- [rule] Never expose internal order ids" in out
    assert "- [decision] We decided to keep prices in cents." in out
    code, out = run("discoveries", str(shop), "--type", "decision", "--json")
    assert [d["type"] for d in json.loads(out)] == ["decision"]
    code, out = run("discoveries", str(shop), "--search", "prices cents", "--embedder", "none")
    assert "We decided to keep prices in cents." in out

    code, out = run("prune", str(shop))
    assert code == 0 and "items archived" in out
    target = tmp_path / "export.json"
    code, out = run("export", str(shop), "-o", str(target))
    assert code == 0 and len(json.loads(target.read_text())["discoveries"]) == 2


def test_schema_errors_are_one_sentence(tmp_path: Path) -> None:
    shop = write_tree(tmp_path / "shop", SHOP)
    assert run("init", str(shop))[0] == 0
    path = shop / ".context" / "project.yaml"
    path.write_text(path.read_text().replace("role: core", "role: main", 1))
    code, out = run("show", str(shop))
    assert code == 1
    assert "keyFiles[" in out and "].role: Input should be 'entry'" in out
    assert "Traceback" not in out


def test_the_console_script(tmp_path: Path) -> None:
    shop = write_tree(tmp_path / "shop", SHOP)
    script = shutil.which("contextbase") or str(Path(__file__).parents[2] / ".venv/bin/contextbase")
    done = subprocess.run(
        [script, "project", "init", str(shop)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert (shop / ".context" / "project.yaml").exists()
