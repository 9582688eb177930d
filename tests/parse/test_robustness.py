"""Ordinary bad content never raises: random markup soup through every converter."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contextbase.parse import ParsedDocument, parse_document

# Fragments each format treats specially, so random documents hit the tricky paths.
PIECES = [
    "\n", "\n\n", "   ", "\t", "#", "## ", "=====", "-----", "+---+", "| a | b |", "|---|",
    "```", "~~~", "```py", "::", ".. ", ".. note::", ".. function:: f(x)", ":func:`x`",
    "``lit``", "`x`_", "*", "**", "_", "[t](u)", "![i](s)", "<", ">", "</", "/>", "<div>",
    "<Sandpack>", "</Sandpack>", "<pre>", "</pre>", "<para>", "</para>", "<sect1>",
    "<title>", "<programlisting>", "<![CDATA[", "]]>", "<!--", "-->", "&", "&amp;",
    "&version;", "&#x41;", "&#99999999;", "{", "}", "{* ", " *}", "{{#include x}}", "!!! note",
    "/// tip", "///", "=== \"Tab\"", ":::", "---\n", "+++\n", "import x from 'y'", "export ",
    ">>> ", "1. ", "- ", "#. ", "é", "\u00a0", "\ufeff", "\x0c",
]  # fmt: skip
SUFFIXES = ["doc.md", "doc.mdx", "doc.rst", "doc.html", "doc.sgml", "doc.txt", "README"]


@pytest.mark.parametrize("path", SUFFIXES)
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(parts=st.lists(st.sampled_from(PIECES) | st.text(max_size=8), max_size=60))
def test_random_markup_never_raises(path: str, parts: list[str]) -> None:
    result = parse_document("".join(parts), path)
    assert result is None or isinstance(result, ParsedDocument)
    if result is not None:
        assert result.markdown.strip()
        assert isinstance(result.title, str)


@settings(max_examples=80, deadline=None)
@given(data=st.binary(max_size=300))
def test_random_bytes_never_raise(data: bytes) -> None:
    for path in ("page.html", "notes.md", "chapter.sgml", "blob"):
        result = parse_document(data, path)
        assert result is None or isinstance(result, ParsedDocument)
