"""reStructuredText (including Sphinx) → Markdown.

Hand-written because docutils neither knows Sphinx's roles and directives nor
forgives them. The converter walks the document block by block on
indentation: section titles become ``#`` headings (levels in order of first
appearance of each adornment style), API directives become headings carrying
their full signature, admonitions and version notes become labelled
paragraphs, and every literal block becomes fenced code with a language.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable

from contextbase.parse.base import ParsedDocument
from contextbase.parse.clean import (
    clean_markdown,
    fence,
    join_blocks,
    labelled,
    list_item,
    normalize_language,
    table_rows,
)
from contextbase.parse.rst_blocks import (
    dedent,
    grid_table_rows,
    indent_of,
    indented_end,
    simple_table_end,
    simple_table_rows,
)
from contextbase.parse.rst_directives import Context, Directives, signature_code
from contextbase.parse.rst_inline import plain_text, rst_inline
from contextbase.parse.text import title_from_path

_ADORNMENT = re.compile(r"([!-/:-@\[-`{-~])\1{2,}\s*")
_EXPLICIT = re.compile(r"\.\.(?:\s|$)")
_DIRECTIVE = re.compile(r"\.\.\s+([A-Za-z][\w:+.-]*?)::(?:\s+(.*))?$")
_TARGET = re.compile(r"\.\.\s+_([^:`]+|`[^`]+`):\s*$")
_SUBST_DEF = re.compile(r"^\.\.\s+\|([^|]+)\|\s+([\w:-]+)::\s*(.*)$", re.M)
_BULLET = re.compile(r"([-*+•‣⁃])(\s+|$)")
_ENUM = re.compile(r"(\d+|#|[A-Za-z]|[ivxlcdm]+|[IVXLCDM]+)[.)]\s+|\((\d+|#|[A-Za-z])\)\s+")
_FIELD = re.compile(r":((?:[^:`\\]|\\.)+):(?:\s+(.*)|$)")
_SIMPLE_BORDER = re.compile(r"=+(?:\s+=+)+\s*$")
_GRID_BORDER = re.compile(r"\+[-=]+(?:\+[-=]*)*\+\s*$")
_DOCTEST = re.compile(r">>>(?:\s|$)")

_MAX_DEPTH = 60


def looks_like_rst(head: str) -> bool:
    """True when text carries directives, roles or RST section adornment."""
    if re.search(r"^\.\. [\w:-]+::|:[a-z]+:`[^`]+`|^``\w", head, re.M):
        return True
    return bool(re.search(r"^(\S[^\n]*)\n([=~^\"'`#*+-])\2{3,}\s*$", head, re.M))


def parse_rst(text: str, path: str) -> ParsedDocument:
    """Convert reStructuredText (Sphinx flavoured) to a :class:`ParsedDocument`."""
    converter = RstConverter(text)
    markdown = clean_markdown(converter.convert())
    metadata: dict[str, object] = {}
    if converter.modules:
        metadata["module"] = converter.modules[0]
        if len(converter.modules) > 1:
            metadata["modules"] = converter.modules
    if converter.synopsis:
        metadata["synopsis"] = converter.synopsis
    return ParsedDocument(
        title=converter.title or title_from_path(path),
        markdown=markdown,
        format="rst",
        metadata=metadata,
    )


_Handler = Callable[[list[str], int, Context], tuple[list[str], int]]


class RstConverter:
    """Converts one document; holds what later blocks depend on (levels, module, labels)."""

    def __init__(self, text: str) -> None:
        text = text.replace("\r\n", "\n").replace("\r", "\n").lstrip("\ufeff").expandtabs(8)
        self.lines = text.split("\n")
        self.substitutions = {
            m.group(1): m.group(3).strip()
            for m in _SUBST_DEF.finditer(text)
            if m.group(2) in {"replace", "unicode"}
        }
        self.labels = _section_labels(self.lines)
        self.styles: list[tuple[str, bool]] = []
        self.level = 0
        self.title = ""
        self.modules: list[str] = []
        self.module = ""
        self.synopsis = ""
        self.highlight = ""
        self.depth = 0
        self.directives = Directives(self)

    def convert(self) -> str:
        return join_blocks(self.body(self.lines, Context()))

    def inline(self, text: str) -> str:
        return rst_inline(text, self.substitutions, self.labels)

    # --- block structure ----------------------------------------------------------------

    def body(self, lines: list[str], ctx: Context) -> list[str]:
        # Absurd nesting (thousands of indentation levels) is flattened, not recursed into.
        if self.depth >= _MAX_DEPTH:
            text = " ".join(line.strip() for line in lines if line.strip())
            return [self.inline(text)] if text else []
        self.depth += 1
        try:
            return self._body(lines, ctx)
        finally:
            self.depth -= 1

    def _body(self, lines: list[str], ctx: Context) -> list[str]:
        blocks: list[str] = []
        i = 0
        n = len(lines)
        while i < n:
            line = lines[i]
            if not line.strip():
                i += 1
                continue
            if indent_of(line) > 0:
                end = indented_end(lines, i)
                blocks.extend(self.body(dedent(lines[i:end]), ctx))
                i = end
                continue
            nxt = lines[i + 1] if i + 1 < n else ""
            if _ADORNMENT.fullmatch(line):
                after = lines[i + 2] if i + 2 < n else ""
                if nxt.strip() and _ADORNMENT.fullmatch(after) and after[0] == line[0]:
                    blocks.append(self.heading(line[0], True, nxt.strip()))
                    i += 3
                else:
                    i += 1  # a transition
                continue
            if _ADORNMENT.fullmatch(nxt) and not _SIMPLE_BORDER.match(line):
                blocks.append(self.heading(nxt[0], False, line.strip()))
                i += 2
                continue
            if _EXPLICIT.match(line):
                end = indented_end(lines, i + 1)
                blocks.extend(self.explicit(lines[i:end], ctx))
                i = end
                continue
            handler = self._block_handler(line, nxt)
            if handler is not None:
                produced, i = handler(lines, i, ctx)
                blocks.extend(produced)
                continue
            produced, i = self.paragraph(lines, i, ctx)
            blocks.extend(produced)
        return blocks

    def _block_handler(self, line: str, nxt: str) -> _Handler | None:
        if _BULLET.match(line):
            return self.bullet_list
        if _ENUM.match(line) and (not nxt.strip() or indent_of(nxt) > 0 or _ENUM.match(nxt)):
            return self.enum_list
        if _FIELD.match(line) and not line.startswith(":`"):
            return self.field_list
        if line.startswith("| ") or line == "|":
            return self.line_block
        if _GRID_BORDER.match(line):
            return self.grid_table
        if _SIMPLE_BORDER.match(line):
            return self.simple_table
        if _DOCTEST.match(line):
            return self.doctest
        return None

    def heading(self, char: str, overline: bool, title: str) -> str:
        style = (char, overline)
        if style not in self.styles:
            self.styles.append(style)
        self.level = min(self.styles.index(style) + 1, 6)
        text = " ".join(self.inline(title).split())
        if not self.title:
            self.title = plain_text(text)
        return f"{'#' * self.level} {text}"

    def paragraph(self, lines: list[str], i: int, ctx: Context) -> tuple[list[str], int]:
        start = i
        n = len(lines)
        while i < n and lines[i].strip() and indent_of(lines[i]) == 0:
            if i > start and _ADORNMENT.fullmatch(lines[i]):
                break
            i += 1
        para = lines[start:i]
        if i < n and lines[i].strip() and indent_of(lines[i]) > 0 and len(para) == 1:
            return self.definition(lines, start, ctx)
        text = "\n".join(para)
        blocks: list[str] = []
        literal = text.endswith("::")
        if literal:
            text = (
                text[:-2].rstrip() if text[:-2].endswith((" ", "\n")) or text == "::" else text[:-1]
            )
        if text.strip():
            blocks.append(self.inline(text))
        if literal:
            j = i
            while j < n and not lines[j].strip():
                j += 1
            if j < n and indent_of(lines[j]) > 0:
                end = indented_end(lines, j)
                blocks.append(self.code(dedent(lines[j:end]), self.highlight))
                i = end
        return blocks, i

    def definition(self, lines: list[str], i: int, ctx: Context) -> tuple[list[str], int]:
        term = self.inline(lines[i].strip())
        end = indented_end(lines, i + 1)
        blocks = self.body(dedent(lines[i + 1 : end]), ctx)
        return [f"**{term}**" if "`" not in term and "*" not in term else term, *blocks], end

    def code(self, lines: list[str], language: str = "") -> str:
        code = "\n".join(lines).strip("\n")
        language = normalize_language(language)
        if not language:
            language = _guess_language(code)
        return fence(code, language)

    def bullet_list(self, lines: list[str], i: int, ctx: Context) -> tuple[list[str], int]:
        items: list[str] = []
        while i < len(lines) and (match := _BULLET.match(lines[i])):
            width = match.end() if lines[i][match.end() :].strip() else 2
            end = indented_end(lines, i + 1, width)
            item = [" " * width + lines[i][width:], *lines[i + 1 : end]]
            items.append(list_item("- ", self.body(dedent(item), ctx)))
            i = end
            while i < len(lines) and not lines[i].strip():
                i += 1
        return ["\n".join(items)], i

    def enum_list(self, lines: list[str], i: int, ctx: Context) -> tuple[list[str], int]:
        items: list[str] = []
        while i < len(lines) and (match := _ENUM.match(lines[i])):
            width = match.end()
            end = indented_end(lines, i + 1, width)
            item = [" " * width + lines[i][width:], *lines[i + 1 : end]]
            items.append(list_item(f"{len(items) + 1}. ", self.body(dedent(item), ctx)))
            i = end
            while i < len(lines) and not lines[i].strip():
                i += 1
        return ["\n".join(items)], i

    def field_list(self, lines: list[str], i: int, ctx: Context) -> tuple[list[str], int]:
        blocks: list[str] = []
        while i < len(lines) and (match := _FIELD.match(lines[i])):
            end = indented_end(lines, i + 1)
            rest = [match.group(2) or "", *dedent(lines[i + 1 : end])]
            name = match.group(1).strip()
            content = self.body(rest, ctx)
            if name.lower() not in {"orphan", "tocdepth", "nosearch", "nocomments"}:
                blocks.extend(labelled(plain_text(self.inline(name)).capitalize(), content))
            i = end
            while i < len(lines) and not lines[i].strip():
                i += 1
        return blocks, i

    def line_block(self, lines: list[str], i: int, ctx: Context) -> tuple[list[str], int]:
        out: list[str] = []
        while i < len(lines) and lines[i].strip():
            out.append(self.inline(lines[i].lstrip("|").strip()))
            i += 1
        return ["\n".join(out)], i

    def grid_table(self, lines: list[str], i: int, ctx: Context) -> tuple[list[str], int]:
        end = i
        while end < len(lines) and lines[end].strip():
            end += 1
        rows = grid_table_rows(lines[i:end])
        return [table_rows([[self.cell(c) for c in row] for row in rows])], end

    def simple_table(self, lines: list[str], i: int, ctx: Context) -> tuple[list[str], int]:
        end = simple_table_end(lines, i)
        rows = simple_table_rows(lines[i:end])
        return [table_rows([[self.cell(c) for c in row] for row in rows])], end

    def cell(self, text: str) -> str:
        """A table cell; a directive inside one (``.. data:: MAX_PREC``) keeps its argument."""
        directive = _DIRECTIVE.match(text)
        if directive:
            return signature_code(directive.group(2) or "")
        return self.inline(text)

    def doctest(self, lines: list[str], i: int, ctx: Context) -> tuple[list[str], int]:
        start = i
        while i < len(lines) and lines[i].strip():
            i += 1
        return [fence("\n".join(lines[start:i]), "pycon")], i

    # --- explicit markup ----------------------------------------------------------------

    def explicit(self, block: list[str], ctx: Context) -> list[str]:
        first = block[0]
        directive = _DIRECTIVE.match(first)
        if directive:
            return self.directives.render(
                directive.group(1), directive.group(2) or "", block[1:], ctx
            )
        footnote = re.match(r"\.\.\s+\[([^\]]+)\]\s*(.*)$", first)
        if footnote:
            rest = [footnote.group(2), *dedent(block[1:])]
            return labelled(f"[{footnote.group(1)}]", self.body(rest, ctx))
        return []  # comments, hyperlink targets and substitution definitions


def _section_labels(lines: list[str]) -> dict[str, str]:
    """``.. _label:`` targets placed just before a section title, mapped to that title."""
    labels: dict[str, str] = {}
    pending: list[str] = []
    for i, line in enumerate(lines):
        target = _TARGET.match(line)
        if target:
            pending.append(target.group(1).lower())
            continue
        if not line.strip() or not pending:
            continue
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        title = ""
        if _ADORNMENT.fullmatch(line) and i + 2 < len(lines):
            title = nxt.strip()
        elif _ADORNMENT.fullmatch(nxt):
            title = line.strip()
        if title:
            shown = plain_text(rst_inline(title))
            labels.update((label, shown) for label in pending)
        pending = []
    return labels


def _guess_language(code: str) -> str:
    stripped = code.lstrip()
    if stripped.startswith(">>>"):
        return "pycon"
    if stripped.startswith("$ "):
        return "console"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(code, "<rst>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, OverflowError, RecursionError, MemoryError):
        return "text"
    return "python"
