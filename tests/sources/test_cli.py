"""``contextbase crawl``, ``add`` (git and web), ``sources`` and ``jobs`` from the command line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from contextbase.cli import main
from contextbase.jobs import JobStore
from contextbase.store.db import Database
from tests.sources.site import Site


def invoke(*args: str) -> dict | list:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_crawl_then_list_sources_and_jobs(docs_site: Site, tmp_path: Path) -> None:
    db = str(tmp_path / "cli.db")
    crawled = invoke(
        "crawl",
        docs_site.url("/maps/"),
        "--library",
        "maps",
        "--embedder",
        "fake",
        "--max-concurrent",
        "2",
        "--db",
        db,
        "--json",
    )
    assert crawled["kind"] == "web" and crawled["library"] == "/web/maps"
    assert crawled["crawl"]["strategy"] == "sitemap" and crawled["indexed"] == 4

    listed = invoke("sources", "--db", db, "--json")
    assert [s["library_id"] for s in listed] == ["lib-web-maps"]
    assert listed[0]["document_count"] == 4

    jobs = invoke("jobs", "--db", db, "--json")
    assert jobs[0]["kind"] == "crawl" and jobs[0]["status"] == "completed"
    assert jobs[0]["params"] == {"url": docs_site.url("/maps/"), "via": "cli"}
    shown = invoke("jobs", "show", jobs[0]["job_id"], "--db", db)
    assert shown["result"]["indexed"] == 4


def test_cancel_from_the_command_line(tmp_path: Path) -> None:
    db = Database(tmp_path / "cli.db")
    job = JobStore(db).create("crawl", {"url": "https://example.org/"})
    result = CliRunner().invoke(main, ["jobs", "cancel", job.id, "--db", str(db.path)])
    assert result.exit_code == 0 and "cancelled" in result.output
    missing = CliRunner().invoke(main, ["jobs", "show", "nope", "--db", str(db.path)])
    assert missing.exit_code == 1 and "No job 'nope'" in missing.output


def test_errors_are_one_sentence(tmp_path: Path, docs_site: Site) -> None:
    result = CliRunner().invoke(
        main, ["crawl", "ftp://example.org/", "--db", str(tmp_path / "x.db")]
    )
    assert result.exit_code == 1 and "not a website URL" in result.output
    gone = CliRunner().invoke(
        main,
        ["crawl", docs_site.url("/nothing/"), "--embedder", "none", "--db", str(tmp_path / "x.db")],
    )
    assert gone.exit_code == 1 and "HTTP 404" in gone.output
    jobs = JobStore(Database(tmp_path / "x.db")).list()
    assert jobs[0].status == "failed" and "HTTP 404" in str(jobs[0].error)


def test_add_a_git_repository_through_the_console_script(tmp_path: Path) -> None:
    repo = tmp_path / "lib"
    (repo / "docs").mkdir(parents=True)
    (repo / "package.json").write_text(
        '{"name": "jsdemo", "version": "2.0.0", "description": "A JavaScript demo."}'
    )
    (repo / "docs" / "index.md").write_text("# jsdemo\n\nUse `jsdemo.start()` to begin.\n")
    for args in (
        ["init", "-q", "-b", "main"],
        ["add", "."],
        ["-c", "user.name=t", "-c", "user.email=t@e.org", "commit", "-qm", "one"],
        ["tag", "v2.0.0"],
    ):
        subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)
    db = tmp_path / "git.db"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "contextbase",
            "add",
            repo.as_uri(),
            "--ref",
            "v2.0.0",
            "--path",
            "docs",
            "--embedder",
            "none",
            "--db",
            str(db),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "Indexed jsdemo (/npm/jsdemo/v2.0.0): 1 new or changed" in done.stdout
    listed = subprocess.run(
        [sys.executable, "-m", "contextbase", "sources", "--db", str(db), "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(listed.stdout)[0]["source_id"] == str(repo)
