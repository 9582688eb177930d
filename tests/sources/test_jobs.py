"""Background jobs: progress, cancel, and jobs of a killed process marked interrupted."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from contextbase.config import load_settings
from contextbase.errors import SourceError
from contextbase.ingest.sources import SourceSpec, add_source
from contextbase.jobs import JobHandle, JobRunner, JobStore, run_here
from contextbase.store.db import Database
from tests.sources.conftest import SLOW_PAGES
from tests.sources.site import Site, fast_options


def wait_until(condition: Any, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        time.sleep(0.05)


def crawl_job(db: Database, url: str) -> Any:
    settings = load_settings(db=db.path)
    spec = SourceSpec(url, crawl=fast_options(max_pages=100))
    spec.crawl.fetch.max_concurrent = 2

    def work(handle: JobHandle) -> dict[str, Any]:
        result = add_source(
            db,
            settings,
            spec,
            on_progress=lambda p: handle.progress(p.as_dict()),
            cancelled=handle.cancelled,
        )
        return result.as_dict()

    return work


def test_a_running_crawl_is_cancelled_between_pages(slow_site: Site, tmp_path: Path) -> None:
    db = Database(tmp_path / "jobs.db")
    runner = JobRunner(JobStore(db))
    job = runner.submit(
        "crawl", {"url": slow_site.url("/slow/")}, crawl_job(db, slow_site.url("/slow/"))
    )
    handle = runner.handle(job.id)
    assert handle is not None
    wait_until(lambda: handle.latest.get("fetched", 0) >= 3)
    assert runner.store.get(job.id).status == "running"
    runner.cancel(job.id)
    done = runner.wait(job.id, timeout=20)
    assert done.status == "cancelled"
    assert done.result["cancelled"] is True
    assert done.result["crawl"]["complete"] is False
    stored = db.scalar("SELECT count(*) FROM documents")
    assert 3 <= stored < SLOW_PAGES
    assert done.progress["fetched"] >= 3
    assert len(slow_site.log) < SLOW_PAGES
    runner.close()


def test_a_queued_job_is_cancelled_at_once(tmp_path: Path) -> None:
    runner = JobRunner(JobStore(Database(tmp_path / "jobs.db")), workers=1)
    release = threading.Event()
    first = runner.submit("wait", {}, lambda handle: release.wait(10))
    second = runner.submit("never", {}, lambda handle: pytest.fail("a cancelled job ran"))
    assert runner.cancel(second.id).status == "cancelled"
    release.set()
    assert runner.wait(first.id, 10).status == "completed"
    assert runner.wait(second.id, 10).status == "cancelled"
    assert [j.id for j in runner.store.list(status="cancelled")] == [second.id]
    runner.close()


def test_a_foreground_job_records_its_failure(tmp_path: Path) -> None:
    store = JobStore(Database(tmp_path / "jobs.db"))

    def fail(handle: JobHandle) -> None:
        raise SourceError("The site answered 500.")

    with pytest.raises(SourceError):
        run_here(store, "crawl", {"url": "x"}, fail)
    job = store.list()[0]
    assert job.status == "failed" and job.error == "The site answered 500."


SCRIPT = """
import sys, time
from contextbase.config import load_settings
from contextbase.ingest.sources import SourceSpec, add_source
from contextbase.ingest.web.crawler import CrawlOptions
from contextbase.ingest.web.fetch import FetchOptions
from contextbase.jobs import JobRunner, JobStore
from contextbase.store.db import Database

db = Database(sys.argv[1])
spec = SourceSpec(sys.argv[2], crawl=CrawlOptions(
    allow_private=True, fetch=FetchOptions(per_host_rate=0, max_concurrent=1)))
runner = JobRunner(JobStore(db))
job = runner.submit("crawl", {"url": sys.argv[2]}, lambda handle: add_source(
    db, load_settings(db=db.path), spec, cancelled=handle.cancelled).as_dict())
print(job.id, flush=True)
time.sleep(600)
"""


def test_jobs_of_a_killed_process_are_marked_interrupted(slow_site: Site, tmp_path: Path) -> None:
    path = tmp_path / "jobs.db"
    script = tmp_path / "server.py"
    script.write_text(textwrap.dedent(SCRIPT))
    server = subprocess.Popen(
        [sys.executable, str(script), str(path), slow_site.url("/slow/")],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        job_id = server.stdout.readline().strip()
        store = JobStore(Database(path))
        wait_until(lambda: store.get(job_id).status == "running")
        wait_until(lambda: len(slow_site.log) >= 3)
        assert store.mark_interrupted() == 0  # its process is alive: still running
    finally:
        server.send_signal(signal.SIGKILL)
        server.wait(10)
    assert store.get(job_id).status == "running"  # nobody has looked yet
    JobRunner(store).close()  # a server starting up looks first
    job = store.get(job_id)
    assert job.status == "interrupted"
    assert job.error == "the process running it stopped"
