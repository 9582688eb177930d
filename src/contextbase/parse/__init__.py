"""Document parsers: any supported source file → :class:`ParsedDocument` (clean Markdown).

``parse_document`` is the one entry point the ingest pipeline uses: it detects
the format (extension, content type, then the content itself), decodes bytes,
and hands the text to the converter for Markdown/MDX, reStructuredText, HTML,
DocBook or plain text. Unsupported or binary input gives ``None``; only a
supported file that its converter cannot process at all raises ``SourceError``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import PurePosixPath

from contextbase.errors import SourceError
from contextbase.parse.base import ParsedDocument
from contextbase.parse.decode import charset_from_content_type, decode_text, looks_binary
from contextbase.parse.docbook import looks_like_docbook, parse_docbook
from contextbase.parse.html import parse_html
from contextbase.parse.markdown import looks_like_mdx, parse_markdown
from contextbase.parse.rst import looks_like_rst, parse_rst
from contextbase.parse.text import parse_text

__all__ = [
    "SUPPORTED_SUFFIXES",
    "ParsedDocument",
    "decode_text",
    "detect_format",
    "parse_document",
]

_SUFFIX_FORMATS = {
    ".md": "markdown",
    ".markdown": "markdown",
    ".mdown": "markdown",
    ".mkd": "markdown",
    ".mdx": "mdx",
    ".rst": "rst",
    ".rest": "rst",
    ".txt": "text",
    ".text": "text",
    ".html": "html",
    ".htm": "html",
    ".xhtml": "html",
    ".sgml": "docbook",
    ".sgm": "docbook",
    ".dbk": "docbook",
    ".docbook": "docbook",
    ".xml": "docbook",
}
SUPPORTED_SUFFIXES: frozenset[str] = frozenset(_SUFFIX_FORMATS)
"""File suffixes ``parse_document`` accepts (``.xml`` only when it is DocBook)."""

_CONTENT_TYPES = {
    "text/html": "html",
    "application/xhtml+xml": "html",
    "text/markdown": "markdown",
    "text/x-markdown": "markdown",
    "text/mdx": "mdx",
    "text/x-rst": "rst",
    "text/prs.fallenstein.rst": "rst",
    "text/plain": "text",
    "application/docbook+xml": "docbook",
    "application/xml": "xml",
    "text/xml": "xml",
    "text/sgml": "xml",
}
_HTML_START = re.compile(
    r"^\s*(?:<!--.*?-->\s*|<\?xml[^>]*>\s*)*<(?:!doctype\s+html|html)\b", re.I | re.S
)
_HTML_LOOSE = re.compile(r"<(?:html|head|body)\b|<meta\s|<div\b", re.I)
_PARSERS: dict[str, Callable[[str, str], ParsedDocument]] = {
    "markdown": lambda text, path: parse_markdown(text, path, mdx=False),
    "mdx": lambda text, path: parse_markdown(text, path, mdx=True),
    "rst": parse_rst,
    "html": parse_html,
    "docbook": parse_docbook,
    "text": parse_text,
}


def detect_format(path: str, data: bytes | str, content_type: str | None = None) -> str | None:
    """The format of a document: ``markdown``, ``mdx``, ``rst``, ``html``, ``docbook``, ``text``.

    The file suffix decides first, corrected by the content where it is
    unambiguous (an ``.md`` URL that served a full HTML page is HTML); then the
    content type; then sniffing. Returns None for anything unsupported.
    """
    head = data[:8192].decode("latin-1") if isinstance(data, bytes) else data[:8192]
    name = PurePosixPath(re.split(r"[?#]", path, maxsplit=1)[0]).name.lower()
    suffix = PurePosixPath(name).suffix
    strong_html = _HTML_START.match(head) is not None
    by_suffix = _SUFFIX_FORMATS.get(suffix)
    if by_suffix is not None:
        if suffix == ".xml":
            return "docbook" if looks_like_docbook(head) else None
        if by_suffix in {"markdown", "text", "rst"} and strong_html:
            return "html"
        if by_suffix == "markdown" and looks_like_mdx(head):
            return "mdx"
        if by_suffix == "text":
            return _refine_text(name, head)
        return by_suffix
    mime = (content_type or "").split(";", 1)[0].strip().lower()
    by_type = _CONTENT_TYPES.get(mime)
    if by_type == "xml":
        return "docbook" if looks_like_docbook(head) else None
    if by_type == "text":
        return "html" if strong_html else _refine_text(name, head)
    if by_type is not None:
        return by_type
    if strong_html:
        return "html"
    if suffix and not mime:
        return None  # an unknown extension (.py, .png, .xsl) is not documentation
    if head.lstrip().startswith("<") and _HTML_LOOSE.search(head):
        return "html"
    if looks_like_docbook(head):
        return "docbook"
    if mime and not mime.startswith("text/"):
        return None
    return None if "\x00" in head else "text"


def _refine_text(name: str, head: str) -> str:
    if name.startswith("llms") or name.endswith(".md.txt"):
        return "markdown"  # llms.txt files and Sphinx's _sources/*.md.txt are Markdown
    if name.endswith(".rst.txt"):
        return "rst"
    # Some projects (Django among them) write their reStructuredText docs as .txt.
    return "rst" if looks_like_rst(head) else "text"


def parse_document(
    data: bytes | str, path: str, content_type: str | None = None
) -> ParsedDocument | None:
    """Convert one source file to a :class:`ParsedDocument`.

    Returns None for unsupported formats, binary data and documents with no
    text. Raises :class:`~contextbase.errors.SourceError` only when a file of a
    supported format cannot be converted at all.
    """
    fmt = detect_format(path, data, content_type)
    if fmt is None:
        return None
    if isinstance(data, bytes):
        text = decode_text(data, charset_from_content_type(content_type))
    else:
        text = None if looks_binary(data) else data
    if text is None or not text.strip():
        return None
    try:
        document = _PARSERS[fmt](text, path)
    except Exception as exc:  # a converter that fails on a supported file is a source problem
        raise SourceError(f"Could not convert {path} as {fmt}: {exc!r}.") from exc
    if not document.markdown.strip():
        return None
    return document
