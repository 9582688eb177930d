"""The Embedder protocol every provider implements."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable


@runtime_checkable
class Embedder(Protocol):
    """Turns text into vectors of one embedding space.

    An embedding space is identified by ``(provider, model, dimension)``; vectors
    from different spaces are never compared. Documents and queries are embedded
    through separate methods because some providers (Voyage) embed them differently.
    """

    provider: str
    """Short provider name: ``local``, ``openai``, ``voyage``, ``ollama``, ``fake``."""
    model: str
    """The provider's model name."""
    dimension: int
    """Length of every vector this embedder returns."""

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed texts to be stored; one vector per text, in order."""
        ...

    def embed_query(self, text: str) -> list[float]:
        """Embed one search query."""
        ...


def space_key(embedder: Embedder) -> tuple[str, str, int]:
    """The identity of the embedding space an embedder writes into."""
    return (embedder.provider, embedder.model, embedder.dimension)
