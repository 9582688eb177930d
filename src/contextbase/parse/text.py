"""Plain text: kept as it is, titled by its first line or its file name."""

from __future__ import annotations

from pathlib import PurePosixPath

from contextbase.parse.base import ParsedDocument
from contextbase.parse.clean import clean_markdown

_MAX_TITLE = 120


def parse_text(text: str, path: str) -> ParsedDocument:
    """Plain text as a document; the title is the first non-empty line or the file name."""
    body = clean_markdown(text)
    title = ""
    for line in body.split("\n"):
        candidate = line.strip().lstrip("#").strip()
        if candidate:
            title = candidate
            break
    if not title or len(title) > _MAX_TITLE:
        title = title_from_path(path) or title[:_MAX_TITLE]
    return ParsedDocument(title=title, markdown=body, format="text")


def title_from_path(path: str) -> str:
    """A readable title from a file name: ``getting-started.md`` → ``getting started``."""
    name = PurePosixPath(path.replace("\\", "/")).name
    stem = name.split(".", 1)[0] if not name.startswith(".") else name
    return " ".join(stem.replace("_", " ").replace("-", " ").split())
