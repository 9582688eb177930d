"""What an ecosystem detector reports, and small helpers the detectors share."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

Role = str
"""What a framework says about the project: ``frontend``, ``backend``, ``web``
(server-rendered pages), ``fullstack`` (a meta-framework serving pages and an
API), ``cli``."""


@dataclass
class Detection:
    """One manifest's view of a project (or of one workspace member)."""

    ecosystem: str
    folder: str
    manifest: str
    package_manager: str
    name: str | None = None
    description: str | None = None
    stack: list[str] = field(default_factory=list)
    runtime: str | None = None
    roles: set[Role] = field(default_factory=set)
    workspaces: list[str] = field(default_factory=list)
    source_roots: list[str] = field(default_factory=list)
    library: bool = False
    extra: dict[str, Any] = field(default_factory=dict)
    """Ecosystem data the import resolver needs (Go module path, package names, ...)."""

    def add_stack(self, entry: str) -> None:
        if entry not in self.stack:
            self.stack.append(entry)


_VERSION = re.compile(r"(\d+)(?:\.(\d+))?")


def version_label(spec: str | None) -> str | None:
    """``^14.2.3`` → ``14``, ``>=0.110`` → ``0.110``: the major version, or major.minor below 1."""
    if not spec:
        return None
    match = _VERSION.search(spec)
    if not match:
        return None
    major, minor = match.group(1), match.group(2)
    return f"{major}.{minor}" if major == "0" and minor else major


def stack_entry(label: str, spec: str | None) -> str:
    version = version_label(spec)
    return f"{label} {version}" if version else label


def join_path(folder: str, rel: str) -> str:
    return f"{folder}/{rel}" if folder else rel


_BADGE = re.compile(r"^\s*(\[!\[|!\[|<|\||```)")
_UNDERLINE = re.compile(r"[=\-~^*#+]{3,}")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s")


def short_text(text: str, limit: int = 240) -> str:
    """Whitespace collapsed, cut at a sentence end within ``limit`` characters."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[:limit]
    ends = [m.start() for m in _SENTENCE_END.finditer(cut)]
    if ends and ends[-1] > limit // 3:
        return cut[: ends[-1]]
    return cut.rsplit(" ", 1)[0] + "…"


def readme_summary(text: str) -> str | None:
    """The first prose paragraph of a README (headings, badges and HTML skipped)."""
    paragraph: list[str] = []
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped:
            if paragraph:
                break
            continue
        if _UNDERLINE.fullmatch(stripped):
            paragraph = []  # the line before was a reStructuredText or Setext title
            continue
        if stripped.startswith(("#", ".. ", ":")) or _BADGE.match(stripped):
            if paragraph:
                break
            continue
        paragraph.append(stripped)
    return short_text(" ".join(paragraph)) if paragraph else None
