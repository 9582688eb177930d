"""A forgiving SGML/XML reader for DocBook fragments.

DocBook sources in the wild (the PostgreSQL manual among them) are fragments
meant to be pulled into a master file: they use entities declared elsewhere,
sometimes leave ``<para>``, ``<entry>`` or ``<row>`` unclosed, and quote
attributes loosely. An XML parser rejects them, so this reader tokenizes with
one regular expression and rebuilds the tree with SGML's implied-end rules.
"""

from __future__ import annotations

import html.entities
import re
from collections.abc import Mapping

_TOKEN = re.compile(
    r"<!--.*?(?:-->|\Z)"
    r"|<!\[CDATA\[(?P<cdata>.*?)(?:\]\]>|\Z)"
    r"|<!(?P<decl>[A-Za-z]+)(?P<declbody>(?:[^>\[\"']|\"[^\"]*\"|'[^']*'|\[.*?\]\s*)*)>"
    r"|<!\[[^\[<>]*\[|\]\]>"
    r"|<\?.*?(?:\?>|\Z)"
    r"|</(?P<close>[A-Za-z][\w.:-]*)?\s*>"
    r"|<(?P<open>[A-Za-z][\w.:-]*)(?P<attrs>(?:\s+[^\s=<>/]+(?:\s*=\s*(?:\"[^\"]*\"|'[^']*'|[^\s<>\"']+))?)*)\s*(?P<empty>/?)>",
    re.S,
)
_ATTR = re.compile(r"([^\s=<>/]+)(?:\s*=\s*(?:\"([^\"]*)\"|'([^']*)'|([^\s<>\"']+)))?")
_ENTITY = re.compile(r"&(#[0-9]+|#[xX][0-9a-fA-F]+|[A-Za-z][\w.-]*);")
_ENTITY_DECL = re.compile(r"<!ENTITY\s+([A-Za-z][\w.-]*)\s+(?:\"([^\"]*)\"|'([^']*)')\s*>")

# Elements that never have content, whether or not the source writes "/>".
EMPTY = {
    "xref", "colspec", "spanspec", "anchor", "footnoteref", "co", "coref", "imagedata",
    "sbr", "void", "varargs", "area", "audiodata", "videodata", "textdata", "beginpage",
    "br", "hr", "img",
}  # fmt: skip
# SGML implied ends: opening the key closes an open element of the same name when
# only elements of the given kinds sit between them.
_IMPLIED_END = {
    "para": set(),
    "simpara": set(),
    "term": set(),
    "member": set(),
    "entry": {"para", "simpara"},
    "row": {"entry", "para", "simpara"},
    "listitem": {"para", "simpara"},
    "step": {"para", "simpara"},
    "varlistentry": {"term", "listitem", "para", "simpara"},
    "glossentry": {"glossterm", "glossdef", "para", "simpara"},
}


class Element:
    """One element: a lower-case ``tag``, its ``attrs`` and mixed ``children``."""

    __slots__ = ("attrs", "children", "tag")

    def __init__(self, tag: str, attrs: dict[str, str] | None = None) -> None:
        self.tag = tag
        self.attrs = attrs or {}
        self.children: list[Element | str] = []

    def elements(self) -> list[Element]:
        """Child elements, without text."""
        return [c for c in self.children if isinstance(c, Element)]

    def find(self, tag: str) -> Element | None:
        """The first child element named ``tag``."""
        for child in self.children:
            if isinstance(child, Element) and child.tag == tag:
                return child
        return None

    def text(self) -> str:
        """All text below this element, unformatted."""
        parts: list[str] = []
        stack: list[Element | str] = [self]
        while stack:
            node = stack.pop()
            if isinstance(node, str):
                parts.append(node)
            else:
                stack.extend(reversed(node.children))
        return "".join(parts)


def parse_sgml(text: str, entities: Mapping[str, str] | None = None) -> Element:
    """Parse SGML or XML text into a tree under a ``#document`` element; never raises."""
    known = dict(entities or {})
    for match in _ENTITY_DECL.finditer(text):
        known[match.group(1)] = decode_entities(match.group(2) or match.group(3) or "", known)
    root = Element("#document")
    stack = [root]
    pos = 0
    for match in _TOKEN.finditer(text):
        if match.start() > pos:
            _append_text(stack[-1], decode_entities(text[pos : match.start()], known))
        pos = match.end()
        if match.group("cdata") is not None:
            _append_text(stack[-1], match.group("cdata"))
        elif match.group("open"):
            tag = match.group("open").lower()
            _close_implied(stack, tag)
            element = Element(tag, _attributes(match.group("attrs"), known))
            stack[-1].children.append(element)
            if not match.group("empty") and tag not in EMPTY:
                stack.append(element)
        elif match.group(0).startswith("</"):
            _close(stack, (match.group("close") or "").lower())
    if pos < len(text):
        _append_text(stack[-1], decode_entities(text[pos:], known))
    return root


def decode_entities(text: str, known: Mapping[str, str]) -> str:
    """Replace character and named entities; unknown names are dropped, never left raw."""
    if "&" not in text:
        return text

    def replace(match: re.Match[str]) -> str:
        name = match.group(1)
        if name.startswith("#"):
            try:
                code = int(name[2:], 16) if name[1] in "xX" else int(name[1:])
                return chr(code)
            except (ValueError, OverflowError):
                return ""
        if name in known:
            return known[name]
        return html.entities.html5.get(name + ";", "")

    return _ENTITY.sub(replace, text)


def _attributes(raw: str, known: Mapping[str, str]) -> dict[str, str]:
    attrs: dict[str, str] = {}
    for match in _ATTR.finditer(raw or ""):
        value = match.group(2) or match.group(3) or match.group(4) or ""
        attrs[match.group(1).lower()] = decode_entities(value, known)
    return attrs


def _append_text(element: Element, text: str) -> None:
    if not text:
        return
    if element.children and isinstance(element.children[-1], str):
        element.children[-1] += text
    else:
        element.children.append(text)


def _close_implied(stack: list[Element], tag: str) -> None:
    between = _IMPLIED_END.get(tag)
    if between is None:
        return
    for depth in range(len(stack) - 1, 0, -1):
        current = stack[depth].tag
        if current == tag:
            del stack[depth:]
            return
        if current not in between:
            return


def _close(stack: list[Element], tag: str) -> None:
    if not tag:  # SGML "</>" closes the innermost element
        if len(stack) > 1:
            stack.pop()
        return
    for depth in range(len(stack) - 1, 0, -1):
        if stack[depth].tag == tag:
            del stack[depth:]
            return
