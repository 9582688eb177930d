"""DocBook (SGML or XML, whole books or fragments) → Markdown.

Sections (``chapter``, ``sect1``…, ``refentry``, ``refsect1``…) become headings
by depth; ``programlisting``, ``screen`` and ``synopsis`` become fenced code;
inline markup for code (``literal``, ``command``, ``function``…) becomes
backticks; lists, variable lists, tables and admonitions become their
Markdown equivalents; index terms, comments and unknown entities disappear.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Mapping

from contextbase.parse.base import ParsedDocument
from contextbase.parse.clean import (
    clean_markdown,
    fence,
    inline_code,
    join_blocks,
    labelled,
    list_item,
    normalize_language,
    table_rows,
)
from contextbase.parse.sgml import Element, parse_sgml
from contextbase.parse.text import title_from_path

# The PostgreSQL manual's own entities; callers can pass others (or real values).
DEFAULT_ENTITIES = {
    "version": "X.Y",
    "majorversion": "X",
    "productname": "PostgreSQL",
    "commit_baseurl": "https://postgr.es/c/",
    "zwsp": "",
}
_ROOTS = re.compile(
    r"<(chapter|sect[1-5]|section|refentry|appendix|book|part|preface|reference|article|"
    r"simplesect|glossary|bibliography|refsect[1-3]|set|partintro)[\s>]",
    re.I,
)
_SECTIONS = {
    "set", "book", "part", "chapter", "appendix", "preface", "reference", "article", "sect1",
    "sect2", "sect3", "sect4", "sect5", "section", "simplesect", "refentry", "refsect1",
    "refsect2", "refsect3", "refsynopsisdiv", "glossary", "bibliography", "glossdiv",
    "bibliodiv", "colophon", "dedication", "index",
}  # fmt: skip
_DROP = {
    "indexterm", "remark", "comment", "refmeta", "titleabbrev", "mediaobject", "imageobject",
    "inlinemediaobject", "toc", "lot", "co", "anchor", "beginpage", "bookinfo", "info",
    "authorgroup", "subtitle", "refentryinfo", "#comment",
}  # fmt: skip
_VERBATIM = {"programlisting", "screen", "synopsis", "literallayout", "funcsynopsisinfo"}
_CODE = {
    "literal", "command", "function", "type", "varname", "structname", "structfield",
    "filename", "option", "replaceable", "symbol", "parameter", "returnvalue", "token",
    "envar", "classname", "constant", "prompt", "userinput", "computeroutput", "systemitem",
    "sgmltag", "tablename", "errorcode", "errorname", "errortype", "property", "code",
    "markup", "uri", "methodname", "database", "interfacename", "exceptionname", "tag",
    "varargs", "keycap", "oper", "msgtext",
}  # fmt: skip
_EMPHASIS = {"emphasis", "firstterm", "citetitle", "foreignphrase", "wordasword", "glossterm"}
_ADMONITIONS = {
    "note": "Note", "tip": "Tip", "warning": "Warning", "important": "Important",
    "caution": "Caution", "danger": "Danger",
}  # fmt: skip
_CONTAINERS = {
    "blockquote", "epigraph", "sidebar", "abstract", "partintro", "legalnotice", "qandaset",
    "qandaentry", "question", "answer", "qandadiv", "msgset", "msgentry", "msgexplan",
    "equation", "informalequation", "example", "informalexample", "figure", "informalfigure",
    "glossdef", "callout", "address", "textobject", "caption", "personblurb",
}  # fmt: skip
_BLOCKS = (
    _SECTIONS | _VERBATIM | _CONTAINERS | set(_ADMONITIONS)
    | {
        "para", "simpara", "formalpara", "cmdsynopsis", "funcsynopsis", "itemizedlist",
        "orderedlist", "variablelist", "varlistentry", "listitem", "simplelist",
        "segmentedlist", "procedure", "step", "substeps", "stepalternatives", "table",
        "informaltable", "tgroup", "glosslist", "glossentry", "calloutlist", "biblioentry",
        "bibliomixed", "biblioset", "refnamediv", "title", "tr", "row", "thead", "tbody",
    }
)  # fmt: skip
_SQL_START = re.compile(
    r"^\s*(?:\w+=?[#>]\s*)?(SELECT|INSERT|UPDATE|DELETE|CREATE|ALTER|DROP|WITH|BEGIN|COMMIT|"
    r"ROLLBACK|GRANT|REVOKE|EXPLAIN|SET|SHOW|VALUES|COPY|TRUNCATE|ANALYZE|VACUUM|DO|CALL|"
    r"PREPARE|EXECUTE|DECLARE|FETCH|LISTEN|NOTIFY|LOCK|REINDEX|CLUSTER|COMMENT|SECURITY|"
    r"IMPORT|REFRESH|TABLE|MERGE|RESET|DISCARD|LOAD|END|START|SAVEPOINT|RELEASE|CHECKPOINT|"
    r"ABORT|MOVE|CLOSE|DEALLOCATE|REASSIGN|UNLISTEN)\b",
    re.I,
)
_MAX_DEPTH = 200
_BREAK = "\ue003"


def looks_like_docbook(head: str) -> bool:
    """True when text starts (after comments and declarations) a DocBook element."""
    stripped = re.sub(
        r"<!--.*?-->|<\?.*?\?>|<!DOCTYPE[^\[>]*(?:\[.*?\])?\s*>", "", head, flags=re.S
    )
    match = re.search(r"<([A-Za-z][\w.-]*)", stripped)
    return bool(match and _ROOTS.match(match.group(0) + " ")) or (
        "docbook" in head[:2000].lower() and bool(_ROOTS.search(head))
    )


def parse_docbook(
    text: str, path: str, entities: Mapping[str, str] | None = None
) -> ParsedDocument:
    """Convert a DocBook file or fragment to a :class:`ParsedDocument`.

    ``entities`` supplies values for entities the file uses but does not
    declare (``&version;``); they default to :data:`DEFAULT_ENTITIES`.
    """
    root = parse_sgml(text, {**DEFAULT_ENTITIES, **(entities or {})})
    top = next((e for e in _walk(root) if e.tag in _SECTIONS), None)
    converter = _Converter(root)
    markdown = clean_markdown(join_blocks(converter.blocks(root, 0, 0)))
    metadata: dict[str, object] = {}
    title = ""
    if top is not None:
        title = converter.section_title(top)
        if top.attrs.get("id"):
            metadata["id"] = top.attrs["id"]
        metadata["element"] = top.tag
    return ParsedDocument(
        title=title or title_from_path(path), markdown=markdown, format="docbook", metadata=metadata
    )


def _walk(element: Element) -> list[Element]:
    """All elements below ``element`` in document order."""
    found: list[Element] = []
    stack = [element]
    while stack:
        node = stack.pop()
        found.append(node)
        stack.extend(reversed(node.elements()))
    return found[1:]


def _squash(text: str) -> str:
    return " ".join(text.split())


class _Converter:
    def __init__(self, root: Element) -> None:
        self.titles: dict[str, str] = {}
        for element in _walk(root):
            ident = element.attrs.get("id")
            if ident:
                title = self.section_title(element)
                if title:
                    self.titles[ident] = title

    def section_title(self, element: Element) -> str:
        if element.tag == "refentry":
            names = [_squash(n.text()) for n in _walk(element) if n.tag == "refname"]
            if names:
                return ", ".join(names)
        for tag in ("title", "term", "glossterm", "refname"):
            found = element.find(tag)
            if found is not None:
                return _squash(self.inline(found, code=True))
        info = element.find("info") or element.find("refmeta")
        if info is not None:
            found = info.find("title") or info.find("refentrytitle")
            if found is not None:
                return _squash(found.text())
        return ""

    # --- blocks -------------------------------------------------------------------------

    def blocks(self, element: Element, level: int, depth: int) -> list[str]:
        """Blocks for ``element``'s children; inline runs become paragraphs."""
        if depth > _MAX_DEPTH:
            text = _squash(element.text())
            return [text] if text else []
        out: list[str] = []
        run: list[str] = []
        for child in element.children:
            if isinstance(child, str):
                # Text outside the top element is DTD residue ("%allfiles;"), not content.
                if element.tag != "#document":
                    run.append(child)
            elif child.tag in _DROP or child.tag == "title":
                continue
            elif child.tag in _BLOCKS:
                _flush(run, out)
                out.extend(self.block(child, level, depth + 1))
            else:
                run.append(self.inline(child))
        _flush(run, out)
        return out

    def block(self, element: Element, level: int, depth: int) -> list[str]:
        tag = element.tag
        if tag in _SECTIONS:
            return self.section(element, level + 1, depth)
        if tag in _VERBATIM:
            return [self.verbatim(element)]
        if tag in _ADMONITIONS:
            label = _ADMONITIONS[tag]
            title = element.find("title")
            if title is not None:
                label = f"{label}: {_squash(self.inline(title))}"
            return labelled(label, self.blocks(element, level, depth))
        if tag in {"itemizedlist", "orderedlist", "procedure", "substeps", "calloutlist"}:
            return self.listing(element, level, depth)
        if tag in {"variablelist", "glosslist"}:
            return self.titled(element, self.definitions(element, level, depth))
        if tag in {"varlistentry", "glossentry"}:
            return self.definitions(element, level, depth, entries=[element])
        if tag == "simplelist":
            members = [_squash(self.inline(m)) for m in element.elements() if m.tag == "member"]
            if element.attrs.get("type") == "inline":
                return [", ".join(members)]
            return ["\n".join(f"- {m}" for m in members if m)]
        if tag in {"table", "informaltable", "tgroup", "thead", "tbody", "row", "tr"}:
            return self.titled(element, [self.table(element, depth)])
        if tag == "formalpara":
            title = element.find("title")
            inner = self.blocks(element, level, depth)
            if title is not None:
                return labelled(_squash(self.inline(title)), inner)
            return inner
        if tag == "cmdsynopsis":
            lines = (_squash(line) for line in self.synopsis(element).split(_BREAK))
            return [fence("\n".join(line for line in lines if line))]
        if tag in {"biblioentry", "bibliomixed", "biblioset"}:
            parts = [
                _squash(self.inline(c) if isinstance(c, Element) else c) for c in element.children
            ]
            return [". ".join(p for p in parts if p)]
        if tag == "refnamediv":
            names = ", ".join(_squash(n.text()) for n in element.elements() if n.tag == "refname")
            purpose = element.find("refpurpose")
            text = f"{names} — {_squash(self.inline(purpose))}" if purpose is not None else names
            return [text] if text else []
        if tag in _CONTAINERS or tag in {"listitem", "step", "para", "simpara"}:
            return self.titled(element, self.blocks(element, level, depth))
        return self.blocks(element, level, depth)

    def titled(self, element: Element, blocks: list[str]) -> list[str]:
        title = element.find("title")
        if title is None:
            return blocks
        text = _squash(self.inline(title))
        return [f"**{text}**", *blocks] if text else blocks

    def section(self, element: Element, level: int, depth: int) -> list[str]:
        title = self.section_title(element)
        if not title and element.tag == "refsynopsisdiv":
            title = "Synopsis"
        heading = [f"{'#' * min(level, 6)} {title}"] if title else []
        return [*heading, *self.blocks(element, level if title else level - 1, depth)]

    def verbatim(self, element: Element) -> str:
        code = textwrap.dedent(self.inline(element, code=True, verbatim=True).strip("\n")).rstrip()
        language = normalize_language(element.attrs.get("language"))
        if not language:
            first = next((line for line in code.split("\n") if line.strip()), "")
            if element.tag == "screen":
                language = "console" if first.lstrip().startswith("$ ") else "text"
            elif element.tag == "literallayout":
                language = "text"
            elif _SQL_START.match(first):
                language = "sql"
        return fence(code, language)

    def listing(self, element: Element, level: int, depth: int) -> list[str]:
        ordered = element.tag in {"orderedlist", "procedure", "substeps"}
        items: list[str] = []
        for child in element.elements():
            if child.tag not in {"listitem", "step", "callout"}:
                continue
            marker = f"{len(items) + 1}. " if ordered else "- "
            items.append(list_item(marker, self.blocks(child, level, depth + 1)))
        return self.titled(element, ["\n".join(items)])

    def definitions(
        self, element: Element, level: int, depth: int, entries: list[Element] | None = None
    ) -> list[str]:
        out: list[str] = []
        for entry in entries or element.elements():
            if entry.tag not in {"varlistentry", "glossentry"}:
                if entry.tag not in _DROP and entry.tag != "title":
                    out.extend(self.block(entry, level, depth + 1))
                continue
            terms = [
                _squash(self._children(t, False, False, depth))
                for t in entry.elements()
                if t.tag in {"term", "glossterm"}
            ]
            if terms:
                out.append(", ".join(t for t in terms if t))
            for part in entry.elements():
                if part.tag in {"listitem", "glossdef"}:
                    out.extend(self.blocks(part, level, depth + 1))
                elif part.tag in {"glosssee", "glossseealso"}:
                    target = part.attrs.get("otherterm", "")
                    see = _squash(self.inline(part)) or self.titles.get(target, target)
                    out.append(f"See {see}.")
        return out

    def table(self, element: Element, depth: int) -> str:
        rows: list[list[str]] = []
        for row in _walk(element):
            if row.tag not in {"row", "tr"}:
                continue
            cells = [
                _squash(" ".join(self.blocks(cell, 0, depth + 1)))
                for cell in row.elements()
                if cell.tag in {"entry", "entrytbl", "td", "th"}
            ]
            rows.append(cells)
        return table_rows(rows)

    # --- inline -------------------------------------------------------------------------

    def inline(
        self, element: Element, code: bool = False, verbatim: bool = False, depth: int = 0
    ) -> str:
        """Inline Markdown for ``element``; inside code everything is plain text."""
        tag = element.tag
        if depth > _MAX_DEPTH:
            return element.text()
        if tag in _DROP or tag == "footnoteref":
            return ""
        if tag == "xref":
            target = element.attrs.get("linkend", "")
            endterm = element.attrs.get("endterm", "")
            return self.titles.get(endterm) or self.titles.get(target) or target
        if tag in {"sbr", "br"}:
            return "\n"
        if tag == "optional":
            return f"[ {self._children(element, code, verbatim, depth).strip()} ]"
        text = self._children(element, code or tag in _CODE, verbatim, depth)
        if tag in {"ulink", "link", "olink"}:
            text = text.strip()
            if text == "§":
                return ""
            return text or element.attrs.get("url") or element.attrs.get("linkend", "")
        if code or verbatim:
            return text
        if tag == "returnvalue":
            return f"→ {inline_code(text)}"
        if tag in _CODE:
            return inline_code(text)
        if tag in _EMPHASIS:
            role = element.attrs.get("role", "")
            marker = "**" if role in {"bold", "strong"} else "*"
            inner = text.strip()
            return f"{marker}{inner}{marker}" if inner else ""
        if tag == "quote":
            return f"“{text.strip()}”"
        if tag == "footnote":
            inner = _squash(text)
            return f" ({inner})" if inner else ""
        if tag in {"keycombo"}:
            return "+".join(_squash(self.inline(k)) for k in element.elements())
        if tag in _BLOCKS:
            return f" {text} "
        return text

    def _children(self, element: Element, code: bool, verbatim: bool, depth: int) -> str:
        parts: list[str] = []
        for child in element.children:
            if isinstance(child, str):
                parts.append(child)
            else:
                parts.append(self.inline(child, code, verbatim, depth + 1))
        return "".join(parts)

    def synopsis(self, element: Element) -> str:
        """A ``cmdsynopsis`` as one command line: ``pg_dump [option...] [dbname]``."""
        parts: list[str] = []
        for child in element.children:
            if isinstance(child, str):
                parts.append(child)
            elif child.tag in {"arg", "group"}:
                parts.append(self._argument(child))
            elif child.tag == "sbr":
                parts.append(_BREAK)
            else:
                parts.append(self.inline(child, code=True))
        return "".join(parts)

    def _argument(self, element: Element) -> str:
        if element.tag == "group":
            choices = [self._argument_body(c) for c in element.elements() if c.tag == "arg"]
            inner = " | ".join(c for c in choices if c)
        else:
            inner = self._argument_body(element)
        choice = element.attrs.get("choice", "opt")
        if element.attrs.get("rep") == "repeat":
            inner += "..."
        if choice == "plain":
            return inner
        return f"{{ {inner} }}" if choice == "req" else f"[ {inner} ]"

    def _argument_body(self, element: Element) -> str:
        parts: list[str] = []
        for child in element.children:
            if isinstance(child, str):
                parts.append(child)
            elif child.tag in {"arg", "group"}:
                parts.append(self._argument(child))
            else:
                parts.append(self.inline(child, code=True))
        return _squash("".join(parts))


def _flush(run: list[str], out: list[str]) -> None:
    if not run:
        return
    text = _squash("".join(run))
    run.clear()
    if text:
        out.append(text)
