"""Creating or updating the library a source is indexed into."""

from __future__ import annotations

from typing import Any

from contextbase.errors import InvalidInputError
from contextbase.store.models import Library
from contextbase.store.sqlite import SQLiteStore

_ECOSYSTEM_LANGUAGE = {
    "pypi": "Python",
    "npm": "JavaScript",
    "crates.io": "Rust",
    "maven": "Java",
    "go": "Go",
    "rubygems": "Ruby",
}


def prepare_library(
    store: SQLiteStore,
    name: str | None,
    detected: dict[str, Any],
    **explicit: Any,
) -> Library:
    """The library to index into: explicit options win over detected metadata,
    which wins over what an existing row already says."""
    name = name or detected.get("name")
    if not name:
        raise InvalidInputError("Name the library with --library NAME.")
    ecosystem = explicit.get("ecosystem") or detected.get("ecosystem") or "local"
    fresh = Library.new(name, ecosystem)
    existing = store.get_library(fresh.id)
    fields: dict[str, Any] = existing.model_dump() if existing else fresh.model_dump()
    for key, value in detected.items():
        if key in Library.model_fields and value and not (existing and getattr(existing, key)):
            fields[key] = value
    for key, value in explicit.items():
        if value not in (None, "", [], ()):
            fields[key] = list(value) if isinstance(value, tuple) else value
    fields["name"] = existing.name if existing else name
    fields["id"], fields["context7_id"] = fresh.id, fresh.context7_id
    if not fields.get("language"):
        fields["language"] = _ECOSYSTEM_LANGUAGE.get(ecosystem.lower(), "")
    return store.upsert_library(Library.model_validate(fields))
