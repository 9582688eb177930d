"""What every parser returns."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class ParsedDocument:
    """A source file converted to clean Markdown.

    ``markdown`` uses ATX headings (``#``..``######``) and fenced code blocks with
    a language where one is known; ``title`` is the document's own title (first
    heading, front matter or <title>), never empty when the source has one.
    """

    title: str
    markdown: str
    format: str
    """Source format: markdown, mdx, rst, html, docbook, text."""
    metadata: dict[str, Any] = field(default_factory=dict)
