"""A deterministic embedder for fast unit tests: hashed bag of words, no model.

Texts that share words get similar vectors, so ranking tests still mean
something, but it is not a semantic model and never the default.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Sequence

_WORD = re.compile(r"[A-Za-z0-9_]+")


class FakeEmbedder:
    provider = "fake"

    def __init__(self, dimension: int = 64, model: str = "hash") -> None:
        self.dimension = dimension
        self.model = model
        self.calls = 0

    def _vector(self, text: str) -> list[float]:
        vec = [0.0] * self.dimension
        for word in _WORD.findall(text.lower()):
            digest = hashlib.blake2b(word.encode(), digest_size=8).digest()
            index = int.from_bytes(digest[:4], "little") % self.dimension
            sign = 1.0 if digest[4] & 1 else -1.0
            vec[index] += sign
        norm = math.sqrt(sum(v * v for v in vec)) or 1.0
        return [v / norm for v in vec]

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls += 1
        return [self._vector(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        self.calls += 1
        return self._vector(text)
