"""reStructuredText directives: Sphinx API entries, notes, code and tables → Markdown."""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from contextbase.parse.clean import fence, labelled, table_rows
from contextbase.parse.rst_blocks import dedent, indent_of
from contextbase.parse.rst_inline import plain_text

if TYPE_CHECKING:
    from contextbase.parse.rst import RstConverter

_OPTION = re.compile(r"^:([\w.-]+(?:\s[\w.-]+)*):(?:\s+(.*))?$")
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
_DROPPED = {
    "index", "toctree", "tabularcolumns", "testsetup", "testcleanup", "sectionauthor",
    "moduleauthor", "codeauthor", "contents", "include", "raw", "image", "meta", "default-role",
    "role", "title", "audit-event-table", "program", "target-notes", "sectnum", "header",
    "footer", "autosummary", "automodule", "autoclass", "autofunction", "highlightlang",
}  # fmt: skip
_CODE_DIRECTIVES = {"code-block": "", "sourcecode": "", "code": "", "testcode": "python"}


@dataclass(frozen=True)
class Context:
    """Where a block sits: the heading level for API entries and the enclosing object."""

    object_level: int | None = None
    object_prefix: str = ""


class Directives:
    """Renders the directives of one document, reading and updating its converter's state."""

    def __init__(self, rst: RstConverter) -> None:
        self.rst = rst

    def render(self, name: str, argument: str, rest: list[str], ctx: Context) -> list[str]:
        """Markdown blocks for directive ``name`` (its argument line, then the indented rest)."""
        args, options, content = _split_directive(argument, rest)
        kind = name.lower()
        local = kind.rsplit(":", 1)[-1]
        if local in _DROPPED:
            return []
        if kind in {"module", "py:module", "currentmodule", "py:currentmodule"}:
            return self._set_module(kind, args, options)
        if local == "highlight":
            self.rst.highlight = args[0].strip() if args else ""
            return []
        if local in _OBJECT_DIRECTIVES or (
            ":" in kind and kind.split(":", 1)[0] in {"c", "cpp", "py", "js", "rst", "std"}
        ):
            # Only Python objects are qualified with the module: keep "c:function" as it is.
            python = ":" not in kind or kind.startswith("py:")
            return self.api_entry(local if python else kind, args, options, content, ctx)
        if local in _VERSION_NOTES:
            return self.version_note(_VERSION_NOTES[local], args, content, ctx)
        if local == "deprecated-removed":
            words = " ".join(args).split(None, 2)
            label = f"Deprecated since version {words[0] if words else ''}"
            if len(words) > 1:
                label += f", will be removed in version {words[1]}"
            return labelled(
                label, self.rst.body([words[2] if len(words) > 2 else "", "", *content], ctx)
            )
        if local in _ADMONITIONS:
            return labelled(_ADMONITIONS[local], self.rst.body([*args, "", *content], ctx))
        if local == "admonition":
            title = self.rst.inline(" ".join(args)) or "Note"
            return labelled(plain_text(title), self.rst.body(content, ctx))
        if local == "availability":
            return [f"**Availability:** {self.rst.inline(' '.join(args))}".rstrip()]
        if local == "audit-event":
            words = " ".join(args).split()
            event = words[0] if words else ""
            arguments = words[1] if len(words) > 1 else ""
            return [f"Raises an auditing event `{event}` with arguments `{arguments}`."]
        if local in _CODE_DIRECTIVES:
            language = " ".join(args).strip() or _CODE_DIRECTIVES[local] or self.rst.highlight
            return [self.rst.code(content, language or "python")]
        if local in {"doctest", "testoutput"}:
            return [fence("\n".join(content), "pycon" if local == "doctest" else "text")]
        if local == "literalinclude":
            target = " ".join(args).strip().lstrip("/")
            return [f"(code from {target})"] if target else []
        if local == "productionlist":
            grammar = "\n".join(line.strip() for line in [*args, *content] if line.strip())
            return [fence(grammar.replace("`", ""), "text")]
        if local in {"rubric", "topic", "sidebar", "table"}:
            title = self.rst.inline(" ".join(args))
            return [f"**{title}**" if title else "", *self.rst.body(content, ctx)]
        if local == "list-table":
            return [self.list_table(content)]
        if local == "csv-table":
            return [self.csv_table(options, content)]
        if local == "math":
            return [fence("\n".join([*args, *content]), "math")]
        # Everything else (only, ifconfig, container, glossary, tabs...) shows its content.
        return self.rst.body(content, ctx)

    def _set_module(self, kind: str, args: list[str], options: dict[str, str]) -> list[str]:
        module = " ".join(args).strip()
        self.rst.module = "" if module == "None" else module
        if kind.endswith(":module") or kind == "module":
            if module and module not in self.rst.modules:
                self.rst.modules.append(module)
            if options.get("synopsis") and not self.rst.synopsis:
                self.rst.synopsis = plain_text(self.rst.inline(options["synopsis"]))
        return []

    def api_entry(
        self,
        kind: str,
        signatures: list[str],
        options: dict[str, str],
        content: list[str],
        ctx: Context,
    ) -> list[str]:
        level = min(ctx.object_level or self.rst.level + 1, 6)
        module = options.get("module", self.rst.module)
        # Signatures escape "*" as "\*"; the reader wants the real characters.
        signatures = [
            re.sub(r"\\(.)", r"\1", sig).strip() for sig in _join_continuations(signatures)
        ]
        qualified = [self._qualify(kind, sig, module, ctx) for sig in signatures if sig]
        if not qualified:
            return self.rst.body(content, ctx)
        prefix = _SIGNATURE_PREFIX.get(kind, "")
        first = qualified[0]
        if kind in {"decorator", "decoratormethod"} and not first.startswith("@"):
            first = "@" + first
        heading = f"{'#' * level} {prefix + ' ' if prefix else ''}{signature_code(first)}"
        blocks = [heading, *(signature_code(sig) for sig in qualified[1:])]
        name = re.split(r"[(\s\[]", qualified[0], maxsplit=1)[0]
        inner = Context(object_level=min(level + 1, 6), object_prefix=name)
        blocks.extend(self.rst.body(content, inner))
        return blocks

    def _qualify(self, kind: str, signature: str, module: str, ctx: Context) -> str:
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
        self, label: str, args: list[str], content: list[str], ctx: Context
    ) -> list[str]:
        words = " ".join(args).split(None, 1)
        version = words[0] if words else ""
        rest = [words[1]] if len(words) > 1 else []
        blocks = self.rst.body([*rest, "", *content], ctx)
        return (
            labelled(f"{label} {version}".strip(), blocks) if blocks else [f"*{label} {version}.*"]
        )

    def list_table(self, content: list[str]) -> str:
        rows: list[list[str]] = []
        for row in _items(content, "*"):
            rows.append(
                [self.rst.inline(" ".join(s.strip() for s in cell)) for cell in _items(row, "-")]
            )
        return table_rows(rows)

    def csv_table(self, options: dict[str, str], content: list[str]) -> str:
        raw = ([options["header"]] if "header" in options else []) + [
            c for c in content if c.strip()
        ]
        rows = list(csv.reader(raw, skipinitialspace=True))
        return table_rows([[self.rst.inline(cell) for cell in row] for row in rows])


def _split_directive(argument: str, rest: list[str]) -> tuple[list[str], dict[str, str], list[str]]:
    """A directive's argument lines, options and content (dedented)."""
    lines = dedent(rest)
    args = [argument] if argument.strip() else []
    i = 0
    while i < len(lines) and lines[i].strip() and not _OPTION.match(lines[i]):
        args.append(lines[i])
        i += 1
    options: dict[str, str] = {}
    while i < len(lines) and (match := _OPTION.match(lines[i])):
        options[match.group(1)] = match.group(2) or ""
        i += 1
        while i < len(lines) and lines[i].strip() and indent_of(lines[i]) > 0:
            options[match.group(1)] += " " + lines[i].strip()
            i += 1
    while i < len(lines) and not lines[i].strip():
        i += 1
    return args, options, dedent(lines[i:])


def _items(lines: list[str], marker: str) -> list[list[str]]:
    """Split a bullet list written with ``marker`` into its items' dedented lines."""
    items: list[list[str]] = []
    for line in lines:
        if line.startswith(marker + " ") or line.strip() == marker:
            items.append([" " + line[1:]])
        elif items:
            items[-1].append(line)
    return [dedent(item) for item in items]


def _join_continuations(lines: list[str]) -> list[str]:
    """Join signature lines continued with a trailing backslash."""
    joined: list[str] = []
    for line in lines:
        if joined and joined[-1].rstrip().endswith("\\"):
            joined[-1] = joined[-1].rstrip()[:-1] + " " + line.strip()
        else:
            joined.append(line)
    return joined


def signature_code(signature: str) -> str:
    """A signature as one inline code span."""
    signature = " ".join(signature.split())
    return f"`{signature}`" if "`" not in signature else f"`` {signature} ``"
