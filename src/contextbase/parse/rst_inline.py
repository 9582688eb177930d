"""reStructuredText inline markup (with Sphinx roles) → Markdown inline text.

Every role, in any domain (``:func:``, ``:c:func:``, ``:py:class:``, unknown
ones too), becomes inline code or plain text; the role name never survives.
"""

from __future__ import annotations

import re

from contextbase.parse.clean import inline_code

_INLINE = re.compile(
    r"(?<!\\)``(?P<literal>\S(?:.*?\S)??)``(?!\w)"
    r"|(?<![\w\\`]):(?P<role>[A-Za-z][\w.+-]*(?::[A-Za-z][\w.+-]*)?):`(?P<rtext>(?:[^`\\]|\\.)+)`"
    r"|(?<![\w\\])`(?P<stext>[^`]+)`:(?P<srole>[A-Za-z][\w.+-]*(?::[A-Za-z][\w.+-]*)?):"
    r"|(?<![\w\\])`(?P<ltext>[^`]+?)`__?(?!\w)"
    r"|(?<![\w\\])`(?P<itext>[^`]+)`(?!\w)"
    r"|(?<![\w\\*])\*\*(?P<strong>\S(?:.*?\S)??)\*\*(?![\w*])"
    r"|(?<![\w\\*])\*(?P<em>[^\s*](?:[^*]*?[^\s\\*])?)\*(?![\w*])"
    r"|(?<![\w\\])\[(?P<note>#[\w-]*|\*|\d+|[A-Za-z][\w.-]*)\]_(?!\w)",
    re.S,
)
_ESCAPE = re.compile(r"\\(.)|\\$", re.S)
_EXPLICIT_TITLE = re.compile(r"^(.*?)\s*<([^<>]+)>$", re.S)

# Roles whose text is code: Python, C/C++ and JavaScript objects, options, files, grammar.
_CODE_ROLES = {
    "func", "meth", "class", "mod", "exc", "attr", "data", "const", "obj", "type", "member",
    "macro", "var", "option", "envvar", "opcode", "token", "keyword", "samp", "file", "program",
    "command", "makevar", "regexp", "code", "literal", "mimetype", "mailheader", "pdbcmd",
    "cfunc", "cmember", "cmacro", "ctype", "cdata", "enum", "enumerator", "struct", "union",
    "expr", "texpr", "directive", "role", "confval", "setting", "kbd", "source", "function",
    "concept", "label", "header", "signal", "event", "attribute", "method", "property", "module",
    "exception",
}  # fmt: skip
_CALLABLE_ROLES = {"func", "meth", "cfunc", "function", "method"}
_EMPHASIS_ROLES = {"emphasis", "dfn", "title-reference", "title", "t", "citetitle"}


def rst_inline(
    text: str,
    substitutions: dict[str, str] | None = None,
    labels: dict[str, str] | None = None,
) -> str:
    """Convert one paragraph (or heading, or cell) of RST inline markup to Markdown.

    ``substitutions`` maps ``|name|`` to its replacement text; ``labels`` maps
    ``.. _label:`` targets to the titles they mark, for ``:ref:`` without a title.
    """
    if substitutions and "|" in text:
        text = _substitute(text, substitutions)
    out: list[str] = []
    pos = 0
    for match in _INLINE.finditer(text):
        out.append(_plain(text[pos : match.start()]))
        out.append(_render(match, labels or {}))
        pos = match.end()
    out.append(_plain(text[pos:]))
    return "".join(out)


def plain_text(markdown_inline: str) -> str:
    """Inline Markdown without its markers, for titles."""
    text = re.sub(r"`+|\*\*", "", markdown_inline)
    text = re.sub(r"(?<!\w)\*(\S(?:.*?\S)?)\*(?!\w)", r"\1", text)
    return " ".join(text.split())


def _substitute(text: str, substitutions: dict[str, str]) -> str:
    def replace(match: re.Match[str]) -> str:
        name = match.group(1)
        if name in substitutions:
            return substitutions[name]
        return name if name in {"version", "release", "today"} else match.group(0)

    return re.sub(r"(?<![\w|])\|([^|\s](?:[^|]*[^|\s])?)\|(?:__?)?(?![\w|])", replace, text)


def _plain(text: str) -> str:
    if "\\" in text:
        text = _unescape(text)
    return text.replace(" --- ", " — ")


def _unescape(text: str) -> str:
    return _ESCAPE.sub(lambda m: "" if m.group(1) in (None, " ", "\n") else m.group(1), text)


_KINDS = ("literal", "role", "stext", "ltext", "itext", "strong", "em", "note")


def _render(match: re.Match[str], labels: dict[str, str]) -> str:
    kind = next(k for k in _KINDS if match.group(k) is not None)
    value = match.group(kind)
    if kind == "literal":
        return inline_code(value)
    if kind == "role":
        return role_text(match.group("role"), match.group("rtext"), labels)
    if kind == "stext":
        return role_text(match.group("srole"), value, labels)
    if kind == "ltext":
        explicit = _EXPLICIT_TITLE.match(value)
        label = explicit.group(1) if explicit and explicit.group(1) else value
        return _plain(" ".join(label.split()))
    if kind == "itext":
        return inline_code(_unescape(value))
    if kind == "strong":
        return f"**{_plain(value)}**"
    if kind == "em":
        return f"*{_plain(value)}*"
    if kind == "note":
        return "" if value.startswith("#") or value == "*" or value.isdigit() else f"[{value}]"
    return match.group(0)


def role_text(role: str, text: str, labels: dict[str, str] | None = None) -> str:
    """Render ``:role:`text``` the way Sphinx displays it, as Markdown."""
    name = role.rsplit(":", 1)[-1].lower()
    domain = role.split(":", 1)[0].lower() if ":" in role else ""
    text = " ".join(_unescape(text).split())
    explicit = _EXPLICIT_TITLE.match(text)
    title = explicit.group(1).strip() if explicit else ""
    target = explicit.group(2) if explicit else text
    if name == "pep":
        return title if title else f"PEP {target.split('#')[0].strip()}"
    if name == "rfc":
        return title if title else f"RFC {target.split('#')[0].strip()}"
    if name == "issue":
        return title if title else f"bpo-{target}"
    if name in {"ref", "doc", "any", "numref", "download", "term", "keyword"} and title:
        return inline_code(title) if name == "keyword" else title
    if name == "doc":
        return target.rstrip("/").rsplit("/", 1)[-1].replace("-", " ").replace("_", " ")
    if name in {"ref", "numref", "download", "term", "abbr", "manpage", "newsgroup", "math"}:
        return (labels or {}).get(target.lower(), target) if name == "ref" else target
    if name in _EMPHASIS_ROLES:
        return f"*{title or target}*"
    if name == "strong":
        return f"**{title or target}**"
    if name in {"sub", "sup", "subscript", "superscript"}:
        return title or target
    if name in {"menuselection", "guilabel"}:
        return (title or target).replace("-->", ">").replace("&", "")
    if name in _CODE_ROLES or domain in {"c", "cpp", "py", "js", "rst", "std"}:
        shown = title or _short_target(target)
        if name == "samp":
            shown = re.sub(r"(?<!\\)[{}]", "", shown)
        if name in _CALLABLE_ROLES and not title and not shown.endswith(")"):
            shown += "()"
        return inline_code(shown)
    return title or target


def _short_target(target: str) -> str:
    target = target.lstrip("!")
    if target.startswith("~"):
        target = target[1:]
        return target.rsplit(".", 1)[-1]
    return target.lstrip(".")
