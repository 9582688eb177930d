"""The project memory of one project folder: what the MCP tools and the CLI call.

Files, under the project root:

* ``.context/project.yaml`` — the profile (scanned, merged, enriched);
* ``.context/last-scan.json`` — the previous scan, the base of the merge;
* ``.context/sessions.db`` — sessions, discoveries, context items and their
  full-text and vector indexes;
* ``.context/config.yaml`` — optional settings (see ``settings``).

Upkeep runs on use rather than on a timer: at most every
``scorer_interval_seconds`` a call completes idle sessions (and extracts their
discoveries), archives old ones, rescores the items and prunes them.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from contextbase.embed import Embedder
from contextbase.errors import InvalidInputError, NotFoundError
from contextbase.project import render
from contextbase.project.context import ContextItem, ContextItems, PruneResult
from contextbase.project.discoveries import (
    Discovery,
    DiscoveryStore,
    enrich,
    extract,
    infer_module,
)
from contextbase.project.merge import load_snapshot, merge_profiles, save_snapshot
from contextbase.project.profile import (
    CONTEXT_DIR,
    ProjectContext,
    load_profile,
    profile_path,
    save_profile,
)
from contextbase.project.results import ContextView, FileContext, MemoryHit, SessionEnd
from contextbase.project.scan import looks_like_project, scan_project
from contextbase.project.scan.docs import describe_file
from contextbase.project.scan.keyfiles import role_of
from contextbase.project.sessions import Clock, Session, SessionStore, open_database
from contextbase.project.settings import ProjectSettings, load_project_settings
from contextbase.store.db import Database
from contextbase.tokens import estimate_tokens

DB_FILE = "sessions.db"
MAX_QUERY_CHARS = 2_000


class ProjectService:
    """Profile, sessions, discoveries and context items of one project."""

    def __init__(
        self,
        root: str | Path,
        *,
        embedder: Embedder | None = None,
        settings: ProjectSettings | None = None,
        clock: Clock = time.time,
        read_only: bool = False,
        record: bool = True,
    ) -> None:
        self.root = Path(root).expanduser().resolve()
        if not self.root.is_dir():
            raise NotFoundError(f"The project folder {self.root} does not exist.")
        self.settings = settings or load_project_settings(self.root)
        self.embedder = embedder
        self.clock = clock
        self.read_only = read_only
        self.record = record and not read_only
        self._lock = threading.RLock()
        self._db: Database | None = None
        self._items: ContextItems | None = None
        self._session_id: str | None = None
        self._last_upkeep: float | None = None
        self._profile_cache: tuple[int, ProjectContext] | None = None

    # -- paths and resources --------------------------------------------------

    @property
    def context_dir(self) -> Path:
        return self.root / CONTEXT_DIR

    @property
    def profile_file(self) -> Path:
        return profile_path(self.root)

    @property
    def db_file(self) -> Path:
        return self.context_dir / DB_FILE

    def _check_writable(self) -> None:
        """Never create ``.context`` in a home folder or ``/`` because a server started there."""
        if not self.context_dir.exists() and not looks_like_project(self.root):
            raise InvalidInputError(
                f"{self.root} does not look like a project (no .git and no manifest such as"
                " pyproject.toml or package.json); run 'contextbase project init PATH' to use it"
                " anyway, or point the server at the project with --project."
            )

    @property
    def db(self) -> Database:
        with self._lock:
            if self._db is None:
                if self.read_only:
                    if not self.db_file.exists():
                        raise NotFoundError(f"{self.root} has no project memory yet.")
                    self._db = open_database(self.db_file, readonly=True)
                else:
                    self._check_writable()
                    self._db = open_database(self.db_file)
            return self._db

    @property
    def has_memory(self) -> bool:
        return self._db is not None or self.db_file.exists()

    @property
    def sessions(self) -> SessionStore:
        return SessionStore(
            self.db,
            str(self.root),
            clock=self.clock,
            timeout_minutes=self.settings.session_timeout_minutes,
            archive_after_days=self.settings.archive_after_days,
        )

    @property
    def discoveries(self) -> DiscoveryStore:
        return DiscoveryStore(self.db, clock=self.clock)

    @property
    def items(self) -> ContextItems:
        """The context items, kept for the life of the database connection (it caches the
        embedding space); they follow ``self.settings`` even when it is replaced."""
        db = self.db
        if self._items is None or self._items.db is not db:
            self._items = ContextItems(db, self.settings, embedder=self.embedder, clock=self.clock)
        self._items.settings = self.settings
        return self._items

    # -- profile ------------------------------------------------------------------

    def scan(self, *, write: bool = True) -> tuple[ProjectContext, bool]:
        """Scan and merge into ``project.yaml``; ``(profile, created)``."""
        with self._lock:
            now = datetime.fromtimestamp(self.clock(), UTC)
            scanned = scan_project(self.root, now=now)
            if not write:
                existing = self._load_existing()
                if existing is None:
                    return scanned, True
                return merge_profiles(existing, scanned, load_snapshot(self.root)), False
            if self.read_only:
                raise InvalidInputError("The project memory is open read-only.")
            self.context_dir.mkdir(parents=True, exist_ok=True)  # an explicit scan may go anywhere
            with self.db.transaction():  # another process may be merging or enriching too
                existing = self._load_existing()
                if existing is not None:
                    save_profile(
                        merge_profiles(existing, scanned, load_snapshot(self.root)),
                        self.profile_file,
                    )
                else:
                    save_profile(scanned, self.profile_file)
                save_snapshot(self.root, scanned)
            self._profile_cache = None
            self._enrich()
            profile = self.profile()
            self.items.upsert_many(
                [
                    (
                        f"module:{key}",
                        "module",
                        render.module_text(key, module),
                        {"source": key, "module": key},
                    )
                    for key, module in profile.modules.items()
                ]
            )
            return profile, existing is None

    def _load_existing(self) -> ProjectContext | None:
        return load_profile(self.profile_file) if self.profile_file.exists() else None

    def profile(self) -> ProjectContext:
        """The profile on disk (created by a first scan when the folder is a project)."""
        with self._lock:
            if not self.profile_file.exists():
                if self.read_only or not looks_like_project(self.root):
                    return self.scan(write=False)[0]
                return self.scan()[0]
            stamp = self.profile_file.stat().st_mtime_ns
            if self._profile_cache is None or self._profile_cache[0] != stamp:
                self._profile_cache = (stamp, load_profile(self.profile_file))
            return self._profile_cache[1]

    # -- sessions and upkeep ------------------------------------------------------

    def _upkeep(self) -> None:
        now = self.clock()
        due = self._last_upkeep is None or now - self._last_upkeep >= (
            self.settings.scorer_interval_seconds
        )
        if not due or self.read_only:
            return
        first = self._last_upkeep is None
        self._last_upkeep = now
        for session_id in self.sessions.sweep():
            self._after_end(session_id)
        items = self.items
        if first:
            items.ensure_vectors()
        items.rescore()
        items.prune()

    def _session(self) -> str | None:
        """The active session of this process, started or renewed as needed."""
        if not self.record:
            return None
        self._upkeep()
        store = self.sessions
        if self._session_id:
            session = store.get(self._session_id)
            if session is not None and store.is_live(session):
                return self._session_id
            if session is not None and session.status == "active":
                store.end(session.id, reason="inactivity")
                self._after_end(session.id)
        self._session_id = store.start().id
        return self._session_id

    def _after_end(self, session_id: str) -> list[Discovery]:
        """Extract discoveries from what the session recorded, keep its summary, enrich."""
        session = self.sessions.get(session_id)
        if session is None:
            return []
        summary = session.metadata.get("summary") or ""
        sources = [("session summary", summary)] + [
            ("tool arguments", note) for note in session.metadata.get("notes", [])
        ]
        found: list[Discovery] = []
        profile = self.profile()
        for origin, text in sources:
            for hit in extract(text):
                discovery, created = self.discoveries.add(
                    session_id,
                    hit.type,
                    hit.content,
                    infer_module(hit.content, profile),
                    extracted_from=origin,
                    confidence=1.0,
                )
                if created:
                    self._index_discovery(discovery)
                    found.append(discovery)
        if found:
            self.sessions.count_discoveries(session_id, len(found))
        if summary or session.topics or session.files_accessed:
            self.items.upsert(
                f"session:{session.id}",
                "session",
                render.session_text(session),
                {"sessionId": session.id},
            )
        self._enrich()
        return found

    def _enrich(self) -> None:
        pending = self.discoveries.pending_enrichment()
        if not pending or not self.profile_file.exists():
            return
        with self.db.transaction():  # serialises writers of project.yaml across processes
            profile = load_profile(self.profile_file)
            done = enrich(profile, pending)
            if not done:
                return
            profile.metadata.updated_at = datetime.fromtimestamp(self.clock(), UTC)
            save_profile(profile, self.profile_file)
            self.discoveries.mark_enriched(done)
            self._profile_cache = None
            for key in sorted({d.module for d in pending if d.id in done and d.module}):
                self.items.upsert(
                    f"module:{key}",
                    "module",
                    render.module_text(key, profile.modules[key]),
                    {"source": key, "module": key},
                )

    def _index_discovery(self, discovery: Discovery) -> ContextItem:
        item = self.items.upsert(
            f"discovery:{discovery.id}",
            "discovery",
            discovery.content,
            {
                "module": discovery.module,
                "sessionId": discovery.session_id,
                "discoveryId": discovery.id,
                "discoveryType": discovery.type,
            },
            access=True,
        )
        label = self.items.embedding_label()
        if label:
            self.discoveries.set_embedding(discovery.id, f"{label}#{item.seq}", label)
        return item

    # -- the operations of the tools ----------------------------------------------

    def get_project_context(
        self, query: str | None = None, tokens: int | None = None
    ) -> ContextView:
        """The profile summary plus the best-scored items (or, with a query, the best matches)."""
        query = _clean_query(query) if query and query.strip() else None
        budget = max(200, min(tokens or self.settings.response_tokens, self.settings.max_tokens))
        with self._lock:
            session_id = self._session()
            profile = self.profile()
            summary = render.profile_summary(profile, int(budget * (0.3 if query else 0.5)))
            remaining = budget - estimate_tokens(summary)
            chosen: list[tuple[ContextItem, float | None]] = []
            if self.has_memory:
                if query:
                    chosen = [(item, score) for item, score in self.items.search(query, 30)]
                else:
                    chosen = [(item, None) for item in self.items.best(remaining)]
            blocks: list[str] = []
            kept: list[tuple[ContextItem, float | None]] = []
            for item, score in chosen:
                block = render.item_block(item)
                cost = estimate_tokens(block) + 1
                if cost <= remaining:
                    blocks.append(block)
                    kept.append((item, score))
                    remaining -= cost
            heading = f"## Matches for “{query}”" if query else "## Context"
            text = summary + (f"\n\n{heading}\n\n" + "\n\n".join(blocks) if blocks else "")
            if session_id:
                self.sessions.record(
                    session_id, tool="get-project-context", topic=query, notes=[query or ""]
                )
            return ContextView(text, profile, kept, estimate_tokens(text), query)

    def save_discovery(self, kind: str, content: str, module: str | None = None) -> Discovery:
        with self._lock:
            session_id = self._session()
            if session_id is None:
                raise InvalidInputError("Discoveries cannot be saved: the memory is read-only.")
            profile = self.profile()
            module = _known_module(module, profile) if module else infer_module(content, profile)
            discovery, created = self.discoveries.add(session_id, kind, content, module)
            if created:
                self._index_discovery(discovery)
            else:
                self.items.touch(f"discovery:{discovery.id}")
            self.sessions.record(session_id, tool="save-discovery", discoveries=int(created))
            return discovery

    def search_project_memory(self, query: str, limit: int = 10) -> list[MemoryHit]:
        query = _clean_query(query)
        if not 1 <= limit <= 100:
            raise InvalidInputError("limit must be between 1 and 100.")
        with self._lock:
            session_id = self._session()
            hits = (
                [MemoryHit(i, s) for i, s in self.items.search(query, limit)]
                if self.has_memory
                else []
            )
            if session_id:
                self.sessions.record(
                    session_id, tool="search-project-memory", topic=query, notes=[query]
                )
            return hits

    def get_file_context(self, path: str) -> FileContext:
        """What the project knows about a file; records the access."""
        rel = self._relative(path)
        with self._lock:
            session_id = self._session()
            profile = self.profile()
            absolute = self.root / rel
            exists = absolute.is_file()
            key_file = next(
                (kf for m in profile.modules.values() for kf in m.key_files if kf.path == rel), None
            )
            if not exists and key_file is None:
                raise NotFoundError(f"{rel} is neither a file of {self.root} nor a known key file.")
            module_key = profile.module_for_path(rel)
            module = profile.modules.get(module_key or "")
            head = absolute.read_text("utf-8", errors="replace")[:32_768] if exists else ""
            context = FileContext(
                path=rel,
                exists=exists,
                module=module_key,
                role=key_file.role if key_file else role_of(rel),
                description=(key_file.description if key_file else None)
                or describe_file(rel, head),
            )
            if module is not None:
                context.patterns = list(module.patterns)
                context.rules = list(module.business_rules)
                context.issues = [
                    i.description + (f" → {i.solution}" if i.solution else "")
                    for i in module.common_issues
                ]
                context.dependencies = list(module.dependencies)
                context.dependents = sorted(
                    k for k, m in profile.modules.items() if module_key in m.dependencies
                )
            if self.has_memory:
                self._add_discoveries(context, rel)
            if session_id:
                item = self.items.upsert(
                    f"file:{rel}",
                    "file",
                    context.to_text(with_access=False),
                    {"source": rel, "module": module_key},
                    access=True,
                )
                if module_key:
                    self.items.touch(f"module:{module_key}")
                self.sessions.record(session_id, tool="get-file-context", files=[rel])
                context.access_count = item.access_count
            return context

    def end_session(self, summary: str | None = None) -> SessionEnd:
        """Complete this process's session, extract discoveries from it and enrich the profile."""
        if summary is not None and len(summary) > 20_000:
            raise InvalidInputError("A session summary must be at most 20,000 characters.")
        with self._lock:
            session_id = self._session()
            if session_id is None:
                raise InvalidInputError("Sessions cannot be ended: the memory is read-only.")
            self.sessions.record(session_id, tool="end-session")
            self.sessions.end(session_id, summary=summary, reason="ended")
            found = self._after_end(session_id)
            self._session_id = None
            session = self.sessions.get(session_id)
            assert session is not None
            return SessionEnd(session, found)

    def list_sessions(self, limit: int = 20, status: str | None = None) -> list[Session]:
        if status is not None and status not in ("active", "completed", "archived"):
            raise InvalidInputError("status must be active, completed or archived.")
        with self._lock:
            if not self.has_memory:
                return []
            self._upkeep()
            return self.sessions.list(limit=limit, status=status)

    # -- the CLI's extras ---------------------------------------------------------------

    def list_discoveries(
        self, kind: str | None = None, module: str | None = None, limit: int = 100
    ) -> list[Discovery]:
        if not self.has_memory:
            return []
        return self.discoveries.list(kind=kind, module=module, limit=limit)

    def prune(self) -> tuple[int, PruneResult]:
        """Rescore and prune now; ``(items rescored, prune result)``."""
        with self._lock:
            for session_id in self.sessions.sweep():
                self._after_end(session_id)
            items = self.items
            return items.rescore(), items.prune()

    def stats(self) -> dict[str, Any]:
        if not self.has_memory:
            return {"sessions": {}, "discoveries": 0, "items": {}}
        return {
            "sessions": self.sessions.counts(),
            "discoveries": int(self.db.scalar("SELECT count(*) FROM discoveries")),
            "items": self.items.counts(),
        }

    def export(self) -> dict[str, Any]:
        """Everything the project memory holds, as JSON-ready data."""
        with self._lock:
            data: dict[str, Any] = {
                "profile": self.profile().model_dump(mode="json", exclude_none=True)
            }
            if self.has_memory:
                data["sessions"] = [s.to_dict() for s in self.sessions.list(limit=1_000_000)]
                data["discoveries"] = [d.to_dict() for d in self.discoveries.list(limit=1_000_000)]
                rows = self.db.query("SELECT * FROM context_items ORDER BY seq")
                data["contextItems"] = [ContextItem.from_row(r).to_dict() for r in rows]
            return data

    def close(self) -> None:
        """Complete the active session (the client went away) and close the database."""
        with self._lock:
            if self._db is None:
                return
            if self._session_id:
                session = self.sessions.get(self._session_id)
                if session is not None and session.status == "active":
                    self.sessions.end(session.id, reason="disconnect")
                    self._after_end(session.id)
                self._session_id = None
            self._db.close()
            self._db = None
            self._items = None

    def _relative(self, path: str) -> str:
        if not path or not path.strip() or "\x00" in path:
            raise InvalidInputError("path must name a file of the project.")
        candidate = Path(path.strip()).expanduser()
        absolute = (candidate if candidate.is_absolute() else self.root / candidate).resolve()
        try:
            rel = absolute.relative_to(self.root)
        except ValueError:
            raise InvalidInputError(f"{path} is outside the project {self.root}.") from None
        if not rel.parts:
            raise InvalidInputError("path must name a file of the project, not its root.")
        return rel.as_posix()

    def _add_discoveries(self, context: FileContext, rel: str) -> None:
        """Discoveries of the file's module, and those naming the file, not yet in the profile."""
        name = rel.rsplit("/", 1)[-1]
        pattern = "%" + name.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        rows = self.db.query(
            "SELECT type, content FROM discoveries WHERE module = ? OR content LIKE ? ESCAPE '\\'"
            " ORDER BY created_at DESC LIMIT 50",
            (context.module, pattern),
        )
        targets = {"pattern": context.patterns, "decision": context.patterns, "rule": context.rules}
        for row in rows:
            entries = targets.get(row["type"], context.issues)
            if not any(row["content"].startswith(e.split(" → ")[0]) for e in entries):
                entries.append(row["content"])


def _clean_query(query: str | None) -> str:
    query = (query or "").strip()
    if not query:
        raise InvalidInputError("query must not be empty.")
    if len(query) > MAX_QUERY_CHARS:
        raise InvalidInputError(f"query must be at most {MAX_QUERY_CHARS} characters.")
    return query


def _known_module(name: str, profile: ProjectContext) -> str:
    """The module's key when a known one matches case-insensitively, else the name as given."""
    name = name.strip()
    return next((key for key in profile.modules if key.lower() == name.lower()), name)


class ProjectMemory:
    """The project services of one server process: one per project folder, built on first use.

    ``embedder`` is called once, when the first project is opened, so the model
    loads only if the project tools are used.
    """

    def __init__(
        self,
        embedder: Callable[[], Embedder | None],
        *,
        read_only: bool = False,
        clock: Clock = time.time,
    ) -> None:
        self._embedder = embedder
        self.read_only = read_only
        self.clock = clock
        self._services: dict[Path, ProjectService] = {}
        self._lock = threading.Lock()

    def for_root(self, root: str | Path) -> ProjectService:
        path = Path(root).expanduser().resolve()
        with self._lock:
            if path not in self._services:
                self._services[path] = ProjectService(
                    path, embedder=self._embedder(), clock=self.clock, read_only=self.read_only
                )
            return self._services[path]

    def close(self) -> None:
        """Complete every active session (the server is shutting down)."""
        with self._lock:
            services = list(self._services.values())
            self._services.clear()
        for service in services:
            service.close()
