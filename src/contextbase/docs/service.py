"""The documentation feature: resolve a library, answer a query from its docs."""

from __future__ import annotations

import re
from dataclasses import dataclass

from contextbase.docs.resolver import LibraryMatch, LibraryResolver
from contextbase.embed import Embedder
from contextbase.errors import InvalidInputError, LibraryNotFoundError, NotFoundError
from contextbase.search.hybrid import DocSearch, SearchResult, SearchSettings
from contextbase.store.base import Store
from contextbase.store.models import Filters, Library, LibrarySummary

DEFAULT_TOKENS = 5000
MIN_TOKENS = 500
MAX_TOKENS = 50_000

_ID = re.compile(r"^/?(?P<eco>[^/@\s]+)/(?P<name>[^/@\s]+)(?:[/@](?P<version>[^/\s]+))?/?$")


def parse_library_id(text: str) -> tuple[str, str | None]:
    """``/eco/name``, ``/eco/name/version`` or ``/eco/name@version`` → (id, version)."""
    match = _ID.match((text or "").strip())
    if not match:
        raise InvalidInputError(
            f"{text!r} is not a library id; ids look like '/pypi/fastapi' or "
            "'/pypi/fastapi/0.110' (call resolve-library-id to find one)."
        )
    return f"/{match['eco']}/{match['name']}".lower(), match["version"]


@dataclass
class DocsAnswer:
    library: Library
    version: str | None
    query: str
    results: list[SearchResult]
    mode: str


class DocsService:
    def __init__(
        self,
        store: Store,
        embedder: Embedder | None,
        settings: SearchSettings | None = None,
    ) -> None:
        self.store = store
        self.search = DocSearch(store, embedder, settings)
        self.resolver = LibraryResolver(store)

    def resolve(self, name: str, query: str = "", limit: int = 5) -> list[LibraryMatch]:
        return self.resolver.resolve(name, query, limit)

    def libraries(self) -> list[LibrarySummary]:
        return self.store.list_libraries()

    def library(self, library_id: str) -> tuple[Library, str | None]:
        """The library (and requested version) an id names; close matches if none."""
        context7_id, version = parse_library_id(library_id)
        library = self.store.get_library(context7_id)
        if library is None:
            name = context7_id.rsplit("/", 1)[-1]
            suggestions = self.resolver.suggestions(name)
            hint = f" Did you mean: {', '.join(suggestions)}?" if suggestions else ""
            raise LibraryNotFoundError(
                f"No library {context7_id!r} is indexed.{hint}", suggestions=suggestions
            )
        if version is not None:
            versions = [
                v.version
                for s in self.libraries()
                if s.library.id == library.id
                for v in s.versions
            ]
            if version not in versions:
                listed = ", ".join(v or "(unversioned)" for v in versions) or "none"
                raise NotFoundError(
                    f"{library.context7_id} has no version {version!r}; indexed versions: {listed}."
                )
        return library, version

    def query_docs(
        self, library_id: str, query: str, tokens: int | None = None, limit: int = 20
    ) -> DocsAnswer:
        tokens = DEFAULT_TOKENS if tokens is None else tokens
        if not isinstance(tokens, int) or tokens < 1:
            raise InvalidInputError("tokens must be a positive whole number.")
        tokens = min(max(tokens, MIN_TOKENS), MAX_TOKENS)
        library, version = self.library(library_id)
        filters = Filters(library_id=library.id, version=version)
        mode = self.search.effective_mode("hybrid")
        results = self.search.search(query, filters, limit=limit, tokens=tokens)
        return DocsAnswer(library, version, query, results, mode)
