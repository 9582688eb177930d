"""Token estimates without a tokenizer: about four characters a token.

Budgets (chunk sizes, ``tokens=`` in tools) are approximate by nature; a fixed
ratio keeps them fast, deterministic and provider-independent.
"""

from __future__ import annotations

CHARS_PER_TOKEN = 4


def estimate_tokens(text: str) -> int:
    return (len(text) + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN


def truncate_to_tokens(text: str, tokens: int) -> str:
    """Cut ``text`` to about ``tokens`` tokens, at a line or word boundary when one is near."""
    limit = tokens * CHARS_PER_TOKEN
    if len(text) <= limit:
        return text
    cut = text[:limit]
    for boundary in ("\n", " "):
        at = cut.rfind(boundary)
        if at > limit * 0.8:
            return cut[:at]
    return cut
