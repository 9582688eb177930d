"""Records of the documentation store."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from contextbase.errors import InvalidInputError

_SLUG = re.compile(r"[^a-z0-9._-]+")


def slugify(text: str) -> str:
    """Lower-case id part: letters, digits, dot, dash, underscore."""
    slug = _SLUG.sub("-", text.strip().lower()).strip("-.")
    if not slug:
        raise InvalidInputError(f"{text!r} cannot be used as a name: it has no letters or digits.")
    return slug


def normalise_term(text: str) -> str:
    """Name form used for matching: case, separators and a trailing js/py suffix folded."""
    folded = re.sub(r"[\s._\-/@]+", "", text.lower())
    return folded


class Library(BaseModel):
    """A documented library, after the seed's ``Library`` model."""

    model_config = ConfigDict(extra="forbid")

    id: str
    name: str
    context7_id: str
    aliases: list[str] = Field(default_factory=list)
    language: str = ""
    ecosystem: str = ""
    category: str = ""
    keywords: list[str] = Field(default_factory=list)
    short_description: str = ""
    description: str = ""
    homepage_url: str | None = None
    repository_url: str | None = None
    logo_url: str | None = None
    author: str | None = None
    license: str | None = None
    status: str = "active"
    popularity_score: int = Field(default=0, ge=0, le=100)
    github_stars: int | None = None
    npm_downloads_weekly: int | None = None
    pypi_downloads_monthly: int | None = None
    doc_version: str | None = None
    doc_source_type: str | None = None
    doc_completeness: float = 0.0
    last_indexed_at: str | None = None
    related_libraries: list[str] = Field(default_factory=list)
    alternative_to: list[str] = Field(default_factory=list)
    supersedes: list[str] = Field(default_factory=list)
    requires_libraries: list[str] = Field(default_factory=list)
    first_release_date: str | None = None
    last_release_date: str | None = None
    created_at: str = ""
    updated_at: str = ""
    document_count: int = 0

    @classmethod
    def new(cls, name: str, ecosystem: str = "", **fields: Any) -> Library:
        """A library with ids derived from its ecosystem and name (``/pypi/fastapi``)."""
        eco = slugify(ecosystem) if ecosystem else "local"
        slug = slugify(name)
        return cls(
            id=f"lib-{eco}-{slug}",
            name=name,
            context7_id=f"/{eco}/{slug}",
            ecosystem=ecosystem or "local",
            **fields,
        )


RELATION_FIELDS = {
    "related": "related_libraries",
    "alternative_to": "alternative_to",
    "supersedes": "supersedes",
    "requires": "requires_libraries",
}


@dataclass
class LibraryVersion:
    version: str
    documents: int
    chunks: int


@dataclass
class LibrarySummary:
    library: Library
    versions: list[LibraryVersion]

    @property
    def chunk_count(self) -> int:
        return sum(v.chunks for v in self.versions)


@dataclass
class DocumentRecord:
    library_id: str
    version: str
    source: str
    source_type: str
    format: str
    title: str
    checksum: str
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass
class ChunkRecord:
    """A chunk as the store keeps it (``id`` and ``document_id`` set once stored)."""

    text: str
    title: str
    heading_path: str
    chunk_index: int
    chunk_total: int
    token_count: int
    content_hash: str
    metadata: dict[str, Any] = field(default_factory=dict)
    id: int = 0
    document_id: int = 0
    library_id: str = ""
    version: str = ""
    source: str = ""


@dataclass
class Filters:
    library_id: str | None = None
    version: str | None = None
    language: str | None = None
    ecosystem: str | None = None
