"""Bytes to text: byte-order marks, declared charsets, UTF-8, then a deliberate fallback."""

from __future__ import annotations

import codecs
import re

_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9._:-]+)""", re.I)
_XML_ENCODING = re.compile(rb"""^\s*<\?xml[^>]+encoding\s*=\s*["']([A-Za-z0-9._:-]+)["']""")
# Browsers read these labels as windows-1252, which is what such pages really contain.
_WINDOWS_1252_LABELS = {"iso-8859-1", "iso8859-1", "latin-1", "latin1", "l1"}
# Pages labelled ASCII that are not ASCII are nearly always UTF-8.
_ASCII_LABELS = {"us-ascii", "ascii", "ansi_x3.4-1968"}
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0e-\x1a\x1c-\x1f\x7f]")
_SAMPLE = 8192


def charset_from_content_type(content_type: str | None) -> str | None:
    """The ``charset`` parameter of a Content-Type header, if any."""
    if not content_type:
        return None
    match = re.search(r"charset\s*=\s*[\"']?([A-Za-z0-9._:-]+)", content_type, re.I)
    return match.group(1) if match else None


def looks_binary(text: str) -> bool:
    """True when decoded text is really binary: NUL bytes or many control characters."""
    sample = text[:_SAMPLE]
    if "\x00" in sample:
        return True
    if not sample:
        return False
    return len(_CONTROL.findall(sample)) / len(sample) > 0.05


def decode_text(data: bytes, declared_charset: str | None = None) -> str | None:
    """Decode document bytes, or return None when they are binary.

    Order: a byte-order mark; ``declared_charset`` (e.g. from Content-Type); a
    ``<meta charset>`` or XML declaration in the first bytes; strict UTF-8; then
    windows-1252, which accepts almost any byte sequence, and Latin-1 as a
    last resort so that legacy pages still come out readable.
    """
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            text = data[len(bom) :].decode(encoding, errors="replace")
            return None if looks_binary(text) else text
    head = data[:_SAMPLE]
    if b"\x00" in head:
        return None
    for charset in (declared_charset, _declared_in_document(head), "utf-8", "cp1252"):
        if not charset:
            continue
        encoding = _python_encoding(charset)
        if encoding is None:
            continue
        try:
            text = data.decode(encoding)
        except UnicodeDecodeError:
            continue
        return None if looks_binary(text) else text
    text = data.decode("latin-1")  # maps every byte: the last resort never fails
    return None if looks_binary(text) else text


def _declared_in_document(head: bytes) -> str | None:
    match = _XML_ENCODING.match(head) or _META_CHARSET.search(head[:4096])
    return match.group(1).decode("ascii") if match else None


def _python_encoding(label: str) -> str | None:
    label = label.strip().lower()
    if label in _WINDOWS_1252_LABELS:
        return "cp1252"
    if label in _ASCII_LABELS:
        return "utf-8"
    try:
        name = codecs.lookup(label).name
    except LookupError:
        return None
    # A page that declares UTF-16 without a BOM has already been transcoded by someone.
    return None if name.startswith("utf-16") or name.startswith("utf-32") else name
