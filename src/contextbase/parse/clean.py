"""Markdown building blocks shared by the parsers, and the final cleaning pass.

Every converter emits Markdown through these helpers so that code fences,
labelled notes and table rows look the same whatever the source format was.
"""

from __future__ import annotations

import re

_FENCE_OPEN = re.compile(r"^(\s*)(`{3,}|~{3,})(.*)$")
_TABLE_BORDER = re.compile(r"^\s*\+[-=+:]*[-=]{2,}[-=+:]*\+\s*$")
_ALIGN_ROW = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")
LANGUAGE_ALIASES = {
    "default": "python",
    "python3": "python",
    "py3": "python",
    "pycon3": "pycon",
    "ipython3": "ipython",
    "none": "text",
    "plain": "text",
    "plaintext": "text",
}


def normalize_language(info: str | None) -> str:
    """Reduce a fence info string or CSS class (``rust,ignore``, ``js {2}``) to a language."""
    if not info:
        return ""
    word = re.split(r"[\s,{\[]", info.strip(), maxsplit=1)[0].lower()
    word = word.strip("`'\".:")
    if not re.fullmatch(r"[a-z0-9_+#-]+", word):
        return ""
    return LANGUAGE_ALIASES.get(word, word)


def fence(code: str, language: str = "") -> str:
    """A fenced code block whose fence is longer than any backtick run in ``code``."""
    code = code.strip("\n")
    longest = max((len(run) for run in re.findall(r"`{3,}", code)), default=2)
    marker = "`" * max(3, longest + 1)
    return f"{marker}{language}\n{code}\n{marker}"


def inline_code(text: str) -> str:
    """``text`` as an inline code span, padded when it contains backticks."""
    text = " ".join(text.split())
    if not text:
        return ""
    if "`" not in text:
        return f"`{text}`"
    longest = max(len(run) for run in re.findall(r"`+", text))
    marker = "`" * (longest + 1)
    return f"{marker} {text} {marker}"


def labelled(label: str, blocks: list[str]) -> list[str]:
    """Prefix an admonition's first paragraph with ``**Label:**``."""
    blocks = [b for b in blocks if b.strip()]
    head = f"**{label.rstrip(':')}:**"
    if blocks and not _starts_special(blocks[0]):
        return [f"{head} {blocks[0]}", *blocks[1:]]
    return [head, *blocks]


def _starts_special(block: str) -> bool:
    return bool(re.match(r"(`{3,}|~{3,}|#|[-*+] |\d+\. |\|)", block))


def list_item(marker: str, blocks: list[str]) -> str:
    """One Markdown list item: the first block after ``marker``, the rest indented under it."""
    blocks = [b for b in blocks if b.strip()]
    if not blocks:
        return marker.rstrip()
    pad = " " * len(marker)
    body = "\n\n".join(blocks)
    lines = body.split("\n")
    out = [marker + lines[0]]
    out.extend(pad + line if line else "" for line in lines[1:])
    return "\n".join(out)


def table_rows(rows: list[list[str]]) -> str:
    """Table rows as ``a | b`` lines; empty rows are dropped."""
    lines = []
    for row in rows:
        cells = [" ".join(cell.replace("|", "\\|").split()) for cell in row]
        while cells and not cells[-1]:
            cells.pop()
        if any(cells):
            lines.append(" | ".join(cells))
    return "\n".join(lines)


def join_blocks(blocks: list[str]) -> str:
    """Blocks separated by one blank line."""
    return "\n\n".join(b.strip("\n") for b in blocks if b and b.strip())


def clean_markdown(markdown: str) -> str:
    """Final pass on converter output: tidy whitespace and drop residue outside code.

    Strips trailing spaces, removes table border and alignment lines and
    collapses runs of blank lines, leaving fenced code untouched.
    """
    out: list[str] = []
    fence_marker = ""
    blank_run = 0
    for raw in markdown.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        line = raw.rstrip()
        if fence_marker:
            out.append(raw.rstrip("\r"))
            stripped = line.strip()
            if stripped.startswith(fence_marker) and not stripped.strip(fence_marker[0]):
                fence_marker = ""
            continue
        match = _FENCE_OPEN.match(line)
        if match:
            fence_marker = match.group(2)
            blank_run = 0
            out.append(line)
            continue
        if _TABLE_BORDER.match(line) or _ALIGN_ROW.match(line):
            continue
        if not line.strip():
            blank_run += 1
            if blank_run > 1:
                continue
            out.append("")
            continue
        blank_run = 0
        out.append(line)
    return "\n".join(out).strip("\n") + "\n" if any(s.strip() for s in out) else ""
