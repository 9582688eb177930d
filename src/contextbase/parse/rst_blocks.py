"""reStructuredText line helpers and tables (grid and simple) → rows of cell text."""

from __future__ import annotations

import itertools
import re

_SIMPLE_BORDER = re.compile(r"=+(?:\s+=+)*\s*$")
_RULE = re.compile(r"[-=\s]+")
_CELL_RULE = re.compile(r"[-=+]+")


def indent_of(line: str) -> int:
    """Leading spaces of ``line``."""
    return len(line) - len(line.lstrip(" "))


def dedent(lines: list[str]) -> list[str]:
    """Lines with their common indentation removed; blank lines become empty."""
    widths = [indent_of(line) for line in lines if line.strip()]
    cut = min(widths, default=0)
    return [line[cut:] if line.strip() else "" for line in lines]


def indented_end(lines: list[str], start: int, min_indent: int = 1) -> int:
    """Index after the run of blank or at-least-``min_indent`` lines starting at ``start``."""
    i = start
    while i < len(lines) and (not lines[i].strip() or indent_of(lines[i]) >= min_indent):
        i += 1
    while i > start and not lines[i - 1].strip():
        i -= 1
    return i


def grid_table_rows(lines: list[str]) -> list[list[str]]:
    """Rows of a grid table (``+---+`` borders); spanned cells keep their text."""
    border = lines[0].rstrip()
    bounds = [i for i, char in enumerate(border) if char == "+"]
    rows: list[list[str]] = []
    current: list[list[str]] | None = None
    for line in lines[1:]:
        line = line.rstrip()
        if line.startswith("+"):
            if current is not None:
                rows.append([" ".join(part for part in cell if part) for cell in current])
            current = None
            continue
        if not line.startswith("|"):
            continue
        cells = []
        for start, end in itertools.pairwise(bounds):
            text = line[start + 1 : end].strip().strip("|").strip()
            cells.append("" if _CELL_RULE.fullmatch(text) else text)
        if current is None:
            current = [[] for _ in cells]
        for column, text in enumerate(cells):
            current[column].append(text)
    if current is not None:
        rows.append([" ".join(part for part in cell if part) for cell in current])
    return rows


def simple_table_end(lines: list[str], start: int) -> int:
    """Index just after a simple table (``===  ===`` borders) starting at ``start``."""
    i = start + 1
    while i < len(lines):
        if _SIMPLE_BORDER.match(lines[i]) and (i + 1 >= len(lines) or not lines[i + 1].strip()):
            return i + 1
        i += 1
    return len(lines)


def simple_table_rows(lines: list[str]) -> list[list[str]]:
    """Rows of a simple table; a line whose first column is blank continues the row above."""
    spans = [(m.start(), m.end()) for m in re.finditer(r"=+", lines[0])]
    rows: list[list[str]] = []
    for line in lines[1:]:
        if not line.strip() or _RULE.fullmatch(line):
            continue
        cells = []
        for k, (begin, _) in enumerate(spans):
            end = spans[k + 1][0] if k + 1 < len(spans) else len(line)
            text = line[begin:end].strip()
            cells.append("" if text == ".." else text)
        if rows and not cells[0]:
            rows[-1] = [f"{old} {new}".strip() for old, new in zip(rows[-1], cells, strict=False)]
        else:
            rows.append(cells)
    return rows
