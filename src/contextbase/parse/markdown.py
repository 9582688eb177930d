"""Markdown and MDX → clean Markdown.

Handles the dialects documentation sites really use: front matter (YAML and
TOML), MDX imports and JSX components, MkDocs admonitions and content tabs,
FastAPI's ``///`` blocks, mkdocstrings ``:::`` references and the include
directives of MkDocs and mdBook. Fenced code is kept byte for byte; only its
info string is reduced to a language.
"""

from __future__ import annotations

import datetime
import html
import re
import tomllib
from pathlib import PurePosixPath
from typing import Any

import yaml

from contextbase.parse.base import ParsedDocument
from contextbase.parse.clean import clean_markdown, fence, normalize_language
from contextbase.parse.text import title_from_path

_FENCE = re.compile(r"^( *)(`{3,}|~{3,})([^`]*)$")
_MKDOCS_ADMONITION = re.compile(r"^( *)(!!!|\?\?\?\+?)\s*([\w-]+)(?:\s+\"(.*?)\")?\s*$")
_MKDOCS_TAB = re.compile(r"^( *)===\+?\s+\"(.*?)\"\s*$")
_SLASH_BLOCK = re.compile(r"^\s*(/{3,})\s*([\w-]+)?\s*(?:\|\s*(.*?))?\s*$")
_COLON_BLOCK = re.compile(r"^\s*(:{3,})\s*([\w.-]*)\s*(.*?)\s*$")
_DOCUSAURUS_TYPES = {
    "note", "tip", "info", "caution", "danger", "warning", "important", "success", "secondary",
    "details", "tabs", "warn", "example",
}  # fmt: skip
_INCLUDES = (
    re.compile(r"\{\*\s*(\S+?)(?:\s+[^*}]*)?\s*\*\}"),  # FastAPI {* path hl[3] *}
    re.compile(r"\{!>?\s*([^!\s]+)\s*!\}"),  # mdx_include {!path!}
    re.compile(r"\{\{#(?:include|rustdoc_include|playground)\s+([^}\s]+)[^}]*\}\}"),  # mdBook
)
_MDBOOK_OTHER = re.compile(r"\{\{#\w+[^}]*\}\}")
_HTML_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.S)
_MDX_COMMENT = re.compile(r"\{/\*.*?\*/\}", re.S)
_INLINE_CODE = re.compile(r"(?<!`)(`+)(?!`)((?:(?!\n[ \t]*\n).)+?)(?<!`)\1(?!`)", re.S)
_IMAGE = re.compile(r"!\[[^\]]*\](?:\((?:[^()\s]|\([^)]*\))*(?:\s+\"[^\"]*\")?\)|\[[^\]]*\])")
_LINK = re.compile(
    r"\[((?:[^\[\]]|\[[^\]]*\])*)\]\(\s*(?:[^()\s]|\([^)]*\))*(?:\s+[\"'][^\"']*[\"'])?\)"
)
_REF_LINK = re.compile(r"\[((?:[^\[\]]|\[[^\]]*\])+)\]\[[^\]]*\]")
_REF_DEF = re.compile(r"^ {0,3}\[[^\]]+\]:\s+\S.*$", re.M)
_AUTOLINK = re.compile(r"<((?:https?|mailto|ftp):[^>\s]+)>")
_ATTR_LIST = re.compile(r"\s*\{\s*(?:[:.#]|\w+=)[^{}\n]*\}")
_ATX = re.compile(r"^(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_THEMATIC = re.compile(r"^ {0,3}(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})$")
_TABLE_ALIGN = re.compile(r"^\s*\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)+\|?\s*$")
_TAG_START = re.compile(r"(?<!\\)<(/?)([A-Za-z][\w.:-]*)")
_JSX_STRING = re.compile(r"\{\s*(['\"])((?:(?!\1)[^\\\n]|\\.)*)\1\s*\}")
_IMPORT_EXPORT = re.compile(r"^(?:import\s|export\s+(?:default|const|function|let|var|\{|\*))")
_MDX_SNIFF = re.compile(r"^(?:<[A-Z][\w.]*[\s/>]|import\s+[\w{*].*\s+from\s+['\"]|export\s)", re.M)
_DROP_WITH_CONTENT = {"script", "style", "svg", "iframe", "video", "audio", "picture", "template"}
_MEDIA = {"img", "image", "source", "track", "input", "hr"}
_MAX_NESTING = 40
_PLACEHOLDER = re.compile("\ue000(\\d+)\ue001")


def looks_like_mdx(text: str) -> bool:
    """True when Markdown carries JSX components or MDX import/export statements."""
    return _MDX_SNIFF.search(_strip_fences(text)) is not None


def parse_markdown(text: str, path: str, *, mdx: bool | None = None) -> ParsedDocument:
    """Convert Markdown or MDX to clean Markdown; ``mdx=None`` decides by suffix and content."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").lstrip("\ufeff")
    metadata, text = _split_front_matter(text)
    if mdx is None:
        mdx = PurePosixPath(path).suffix.lower() == ".mdx" or looks_like_mdx(text)
    lines = _expand_blocks(text.split("\n"))
    pieces: list[str] = []
    for kind, chunk, indent, info in _segments(lines):
        if kind == "code":
            pieces.append(_convert_fence(chunk, indent, info))
        else:
            pieces.append(_convert_text(chunk, mdx))
    markdown = clean_markdown("\n".join(pieces))
    title = _plain(str(metadata.get("title") or "")) or _first_heading(markdown)
    return ParsedDocument(
        title=title or title_from_path(path),
        markdown=markdown,
        format="mdx" if mdx else "markdown",
        metadata=metadata,
    )


def _split_front_matter(text: str) -> tuple[dict[str, Any], str]:
    match = re.match(r"(---|\+\+\+)[ \t]*\n(.*?)\n(?:\1|\.\.\.)[ \t]*(?:\n|\Z)", text, re.S)
    if not match:
        return {}, text
    raw = match.group(2)
    try:
        data = yaml.safe_load(raw) if match.group(1) == "---" else tomllib.loads(raw)
    except (yaml.YAMLError, tomllib.TOMLDecodeError, ValueError):
        data = None
    if not isinstance(data, dict):
        # Not front matter after all (e.g. a thematic break): keep the text.
        return {}, text
    return {str(k): _jsonable(v) for k, v in data.items()}, text[match.end() :]


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, datetime.date | datetime.datetime | datetime.time):
        return value.isoformat()
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)


def _strip_fences(text: str) -> str:
    return re.sub(r"^ *(`{3,}|~{3,}).*?^ *\1[`~]*[ \t]*$", "", text, flags=re.S | re.M)


# --- MkDocs / Docusaurus block syntax -------------------------------------------------------


def _expand_blocks(lines: list[str], depth: int = 0) -> list[str]:
    """Unwrap admonitions, tabs and ``///`` blocks into plain lines with a label."""
    if depth > _MAX_NESTING:
        return lines
    out: list[str] = []
    open_slashes: list[str] = []
    open_colons: list[str] = []
    fence_marker = ""
    i = 0
    while i < len(lines):
        line = lines[i]
        if fence_marker:
            out.append(line)
            if line.strip().startswith(fence_marker) and not line.strip().strip(fence_marker[0]):
                fence_marker = ""
            i += 1
            continue
        fence_match = _FENCE.match(line)
        if fence_match:
            fence_marker = fence_match.group(2)
            out.append(line)
            i += 1
            continue
        indented = _MKDOCS_ADMONITION.match(line) or _MKDOCS_TAB.match(line)
        if indented:
            body, i = _indented_body(lines, i + 1, len(indented.group(1)) + 4)
            if line.lstrip().startswith("==="):
                label = indented.group(2)
            else:
                label = _admonition_label(indented.group(3), indented.group(4))
            out.extend(["", _label_line(label), "", *_expand_blocks(body, depth + 1), ""])
            continue
        slash = _SLASH_BLOCK.match(line)
        if slash:
            marker, kind, title = slash.groups()
            if kind:
                open_slashes.append(marker)
                out.extend(["", _label_line(_admonition_label(kind, title)), ""])
            elif open_slashes and marker in open_slashes:
                while open_slashes and open_slashes.pop() != marker:
                    pass
                out.append("")
            else:
                out.append(line)
            i += 1
            continue
        colon = _COLON_BLOCK.match(line)
        if colon:
            marker, word, rest = colon.groups()
            if word.lower() in _DOCUSAURUS_TYPES:
                open_colons.append(marker)
                out.extend(["", _label_line(_admonition_label(word, rest or None)), ""])
                i += 1
            elif word:  # mkdocstrings: "::: package.Object" plus indented options
                _, i = _indented_body(lines, i + 1, len(line) - len(line.lstrip()) + 1)
                out.extend(["", f"(API reference for `{word}`)", ""])
            else:
                if open_colons:
                    open_colons.pop()
                out.append("")
                i += 1
            continue
        out.append(line)
        i += 1
    return out


def _indented_body(lines: list[str], start: int, indent: int) -> tuple[list[str], int]:
    """Lines from ``start`` indented by at least ``indent`` (or blank), dedented."""
    body: list[str] = []
    i = start
    while i < len(lines):
        line = lines[i]
        if line.strip() and len(line) - len(line.lstrip(" ")) < indent:
            break
        body.append(line[indent:] if line.strip() else "")
        i += 1
    return body, i


def _admonition_label(kind: str, title: str | None) -> str:
    kind_label = kind.replace("-", " ").capitalize()
    if title is None:
        return kind_label
    if not title.strip():
        return ""
    if kind.lower() in {"details", "tab", "info"}:
        return title
    return f"{kind_label}: {title}"


def _label_line(label: str) -> str:
    label = label.replace("**", "").strip()
    return f"**{label}**" if label else ""


# --- fences and text -----------------------------------------------------------------------


def _segments(lines: list[str]) -> list[tuple[str, list[str], int, str]]:
    """Split lines into ("text", lines) and ("code", lines, indent, info) runs."""
    segments: list[tuple[str, list[str], int, str]] = []
    text: list[str] = []
    i = 0
    while i < len(lines):
        match = _FENCE.match(lines[i])
        if not match:
            text.append(lines[i])
            i += 1
            continue
        if text:
            segments.append(("text", text, 0, ""))
            text = []
        indent, marker, info = len(match.group(1)), match.group(2), match.group(3)
        code: list[str] = []
        i += 1
        while i < len(lines):
            stripped = lines[i].strip()
            if stripped.startswith(marker) and not stripped.strip(marker[0]):
                i += 1
                break
            code.append(_dedent_line(lines[i], indent))
            i += 1
        segments.append(("code", code, indent, info))
    if text:
        segments.append(("text", text, 0, ""))
    return segments


def _dedent_line(line: str, indent: int) -> str:
    stripped = len(line) - len(line.lstrip(" "))
    return line[min(indent, stripped) :]


def _convert_fence(code: list[str], indent: int, info: str) -> str:
    notes: list[str] = []
    kept: list[str] = []
    for line in code:
        note = _include_note(line.strip())
        if note:
            notes.append(note)
            kept.append(note)
        else:
            kept.append(line)
    pad = " " * indent
    if notes and all(not line.strip() or line in notes for line in kept):
        return "\n" + "\n".join(pad + n for n in notes) + "\n"
    block = fence("\n".join(kept), normalize_language(info))
    return "\n" + "\n".join(pad + line if line else line for line in block.split("\n")) + "\n"


def _include_note(line: str) -> str:
    """``(code from docs_src/x.py)`` when the whole line is an include directive."""
    for pattern in _INCLUDES:
        match = pattern.fullmatch(line)
        if match:
            return _note_for(match.group(1))
    return ""


def _note_for(target: str) -> str:
    target = re.sub(r":[\w-]+$", "", target)  # mdBook anchors: file.rs:anchor_name
    parts = [p for p in target.replace("\\", "/").split("/") if p not in ("", ".", "..")]
    return f"(code from {'/'.join(parts) or target})"


def _convert_text(lines: list[str], mdx: bool) -> str:
    text = "\n".join(lines)
    text = _HTML_COMMENT.sub("", text)
    text = _MDX_COMMENT.sub("", text)
    codes: list[str] = []

    def protect(match: re.Match[str]) -> str:
        codes.append(match.group(0))
        return f"\ue000{len(codes) - 1}\ue001"

    text = _INLINE_CODE.sub(protect, text)
    for pattern in _INCLUDES:
        text = pattern.sub(lambda m: _note_for(m.group(1)), text)
    text = _MDBOOK_OTHER.sub("", text)
    if mdx:
        text = _drop_import_export(text)
        text = _JSX_STRING.sub(lambda m: m.group(2).replace("\\n", "\n") or " ", text)
    text = _strip_tags(text)
    text = _REF_DEF.sub("", text)
    text = _IMAGE.sub("", text)
    text = _LINK.sub(lambda m: m.group(1), text)
    text = _REF_LINK.sub(lambda m: m.group(1), text)
    text = _AUTOLINK.sub(lambda m: m.group(1), text)
    text = _ATTR_LIST.sub("", text)
    text = _blocks(text.split("\n"))
    text = html.unescape(text) if "&" in text else text
    return _PLACEHOLDER.sub(lambda m: codes[int(m.group(1))], text)


def _drop_import_export(text: str) -> str:
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        if not _IMPORT_EXPORT.match(lines[i]):
            out.append(lines[i])
            i += 1
            continue
        depth = 0
        while i < len(lines):
            depth += sum(lines[i].count(c) for c in "{([") - sum(lines[i].count(c) for c in "})]")
            i += 1
            if depth <= 0:
                break
    return "\n".join(out)


def _strip_tags(text: str) -> str:
    """Remove HTML/JSX tags, keeping their text; media and scripts go entirely."""
    out: list[str] = []
    pos = 0
    while True:
        match = _TAG_START.search(text, pos)
        if not match:
            out.append(text[pos:])
            return "".join(out)
        end = _tag_end(text, match.end())
        # "Vec<T>" is text, "2<MathI>x</MathI>" is a tag: after a letter, trust a closing tag.
        glued = (
            not match.group(1)
            and match.start() > 0
            and text[match.start() - 1].isalnum()
            and f"</{match.group(2)}>" not in text
        )
        if end < 0 or glued:
            out.append(text[pos : match.end()])
            pos = match.end()
            continue
        out.append(text[pos : match.start()])
        closing, name = match.group(1), match.group(2)
        tag = text[match.start() : end]
        pos = end
        lower = name.lower()
        if closing:
            continue
        if lower in _DROP_WITH_CONTENT and not tag.endswith("/>"):
            close = re.compile(rf"</{re.escape(name)}\s*>", re.I).search(text, pos)
            pos = close.end() if close else pos
        elif lower == "br":
            out.append(" ")
        elif name[0].isupper() and lower not in _MEDIA and not tag.endswith("/>"):
            # A container's title (<Recipes titleText="...">) names the section it opens.
            title = re.search(r"\btitle(?:Text)?=(?:\"([^\"]+)\"|'([^']+)')", tag)
            if title:
                out.append(f"\n\n**{title.group(1) or title.group(2)}**\n\n")


def _tag_end(text: str, pos: int) -> int:
    """Index just past the ``>`` closing a tag, honouring quotes and JSX braces; -1 if none."""
    depth = 0
    quote = ""
    limit = min(len(text), pos + 4000)
    while pos < limit:
        char = text[pos]
        if quote:
            if char == quote:
                quote = ""
        elif char in "\"'" and depth == 0:
            quote = char
        elif char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
        elif char == ">" and depth <= 0:
            return pos + 1
        elif char == "<" and depth <= 0:
            return -1
        pos += 1
    return -1


def _blocks(lines: list[str]) -> str:
    """Headings to ATX, tables to ``a | b`` rows, thematic breaks dropped."""
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        atx = _ATX.match(line)
        if atx:
            out.append(f"{atx.group(1)} {atx.group(2).strip()}")
        elif (
            stripped
            and _SETEXT.match(nxt)
            and (not out or not out[-1].strip())
            and not line.startswith((" " * 4, "-", "*", "+", ">", "|"))
        ):
            level = "#" if nxt.strip()[0] == "=" else "##"
            out.append(f"{level} {stripped}")
            i += 1
        elif _THEMATIC.match(line):
            out.append("")
        elif "|" in line and _TABLE_ALIGN.match(nxt):
            rows = [line]
            i += 2
            while i < len(lines) and "|" in lines[i] and lines[i].strip():
                rows.append(lines[i])
                i += 1
            out.extend(["", *(_table_row(r) for r in rows), ""])
            continue
        else:
            out.append(line)
        i += 1
    return "\n".join(out)


def _table_row(line: str) -> str:
    cells = re.split(r"(?<!\\)\|", line.strip().strip("|"))
    return " | ".join(c.strip() for c in cells)


def _first_heading(markdown: str) -> str:
    first_any = ""
    fence_marker = ""
    for line in markdown.split("\n"):
        stripped = line.strip()
        if fence_marker:
            if stripped.startswith(fence_marker) and not stripped.strip(fence_marker[0]):
                fence_marker = ""
            continue
        match = _FENCE.match(line)
        if match:
            fence_marker = match.group(2)
            continue
        atx = _ATX.match(line)
        if atx:
            if len(atx.group(1)) == 1:
                return _plain(atx.group(2))
            first_any = first_any or _plain(atx.group(2))
    return first_any


def _plain(text: str) -> str:
    """Heading text without inline Markdown: ``**`FastAPI`** class`` → ``FastAPI class``."""
    text = re.sub(r"(\*\*|__|`+)", "", text)
    text = re.sub(r"(?<!\w)[*_](\S(?:.*?\S)?)[*_](?!\w)", r"\1", text)
    return " ".join(text.split())
