"""Building a knowledgebase file from a kb-builder configuration.

Each source is pulled (git sources are checked out under ``doc_source``; local
folders are read in place), and its files go through the ordinary ingest
pipeline as one library version: parsed, cleaned, chunked, embedded with every
configured provider and stored. The file is an ordinary contextbase database.

The build is incremental and resumable because the pipeline is: unchanged
files are skipped by checksum, a chunk whose content is already stored (another
version of the same manual) reuses its vectors instead of being embedded
again, and each document is written in its own transaction, so a build killed
at any point leaves whole documents and the next run continues. Vectors
missing for a provider added later are filled from the stored chunks without
re-chunking. The build ends by switching the file to the rollback journal, so
the shipped file opens read-only without ``-wal``/``-shm`` companions.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from contextbase.chunk import Chunk, ChunkOptions
from contextbase.embed import Embedder, get_embedder
from contextbase.embed.local import is_available
from contextbase.errors import ConfigError, ContextbaseError, SourceError
from contextbase.ingest.files import SourceFile
from contextbase.ingest.folder import iter_folder
from contextbase.ingest.git import checkout
from contextbase.ingest.library import prepare_library
from contextbase.ingest.pipeline import Indexer, IndexReport
from contextbase.kb.config import LoadedConfig, SourceConfig, field_error
from contextbase.store.db import Database, from_json, to_json, utcnow
from contextbase.store.models import Library
from contextbase.store.sqlite import CHUNK_VECTOR_METADATA, SQLiteStore
from contextbase.store.vectors import ensure_space

ECOSYSTEM = "kb"
"""Every project of a knowledgebase is a library of this ecosystem (``/kb/postgresql``)."""
FILL_BATCH = 256
VACUUM_FREE_RATIO = 0.2
"""Compact the file when at least this share of its pages is free."""

MIGRATIONS = ["CREATE TABLE kb_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)"]


class BuildEvents:
    """Progress of a build; the default ignores everything. The CLI overrides it."""

    def filling(self, provider: str, missing: int) -> None:
        """Vectors of ``provider`` are about to be filled for ``missing`` stored chunks."""

    def source_started(self, source: SourceConfig, files: int) -> None:
        """``source`` was pulled and holds ``files`` candidate files."""

    def file_done(self, source: SourceConfig) -> None:
        """One file of the current source was indexed or skipped."""

    def source_finished(self, stats: SourceStats) -> None:
        """A source is done."""

    def embedded(self, provider: str, count: int) -> None:
        """``count`` texts were embedded by ``provider``."""


@dataclass
class SourceStats:
    project: str
    version: str
    files: int
    indexed: int
    unchanged: int
    skipped: int
    removed: int
    chunks: int
    reused_vectors: int
    seconds: float
    commit: str | None = None


@dataclass
class ProviderStats:
    provider: str
    """The embedding space: ``openai:text-embedding-3-small (1536-d)``."""
    vectors: int
    """Vectors of this space in the file at the end."""
    embedded: int
    """Texts sent to the provider during this run."""
    requests: int
    """HTTP requests for a remote provider (retries included), batches for a local one."""
    tokens: int | None
    """Tokens the provider billed (estimated when it does not say); None for local models."""
    seconds: float


@dataclass
class BuildSummary:
    output: Path
    sources: list[SourceStats] = field(default_factory=list)
    providers: list[ProviderStats] = field(default_factory=list)
    filled_vectors: int = 0
    pruned_versions: list[str] = field(default_factory=list)
    documents: int = 0
    chunks: int = 0
    size_bytes: int = 0
    seconds: float = 0.0

    @property
    def files(self) -> int:
        return sum(s.files for s in self.sources)

    @property
    def new_chunks(self) -> int:
        return sum(s.chunks for s in self.sources)

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["output"] = str(self.output)
        data["files"] = self.files
        data["new_chunks"] = self.new_chunks
        return data


class _Metered:
    """An embedder wrapper that counts texts, batches and time, and reports progress."""

    def __init__(self, inner: Embedder, events: BuildEvents) -> None:
        self.inner = inner
        self.provider = inner.provider
        self.model = inner.model
        self.events = events
        self.texts = 0
        self.batches = 0
        self.seconds = 0.0

    @property
    def dimension(self) -> int:
        return self.inner.dimension

    @property
    def label(self) -> str:
        return f"{self.provider}:{self.model}"

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        started = time.perf_counter()
        vectors = self.inner.embed_documents(texts)
        self.seconds += time.perf_counter() - started
        self.texts += len(texts)
        self.batches += 1
        self.events.embedded(self.label, len(texts))
        return vectors

    def embed_query(self, text: str) -> list[float]:
        return self.inner.embed_query(text)

    def stats(self, vectors: int, space_label: str) -> ProviderStats:
        calls = getattr(self.inner, "api_calls", None)
        tokens = getattr(self.inner, "tokens_used", None)
        return ProviderStats(
            provider=space_label,
            vectors=vectors,
            embedded=self.texts,
            requests=calls if isinstance(calls, int) else self.batches,
            tokens=tokens if isinstance(tokens, int) else None,
            seconds=round(self.seconds, 3),
        )


def make_embedders(loaded: LoadedConfig) -> list[Embedder]:
    """The embedders the configuration lists, each checked before any work starts."""
    embedders: list[Embedder] = []
    for index, provider in enumerate(loaded.config.embeddings.providers):
        field = f"embeddings.providers[{index}]"
        if provider.provider == "local" and not is_available():
            raise field_error(
                loaded.path,
                field,
                "the local model is not installed; install "
                "'contextbase[local]' or remove this provider",
            )
        try:
            embedder = get_embedder(provider.spec, **provider.options())
        except ConfigError as exc:
            raise field_error(loaded.path, field, str(exc)) from None
        assert embedder is not None
        embedders.append(embedder)
    return embedders


def build(
    loaded: LoadedConfig,
    *,
    output: str | Path | None = None,
    only_missing_embeddings: bool = False,
    sources: Sequence[str] = (),
    embedders: Sequence[Embedder] | None = None,
    events: BuildEvents | None = None,
) -> BuildSummary:
    """Build or update the knowledgebase file; see the module docstring.

    ``only_missing_embeddings`` fills vectors missing for a configured provider
    and does nothing else; ``sources`` restricts the run to the named sources
    (project name or ``name@version``); ``embedders`` replaces the configured
    providers (tests pass counting ones).
    """
    started = time.perf_counter()
    config = loaded.config
    selected = config.select(sources)
    events = events or BuildEvents()
    owned = embedders is None
    chosen = list(embedders) if embedders is not None else make_embedders(loaded)
    metered = [_Metered(e, events) for e in chosen]
    summary = BuildSummary(output=loaded.output(output))
    db = Database(summary.output)
    try:
        store = SQLiteStore(db)
        db.migrate("kb", MIGRATIONS)
        _invalidate_if_chunking_changed(db, config.chunking.options())
        summary.filled_vectors = fill_missing_vectors(store, metered, events)
        if not only_missing_embeddings:
            for source in selected:
                summary.sources.append(_build_source(loaded, source, store, metered, events))
            if not sources:
                summary.pruned_versions = _prune(store, config.sources)
        _write_meta(db, {"built_at": utcnow(), "providers": [m.label for m in metered]})
        for meter in metered:
            space = ensure_space(db, meter.provider, meter.model, meter.dimension)
            vectors = store.chunk_vectors(space).count()
            summary.providers.append(meter.stats(vectors, space.label))
        summary.documents = int(db.scalar("SELECT count(*) FROM documents"))
        summary.chunks = int(db.scalar("SELECT count(*) FROM chunks"))
        finalize(db)
    finally:
        db.close()
        if owned:
            for embedder in chosen:
                close = getattr(embedder, "close", None)
                if callable(close):
                    close()
    summary.size_bytes = summary.output.stat().st_size
    summary.seconds = round(time.perf_counter() - started, 3)
    return summary


def fill_missing_vectors(
    store: SQLiteStore, embedders: Sequence[Embedder], events: BuildEvents | None = None
) -> int:
    """Embed stored chunks that lack a vector in an embedder's space; returns how many.

    Chunks are read back from the store (no parsing, no re-chunking); a chunk
    whose content already has a vector in the space reuses it. Each batch is
    committed on its own, so an interrupted fill resumes where it stopped.
    """
    events = events or BuildEvents()
    filled = 0
    total_chunks = int(store.db.scalar("SELECT count(*) FROM chunks"))
    for embedder in embedders:
        space = ensure_space(store.db, embedder.provider, embedder.model, embedder.dimension)
        table = store.chunk_vectors(space)
        missing = total_chunks - table.count()
        if missing <= 0:
            continue
        events.filling(space.label, missing)
        while chunks := store.chunks_missing_vectors(space, FILL_BATCH):
            reusable = store.vectors_by_content(space, [c.content_hash for c in chunks])
            todo = {c.content_hash: c for c in chunks if c.content_hash not in reusable}
            texts = [
                Chunk(c.text, c.heading_path, c.token_count).embedding_text() for c in todo.values()
            ]
            fresh = dict(zip(todo, embedder.embed_documents(texts), strict=True)) if todo else {}
            rows = [
                (
                    c.id,
                    reusable.get(c.content_hash) or fresh[c.content_hash],
                    tuple(getattr(c, column) for column in CHUNK_VECTOR_METADATA),
                )
                for c in chunks
            ]
            table.upsert(rows)
            filled += len(rows)
    return filled


def finalize(db: Database) -> None:
    """Make the file ready to ship: merged full-text index, rollback journal, compacted."""
    with db.transaction():
        db.execute("INSERT INTO chunks_fts(chunks_fts) VALUES ('optimize')")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
    db.execute("PRAGMA journal_mode=DELETE").fetchall()
    pages = int(db.scalar("PRAGMA page_count") or 0)
    free = int(db.scalar("PRAGMA freelist_count") or 0)
    if pages and free >= pages * VACUUM_FREE_RATIO:
        db.execute("VACUUM")
    db.execute("PRAGMA optimize").fetchall()


def _build_source(
    loaded: LoadedConfig,
    source: SourceConfig,
    store: SQLiteStore,
    embedders: Sequence[Embedder],
    events: BuildEvents,
) -> SourceStats:
    started = time.perf_counter()
    files, commit = _pull(loaded, source)
    library = prepare_library(
        store,
        source.project_name,
        {},
        ecosystem=ECOSYSTEM,
        doc_source_type="git" if source.git_url else "folder",
        repository_url=source.git_url,
    )
    events.source_started(source, len(files))

    def progress(event: str, count: int) -> None:
        if event == "file":
            events.file_done(source)

    indexer = Indexer(store, embedders, loaded.config.chunking.options(), progress)
    report: IndexReport = indexer.index(library, source.project_version, files)
    stats = SourceStats(
        project=library.name,
        version=source.project_version,
        files=report.files,
        indexed=report.indexed,
        unchanged=report.unchanged,
        skipped=len(report.skipped),
        removed=report.removed,
        chunks=report.chunks,
        reused_vectors=report.reused_vectors,
        seconds=round(time.perf_counter() - started, 3),
        commit=commit,
    )
    events.source_finished(stats)
    return stats


def _pull(loaded: LoadedConfig, source: SourceConfig) -> tuple[list[SourceFile], str | None]:
    """The candidate files of a source, with the commit for a git source."""
    if source.local_path is not None:
        files = list(iter_folder(source.local_path, source.include, source.exclude))
        for file in files:
            file.metadata = {}  # the builder's own paths have no place in a shipped file
        return files, None
    assert source.git_url is not None
    try:
        repo = checkout(source.git_url, source.ref, loaded.config.doc_source)
    except ContextbaseError as exc:
        raise SourceError(f"Cannot pull {source.name} from {source.git_url}: {exc}") from None
    root = (repo.path / (source.docs_path or ".")).resolve()
    if not root.is_dir() or not root.is_relative_to(repo.path.resolve()):
        index = loaded.config.sources.index(source)
        where = f"{source.git_url} at {source.ref or 'its default branch'}"
        raise field_error(
            loaded.path,
            f"sources[{index}].docs_path",
            f"the folder {source.docs_path} is not in {where}",
        )
    files = list(iter_folder(root, source.include, source.exclude))
    prefix = f"{source.docs_path.strip('/')}/" if source.docs_path else ""
    for file in files:
        file.metadata = {"url": repo.source_url(prefix + file.source), "commit": repo.commit}
    return files, repo.commit


def _prune(store: SQLiteStore, declared: Sequence[SourceConfig]) -> list[str]:
    """Remove knowledgebase project versions the configuration no longer declares."""
    wanted: dict[str, set[str]] = {}
    for source in declared:
        library_id = Library.new(source.project_name, ECOSYSTEM).id
        wanted.setdefault(library_id, set()).add(source.project_version)
    pruned: list[str] = []
    for summary in store.list_libraries():
        library = summary.library
        if library.ecosystem != ECOSYSTEM:
            continue
        versions = wanted.get(library.id)
        stale = [
            v.version for v in summary.versions if versions is None or v.version not in versions
        ]
        pruned += [f"{library.name} {version}" for version in stale]
        if versions is None:
            store.remove_library(library.id)
            continue
        for version in stale:
            store.remove_library(library.id, version)
    return pruned


def _invalidate_if_chunking_changed(db: Database, options: ChunkOptions) -> None:
    """New chunk sizes apply to every document: forget checksums so all are re-chunked.

    Vectors of chunks whose text did not change are still reused by content.
    """
    current = asdict(options)
    stored = _read_meta(db).get("chunking")
    with db.transaction():
        if stored is not None and stored != current:
            db.execute("UPDATE documents SET checksum = ''")
        _write_meta(db, {"chunking": current})


def _read_meta(db: Database) -> dict[str, Any]:
    return {row["key"]: from_json(row["value"]) for row in db.query("SELECT * FROM kb_meta")}


def _write_meta(db: Database, values: dict[str, Any]) -> None:
    with db.transaction():
        for key, value in values.items():
            db.execute(
                "INSERT INTO kb_meta(key, value) VALUES (?, ?)"
                " ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (key, to_json(value)),
            )
