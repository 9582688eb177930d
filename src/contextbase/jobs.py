"""Background jobs: work that outlives one MCP request (crawls, mostly).

Jobs live in the ``jobs`` table, so any process sees them: the MCP server
runs them on worker threads (``JobRunner``), the CLI records its foreground
crawls the same way (``run_here``), and ``contextbase jobs`` lists and
cancels both. Cancelling sets a flag the job checks between pages. A job
whose process died (killed server, closed terminal) is found still
``running`` by the next runner or listing and marked ``interrupted``.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from contextbase.errors import ContextbaseError, InvalidInputError, NotFoundError
from contextbase.store.db import Database, from_json, to_json, utcnow

log = logging.getLogger("contextbase.jobs")

STATUSES = ("queued", "running", "completed", "failed", "cancelled", "interrupted")
FINISHED = frozenset({"completed", "failed", "cancelled", "interrupted"})

MIGRATIONS = [
    """
    CREATE TABLE jobs (
        id TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        params TEXT NOT NULL DEFAULT '{}',
        status TEXT NOT NULL CHECK (status IN
            ('queued', 'running', 'completed', 'failed', 'cancelled', 'interrupted')),
        progress TEXT NOT NULL DEFAULT '{}',
        result TEXT,
        error TEXT,
        cancel_requested INTEGER NOT NULL DEFAULT 0,
        owner_host TEXT NOT NULL,
        owner_pid INTEGER NOT NULL,
        created_at TEXT NOT NULL,
        started_at TEXT,
        finished_at TEXT,
        updated_at TEXT NOT NULL
    )
    """,
    "CREATE INDEX jobs_status ON jobs(status, created_at)",
]

_HOST = socket.gethostname()
_ACTIVE: set[str] = set()
"""Ids of the jobs executing in this process right now."""
_ACTIVE_LOCK = threading.Lock()


@dataclass
class Job:
    id: str
    kind: str
    params: dict[str, Any]
    status: str
    progress: dict[str, Any]
    result: Any
    error: str | None
    cancel_requested: bool
    created_at: str
    started_at: str | None
    finished_at: str | None
    updated_at: str

    @property
    def finished(self) -> bool:
        return self.status in FINISHED

    def as_dict(self) -> dict[str, Any]:
        return {
            "job_id": self.id,
            "kind": self.kind,
            "status": self.status,
            "params": self.params,
            "progress": self.progress,
            "result": self.result,
            "error": self.error,
            "cancel_requested": self.cancel_requested,
            "created_at": self.created_at,
            "started_at": self.started_at,
            "finished_at": self.finished_at,
            "updated_at": self.updated_at,
        }


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class JobStore:
    """The ``jobs`` table of one database."""

    def __init__(self, db: Database) -> None:
        self.db = db
        db.migrate("jobs", MIGRATIONS)

    def create(self, kind: str, params: dict[str, Any]) -> Job:
        job_id = uuid.uuid4().hex[:12]
        now = utcnow()
        with self.db.transaction():
            self.db.execute(
                "INSERT INTO jobs(id, kind, params, status, owner_host, owner_pid, created_at,"
                " updated_at) VALUES (?, ?, ?, 'queued', ?, ?, ?, ?)",
                (job_id, kind, to_json(params), _HOST, os.getpid(), now, now),
            )
        return self.get(job_id)

    def get(self, job_id: str) -> Job:
        row = self.db.query_one("SELECT * FROM jobs WHERE id = ?", (str(job_id).strip(),))
        if row is None:
            raise NotFoundError(f"No job {job_id!r}; list_jobs shows the known ones.")
        return _job(row)

    def list(self, status: str | None = None, limit: int = 50) -> list[Job]:
        if status is not None and status not in STATUSES:
            raise InvalidInputError(f"Job status must be one of {', '.join(STATUSES)}.")
        self.mark_interrupted()
        if status:
            rows = self.db.query(
                "SELECT * FROM jobs WHERE status = ? ORDER BY created_at DESC, rowid DESC LIMIT ?",
                (status, limit),
            )
        else:
            rows = self.db.query(
                "SELECT * FROM jobs ORDER BY created_at DESC, rowid DESC LIMIT ?", (limit,)
            )
        return [_job(row) for row in rows]

    def start(self, job_id: str) -> None:
        self._update(job_id, "status = 'running', started_at = ?", utcnow())

    def set_progress(self, job_id: str, progress: dict[str, Any]) -> None:
        self._update(job_id, "progress = ?", to_json(progress))

    def finish(
        self, job_id: str, status: str, result: Any = None, error: str | None = None
    ) -> None:
        if status not in FINISHED:
            raise ValueError(f"not a final status: {status}")
        self._update(
            job_id,
            "status = ?, result = ?, error = ?, finished_at = ?",
            status,
            None if result is None else to_json(result),
            error,
            utcnow(),
        )

    def request_cancel(self, job_id: str) -> Job:
        """Cancel a queued job at once, or ask a running one to stop after its current page."""
        job = self.get(job_id)
        if job.status == "queued":
            self.finish(job.id, "cancelled", error="cancelled before it started")
        elif job.status == "running":
            self._update(job.id, "cancel_requested = 1")
        return self.get(job.id)

    def cancel_requested(self, job_id: str) -> bool:
        return bool(self.db.scalar("SELECT cancel_requested FROM jobs WHERE id = ?", (job_id,)))

    def mark_interrupted(self) -> int:
        """Mark unfinished jobs whose process is gone as ``interrupted``; returns how many."""
        rows = self.db.query(
            "SELECT id, owner_host, owner_pid FROM jobs WHERE status IN ('queued', 'running')"
        )
        with _ACTIVE_LOCK:
            active = set(_ACTIVE)
        dead = [
            row["id"]
            for row in rows
            if row["owner_host"] == _HOST
            and (
                (row["owner_pid"] == os.getpid() and row["id"] not in active)
                or (row["owner_pid"] != os.getpid() and not _alive(row["owner_pid"]))
            )
        ]
        for job_id in dead:
            self.finish(job_id, "interrupted", error="the process running it stopped")
        return len(dead)

    def _update(self, job_id: str, assignments: str, *params: Any) -> None:
        with self.db.transaction():
            self.db.execute(
                f"UPDATE jobs SET {assignments}, updated_at = ? WHERE id = ?",
                (*params, utcnow(), job_id),
            )


class JobHandle:
    """What a running job sees: report progress, ask whether it was cancelled."""

    PROGRESS_INTERVAL = 0.5
    CANCEL_CHECK_INTERVAL = 1.0

    def __init__(self, store: JobStore, job_id: str) -> None:
        self.store = store
        self.job_id = job_id
        self.cancel_event = threading.Event()
        self.latest: dict[str, Any] = {}
        self._written = 0.0
        self._checked = 0.0

    def progress(self, counters: dict[str, Any], *, force: bool = False) -> None:
        self.latest = dict(counters)
        now = time.monotonic()
        if force or now - self._written >= self.PROGRESS_INTERVAL:
            self._written = now
            self.store.set_progress(self.job_id, self.latest)

    def cancelled(self) -> bool:
        """True once cancelled from this process or (checked each second) from another."""
        if self.cancel_event.is_set():
            return True
        now = time.monotonic()
        if now - self._checked >= self.CANCEL_CHECK_INTERVAL:
            self._checked = now
            if self.store.cancel_requested(self.job_id):
                self.cancel_event.set()
        return self.cancel_event.is_set()


JobFunction = Callable[[JobHandle], Any]
"""Does the work; returns a JSON-ready result. Checks ``handle.cancelled()`` often."""


def _execute(
    store: JobStore, job_id: str, func: JobFunction, handle: JobHandle, *, reraise: bool = False
) -> None:
    with _ACTIVE_LOCK:
        _ACTIVE.add(job_id)
    try:
        store.start(job_id)
        try:
            result = func(handle)
        except ContextbaseError as exc:
            store.finish(job_id, "failed", error=str(exc))
            if reraise:
                raise
        except Exception as exc:
            if not reraise:
                log.exception("job %s failed", job_id)
            store.finish(job_id, "failed", error=f"{type(exc).__name__}: {exc}")
            if reraise:
                raise
        except BaseException:
            store.finish(job_id, "interrupted", error="stopped by the user")
            raise
        else:
            if handle.latest:
                store.set_progress(job_id, handle.latest)
            status = "cancelled" if handle.cancelled() else "completed"
            store.finish(job_id, status, result=result)
    finally:
        with _ACTIVE_LOCK:
            _ACTIVE.discard(job_id)


def run_here(store: JobStore, kind: str, params: dict[str, Any], func: JobFunction) -> Job:
    """Run a job in the foreground of this process, recorded like a background one.

    A failure is recorded and raised again for the caller.
    """
    job = store.create(kind, params)
    _execute(store, job.id, func, JobHandle(store, job.id), reraise=True)
    return store.get(job.id)


class JobRunner:
    """Runs jobs on background threads of this process (the MCP server)."""

    def __init__(self, store: JobStore, workers: int = 2) -> None:
        self.store = store
        store.mark_interrupted()
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="contextbase-job")
        self._handles: dict[str, JobHandle] = {}
        self._done: dict[str, threading.Event] = {}
        self._lock = threading.Lock()

    def submit(self, kind: str, params: dict[str, Any], func: JobFunction) -> Job:
        job = self.store.create(kind, params)
        handle = JobHandle(self.store, job.id)
        done = threading.Event()
        with self._lock:
            self._handles[job.id] = handle
            self._done[job.id] = done

        def run() -> None:
            try:
                if self.store.get(job.id).status == "queued":
                    _execute(self.store, job.id, func, handle)
            finally:
                done.set()

        self._pool.submit(run)
        return job

    def handle(self, job_id: str) -> JobHandle | None:
        with self._lock:
            return self._handles.get(job_id)

    def wait(self, job_id: str, timeout: float | None = None) -> Job:
        """The job once finished, or as it stands when ``timeout`` runs out."""
        with self._lock:
            done = self._done.get(job_id)
        if done is not None:
            done.wait(timeout)
        return self.store.get(job_id)

    def cancel(self, job_id: str) -> Job:
        job = self.store.request_cancel(job_id)
        handle = self.handle(job.id)
        if handle is not None:
            handle.cancel_event.set()
        return job

    def close(self, timeout: float = 10.0) -> None:
        """Ask running jobs to stop, wait a little, and leave the rest marked interrupted."""
        with self._lock:
            handles = list(self._handles.values())
            events = list(self._done.values())
        for handle in handles:
            handle.cancel_event.set()
        deadline = time.monotonic() + timeout
        for event in events:
            event.wait(max(0.0, deadline - time.monotonic()))
        self._pool.shutdown(wait=False, cancel_futures=True)
        for handle in handles:
            job = self.store.get(handle.job_id)
            if not job.finished:
                self.store.finish(job.id, "interrupted", error="the server stopped")


def _job(row: dict[str, Any]) -> Job:
    return Job(
        id=row["id"],
        kind=row["kind"],
        params=from_json(row["params"], {}),
        status=row["status"],
        progress=from_json(row["progress"], {}),
        result=from_json(row["result"]),
        error=row["error"],
        cancel_requested=bool(row["cancel_requested"]),
        created_at=row["created_at"],
        started_at=row["started_at"],
        finished_at=row["finished_at"],
        updated_at=row["updated_at"],
    )
