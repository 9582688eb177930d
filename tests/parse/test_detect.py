"""Format detection, decoding, binary rejection and the parse_document contract."""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest

from contextbase.errors import SourceError
from contextbase.parse import (
    SUPPORTED_SUFFIXES,
    ParsedDocument,
    decode_text,
    detect_format,
    parse_document,
)

PNG_HEADER = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x01\x00"


@pytest.mark.parametrize(
    ("path", "data", "content_type", "expected"),
    [
        ("docs/intro.md", "# Intro", None, "markdown"),
        ("docs/intro.markdown", "# Intro", None, "markdown"),
        ("page.mdx", "# Intro", None, "mdx"),
        ("page.md", "---\ntitle: x\n---\n\n<Intro>\nHi\n</Intro>\n", None, "mdx"),
        ("index.rst", "Title\n=====\n", None, "rst"),
        ("notes.txt", "Just some notes.\n", None, "text"),
        ("topics/db.txt", "Databases\n=========\n\n.. note::\n   Hi\n", None, "rst"),
        ("llms.txt", "# Project\n\n> Summary\n", None, "markdown"),
        ("a.html", "<p>x</p>", None, "html"),
        ("a.htm", "<p>x</p>", None, "html"),
        ("a.xhtml", "<p>x</p>", None, "html"),
        ("ref/create_index.sgml", "<refentry id='x'>", None, "docbook"),
        ("book.xml", '<?xml version="1.0"?>\n<chapter id="c"><title>T</title>', None, "docbook"),
        ("pom.xml", '<?xml version="1.0"?>\n<project><modelVersion/></project>', None, None),
        ("README", "Plain words.\n", None, "text"),
        ("https://example.com/docs/intro", "<!DOCTYPE html><html></html>", None, "html"),
        ("https://example.com/guide", "anything", "text/html; charset=utf-8", "html"),
        ("https://example.com/guide", "# Guide", "text/markdown", "markdown"),
        ("https://example.com/raw/page.md", "<!doctype html><html><body>x", None, "html"),
        ("script.py", "print('hi')\n", None, None),
        ("logo.png", PNG_HEADER, None, None),
        ("data.bin", b"\x00\x01\x02", None, None),
        ("blob", b"\x00\x01\x02\x03", None, None),
        ("https://example.com/file", "x", "application/octet-stream", None),
    ],
)
def test_detect_format(
    path: str, data: str | bytes, content_type: str | None, expected: str
) -> None:
    assert detect_format(path, data, content_type) == expected


def test_supported_suffixes_cover_the_formats() -> None:
    for suffix in (".md", ".markdown", ".mdx", ".rst", ".txt", ".html", ".htm", ".xhtml"):
        assert suffix in SUPPORTED_SUFFIXES
    assert {".sgml", ".xml"} <= SUPPORTED_SUFFIXES
    assert ".py" not in SUPPORTED_SUFFIXES


def test_decode_utf8_and_boms() -> None:
    text = "Grüße — ünïcödé"
    assert decode_text(text.encode("utf-8")) == text
    assert decode_text(codecs.BOM_UTF8 + text.encode("utf-8")) == text
    assert decode_text(codecs.BOM_UTF16_LE + text.encode("utf-16-le")) == text
    assert decode_text(codecs.BOM_UTF16_BE + text.encode("utf-16-be")) == text


def test_decode_declared_charset_wins_over_guessing() -> None:
    shift_jis = "日本語のドキュメント".encode("shift_jis")
    assert decode_text(shift_jis, "shift_jis") == "日本語のドキュメント"
    koi8 = "Документация".encode("koi8-r")
    assert decode_text(koi8, "KOI8-R") == "Документация"


def test_decode_reads_meta_charset_and_xml_declaration() -> None:
    html = '<html><head><meta charset="iso-8859-15"></head><body>Prix: 5 €</body></html>'
    assert "5 €" in (decode_text(html.encode("iso-8859-15")) or "")
    xml = '<?xml version="1.0" encoding="windows-1251"?>\n<chapter><title>Глава</title></chapter>'
    assert "Глава" in (decode_text(xml.encode("windows-1251")) or "")


def test_decode_latin1_label_means_windows_1252_and_bad_labels_are_ignored() -> None:
    data = "“quoted” café".encode("cp1252")
    assert decode_text(data, "iso-8859-1") == "“quoted” café"
    assert decode_text(b"plain ascii", "no-such-charset") == "plain ascii"


def test_decode_falls_back_when_utf8_fails() -> None:
    assert decode_text("naïve café".encode("cp1252")) == "naïve café"
    # 0x81 is undefined in windows-1252: Latin-1 still gives readable text.
    assert decode_text(b"caf\xe9 \x81ok") == "café \x81ok"


def test_binary_is_rejected() -> None:
    assert decode_text(PNG_HEADER) is None
    assert decode_text(bytes(range(1, 32)) * 20) is None
    assert parse_document(PNG_HEADER, "image.md") is None
    assert parse_document("text\x00with\x00nuls", "notes.md") is None


def test_empty_and_blank_documents_give_none() -> None:
    assert parse_document(b"", "empty.md") is None
    assert parse_document("   \n\n", "blank.rst") is None
    assert parse_document("<html><body>  </body></html>", "empty.html") is None


def test_parse_document_decodes_with_the_content_type_charset() -> None:
    data = "<h1>Überblick</h1><p>Größe</p>".encode("iso-8859-1")
    doc = parse_document(data, "https://example.com/de/page", "text/html; charset=ISO-8859-1")
    assert doc is not None
    assert doc.format == "html"
    assert doc.title == "Überblick"
    assert "Größe" in doc.markdown


def test_parse_document_accepts_str_and_bytes_alike() -> None:
    source = "# Title\n\nBody with `code`.\n"
    from_str = parse_document(source, "a.md")
    from_bytes = parse_document(source.encode(), "a.md")
    assert isinstance(from_str, ParsedDocument)
    assert from_str == from_bytes
    assert from_str.title == "Title"


def test_plain_text_title_from_first_line_or_file_name() -> None:
    doc = parse_document("\n\n  Release checklist  \n\n1. tag\n2. push\n", "notes/CHECKLIST")
    assert doc is not None
    assert doc.format == "text"
    assert doc.title == "Release checklist"
    assert "2. push" in doc.markdown
    long_line = "x" * 300
    doc = parse_document(long_line + "\n", "notes/getting-started.txt")
    assert doc is not None
    assert doc.title == "getting started"


def test_unsupported_input_gives_none() -> None:
    assert parse_document("print('x')", "tool.py") is None
    assert parse_document('<?xml version="1.0"?><project/>', "pom.xml") is None


@pytest.mark.parametrize(
    ("path", "source"),
    [
        ("deep.rst", "\n\n".join(" " * depth + f"level {depth}" for depth in range(1000))),
        ("deep.html", "<div>" * 5000 + "<p>bottom</p>" + "<span>" * 5000 + "end"),
        ("deep.sgml", "<chapter><title>Deep</title>" + "<blockquote>" * 3000 + "<para>end"),
        ("deep.md", "".join(" " * 4 * d + '!!! note "N"\n' for d in range(100)) + "end\n"),
    ],
)
def test_absurd_nesting_is_flattened_not_fatal(path: str, source: str) -> None:
    doc = parse_document(source, path)
    assert doc is not None
    assert "end" in doc.markdown or "level 999" in doc.markdown


def test_a_converter_failure_becomes_one_source_error(monkeypatch: pytest.MonkeyPatch) -> None:
    # No known input breaks a converter; this pins the contract for the day one does.
    import contextbase.parse as parse

    def broken(text: str, path: str) -> ParsedDocument:
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setitem(parse._PARSERS, "rst", broken)
    with pytest.raises(SourceError, match=r"Could not convert guide\.rst as rst"):
        parse_document("Title\n=====\n", "guide.rst")


def test_non_document_files_in_the_corpora_are_declined(corpora: Path) -> None:
    # Images, Perl, XSL, CSS and build files sit beside the documents: none may raise,
    # the binary and program files give None, the plain-text notes come out as text.
    documents = {".html", ".md", ".rst", ".sgml"}
    others = [p for p in corpora.rglob("*") if p.is_file() and p.suffix not in documents]
    assert len(others) > 50
    formats: dict[str, str | None] = {}
    for path in others:
        doc = parse_document(path.read_bytes(), str(path))
        formats[path.name] = doc.format if doc else None
        if path.suffix in {".png", ".pdf", ".svg", ".xsl", ".pl", ".css", ".ps", ".py"}:
            assert doc is None, path
    assert formats["Makefile"] == "text"
    assert formats["targets-meson.txt"] == "text"
