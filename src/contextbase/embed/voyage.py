"""Voyage AI embeddings (``POST {base_url}/v1/embeddings``).

Voyage embeds documents and queries differently: ``embed_documents`` sends
``input_type: document`` and ``embed_query`` sends ``input_type: query``.
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

DEFAULT_BASE_URL = "https://api.voyageai.com"
DEFAULT_MODEL = "voyage-3"
MODELS = {
    "voyage-3": 1024,
    "voyage-3-lite": 512,
    "voyage-3-large": 1024,
    "voyage-code-3": 1024,
}
"""Default dimensions of the models we know; others learn theirs from the first reply."""
MAX_INPUTS = 1000
DEFAULT_BATCH_SIZE = 128
MAX_REQUEST_TOKENS = 120_000
"""The smallest per-request token limit of the Voyage models, so safe for all of them."""
MAX_INPUT_TOKENS = 32_000


class VoyageEmbedder(RemoteEmbedder):
    """Embeddings from the Voyage AI API.

    The key comes from ``api_key``, ``api_key_file``, ``VOYAGE_API_KEY`` or
    ``~/.voyage-api-key``.
    """

    provider = "voyage"
    label = "Voyage"
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
        batch_size: int = DEFAULT_BATCH_SIZE,
        max_batch_tokens: int = MAX_REQUEST_TOKENS,
        max_input_tokens: int = MAX_INPUT_TOKENS,
    ) -> None:
        model = model or DEFAULT_MODEL
        key = load_api_key(
            self.label,
            api_key=api_key,
            api_key_file=api_key_file,
            env_var="VOYAGE_API_KEY",
            default_file="~/.voyage-api-key",
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
            dimension=MODELS.get(model),
            key_source=key.source,
            secret=key.value,
        )
        self._url = embeddings_url(self.base_url)

    def _embed_batch(self, texts: list[str], input_type: InputType) -> BatchReply:
        body = {"model": self.model, "input": texts, "input_type": input_type}
        return read_data_reply(self._json(self._post(self._url, body)), self.label, len(texts))
