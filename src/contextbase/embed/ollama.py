"""Ollama embeddings from a local or remote Ollama server.

The batch endpoint ``POST /api/embed`` is used first. Ollama releases before
0.3 answer it with 404; the embedder then switches, for the rest of its life,
to the older ``POST /api/embeddings``, one text per request. The older endpoint
returns vectors that are not unit length, so they are normalised to match
what ``/api/embed`` returns and both endpoints give the same embedding space.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import httpx

from contextbase.embed._http import BatchReply, InputType, RemoteEmbedder, error_detail
from contextbase.errors import ConfigError, EmbeddingError

DEFAULT_HOST = "http://localhost:11434"
DEFAULT_PORT = 11434
DEFAULT_MODEL = "nomic-embed-text"
MODELS = {
    "nomic-embed-text": (768, 8192),
    "mxbai-embed-large": (1024, 512),
    "all-minilm": (384, 512),
    "bge-m3": (1024, 8192),
}
"""Dimension and context length of the models we know, by name without tag."""
DEFAULT_MAX_INPUT_TOKENS = 2048
"""Ollama's default context length, for models not listed above."""
DEFAULT_BATCH_SIZE = 32
MAX_REQUEST_TOKENS = 16_384
"""Small enough that a CPU-only server answers one request well within the timeout."""


class OllamaEmbedder(RemoteEmbedder):
    """Embeddings from an Ollama server: ``base_url``, else ``OLLAMA_HOST``, else
    ``http://localhost:11434``. No API key."""

    provider = "ollama"
    label = "Ollama"

    def __init__(
        self,
        model: str | None = None,
        *,
        base_url: str | None = None,
        transport: httpx.BaseTransport | None = None,
        max_concurrency: int = 4,
        max_retries: int = 5,
        timeout: float = 60,
        sleep: Callable[[float], None] = time.sleep,
        batch_size: int = DEFAULT_BATCH_SIZE,
        max_batch_tokens: int = MAX_REQUEST_TOKENS,
        max_input_tokens: int | None = None,
    ) -> None:
        model = model or DEFAULT_MODEL
        dimension, context = MODELS.get(model.split(":")[0], (None, DEFAULT_MAX_INPUT_TOKENS))
        super().__init__(
            model,
            base_url=ollama_base_url(base_url or os.environ.get("OLLAMA_HOST") or DEFAULT_HOST),
            headers={},
            transport=transport,
            max_concurrency=max_concurrency,
            max_retries=max_retries,
            timeout=timeout,
            sleep=sleep,
            batch_size=batch_size,
            max_batch_tokens=max_batch_tokens,
            max_input_tokens=max_input_tokens or context,
            dimension=dimension,
        )
        self.legacy_endpoint = False
        """True once the server has shown it lacks ``/api/embed``."""

    def _embed_batch(self, texts: list[str], input_type: InputType) -> BatchReply:
        if self.legacy_endpoint:
            return self._embed_one_by_one(texts)
        body = {"model": self.model, "input": texts}
        response = self._post(f"{self.base_url}/api/embed", body, passthrough={404})
        if response.status_code == 404:
            self._check_model_found(response)
            self.legacy_endpoint = True
            return self._embed_one_by_one(texts)
        payload = self._json(response)
        vectors = payload.get("embeddings") if isinstance(payload, dict) else None
        if not isinstance(vectors, list):
            raise EmbeddingError("Ollama returned a reply without an 'embeddings' list.")
        tokens = payload.get("prompt_eval_count")
        return BatchReply(vectors, tokens if isinstance(tokens, int) else None)

    def _embed_one_by_one(self, texts: list[str]) -> BatchReply:
        vectors: list[Any] = []
        for text in texts:
            body = {"model": self.model, "prompt": text}
            response = self._post(f"{self.base_url}/api/embeddings", body, passthrough={404})
            if response.status_code == 404:
                self._check_model_found(response)
                raise EmbeddingError(
                    f"The server at {self.base_url} has neither /api/embed nor "
                    "/api/embeddings; is it an Ollama server?"
                )
            payload = self._json(response)
            vector = payload.get("embedding") if isinstance(payload, dict) else None
            vectors.append(_unit(vector) if isinstance(vector, list) else vector)
        return BatchReply(vectors)

    def _check_model_found(self, response: httpx.Response) -> None:
        # Ollama answers 404 both for a missing endpoint and for a model not pulled.
        detail = error_detail(response).lower()
        if "model" in detail and "not found" in detail:
            raise EmbeddingError(
                f"Ollama at {self.base_url} has no model {self.model!r}; "
                f"pull it with 'ollama pull {self.model}'."
            )


def ollama_base_url(host: str) -> str:
    """A base URL from an ``OLLAMA_HOST``-style value such as ``0.0.0.0:11434``.

    A value without a scheme gets ``http://`` and, without a port, port 11434;
    a listen-on-all address (``0.0.0.0``, ``::``) means this machine.
    """
    host = host.strip()
    explicit_scheme = "://" in host
    parts = urlsplit(host if explicit_scheme else f"http://{host}")
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(f"The Ollama address {host!r} is not an http(s) URL or host:port.")
    try:
        port = parts.port
    except ValueError:
        raise ConfigError(f"The Ollama address {host!r} has an invalid port.") from None
    name = {"0.0.0.0": "127.0.0.1", "::": "::1"}.get(parts.hostname, parts.hostname)
    if ":" in name:
        name = f"[{name}]"
    if port is None and not explicit_scheme:
        port = DEFAULT_PORT
    netloc = name if port is None else f"{name}:{port}"
    return f"{parts.scheme}://{netloc}{parts.path.rstrip('/')}"


def _unit(vector: list[Any]) -> list[Any]:
    try:
        norm = math.sqrt(sum(float(value) ** 2 for value in vector))
    except (TypeError, ValueError):
        return vector  # the base class reports it as not a list of numbers
    return [float(value) / norm for value in vector] if norm else vector
