"""Finding the library a name refers to (the logic behind ``resolve-library-id``).

Matching goes exact name → alias → name variants (``reactjs``/``react.js``/
``React``) → fuzzy (typos, prefixes), and candidates are then ordered by what
the query says: language and ecosystem hints, keyword and description overlap,
popularity, and a penalty for deprecated or archived libraries. Everything
runs in Python over the library table; no SQL is ever built from the name.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from contextbase.errors import InvalidInputError
from contextbase.store.base import Store
from contextbase.store.models import Library, normalise_term

MAX_NAME_CHARS = 200

LANGUAGE_HINTS = {
    "python": ("python", "pip", "pypi", "py", "django", "flask", "pandas", "numpy"),
    "javascript": ("javascript", "js", "npm", "node", "nodejs", "typescript", "ts", "browser"),
    "typescript": ("typescript", "ts", "tsx"),
    "go": ("go", "golang"),
    "rust": ("rust", "cargo", "crate", "crates"),
    "java": ("java", "maven", "gradle", "jvm"),
    "ruby": ("ruby", "gem", "rails"),
    "php": ("php", "composer"),
    "c#": ("c#", "csharp", "dotnet", ".net", "nuget"),
}
ECOSYSTEM_HINTS = {
    "npm": ("npm", "node", "nodejs", "javascript", "typescript", "js", "ts"),
    "pypi": ("pip", "pypi", "python", "py"),
    "crates.io": ("cargo", "crates", "crate", "rust"),
    "maven": ("maven", "gradle", "java"),
    "go": ("go", "golang"),
}
_WORD = re.compile(r"[a-z0-9#+.]+")
_AFFIXES = ("js", "py", "python", "lib", "rs")


@dataclass
class LibraryMatch:
    library: Library
    score: float
    matched_by: str
    """exact, alias, variant, fuzzy or id."""


def name_variants(name: str) -> set[str]:
    """Normalised forms a library name may appear in."""
    base = normalise_term(name)
    variants = {base}
    for affix in _AFFIXES:
        if base.endswith(affix) and len(base) > len(affix) + 1:
            variants.add(base[: -len(affix)])
        if base.startswith(affix) and len(base) > len(affix) + 1:
            variants.add(base[len(affix) :])
    return variants


class LibraryResolver:
    def __init__(self, store: Store) -> None:
        self.store = store

    def resolve(self, name: str, query: str = "", limit: int = 5) -> list[LibraryMatch]:
        """Libraries matching ``name``, best first (empty when nothing matches)."""
        name = _check_name(name)
        libraries = self.store.all_libraries()
        direct = [lib for lib in libraries if name.lower() in (lib.context7_id.lower(), lib.id)]
        if direct:
            return [LibraryMatch(direct[0], 1000.0, "id")]
        matches = [m for lib in libraries if (m := _match(lib, name)) is not None]
        if not matches:
            return []
        words = set(_WORD.findall(query.lower()))
        for match in matches:
            match.score += _context_score(match.library, words)
        matches.sort(key=lambda m: (m.score, m.library.document_count), reverse=True)
        return matches[:limit]

    def suggestions(self, name: str, count: int = 5) -> list[str]:
        """Context7 ids of the libraries whose names are closest to ``name``."""
        target = normalise_term(name)
        scored = []
        for lib in self.store.all_libraries():
            forms = [normalise_term(lib.name), *(normalise_term(a) for a in lib.aliases)]
            forms.append(normalise_term(lib.context7_id.rsplit("/", 1)[-1]))
            best = max(difflib.SequenceMatcher(None, target, f).ratio() for f in forms)
            scored.append((best, lib.context7_id))
        scored.sort(reverse=True)
        return [cid for ratio, cid in scored[:count] if ratio > 0.3]


def _check_name(name: str) -> str:
    name = (name or "").strip()
    if not name:
        raise InvalidInputError("The library name is empty; give a name such as 'fastapi'.")
    if len(name) > MAX_NAME_CHARS:
        raise InvalidInputError(f"The library name is longer than {MAX_NAME_CHARS} characters.")
    return name


def _match(library: Library, name: str) -> LibraryMatch | None:
    target = normalise_term(name)
    lowered = name.strip().lower()
    slug = library.context7_id.rsplit("/", 1)[-1]
    if lowered in (library.name.lower(), slug) or target == normalise_term(library.name):
        return LibraryMatch(library, 100.0, "exact")
    aliases = {normalise_term(a) for a in library.aliases}
    if target in aliases:
        return LibraryMatch(library, 90.0, "alias")
    own = name_variants(library.name) | name_variants(slug) | aliases
    if name_variants(name) & own:
        return LibraryMatch(library, 80.0, "variant")
    if not target:
        return None
    ratio = max(difflib.SequenceMatcher(None, target, form).ratio() for form in own)
    if ratio >= 0.75:
        return LibraryMatch(library, 50.0 * ratio, "fuzzy")
    if len(target) >= 3 and any(form.startswith(target) or target in form for form in own):
        return LibraryMatch(library, 35.0, "fuzzy")
    return None


def _context_score(library: Library, words: set[str]) -> float:
    if not words:
        return library.popularity_score / 100 * 5 - _status_penalty(library)
    score = 0.0
    language = library.language.lower()
    for lang, hints in LANGUAGE_HINTS.items():
        if language == lang and words & set(hints):
            score += 10
    ecosystem = library.ecosystem.lower()
    for eco, hints in ECOSYSTEM_HINTS.items():
        if ecosystem == eco and words & set(hints):
            score += 10
    score += len({k.lower() for k in library.keywords} & words)
    description = set(_WORD.findall(f"{library.short_description} {library.description}".lower()))
    score += 0.5 * len(description & words)
    score += library.popularity_score / 100 * 5
    return score - _status_penalty(library)


def _status_penalty(library: Library) -> float:
    return {"deprecated": 20.0, "archived": 50.0}.get(library.status, 0.0)
