"""reStructuredText (including Sphinx) → Markdown.

Hand-written because docutils neither knows Sphinx's roles and directives nor
forgives them. The converter walks the document block by block on
indentation: section titles become ``#`` headings (levels in order of first
appearance of each adornment style), API directives become headings carrying
their full signature, admonitions and version notes become labelled
paragraphs, and every literal block becomes fenced code with a language.
"""

from __future__ import annotations

import csv
import re
import warnings
from dataclasses import dataclass

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
from contextbase.parse.rst_inline import plain_text, rst_inline
from contextbase.parse.rst_tables import grid_table_rows, simple_table_end, simple_table_rows
from contextbase.parse.text import title_from_path

_ADORNMENT = re.compile(r"([!-/:-@\[-`{-~])\1{2,}\s*")
_EXPLICIT = re.compile(r"\.\.(?:\s|$)")
_DIRECTIVE = re.compile(r"\.\.\s+([A-Za-z][\w:+.-]*?)::(?:\s+(.*))?$")
_TARGET = re.compile(r"\.\.\s+_([^:`]+|`[^`]+`):\s*$")
_SUBST_DEF = re.compile(r"^\.\.\s+\|([^|]+)\|\s+([\w:-]+)::\s*(.*)$", re.M)
_OPTION = re.compile(r"^:([\w.-]+(?:\s[\w.-]+)*):(?:\s+(.*))?$")
_BULLET = re.compile(r"([-*+•‣⁃])(\s+|$)")
_ENUM = re.compile(r"(\d+|#|[A-Za-z]|[ivxlcdm]+|[IVXLCDM]+)[.)]\s+|\((\d+|#|[A-Za-z])\)\s+")
_FIELD = re.compile(r":((?:[^:`\\]|\\.)+):(?:\s+(.*)|$)")
_SIMPLE_BORDER = re.compile(r"=+(?:\s+=+)+\s*$")
_GRID_BORDER = re.compile(r"\+[-=]+(?:\+[-=]*)*\+\s*$")
_DOCTEST = re.compile(r">>>(?:\s|$)")
_OPTION_LIST = re.compile(r"(?:--?[\w-]+|/\w)")

_OBJECT_DIRECTIVES = {
    "function", "method", "class", "attribute", "exception", "data", "decorator",
    "decoratormethod", "classmethod", "staticmethod", "coroutinefunction", "coroutinemethod",
    "awaitablefunction", "awaitablemethod", "abstractmethod", "property", "opcode", "cmdoption",
    "option", "describe", "object", "envvar", "pdbcommand", "2to3fixer", "macro", "type", "var",
    "member", "struct", "union", "enum", "enumerator", "confval", "setting", "directive", "role",
    "event", "fixture", "module-level", "concept", "namespace",
}  # fmt: skip
_MEMBER_DIRECTIVES = {
    "method", "attribute", "classmethod", "staticmethod", "coroutinemethod", "awaitablemethod",
    "abstractmethod", "decoratormethod", "property",
}  # fmt: skip
_PYTHON_OBJECTS = {
    "function", "class", "exception", "data", "decorator", "coroutinefunction",
    "awaitablefunction", *_MEMBER_DIRECTIVES,
}  # fmt: skip
_SIGNATURE_PREFIX = {
    "class": "class", "exception": "exception", "classmethod": "classmethod",
    "staticmethod": "staticmethod", "coroutinefunction": "coroutine",
    "coroutinemethod": "coroutine", "awaitablefunction": "awaitable",
    "awaitablemethod": "awaitable", "abstractmethod": "abstractmethod", "property": "property",
}  # fmt: skip
_ADMONITIONS = {
    "note": "Note", "warning": "Warning", "seealso": "See also", "tip": "Tip", "hint": "Hint",
    "important": "Important", "caution": "Caution", "danger": "Danger", "attention": "Attention",
    "error": "Error", "impl-detail": "CPython implementation detail", "todo": "To do",
}  # fmt: skip
_VERSION_NOTES = {
    "versionadded": "Added in version",
    "versionchanged": "Changed in version",
    "deprecated": "Deprecated since version",
    "versionremoved": "Removed in version",
}
_CONTENT_ONLY = {
    "only", "ifconfig", "container", "compound", "epigraph", "highlights", "pull-quote",
    "glossary", "hlist", "figure", "centered", "cssclass", "rst-class", "class-content",
    "tab", "tab-item", "tabs", "tab-set", "card", "grid", "grid-item-card",
}  # fmt: skip
_DROPPED = {
    "index", "toctree", "tabularcolumns", "testsetup", "testcleanup", "sectionauthor",
    "moduleauthor", "codeauthor", "contents", "include", "raw", "image", "meta", "default-role",
    "role", "title", "audit-event-table", "program", "target-notes", "sectnum", "header",
    "footer", "autosummary", "automodule", "autoclass", "autofunction", "highlightlang",
}  # fmt: skip
_MAX_DEPTH = 60
_CODE_DIRECTIVES = {"code-block": "", "sourcecode": "", "code": "", "testcode": "python"}


@dataclass(frozen=True)
class _Context:
    """Where a block sits: the heading level for API entries and the enclosing object."""

    object_level: int | None = None
    object_prefix: str = ""


def looks_like_rst(head: str) -> bool:
    """True when text carries directives, roles or RST section adornment."""
    if re.search(r"^\.\. [\w:-]+::|:[a-z]+:`[^`]+`|^``\w", head, re.M):
        return True
    return bool(re.search(r"^(\S[^\n]*)\n([=~^\"'`#*+-])\2{3,}\s*$", head, re.M))


def parse_rst(text: str, path: str) -> ParsedDocument:
    """Convert reStructuredText (Sphinx flavoured) to a :class:`ParsedDocument`."""
    converter = _Converter(text)
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


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _dedent(lines: list[str]) -> list[str]:
    widths = [_indent(line) for line in lines if line.strip()]
    cut = min(widths, default=0)
    return [line[cut:] if line.strip() else "" for line in lines]


def _indented_end(lines: list[str], start: int, min_indent: int = 1) -> int:
    """Index after the run of blank or at-least-``min_indent`` lines starting at ``start``."""
    i = start
    while i < len(lines) and (not lines[i].strip() or _indent(lines[i]) >= min_indent):
        i += 1
    while i > start and not lines[i - 1].strip():
        i -= 1
    return i


class _Converter:
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

    def convert(self) -> str:
        return join_blocks(self.body(self.lines, _Context()))

    def inline(self, text: str) -> str:
        return rst_inline(text, self.substitutions, self.labels)

    # --- block structure ----------------------------------------------------------------

    def body(self, lines: list[str], ctx: _Context) -> list[str]:
        # Absurd nesting (thousands of indentation levels) is flattened, not recursed into.
        if self.depth >= _MAX_DEPTH:
            text = " ".join(line.strip() for line in lines if line.strip())
            return [self.inline(text)] if text else []
        self.depth += 1
        try:
            return self._body(lines, ctx)
        finally:
            self.depth -= 1

    def _body(self, lines: list[str], ctx: _Context) -> list[str]:
        blocks: list[str] = []
        i = 0
        n = len(lines)
        while i < n:
            line = lines[i]
            if not line.strip():
                i += 1
                continue
            if _indent(line) > 0:
                end = _indented_end(lines, i)
                blocks.extend(self.body(_dedent(lines[i:end]), ctx))
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
                end = _indented_end(lines, i + 1)
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

    def _block_handler(self, line: str, nxt: str):  # type: ignore[no-untyped-def]
        if _BULLET.match(line):
            return self.bullet_list
        if _ENUM.match(line) and (not nxt.strip() or _indent(nxt) > 0 or _ENUM.match(nxt)):
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

    def paragraph(self, lines: list[str], i: int, ctx: _Context) -> tuple[list[str], int]:
        start = i
        n = len(lines)
        while i < n and lines[i].strip() and _indent(lines[i]) == 0:
            if i > start and _ADORNMENT.fullmatch(lines[i]):
                break
            i += 1
        para = lines[start:i]
        if i < n and lines[i].strip() and _indent(lines[i]) > 0 and len(para) == 1:
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
            if j < n and _indent(lines[j]) > 0:
                end = _indented_end(lines, j)
                blocks.append(self.code(_dedent(lines[j:end]), self.highlight))
                i = end
        return blocks, i

    def definition(self, lines: list[str], i: int, ctx: _Context) -> tuple[list[str], int]:
        term = self.inline(lines[i].strip())
        end = _indented_end(lines, i + 1)
        blocks = self.body(_dedent(lines[i + 1 : end]), ctx)
        return [f"**{term}**" if "`" not in term and "*" not in term else term, *blocks], end

    def code(self, lines: list[str], language: str = "") -> str:
        code = "\n".join(lines).strip("\n")
        language = normalize_language(language)
        if not language:
            language = _guess_language(code)
        return fence(code, language)

    def bullet_list(self, lines: list[str], i: int, ctx: _Context) -> tuple[list[str], int]:
        items: list[str] = []
        while i < len(lines) and (match := _BULLET.match(lines[i])):
            width = match.end() if lines[i][match.end() :].strip() else 2
            end = _indented_end(lines, i + 1, width)
            item = [" " * width + lines[i][width:], *lines[i + 1 : end]]
            items.append(list_item("- ", self.body(_dedent(item), ctx)))
            i = end
            while i < len(lines) and not lines[i].strip():
                i += 1
        return ["\n".join(items)], i

    def enum_list(self, lines: list[str], i: int, ctx: _Context) -> tuple[list[str], int]:
        items: list[str] = []
        while i < len(lines) and (match := _ENUM.match(lines[i])):
            width = match.end()
            end = _indented_end(lines, i + 1, width)
            item = [" " * width + lines[i][width:], *lines[i + 1 : end]]
            items.append(list_item(f"{len(items) + 1}. ", self.body(_dedent(item), ctx)))
            i = end
            while i < len(lines) and not lines[i].strip():
                i += 1
        return ["\n".join(items)], i

    def field_list(self, lines: list[str], i: int, ctx: _Context) -> tuple[list[str], int]:
        blocks: list[str] = []
        while i < len(lines) and (match := _FIELD.match(lines[i])):
            end = _indented_end(lines, i + 1)
            rest = [match.group(2) or "", *_dedent(lines[i + 1 : end])]
            name = match.group(1).strip()
            content = self.body(rest, ctx)
            if name.lower() not in {"orphan", "tocdepth", "nosearch", "nocomments"}:
                blocks.extend(labelled(plain_text(self.inline(name)).capitalize(), content))
            i = end
            while i < len(lines) and not lines[i].strip():
                i += 1
        return blocks, i

    def line_block(self, lines: list[str], i: int, ctx: _Context) -> tuple[list[str], int]:
        out: list[str] = []
        while i < len(lines) and lines[i].strip():
            out.append(self.inline(lines[i].lstrip("|").strip()))
            i += 1
        return ["\n".join(out)], i

    def grid_table(self, lines: list[str], i: int, ctx: _Context) -> tuple[list[str], int]:
        end = i
        while end < len(lines) and lines[end].strip():
            end += 1
        rows = grid_table_rows(lines[i:end])
        return [table_rows([[self.cell(c) for c in row] for row in rows])], end

    def simple_table(self, lines: list[str], i: int, ctx: _Context) -> tuple[list[str], int]:
        end = simple_table_end(lines, i)
        rows = simple_table_rows(lines[i:end])
        return [table_rows([[self.cell(c) for c in row] for row in rows])], end

    def cell(self, text: str) -> str:
        """A table cell; a directive inside one (``.. data:: MAX_PREC``) keeps its argument."""
        directive = _DIRECTIVE.match(text)
        if directive:
            return _code(directive.group(2) or "")
        return self.inline(text)

    def doctest(self, lines: list[str], i: int, ctx: _Context) -> tuple[list[str], int]:
        start = i
        while i < len(lines) and lines[i].strip():
            i += 1
        return [fence("\n".join(lines[start:i]), "pycon")], i

    # --- explicit markup ----------------------------------------------------------------

    def explicit(self, block: list[str], ctx: _Context) -> list[str]:
        first = block[0]
        directive = _DIRECTIVE.match(first)
        if directive:
            return self.directive(directive.group(1), directive.group(2) or "", block[1:], ctx)
        footnote = re.match(r"\.\.\s+\[([^\]]+)\]\s*(.*)$", first)
        if footnote:
            rest = [footnote.group(2), *_dedent(block[1:])]
            return labelled(f"[{footnote.group(1)}]", self.body(rest, ctx))
        return []  # comments, hyperlink targets and substitution definitions

    def directive(self, name: str, argument: str, rest: list[str], ctx: _Context) -> list[str]:
        args, options, content = _split_directive(argument, rest)
        kind = name.lower()
        local = kind.rsplit(":", 1)[-1]
        if local in _DROPPED:
            return []
        if kind in {"module", "py:module", "currentmodule", "py:currentmodule"}:
            return self._set_module(kind, args, options)
        if local == "highlight":
            self.highlight = args[0].strip() if args else ""
            return []
        if local in _OBJECT_DIRECTIVES or (
            ":" in kind and kind.split(":", 1)[0] in {"c", "cpp", "py", "js", "rst", "std"}
        ):
            return self.api_entry(local, args, options, content, ctx)
        if local in _VERSION_NOTES:
            return self.version_note(_VERSION_NOTES[local], args, content, ctx)
        if local == "deprecated-removed":
            words = " ".join(args).split(None, 2)
            label = f"Deprecated since version {words[0] if words else ''}"
            if len(words) > 1:
                label += f", will be removed in version {words[1]}"
            return labelled(
                label, self.body([words[2] if len(words) > 2 else "", "", *content], ctx)
            )
        if local in _ADMONITIONS:
            return labelled(_ADMONITIONS[local], self.body([*args, "", *content], ctx))
        if local == "admonition":
            title = self.inline(" ".join(args)) or "Note"
            return labelled(plain_text(title), self.body(content, ctx))
        if local == "availability":
            return [f"**Availability:** {self.inline(' '.join(args))}".rstrip()]
        if local == "audit-event":
            words = " ".join(args).split()
            event = words[0] if words else ""
            arguments = words[1] if len(words) > 1 else ""
            return [f"Raises an auditing event `{event}` with arguments `{arguments}`."]
        if local in _CODE_DIRECTIVES:
            language = " ".join(args).strip() or _CODE_DIRECTIVES[local] or self.highlight
            return [self.code(content, language or "python")]
        if local in {"doctest", "testoutput"}:
            return [fence("\n".join(content), "pycon" if local == "doctest" else "text")]
        if local == "literalinclude":
            target = " ".join(args).strip().lstrip("/")
            return [f"(code from {target})"] if target else []
        if local == "productionlist":
            grammar = "\n".join(line.strip() for line in [*args, *content] if line.strip())
            return [fence(grammar.replace("`", ""), "text")]
        if local in {"rubric", "topic", "sidebar", "table"}:
            title = self.inline(" ".join(args))
            return [f"**{title}**" if title else "", *self.body(content, ctx)]
        if local == "list-table":
            return [self.list_table(content)]
        if local == "csv-table":
            return [self.csv_table(options, content)]
        if local == "math":
            return [fence("\n".join([*args, *content]), "math")]
        if local in _CONTENT_ONLY:
            return self.body(content, ctx)
        return self.body(content, ctx)

    def _set_module(self, kind: str, args: list[str], options: dict[str, str]) -> list[str]:
        module = " ".join(args).strip()
        self.module = "" if module == "None" else module
        if kind.endswith(":module") or kind == "module":
            if module and module not in self.modules:
                self.modules.append(module)
            if options.get("synopsis") and not self.synopsis:
                self.synopsis = plain_text(self.inline(options["synopsis"]))
        return []

    def api_entry(
        self,
        kind: str,
        signatures: list[str],
        options: dict[str, str],
        content: list[str],
        ctx: _Context,
    ) -> list[str]:
        level = min(ctx.object_level or self.level + 1, 6)
        module = options.get("module", self.module)
        # Signatures escape "*" as "\*"; the reader wants the real characters.
        signatures = [
            re.sub(r"\\(.)", r"\1", sig).strip() for sig in _join_continuations(signatures)
        ]
        qualified = [self._qualify(kind, sig, module, ctx) for sig in signatures if sig]
        if not qualified:
            return self.body(content, ctx)
        prefix = _SIGNATURE_PREFIX.get(kind, "")
        first = qualified[0]
        if kind in {"decorator", "decoratormethod"} and not first.startswith("@"):
            first = "@" + first
        heading = f"{'#' * level} {prefix + ' ' if prefix else ''}{_code(first)}"
        blocks = [heading, *(_code(sig) for sig in qualified[1:])]
        name = re.split(r"[(\s\[]", qualified[0], maxsplit=1)[0]
        inner = _Context(object_level=min(level + 1, 6), object_prefix=name)
        blocks.extend(self.body(content, inner))
        return blocks

    def _qualify(self, kind: str, signature: str, module: str, ctx: _Context) -> str:
        if kind not in _PYTHON_OBJECTS:
            return signature
        name = re.split(r"[(\s\[]", signature, maxsplit=1)[0]
        if kind in _MEMBER_DIRECTIVES and ctx.object_prefix and "." not in name:
            return f"{ctx.object_prefix}.{signature}"
        if (
            module
            and not name.startswith(module + ".")
            and not (
                ctx.object_prefix and name.startswith(ctx.object_prefix.rsplit(".", 1)[-1] + ".")
            )
        ):
            return f"{module}.{signature}"
        return signature

    def version_note(
        self, label: str, args: list[str], content: list[str], ctx: _Context
    ) -> list[str]:
        words = " ".join(args).split(None, 1)
        version = words[0] if words else ""
        rest = [words[1]] if len(words) > 1 else []
        blocks = self.body([*rest, "", *content], ctx)
        return (
            labelled(f"{label} {version}".strip(), blocks) if blocks else [f"*{label} {version}.*"]
        )

    def list_table(self, content: list[str]) -> str:
        rows: list[list[str]] = []
        for row in _items(content, "*"):
            rows.append(
                [self.inline(" ".join(s.strip() for s in cell)) for cell in _items(row, "-")]
            )
        return table_rows(rows)

    def csv_table(self, options: dict[str, str], content: list[str]) -> str:
        raw = ([options["header"]] if "header" in options else []) + [
            c for c in content if c.strip()
        ]
        rows = list(csv.reader(raw, skipinitialspace=True))
        return table_rows([[self.inline(cell) for cell in row] for row in rows])


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


def _split_directive(argument: str, rest: list[str]) -> tuple[list[str], dict[str, str], list[str]]:
    """A directive's argument lines, options and content (dedented)."""
    lines = _dedent(rest)
    args = [argument] if argument.strip() else []
    i = 0
    while i < len(lines) and lines[i].strip() and not _OPTION.match(lines[i]):
        args.append(lines[i])
        i += 1
    options: dict[str, str] = {}
    while i < len(lines) and (match := _OPTION.match(lines[i])):
        options[match.group(1)] = match.group(2) or ""
        i += 1
        while i < len(lines) and lines[i].strip() and _indent(lines[i]) > 0:
            options[match.group(1)] += " " + lines[i].strip()
            i += 1
    while i < len(lines) and not lines[i].strip():
        i += 1
    return args, options, _dedent(lines[i:])


def _items(lines: list[str], marker: str) -> list[list[str]]:
    """Split a bullet list written with ``marker`` into its items' dedented lines."""
    items: list[list[str]] = []
    for line in lines:
        if line.startswith(marker + " ") or line.strip() == marker:
            items.append([" " + line[1:]])
        elif items:
            items[-1].append(line)
    return [_dedent(item) for item in items]


def _join_continuations(lines: list[str]) -> list[str]:
    """Join signature lines continued with a trailing backslash."""
    joined: list[str] = []
    for line in lines:
        if joined and joined[-1].rstrip().endswith("\\"):
            joined[-1] = joined[-1].rstrip()[:-1] + " " + line.strip()
        else:
            joined.append(line)
    return joined


def _code(signature: str) -> str:
    signature = " ".join(signature.split())
    return f"`{signature}`" if "`" not in signature else f"`` {signature} ``"


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
