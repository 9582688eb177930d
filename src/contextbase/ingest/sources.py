"""Adding documentation from any source: a folder, a git repository or a website.

``add_source`` is what ``contextbase add``, ``contextbase crawl`` and the MCP
crawl tools call: it decides what kind of source it was given, prepares the
library (metadata from the repository or the site), indexes the files with
code example extraction hooked in, removes documents that vanished, and
records the site or repository in the ``sources`` table.

How a SOURCE is read:

* ``http(s)://`` URL of a git forge repository (``github.com/org/repo``) or
  ending in ``.git``, ``file://``, ``ssh://``, ``git@``: a git repository,
  shallow-cloned into ``<home>/doc-source``; a local repository path too
  when ``ref`` is given (without it, its working tree is indexed as a folder);
* any other ``http(s)://`` URL: a website crawl (see ``ingest.web``);
* anything else: a local folder (or file).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

import httpx

from contextbase.chunk import ChunkOptions
from contextbase.config import Settings
from contextbase.embed import Embedder
from contextbase.errors import InvalidInputError
from contextbase.ingest import git
from contextbase.ingest.files import SourceFile
from contextbase.ingest.folder import iter_folder
from contextbase.ingest.library import prepare_library
from contextbase.ingest.metadata import detect_metadata
from contextbase.ingest.pipeline import Indexer, IndexReport
from contextbase.ingest.web.crawler import Crawler, CrawlOptions, CrawlStats, KnownPage
from contextbase.ingest.web.fetch import Sleep
from contextbase.ingest.web.ssrf import Resolver
from contextbase.ingest.web.urls import Scope, require_url
from contextbase.rag.code_examples import DEFAULT_MIN_CHARS
from contextbase.rag.observer import CodeExampleObserver
from contextbase.rag.store import RagStore, Source
from contextbase.store.db import Database, from_json
from contextbase.store.models import Library
from contextbase.store.sqlite import SQLiteStore

SourceKind = Literal["folder", "git", "web"]


@dataclass
class SourceSpec:
    """What to add and how; ``include``/``exclude`` are file globs, or URL patterns for sites."""

    location: str
    library: str | None = None
    version: str | None = None
    """Documentation version; default: the git ref for repositories, unversioned otherwise."""
    ecosystem: str | None = None
    language: str | None = None
    description: str | None = None
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    ref: str | None = None
    path: str | None = None
    """Documentation folder inside a folder or repository (``docs/``)."""
    crawl: CrawlOptions = field(default_factory=CrawlOptions)
    code_min_chars: int = DEFAULT_MIN_CHARS


@dataclass
class WebIO:
    """Injectable I/O of website crawls (tests and benchmarks)."""

    transport: httpx.AsyncBaseTransport | None = None
    resolver: Resolver | None = None
    sleep: Sleep | None = None


@dataclass
class AddProgress:
    """Counters a progress display or a job record shows while a source is added."""

    phase: str = "starting"
    fetched: int = 0
    queued: int = 0
    failed: int = 0
    files: int = 0
    total_files: int | None = None
    chunks: int = 0

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class AddResult:
    kind: SourceKind
    library: Library
    version: str
    report: IndexReport
    source: Source | None = None
    crawl: CrawlStats | None = None
    code_examples: int = 0
    cancelled: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "library": self.library.context7_id,
            "library_name": self.library.name,
            "version": self.version,
            "source_id": self.source.source_id if self.source else None,
            "code_examples": self.code_examples,
            "cancelled": self.cancelled,
            **self.report.as_dict(),
            "crawl": self.crawl.as_dict() if self.crawl else None,
        }


def source_kind(location: str, ref: str | None = None) -> SourceKind:
    if location.startswith(("http://", "https://")) and not git.is_git_url(location):
        return "web"
    local = Path(location).expanduser()
    if "://" not in location and not location.startswith("git@") and local.exists():
        return "git" if ref and git.is_git_url(location) else "folder"
    if git.is_git_url(location):
        return "git"
    return "folder"


def add_source(
    db: Database,
    settings: Settings,
    spec: SourceSpec,
    *,
    embedders: Sequence[Embedder] = (),
    chunk_options: ChunkOptions | None = None,
    on_progress: Callable[[AddProgress], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
    web: WebIO | None = None,
) -> AddResult:
    """Index ``spec`` into its library; re-running updates it incrementally."""
    adder = _Adder(db, settings, spec, embedders, chunk_options, on_progress, cancelled)
    kind = source_kind(spec.location, spec.ref)
    if kind == "web":
        return adder.add_site(web or WebIO())
    if kind == "git":
        return adder.add_repository()
    return adder.add_folder()


class _Adder:
    def __init__(
        self,
        db: Database,
        settings: Settings,
        spec: SourceSpec,
        embedders: Sequence[Embedder],
        chunk_options: ChunkOptions | None,
        on_progress: Callable[[AddProgress], None] | None,
        cancelled: Callable[[], bool] | None,
    ) -> None:
        self.settings = settings
        self.spec = spec
        self.store = SQLiteStore(db)
        self.rag = RagStore(self.store)
        self.embedders = list(embedders)
        self.progress = AddProgress()
        self.notify = on_progress or (lambda progress: None)
        self.cancelled = cancelled or (lambda: False)
        self.observer = CodeExampleObserver(self.rag, self.embedders, spec.code_min_chars)
        self.indexer = Indexer(
            self.store,
            self.embedders,
            chunk_options or ChunkOptions(settings.chunk_tokens, settings.chunk_overlap_tokens),
            self._indexed,
            [self.observer],
        )

    def _indexed(self, event: str, count: int) -> None:
        if event == "file":
            self.progress.files += count
        else:
            self.progress.chunks += count
        self.notify(self.progress)

    def _library(self, name: str | None, detected: dict[str, Any], **fields: Any) -> Library:
        spec = self.spec
        return prepare_library(
            self.store,
            spec.library or name,
            detected,
            ecosystem=spec.ecosystem or fields.pop("ecosystem", None),
            language=spec.language,
            short_description=spec.description,
            **fields,
        )

    def _index(
        self,
        library: Library,
        version: str,
        files: Iterable[SourceFile],
        remove_missing: bool = True,
    ) -> IndexReport:
        self.progress.phase = "indexing"
        self.notify(self.progress)
        report = self.indexer.index(library, version, files, remove_missing=remove_missing)
        self.progress.phase = "done"
        self.notify(self.progress)
        return report

    # -- folders ------------------------------------------------------------

    def add_folder(self) -> AddResult:
        spec = self.spec
        root = _inside(Path(spec.location).expanduser(), spec.path)
        version = spec.version or ""
        library = self._library(
            None, detect_metadata(root), doc_version=version or None, doc_source_type="folder"
        )
        files = list(iter_folder(root, spec.include, spec.exclude))
        self.progress.total_files = len(files)
        report = self._index(library, version, files)
        return AddResult("folder", library, version, report, code_examples=self.observer.examples)

    # -- git repositories ---------------------------------------------------

    def add_repository(self) -> AddResult:
        spec = self.spec
        self.progress.phase = "cloning"
        self.notify(self.progress)
        checkout = git.checkout(spec.location, spec.ref, self.settings.home / "doc-source")
        top = checkout.path.resolve()
        root = _inside(top, spec.path)
        detected = detect_metadata(top)
        version = spec.version if spec.version is not None else (spec.ref or "")
        remote = checkout.url if checkout.url.startswith(("http://", "https://")) else None
        library = self._library(
            detected.get("name") or _repository_name(checkout.url),
            detected,
            ecosystem=detected.get("ecosystem") or "git",
            repository_url=remote,
            doc_version=version or None,
            doc_source_type="git",
        )
        files = []
        for file in iter_folder(root, spec.include, spec.exclude, source_type="git"):
            relative = (root / file.source).relative_to(top).as_posix()
            metadata = {"path": relative, "commit": checkout.commit}
            files.append(
                SourceFile(
                    checkout.source_url(relative), file.data, "git", file.content_type, metadata
                )
            )
        self.progress.total_files = len(files)
        report = self._index(library, version, files)
        summary = library.short_description or self._first_paragraph(library, version)
        source = self._record_source(
            library,
            Source(
                _repository_id(checkout.url),
                "git",
                checkout.url,
                library.id,
                version,
                summary,
                metadata={"ref": spec.ref, "commit": checkout.commit, "path": spec.path or ""},
            ),
        )
        return AddResult(
            "git", library, version, report, source, code_examples=self.observer.examples
        )

    # -- websites -----------------------------------------------------------

    def add_site(self, web: WebIO) -> AddResult:
        spec = self.spec
        start = require_url(spec.location)
        scope = Scope.from_start(start, spec.crawl.include, spec.crawl.exclude)
        version = spec.version or ""
        library = self._library(
            scope.label,
            {},
            ecosystem="web",
            homepage_url=start,
            doc_version=version or None,
            doc_source_type="web",
        )
        crawler = Crawler(
            start,
            spec.crawl,
            known=self._known_pages(library, version),
            transport=web.transport,
            sleep=web.sleep,
            resolver=web.resolver,
            cancelled=self.cancelled,
            on_progress=self._crawled,
        )
        self.progress.phase = "crawling"
        self.notify(self.progress)
        seen: set[str] = set()
        report = self._index(
            library, version, _recording(crawler.files(), seen), remove_missing=False
        )
        stats = crawler.stats
        vanished = set(stats.gone)
        if stats.complete:
            vanished |= set(self.store.document_checksums(library.id, version)) - seen
        report.removed = self.store.remove_documents(library.id, version, sorted(vanished))
        with self.store.db.transaction():
            self.store.refresh_library(library.id)
        plan = crawler.plan
        summary = (plan.summary if plan else "") or library.short_description
        summary = summary or self._first_paragraph(library, version, start)
        source = self._record_source(
            library,
            Source(
                crawler.scope.label,
                "web",
                start,
                library.id,
                version,
                summary,
                metadata={"strategy": stats.strategy},
            ),
        )
        return AddResult(
            "web", library, version, report, source, stats, self.observer.examples, stats.cancelled
        )

    def _record_source(self, library: Library, source: Source) -> Source:
        """Store the source row; a library without a description takes the source's summary."""
        if source.summary and not library.short_description:
            self.store.upsert_library(
                library.model_copy(update={"short_description": source.summary})
            )
        return self.rag.upsert_source(source)

    def _crawled(self, stats: CrawlStats) -> None:
        self.progress.fetched = stats.fetched
        self.progress.queued = stats.queued
        self.progress.failed = stats.failed
        self.notify(self.progress)

    def _known_pages(self, library: Library, version: str) -> dict[str, KnownPage]:
        """Stored pages; validators only for those whose vectors are all there."""
        complete = self.indexer.documents_with_all_vectors(library.id, version)
        known: dict[str, KnownPage] = {}
        for row in self.store.db.query(
            "SELECT source, metadata FROM documents WHERE library_id = ? AND version = ?",
            (library.id, version),
        ):
            meta = from_json(row["metadata"], {})
            usable = row["source"] in complete
            known[row["source"]] = KnownPage(
                etag=meta.get("etag") if usable else None,
                last_modified=meta.get("last_modified") if usable else None,
                links=list(meta.get("links") or []),
            )
        return known

    def _first_paragraph(self, library: Library, version: str, source: str | None = None) -> str:
        """The first prose paragraph of a source's first document, as its summary."""
        sql = (
            "SELECT c.text FROM chunks c JOIN documents d ON d.id = c.document_id"
            " WHERE d.library_id = ? AND d.version = ?"
        )
        params: list[Any] = [library.id, version]
        if source:
            sql += " AND d.source = ?"
            params.append(source)
        row = self.store.db.query_one(sql + " ORDER BY d.id, c.chunk_index LIMIT 1", params)
        return first_paragraph(row["text"]) if row else ""


def first_paragraph(markdown: str, limit: int = 300) -> str:
    in_code = False
    for block in re.split(r"\n\s*\n", markdown):
        stripped = block.strip()
        if stripped.startswith(("```", "~~~")):
            in_code = stripped.count("```") + stripped.count("~~~") == 1
            continue
        if in_code or not stripped or stripped.startswith(("#", "|", "<", "!", "-", "*", ">")):
            continue
        text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", " ".join(stripped.split()))
        return text[:limit]
    return ""


def _recording(files: Iterator[SourceFile], seen: set[str]) -> Iterator[SourceFile]:
    for file in files:
        seen.add(file.source)
        yield file


def _inside(root: Path, path: str | None) -> Path:
    """``root/path`` resolved, refusing a path that climbs out of ``root``."""
    if not path:
        return root.resolve()
    target = (root / path).resolve()
    if not target.is_relative_to(root.resolve()):
        raise InvalidInputError(f"--path {path!r} points outside {root}.")
    if not target.exists():
        raise InvalidInputError(f"{path!r} does not exist in {root}.")
    return target


def _repository_name(url: str) -> str:
    return url.rstrip("/").removesuffix(".git").rsplit("/", 1)[-1].rsplit(":", 1)[-1]


def _repository_id(url: str) -> str:
    """``github.com/org/repo`` for remote repositories, the path for local ones."""
    if url.startswith("git@"):
        host, _, path = url[4:].partition(":")
        return f"{host}/{path.removesuffix('.git')}"
    parts = urlsplit(url)
    path = parts.path.rstrip("/").removesuffix(".git")
    return f"{parts.hostname}{path}" if parts.hostname else path
