"""Fixtures for the parser tests: the real documentation corpora beside the repository."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

SHARED = Path(__file__).parents[2] / ".." / "shared"


@pytest.fixture(scope="session")
def corpora() -> Path:
    """``../shared/corpora``; the tests that need it skip when it is absent."""
    path = (SHARED / "corpora").resolve()
    if not path.is_dir():
        pytest.skip("../shared/corpora is not beside the repository")
    return path


def prose(markdown: str) -> str:
    """Markdown without fenced code blocks and inline code spans: where residue must not be."""
    return re.sub(r"(`+)(?:(?!\1).)+?\1", "", without_fences(markdown), flags=re.S)


def without_fences(markdown: str) -> str:
    """Markdown with its fenced code blocks removed."""
    out: list[str] = []
    marker = ""
    for line in markdown.split("\n"):
        stripped = line.strip()
        if marker:
            if stripped.startswith(marker) and not stripped.strip(marker[0]):
                marker = ""
            continue
        match = re.match(r"\s*(`{3,}|~{3,})", line)
        if match:
            marker = match.group(1)
            continue
        out.append(line)
    return "\n".join(out)


def fences(markdown: str) -> list[tuple[str, str]]:
    """Every fenced code block as (language, code)."""
    pattern = re.compile(r"^\s*(`{3,})([\w+#.-]*)\n(.*?)\n\s*\1\s*$", re.M | re.S)
    return [(m.group(2), m.group(3)) for m in pattern.finditer(markdown)]


def headings(markdown: str) -> list[str]:
    """ATX headings outside code, with their hashes."""
    return [line for line in without_fences(markdown).split("\n") if re.match(r"#{1,6} ", line)]
