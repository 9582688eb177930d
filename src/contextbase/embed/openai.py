"""OpenAI embeddings (``POST {base_url}/v1/embeddings``), also for compatible servers.

``base_url`` points the embedder at Azure OpenAI's v1 API
(``https://NAME.openai.azure.com/openai``) or any OpenAI-compatible server; a
base URL that already ends in ``/v1`` is used as is.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import httpx

from contextbase.embed._http import (
    BatchReply,
    InputType,
    RemoteEmbedder,
    embeddings_url,
    read_data_reply,
)
from contextbase.embed.keys import load_api_key
from contextbase.errors import ConfigError

DEFAULT_BASE_URL = "https://api.openai.com"
DEFAULT_MODEL = "text-embedding-3-small"
MODELS = {
    "text-embedding-3-small": 1536,
    "text-embedding-3-large": 3072,
    "text-embedding-ada-002": 1536,
}
"""Native dimensions of the models we know; others learn theirs from the first reply."""
SHORTENABLE = frozenset({"text-embedding-3-small", "text-embedding-3-large"})
"""Models that accept the ``dimensions`` parameter."""
MAX_INPUTS = 2048
MAX_REQUEST_TOKENS = 300_000
MAX_INPUT_TOKENS = 8191


class OpenAIEmbedder(RemoteEmbedder):
    """Embeddings from the OpenAI API or an OpenAI-compatible server.

    ``dimensions`` asks a v3 model for shorter vectors. The key comes from
    ``api_key``, ``api_key_file``, ``OPENAI_API_KEY`` or ``~/.openai-api-key``.
    """

    provider = "openai"
    label = "OpenAI"
    max_batch_items = MAX_INPUTS

    def __init__(
        self,
        model: str | None = None,
        *,
        api_key: str | None = None,
        api_key_file: str | Path | None = None,
        base_url: str | None = None,
        transport: httpx.BaseTransport | None = None,
        max_concurrency: int = 4,
        max_retries: int = 5,
        timeout: float = 60,
        sleep: Callable[[float], None] = time.sleep,
        dimensions: int | None = None,
        batch_size: int = MAX_INPUTS,
        max_batch_tokens: int = MAX_REQUEST_TOKENS,
        max_input_tokens: int = MAX_INPUT_TOKENS,
    ) -> None:
        model = model or DEFAULT_MODEL
        key = load_api_key(
            self.label,
            api_key=api_key,
            api_key_file=api_key_file,
            env_var="OPENAI_API_KEY",
            default_file="~/.openai-api-key",
        )
        super().__init__(
            model,
            base_url=base_url or DEFAULT_BASE_URL,
            headers={"Authorization": f"Bearer {key.value}"},
            transport=transport,
            max_concurrency=max_concurrency,
            max_retries=max_retries,
            timeout=timeout,
            sleep=sleep,
            batch_size=batch_size,
            max_batch_tokens=max_batch_tokens,
            max_input_tokens=max_input_tokens,
            dimension=_expected_dimension(model, dimensions),
            key_source=key.source,
            secret=key.value,
        )
        self.dimensions = dimensions
        self._url = embeddings_url(self.base_url)

    def _embed_batch(self, texts: list[str], input_type: InputType) -> BatchReply:
        body: dict[str, object] = {"model": self.model, "input": texts, "encoding_format": "float"}
        if self.dimensions is not None:
            body["dimensions"] = self.dimensions
        return read_data_reply(self._json(self._post(self._url, body)), self.label, len(texts))


def _expected_dimension(model: str, dimensions: int | None) -> int | None:
    native = MODELS.get(model)
    if dimensions is None:
        return native
    if native is not None and model not in SHORTENABLE:
        raise ConfigError(f"The OpenAI model {model} does not accept the dimensions option.")
    if dimensions < 1 or (native is not None and dimensions > native):
        limit = f" and at most {native}" if native else ""
        raise ConfigError(f"dimensions for {model} must be at least 1{limit}, not {dimensions}.")
    return dimensions
