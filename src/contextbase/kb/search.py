"""The knowledgebase search behind ``search_knowledgebase``.

Knowledgebase files are opened read-only. Each file may hold vectors of
several embedding spaces; for each file the search uses, in this order, the
space of this deployment's embedder, another space the deployment can embed
queries into (the local model, when it is installed and the file has its
space), or keyword search alone, and says which it used. The user's own
database takes part too, limited to knowledgebase projects built into it.

Several versions of one manual mostly repeat each other, so a passage found
in several versions is shown once, with the versions that contain it.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from contextbase.embed import Embedder, space_key
from contextbase.errors import ContextbaseError, EmbeddingError, InvalidInputError, NotFoundError
from contextbase.kb.build import ECOSYSTEM
from contextbase.search.fts import query_terms
from contextbase.search.fusion import reciprocal_rank_fusion
from contextbase.search.hybrid import DocSearch, SearchResult, SearchSettings, fit_budget
from contextbase.store.db import Database, from_json
from contextbase.store.models import Filters, normalise_term
from contextbase.store.sqlite import SQLiteStore
from contextbase.store.vectors import Space

DEFAULT_TOP_N = 5
MAX_TOP_N = 20
TOKENS_PER_RESULT = 800
MIN_TOKENS = 2_000
MAX_TOKENS = 12_000
CANDIDATES = 150
"""Candidates per ranked list: identical passages of several versions share ranks."""

SpaceEmbedder = Callable[[Space], Embedder | None]
"""Gives an embedder able to embed queries into a space, or None."""


def local_fallback(space: Space) -> Embedder | None:
    """The local model for a file's ``local`` space, when the model is installed."""
    from contextbase.embed.local import MODEL_NAME, LocalEmbedder, is_available

    if space.provider == "local" and space.model == MODEL_NAME and is_available():
        return _shared_local(LocalEmbedder)
    return None


_local: Embedder | None = None
_local_lock = threading.Lock()


def _shared_local(factory: Callable[[], Embedder]) -> Embedder:
    global _local
    with _local_lock:
        if _local is None:
            _local = factory()
        return _local


@dataclass
class ProductVersion:
    version: str
    documents: int
    chunks: int


@dataclass
class Product:
    name: str
    context7_id: str
    """The library id a client sees, ``/kb/postgresql``."""
    versions: list[ProductVersion]
    knowledgebase: str
    library_id: str = ""
    """The store's own id of the library, ``lib-kb-postgresql``."""


@dataclass
class KbHit:
    project: str
    version: str
    versions: list[str]
    """Every version of the project holding this same passage."""
    title: str
    heading_path: str
    text: str
    source: str
    url: str | None
    score: float
    knowledgebase: str

    def as_dict(self) -> dict[str, object]:
        return {k: v for k, v in self.__dict__.items()}


@dataclass
class KbAnswer:
    query: str
    hits: list[KbHit]
    methods: list[str]
    """How each database was searched: ``kb.db: hybrid (keyword + local:...)``."""
    notes: list[str] = field(default_factory=list)


class _QueryCache:
    """Embeds a query once although one search runs per project and version."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.provider, self.model = inner.provider, inner.model
        self.dimension = inner.dimension
        self._cache: dict[str, list[float]] = {}
        self._lock = threading.Lock()

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        with self._lock:
            if text in self._cache:
                return self._cache[text]
        vector = self.inner.embed_query(text)
        with self._lock:
            if len(self._cache) > 64:
                self._cache.clear()
            self._cache[text] = vector
        return vector


@dataclass
class _Base:
    """One database searched: a knowledgebase file or the user's own database."""

    name: str
    store: SQLiteStore
    search: DocSearch
    method: str
    kb_only: bool
    owned: bool
    _products: list[Product] | None = None

    def products(self) -> list[Product]:
        """The projects and versions this database holds (read once from a read-only file)."""
        if self._products is not None:
            return self._products
        found: list[Product] = []
        for summary in self.store.list_libraries():
            library = summary.library
            if (self.kb_only and library.ecosystem != ECOSYSTEM) or not summary.versions:
                continue
            versions = [ProductVersion(v.version, v.documents, v.chunks) for v in summary.versions]
            versions.sort(key=lambda v: version_key(v.version))
            found.append(
                Product(library.name, library.context7_id, versions, self.name, library.id)
            )
        if self.store.db.readonly:
            self._products = found
        return found


class KnowledgebaseSearch:
    """Search over knowledgebase files (and the user's database's knowledgebase projects).

    ``embedder`` is this deployment's query embedder (None: keyword-only unless
    ``fallback`` offers one for a file's space). Files open on first use.
    """

    def __init__(
        self,
        knowledgebases: Sequence[str | Path],
        embedder: Embedder | None = None,
        *,
        user_store: SQLiteStore | None = None,
        fallback: SpaceEmbedder | None = local_fallback,
    ) -> None:
        self.paths = [Path(p).expanduser() for p in knowledgebases]
        self.embedder = embedder
        self.user_store = user_store
        self.fallback = fallback
        self._bases: list[_Base] | None = None
        self._open_notes: list[str] = []
        self._lock = threading.Lock()

    # -- opening ----------------------------------------------------------

    def _opened(self) -> list[_Base]:
        with self._lock:
            if self._bases is None:
                self._bases = []
                for path in self.paths:
                    base = self._open_file(path)
                    if base is not None:
                        self._bases.append(base)
                if self.user_store is not None:
                    self._bases.append(
                        self._base("your database", self.user_store, kb_only=True, owned=False)
                    )
            return self._bases

    def _open_file(self, path: Path) -> _Base | None:
        try:
            db = Database(path, readonly=True)
        except ContextbaseError as exc:
            self._open_notes.append(f"The knowledgebase {path} was skipped: {exc}")
            return None
        try:
            if not db.table_exists("chunks"):
                raise NotFoundError(f"{path.name} is not a contextbase knowledgebase.")
            return self._base(path.name, SQLiteStore(db), kb_only=False, owned=True)
        except ContextbaseError as exc:
            db.close()
            self._open_notes.append(f"The knowledgebase {path} was skipped: {exc}")
            return None

    def _base(self, name: str, store: SQLiteStore, *, kb_only: bool, owned: bool) -> _Base:
        embedder, space, why = self._choose(store)
        settings = SearchSettings(candidates=CANDIDATES)
        search = DocSearch(store, _QueryCache(embedder) if embedder else None, settings)
        if space is not None:
            method = f"{name}: hybrid (keyword + vectors of {space.label})"
        else:
            method = f"{name}: keyword-only ({why})"
        return _Base(name, store, search, method, kb_only, owned)

    def _choose(self, store: SQLiteStore) -> tuple[Embedder | None, Space | None, str]:
        """The embedder and space to search a database with, or why there is none."""
        spaces = [s for s in store.spaces() if store.chunk_vectors(s).count() > 0]
        if self.embedder is not None:
            wanted = space_key(self.embedder)
            for space in spaces:
                if (space.provider, space.model, space.dimension) == wanted:
                    return self.embedder, space, ""
        for space in spaces:
            candidate = self.fallback(space) if self.fallback else None
            if candidate is not None and space_key(candidate) == (
                space.provider,
                space.model,
                space.dimension,
            ):
                return candidate, space, ""
        held = ", ".join(s.label for s in spaces)
        if not spaces:
            return None, None, "it holds no vectors"
        if self.embedder is None:
            return None, None, f"this server embeds no queries into its spaces: {held}"
        e = self.embedder
        mine = f"{e.provider}:{e.model} ({e.dimension}-d)"
        return None, None, f"it has no vectors of {mine}; its spaces: {held}"

    def close(self) -> None:
        with self._lock:
            for base in self._bases or []:
                if base.owned:
                    base.store.db.close()
            self._bases = None

    # -- products ---------------------------------------------------------

    def products(self) -> list[Product]:
        """Projects and versions in every database, in file order."""
        return [p for base in self._opened() for p in base.products()]

    def notes(self) -> list[str]:
        """Files that could not be opened, as sentences."""
        self._opened()
        return list(self._open_notes)

    # -- search -----------------------------------------------------------

    def search(
        self,
        query: str,
        project_names: Sequence[str] = (),
        project_versions: Sequence[str] = (),
        top_n: int = DEFAULT_TOP_N,
    ) -> KbAnswer:
        """The ``top_n`` best passages for ``query`` across every database."""
        query = (query or "").strip()
        if not query:
            raise InvalidInputError("The query is empty; say what you are looking for.")
        if top_n < 1:
            raise InvalidInputError("top_n must be at least 1.")
        top_n = min(top_n, MAX_TOP_N)
        bases = self._opened()
        products = {id(base): base.products() for base in bases}
        if not any(products.values()):
            raise NotFoundError(_nothing_configured(self._open_notes))
        plans = {
            id(base): _filters(base, products[id(base)], project_names, project_versions)
            for base in bases
        }
        _check_filters(plans, products, project_names, project_versions)
        notes = list(self._open_notes)
        rankings: list[list[tuple[int, int]]] = []
        found: dict[tuple[int, int], SearchResult] = {}
        for index, base in enumerate(bases):
            for filters in plans[id(base)]:
                results = _search(base, query, filters, top_n, notes)
                for result in results:
                    found.setdefault((index, result.chunk_id), result)
                rankings.append([(index, r.chunk_id) for r in results])
        fused = _fuse(query, rankings, found)
        hits = self._hits(bases, fused, found, project_versions, top_n)
        return KbAnswer(query, hits, [b.method for b in bases], _unique(notes))

    def _hits(
        self,
        bases: list[_Base],
        fused: list[tuple[tuple[int, int], float]],
        found: dict[tuple[int, int], SearchResult],
        project_versions: Sequence[str],
        top_n: int,
    ) -> list[KbHit]:
        chosen: list[tuple[int, SearchResult, float, str]] = []
        seen: set[str] = set()
        for (index, chunk_id), score in fused:
            content = bases[index].store.db.scalar(
                "SELECT content_hash FROM chunks WHERE id = ?", (chunk_id,)
            )
            if content is None or content in seen:
                continue
            seen.add(content)
            chosen.append((index, found[(index, chunk_id)], score, content))
            if len(chosen) == top_n:
                break
        budget = min(MAX_TOKENS, max(MIN_TOKENS, TOKENS_PER_RESULT * top_n))
        kept = {id(r) for r in fit_budget([r for _, r, _, _ in chosen], budget)}
        wanted = {_norm_version(v) for v in project_versions}
        hits: list[KbHit] = []
        for index, result, score, content in chosen:
            if id(result) not in kept:
                continue
            base = bases[index]
            versions = _versions_holding(base.store, result.library_id, content)
            shown = [v for v in versions if not wanted or _norm_version(v) in wanted]
            library = base.store.get_library(result.library_id)
            hits.append(
                KbHit(
                    project=library.name if library else result.library_id,
                    version=(shown or [result.version])[-1],
                    versions=versions,
                    title=result.title,
                    heading_path=result.heading_path,
                    text=result.text,
                    source=result.source,
                    url=_document_url(base.store, result.document_id),
                    score=round(score, 6),
                    knowledgebase=base.name,
                )
            )
        return hits


def _fuse(
    query: str,
    rankings: list[list[tuple[int, int]]],
    found: dict[tuple[int, int], SearchResult],
) -> list[tuple[tuple[int, int], float]]:
    """One ranking from the per-database (and per-version) rankings.

    Ranks of different databases say nothing about each other (every file has a
    first hit, good or not), so with several rankings the fusion adds one more:
    all candidates ordered by the share of query terms their text contains.
    """
    if len(rankings) <= 1:
        return reciprocal_rank_fusion(rankings) if rankings else []
    terms = set(query_terms(query))

    def coverage(key: tuple[int, int]) -> float:
        result = found[key]
        text = f"{result.title} {result.heading_path} {result.text}".lower()
        return sum(term in text for term in terms) / len(terms) if terms else 0.0

    by_coverage = sorted(found, key=coverage, reverse=True)
    return reciprocal_rank_fusion([*rankings, by_coverage])


def _search(
    base: _Base, query: str, filters: Filters, top_n: int, notes: list[str]
) -> list[SearchResult]:
    try:
        return base.search.search(query, filters, limit=top_n)
    except EmbeddingError as exc:
        # A provider outage must not take the knowledgebase down: fall back to keywords.
        notes.append(f"Vector search in {base.name} failed ({exc}); keyword results only.")
        return base.search.search(query, filters, limit=top_n, mode="keyword")


def _filters(
    base: _Base, products: list[Product], names: Sequence[str], versions: Sequence[str]
) -> list[Filters]:
    """One filter per project version to search (one unfiltered search when no filter)."""
    if not names and not versions and not base.kb_only:
        return [Filters()] if products else []
    wanted_names = {normalise_term(n) for n in names}
    wanted_versions = {_norm_version(v) for v in versions}
    plans: list[Filters] = []
    for product in products:
        if names and not _names(product) & wanted_names:
            continue
        if not versions:
            plans.append(Filters(library_id=product.library_id))
            continue
        plans += [
            Filters(library_id=product.library_id, version=v.version)
            for v in product.versions
            if _norm_version(v.version) in wanted_versions
        ]
    return plans


def _check_filters(
    plans: dict[int, list[Filters]],
    products: dict[int, list[Product]],
    names: Sequence[str],
    versions: Sequence[str],
) -> None:
    """A filter that matches nothing anywhere is a mistake: say what exists."""
    if any(plans.values()):
        return
    every = [p for listed in products.values() for p in listed]
    if names:
        wanted = {normalise_term(n) for n in names}
        matching = [p for p in every if _names(p) & wanted]
        if not matching:
            known = ", ".join(sorted({p.name for p in every}))
            raise NotFoundError(
                f"No project named {', '.join(names)} is in the knowledgebase; "
                f"the projects are: {known}."
            )
        every = matching
    held = "; ".join(f"{p.name} {', '.join(v.version for v in p.versions)}" for p in every)
    raise NotFoundError(
        f"No version {', '.join(versions)} is in the knowledgebase; the versions are: {held}."
    )


def _names(product: Product) -> set[str]:
    slug = product.context7_id.rsplit("/", 1)[-1]
    return {normalise_term(product.name), normalise_term(slug), normalise_term(product.context7_id)}


def _norm_version(version: str) -> str:
    text = version.strip().lower()
    return text[1:] if len(text) > 1 and text[0] == "v" and text[1].isdigit() else text


def version_key(version: str) -> tuple[tuple[int, int | str], ...]:
    """Natural order of versions: 9.6 < 10 < 17.2 < 18beta1."""
    parts = re.findall(r"\d+|[^\d.]+", version.lower())
    return tuple((0, int(p)) if p.isdigit() else (1, p) for p in parts)


def _versions_holding(store: SQLiteStore, library_id: str, content_hash: str) -> list[str]:
    rows = store.db.query(
        "SELECT DISTINCT version FROM chunks WHERE library_id = ? AND content_hash = ?",
        (library_id, content_hash),
    )
    return sorted((row["version"] for row in rows), key=version_key)


def _document_url(store: SQLiteStore, document_id: int) -> str | None:
    metadata = from_json(
        store.db.scalar("SELECT metadata FROM documents WHERE id = ?", (document_id,)), {}
    )
    url = metadata.get("url") if isinstance(metadata, dict) else None
    return url if isinstance(url, str) else None


def _nothing_configured(notes: list[str]) -> str:
    message = (
        "No knowledgebase is available: build one with kb-builder and serve it with "
        "'contextbase serve --kb FILE' or 'knowledgebases:' in ~/.contextbase/config.yaml."
    )
    return " ".join([message, *notes])


def _unique(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))
