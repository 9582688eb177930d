"""Full-text search helpers shared by every feature that uses FTS5.

Code identifiers must be found as people type them: ``np.vstack``, ``useState``,
``snake_case``, ``ECONNREFUSED``. The tokenizer (unicode61, porter stemming)
splits on ``.`` and ``_``; a query term with such separators becomes a phrase
(``"np vstack"``), which matches the adjacent tokens. camelCase words are also
indexed split (``use state``) in a separate column, see ``identifier_parts``.
"""

from __future__ import annotations

import re

TOKENIZER = "porter unicode61 remove_diacritics 2"
"""The FTS5 ``tokenize=`` option every contextbase FTS table uses."""

_TERM = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-:/]*[A-Za-z0-9_]|[A-Za-z0-9]")
_CAMEL = re.compile(r"[a-z0-9]+[A-Z][A-Za-z0-9]*|[A-Z]{2,}[a-z]+[A-Za-z0-9]*")
_CAMEL_SPLIT = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_PART = re.compile(r"[A-Za-z0-9]+")

STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "been",
        "but",
        "by",
        "can",
        "could",
        "do",
        "does",
        "did",
        "for",
        "from",
        "had",
        "has",
        "have",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "me",
        "my",
        "no",
        "not",
        "of",
        "on",
        "or",
        "our",
        "should",
        "so",
        "such",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "to",
        "too",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "i'm",
        "i've",
        "want",
        "using",
        "use",
        "get",
    ]
)

MAX_TERMS = 48


def identifier_parts(text: str) -> str:
    """The camelCase identifiers of ``text``, split into words, for a second FTS column."""
    seen: dict[str, None] = {}
    for word in _CAMEL.findall(text):
        seen.setdefault(" ".join(_CAMEL_SPLIT.findall(word)), None)
    return "\n".join(seen)


def query_terms(text: str) -> list[str]:
    """The distinct searchable terms of a query, in order, stopwords removed."""
    terms: dict[str, None] = {}
    for raw in _TERM.findall(text):
        parts = _PART.findall(raw)
        if not parts:
            continue
        if len(parts) == 1 and parts[0].lower() in STOPWORDS:
            continue
        terms.setdefault(" ".join(p.lower() for p in parts), None)
    return list(terms)[:MAX_TERMS]


def match_expression(text: str, *, require_all: bool = False) -> str | None:
    """An FTS5 MATCH expression for free text; ``None`` when nothing is searchable.

    Every term is quoted, so FTS5 syntax in user text (``OR``, ``NEAR``, ``*``,
    ``"``, ``:``) is only ever searched for, never interpreted.
    """
    terms = query_terms(text)
    if not terms:
        return None
    joiner = " AND " if require_all else " OR "
    return joiner.join(f'"{term}"' for term in terms)
