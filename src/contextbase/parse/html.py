"""HTML → Markdown with selectolax (lexbor).

Keeps the page's main content only, drops navigation and chrome, and writes
headings, fenced code (with the language the page declares), lists, tables
and Sphinx API entries (``<dl class="function">``) as Markdown. Works on full
pages and on fragments such as DevDocs dumps.
"""

from __future__ import annotations

import re

from selectolax.lexbor import LexborHTMLParser, LexborNode

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
from contextbase.parse.text import title_from_path

_DROP = (
    "script, style, noscript, svg, iframe, form, template, button, nav, footer, aside, img, "
    "picture, video, audio, canvas, object, embed, link, meta, input, select, textarea, "
    "a.headerlink, .headerlink, .sphinxsidebar, .sidebar, .breadcrumb, .breadcrumbs, "
    ".related, .viewcode-link, .copybutton, .linenos, .lineno, [role=navigation], "
    "[aria-label=breadcrumb], .toc, #toc, .edit-this-page, .skip-link, a.hash-link, a.anchor, "
    ".anchorjs-link, .anchor-link"
)
_MAIN = (
    "main", "article", "[role=main]", "#main-content", "._content", "#content", ".content",
    ".body", ".document", ".markdown-body", ".rst-content", "#main",
)  # fmt: skip
_SEMANTIC = {"main", "article", "[role=main]"}
_BLOCK = {
    "p", "div", "section", "article", "main", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "ul",
    "ol", "dl", "table", "blockquote", "hr", "figure", "figcaption", "details", "summary",
    "center", "address", "fieldset", "body", "html", "header", "li", "dt", "dd", "tr", "td",
    "th", "tbody", "thead", "tfoot", "caption", "hgroup", "menu", "dialog", "search",
}  # fmt: skip
_CODE_INLINE = {"code", "kbd", "samp", "tt"}
_STRONG = {"strong", "b"}
_EMPHASIS = {"em", "i", "cite", "dfn", "var"}
_API_CLASSES = {
    "function", "method", "class", "exception", "attribute", "data", "classmethod",
    "staticmethod", "describe", "cmdoption", "option", "envvar", "opcode", "pdbcommand",
    "decorator", "property", "macro", "type", "member", "var", "struct", "enum", "enumerator",
    "union", "object", "module",
}  # fmt: skip
_SIG_PREFIX = re.compile(
    r"^(class|exception|classmethod|staticmethod|abstractmethod|coroutine|async|await|"
    r"awaitable|property|final|virtual|static|enum|struct|union)\s+"
)
_LANG_CLASS = re.compile(
    r"\b(?:language|lang|highlight)-([\w+#.-]+)|\bbrush:\s*([\w+#-]+)|\bsourceCode\s+([\w+#-]+)"
)
_BR = "\ue002"
_MAX_DEPTH = 120


def parse_html(text: str, path: str) -> ParsedDocument:
    """Convert an HTML page or fragment to a :class:`ParsedDocument`."""
    tree = LexborHTMLParser(text)
    page_title = ""
    title_node = tree.css_first("title")
    if title_node is not None:
        page_title = " ".join(title_node.text().split())
    for header in tree.css("header"):
        if header.css_first("h1") is None:
            header.decompose()
    for node in tree.css(_DROP):
        node.decompose()
    root = _main_content(tree)
    converter = _Converter()
    markdown = clean_markdown(join_blocks(converter.children(root, 0))) if root else ""
    title = converter.first_h1 or page_title or converter.first_heading or title_from_path(path)
    return ParsedDocument(title=title, markdown=markdown, format="html", metadata={})


def _main_content(tree: LexborHTMLParser) -> LexborNode | None:
    body = tree.body or tree.root
    total = len(body.text(strip=True)) if body is not None else 0
    for selector in _MAIN:
        node = tree.css_first(selector)
        if node is None:
            continue
        size = len(node.text(strip=True))
        # Semantic containers are trusted; a mere class name must hold most of the page,
        # so a "content" box inside a fragment does not hide the rest of it.
        if size >= 50 and (selector in _SEMANTIC or size >= 0.3 * total):
            return node
    return body


def _classes(node: LexborNode) -> list[str]:
    return (node.attributes.get("class") or "").split()


def _squash(text: str) -> str:
    return " ".join(text.split())


class _Converter:
    def __init__(self) -> None:
        self.level = 0
        self.first_h1 = ""
        self.first_heading = ""

    # --- blocks -------------------------------------------------------------------------

    def children(self, node: LexborNode, depth: int) -> list[str]:
        """Blocks of ``node``'s children: runs of inline content become paragraphs."""
        if depth > _MAX_DEPTH:
            text = _squash(node.text())
            return [text] if text else []
        blocks: list[str] = []
        inline: list[str] = []
        child = node.child
        while child is not None:
            tag = child.tag
            if tag == "-text":
                inline.append(child.text_content or "")
            elif tag in _BLOCK:
                _flush(inline, blocks)
                blocks.extend(self.block(child, depth + 1))
            elif tag is not None and not tag.startswith("-"):
                inline.append(self.inline(child))
            child = child.next
        _flush(inline, blocks)
        return blocks

    def block(self, node: LexborNode, depth: int) -> list[str]:
        tag = node.tag
        if tag in {"h1", "h2", "h3", "h4", "h5", "h6"}:
            return self.heading(node, int(tag[1]))
        if tag == "pre":
            return [self.pre(node)]
        if tag in {"ul", "ol", "menu"}:
            return [self.list(node, depth)]
        if tag == "dl":
            return self.definitions(node, depth)
        if tag == "table":
            return self.table(node, depth)
        if tag == "hr":
            return []
        if tag == "details":
            return self.children(node, depth)
        if tag == "summary":
            text = self.inline(node).strip()
            return [f"**{text}**"] if text else []
        if tag == "div" and "admonition" in _classes(node):
            return self.admonition(node, depth)
        return self.children(node, depth)

    def heading(self, node: LexborNode, level: int) -> list[str]:
        text = _squash(self.inline(node)).replace("¶", "").strip()
        if not text:
            return []
        self.level = level
        plain = _squash(re.sub(r"`+|\*\*", "", text))
        if level == 1 and not self.first_h1:
            self.first_h1 = plain
        self.first_heading = self.first_heading or plain
        return [f"{'#' * level} {text}"]

    def pre(self, node: LexborNode) -> str:
        return fence(node.text(deep=True).rstrip(), _language(node))

    def list(self, node: LexborNode, depth: int) -> str:
        ordered = node.tag == "ol"
        number = int(node.attributes.get("start") or 1) if ordered else 0
        items: list[str] = []
        for child in node.iter():
            if child.tag != "li":
                continue
            marker = f"{number}. " if ordered else "- "
            number += 1
            items.append(list_item(marker, self.children(child, depth + 1)))
        return "\n".join(items)

    def definitions(self, node: LexborNode, depth: int) -> list[str]:
        api = bool(set(_classes(node)) & _API_CLASSES)
        level = min(self.level + 1, 6)
        blocks: list[str] = []
        for child in node.iter():
            if child.tag == "dt":
                if api or "sig" in _classes(child):
                    blocks.append(_signature_heading(child, level))
                else:
                    text = _squash(self.inline(child))
                    if text:
                        blocks.append(text)
            elif child.tag == "dd":
                saved = self.level
                if api:
                    self.level = level
                blocks.extend(self.children(child, depth + 1))
                self.level = saved
        return blocks

    def table(self, node: LexborNode, depth: int) -> list[str]:
        rows: list[list[str]] = []
        caption = node.css_first("caption")
        for row in node.css("tr"):
            cells = [
                _squash(" ".join(self.children(cell, depth + 1)))
                for cell in row.iter()
                if cell.tag in {"td", "th"}
            ]
            rows.append(cells)
        blocks = [f"**{_squash(self.inline(caption))}**"] if caption is not None else []
        return [*blocks, table_rows(rows)]

    def admonition(self, node: LexborNode, depth: int) -> list[str]:
        label = "Note"
        title = node.css_first(".admonition-title")
        if title is not None:
            label = _squash(title.text()) or label
            title.decompose()
        return labelled(label, self.children(node, depth))

    # --- inline -------------------------------------------------------------------------

    def inline(self, node: LexborNode, depth: int = 0) -> str:
        tag = node.tag
        if depth > _MAX_DEPTH:
            return " ".join(node.text().split())
        if tag in _CODE_INLINE:
            return inline_code(node.text(deep=True))
        if tag == "br":
            return _BR
        if tag == "span" and "classifier" in _classes(node):
            return f" : {_squash(node.text()).lstrip(':').strip()}"
        parts: list[str] = []
        child = node.child
        while child is not None:
            child_tag = child.tag
            if child_tag == "-text":
                parts.append(child.text_content or "")
            elif child_tag is not None and not child_tag.startswith("-"):
                parts.append(self.inline(child, depth + 1))
            child = child.next
        text = "".join(parts)
        if tag in _STRONG or tag in _EMPHASIS:
            inner = text.strip()
            if not inner:
                return text
            marker = "**" if tag in _STRONG else "*"
            lead = " " if text[:1].isspace() else ""
            trail = " " if text[-1:].isspace() else ""
            return f"{lead}{marker}{inner}{marker}{trail}"
        return text


def _flush(inline: list[str], blocks: list[str]) -> None:
    if not inline:
        return
    text = "".join(inline)
    inline.clear()
    lines = [" ".join(part.split()) for part in text.split(_BR)]
    paragraph = "\n".join(line for line in lines if line)
    if paragraph:
        blocks.append(paragraph)


def _signature_heading(node: LexborNode, level: int) -> str:
    signature = _squash(node.text(deep=True)).replace("¶", "").strip()
    # Markup between "module." and "name" must not leave "module. name" behind.
    signature = re.sub(r"(?<=\w)\.\s+(?=[A-Za-z_])", ".", signature)
    prefix = ""
    match = _SIG_PREFIX.match(signature)
    if match:
        prefix = match.group(1) + " "
        signature = signature[match.end() :]
    # Sphinx ids are fully qualified ("asyncio.Queue.get") where the text says "get()".
    ident = node.attributes.get("id") or ""
    name = re.split(r"[(\s\[]", signature, maxsplit=1)[0]
    if name and "." in ident and ident != name and ident.endswith("." + name):
        signature = ident[: -len(name)] + signature
    return f"{'#' * level} {prefix}{inline_code(signature)}"


def _language(pre: LexborNode) -> str:
    candidates = [pre]
    code = pre.css_first("code")
    if code is not None:
        candidates.append(code)
    parent = pre.parent
    for _ in range(3):
        if parent is None:
            break
        candidates.append(parent)
        parent = parent.parent
    for node in candidates:
        attrs = node.attributes
        declared = attrs.get("data-language") or attrs.get("data-lang")
        if declared:
            return normalize_language(declared)
        match = _LANG_CLASS.search(attrs.get("class") or "")
        if match:
            return normalize_language(next(g for g in match.groups() if g))
    return ""
