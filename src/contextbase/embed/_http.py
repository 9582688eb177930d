"""What the remote embedding providers share: token estimates, batching, retries.

``RemoteEmbedder`` does everything but speak a provider's wire format: it
truncates over-long texts, replaces empty ones, cuts the list into batches
within the API's limits, sends batches from a bounded thread pool, puts the
vectors back in order, checks their count and dimension, and retries 429, 5xx
and transport failures with exponential backoff and jitter, honouring
``Retry-After``. A provider subclass only builds one request for one batch
(``_embed_batch``) and reads its reply.
"""

from __future__ import annotations

import math
import random
import re
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Collection, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any, Literal

import httpx

from contextbase.errors import AuthenticationError, ConfigError, EmbeddingError, InvalidInputError

InputType = Literal["document", "query"]

BACKOFF_BASE = 0.5
"""Seconds before the first retry when the server gives no ``Retry-After``."""
BACKOFF_CAP = 30.0
MAX_RETRY_AFTER = 300.0
"""A server asking for a longer pause than this is treated as a failure, not waited for."""
RETRYABLE_STATUS = frozenset({408, 409, 429})
DETAIL_CHARS = 300

# Letters, digit runs, whitespace runs, and single other characters: the pieces a
# byte-pair tokenizer never merges across, so counting them bounds the token count.
_PIECE = re.compile(r"[A-Za-z]+|[0-9]+|\s+|[^A-Za-z0-9\s]")


def _piece_tokens(piece: str) -> tuple[int, int]:
    """Estimated tokens of one piece, and the characters per token when the piece
    may be cut inside (0 when it may not)."""
    first = piece[0]
    if first.isascii() and first.isalpha():
        return math.ceil(len(piece) / 4), 4
    if first.isascii() and first.isdigit():
        return math.ceil(len(piece) / 3), 3
    if first.isspace():
        # A single space is merged into the next word; longer runs cost a little.
        return (0 if piece == " " else 1 + len(piece) // 8), 0
    if first.isascii():
        return 1, 0
    # Rare characters take several tokens; common accented letters one or two.
    return max(1, len(first.encode("utf-8")) - 1), 0


def fit_to_tokens(text: str, max_tokens: int | None = None) -> tuple[str, int]:
    """Cut ``text`` to at most ``max_tokens`` estimated tokens; return it and its estimate.

    The estimate is deliberately high for prose (about 3 characters a token,
    where real tokenizers average 4) so that a truncated text is never longer
    than a model's input limit, even for code, numbers and non-Latin scripts.
    """
    total = 0
    for match in _PIECE.finditer(text):
        tokens, chars_per_token = _piece_tokens(match.group())
        if max_tokens is not None and total + tokens > max_tokens:
            kept = (max_tokens - total) * chars_per_token
            return text[: match.start() + kept], total + (max_tokens - total if kept else 0)
        total += tokens
    return text, total


def estimate_tokens(text: str) -> int:
    """Estimated token count of ``text`` (an upper bound for common tokenizers)."""
    return fit_to_tokens(text)[1]


def plan_batches(token_counts: Sequence[int], max_items: int, max_tokens: int) -> list[range]:
    """Consecutive index ranges of at most ``max_items`` texts and ``max_tokens`` tokens.

    A single text over the token budget still gets a batch of its own.
    """
    batches: list[range] = []
    start, tokens = 0, 0
    for index, count in enumerate(token_counts):
        full = index - start >= max_items or (index > start and tokens + count > max_tokens)
        if full:
            batches.append(range(start, index))
            start, tokens = index, 0
        tokens += count
    if start < len(token_counts):
        batches.append(range(start, len(token_counts)))
    return batches


def parse_retry_after(headers: Mapping[str, str], now: float | None = None) -> float | None:
    """Seconds a reply asks us to wait: ``retry-after-ms``, or ``Retry-After`` in
    seconds or as an HTTP date; ``None`` when absent or unreadable."""
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            return max(0.0, float(millis) / 1000)
        except ValueError:
            pass
    value = (headers.get("retry-after") or "").strip()
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def backoff_delay(attempt: int, rand: float) -> float:
    """Pause before retry number ``attempt + 1``: exponential, capped, with jitter.

    ``rand`` in [0, 1) spreads the pause over the upper half of the step so that
    parallel batches hitting a rate limit together do not retry together.
    """
    step = min(BACKOFF_CAP, BACKOFF_BASE * 2**attempt)
    return step * (0.5 + rand / 2)


def error_detail(response: httpx.Response, secret: str | None = None) -> str:
    """The server's own short explanation of an error reply, with any secret masked."""
    try:
        payload = response.json()
    except ValueError:
        payload = None
    detail: Any = None
    if isinstance(payload, dict):
        detail = payload.get("error") or payload.get("detail") or payload.get("message")
        if isinstance(detail, dict):
            detail = detail.get("message")
    text = " ".join(str(detail if detail else response.text).split())
    if secret:
        text = text.replace(secret, "***")
    return text[:DETAIL_CHARS] or "no explanation given"


@dataclass
class BatchReply:
    """What one request returned: the vectors in input order and the tokens billed."""

    vectors: list[Any]
    tokens: int | None = None


def read_data_reply(payload: Any, label: str, count: int) -> BatchReply:
    """Read the ``{"data": [{"index", "embedding"}], "usage": {...}}`` reply of
    OpenAI and Voyage, ordering vectors by their ``index``."""
    data = payload.get("data") if isinstance(payload, dict) else None
    if not isinstance(data, list) or not all(isinstance(item, dict) for item in data):
        raise EmbeddingError(f"{label} returned a reply without a 'data' list of embeddings.")
    if len(data) != count:
        raise EmbeddingError(f"{label} returned {len(data)} embeddings for {count} texts.")
    indexes = [item.get("index", position) for position, item in enumerate(data)]
    if sorted(indexes) != list(range(count)):
        raise EmbeddingError(f"{label} returned embeddings with missing or repeated indexes.")
    vectors: list[Any] = [None] * count
    for index, item in zip(indexes, data, strict=True):
        vectors[index] = item.get("embedding")
    usage = payload.get("usage")
    tokens = usage.get("total_tokens") if isinstance(usage, dict) else None
    return BatchReply(vectors, tokens if isinstance(tokens, int) else None)


def embeddings_url(base_url: str) -> str:
    """The embeddings endpoint under a base URL, with or without its ``/v1``."""
    base = base_url.rstrip("/")
    return f"{base}/embeddings" if base.endswith("/v1") else f"{base}/v1/embeddings"


class RemoteEmbedder(ABC):
    """Base of the HTTP embedders; see the module docstring for what it does.

    ``api_calls`` counts HTTP requests sent (retries included) and
    ``tokens_used`` the tokens the provider reported, or our estimate when it
    reports none.
    """

    provider = "remote"
    label = "The embedding provider"
    max_batch_items = 2048
    """The API's hard limit on inputs per request; ``batch_size`` may not exceed it."""

    def __init__(
        self,
        model: str,
        *,
        base_url: str,
        headers: Mapping[str, str],
        transport: httpx.BaseTransport | None,
        max_concurrency: int,
        max_retries: int,
        timeout: float,
        sleep: Callable[[float], None],
        batch_size: int,
        max_batch_tokens: int,
        max_input_tokens: int,
        dimension: int | None,
        key_source: str | None = None,
        secret: str | None = None,
    ) -> None:
        _require_positive(max_concurrency=max_concurrency, batch_size=batch_size)
        _require_positive(max_batch_tokens=max_batch_tokens, max_input_tokens=max_input_tokens)
        if max_retries < 0:
            raise ConfigError(f"max_retries must be 0 or more, not {max_retries}.")
        if batch_size > self.max_batch_items:
            raise ConfigError(
                f"batch_size {batch_size} exceeds the {self.label} limit of "
                f"{self.max_batch_items} texts per request."
            )
        if timeout <= 0:
            raise ConfigError(f"timeout must be a positive number of seconds, not {timeout}.")
        self.model = model
        self.base_url = base_url.rstrip("/")
        self.max_concurrency = max_concurrency
        self.max_retries = max_retries
        self.batch_size = batch_size
        self.max_batch_tokens = max_batch_tokens
        self.max_input_tokens = max_input_tokens
        self.key_source = key_source
        self.api_calls = 0
        self.tokens_used = 0
        self._dimension = dimension
        self._secret = secret
        self._sleep = sleep
        self._lock = threading.Lock()
        limits = httpx.Limits(max_connections=max_concurrency)
        self._client = httpx.Client(
            transport=transport,
            timeout=timeout,
            limits=limits,
            headers={"User-Agent": "contextbase", **headers},
        )

    def __repr__(self) -> str:
        parts = [f"model={self.model!r}", f"dimension={self._dimension!r}"]
        parts.append(f"base_url={self.base_url!r}")
        if self.key_source:
            parts.append(f"key_source={self.key_source!r}")
        return f"{type(self).__name__}({', '.join(parts)})"

    @property
    def dimension(self) -> int:
        """Vector length; for a model not known in advance, learned with one request."""
        if self._dimension is None:
            self.embed_documents(["dimension probe"])
        assert self._dimension is not None
        return self._dimension

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed texts to be stored; one vector per text, in order."""
        return self._embed(texts, "document")

    def embed_query(self, text: str) -> list[float]:
        """Embed one search query."""
        return self._embed([text], "query")[0]

    def close(self) -> None:
        """Close the HTTP connections."""
        self._client.close()

    def __enter__(self) -> RemoteEmbedder:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @abstractmethod
    def _embed_batch(self, texts: list[str], input_type: InputType) -> BatchReply:
        """Send one batch and read the reply, vectors in input order."""

    def _embed(self, texts: Sequence[str], input_type: InputType) -> list[list[float]]:
        if isinstance(texts, str):
            raise InvalidInputError("embed_documents takes a list of texts, not one string.")
        prepared: list[str] = []
        counts: list[int] = []
        for text in texts:
            if not isinstance(text, str):
                raise InvalidInputError(
                    f"Texts to embed must be strings, not {type(text).__name__}."
                )
            # APIs reject empty inputs; a space embeds to a harmless near-empty vector.
            fitted, tokens = fit_to_tokens(text or " ", self.max_input_tokens)
            prepared.append(fitted or " ")
            counts.append(max(tokens, 1))
        batches = plan_batches(counts, self.batch_size, self.max_batch_tokens)

        def run(batch: range) -> list[list[float]]:
            estimate = sum(counts[i] for i in batch)
            return self._run_batch([prepared[i] for i in batch], estimate, input_type)

        if len(batches) <= 1 or self.max_concurrency == 1:
            results = [run(batch) for batch in batches]
        else:
            workers = min(self.max_concurrency, len(batches))
            with ThreadPoolExecutor(workers, thread_name_prefix=self.provider) as pool:
                futures = [pool.submit(run, batch) for batch in batches]
                try:
                    results = [future.result() for future in futures]
                except BaseException:
                    for future in futures:
                        future.cancel()
                    raise
        return [vector for result in results for vector in result]

    def _run_batch(
        self, texts: list[str], estimate: int, input_type: InputType
    ) -> list[list[float]]:
        reply = self._embed_batch(texts, input_type)
        if len(reply.vectors) != len(texts):
            raise EmbeddingError(
                f"{self.label} returned {len(reply.vectors)} embeddings for {len(texts)} texts."
            )
        vectors = [self._as_vector(raw) for raw in reply.vectors]
        with self._lock:
            if self._dimension is None:
                self._dimension = len(vectors[0])
            expected = self._dimension
            self.tokens_used += reply.tokens if reply.tokens is not None else estimate
        for vector in vectors:
            if len(vector) != expected:
                raise EmbeddingError(
                    f"{self.label} returned a {len(vector)}-dimensional vector for model "
                    f"{self.model!r}, which should give {expected} dimensions."
                )
        return vectors

    def _as_vector(self, raw: Any) -> list[float]:
        if isinstance(raw, list) and raw:
            try:
                return [float(value) for value in raw]
            except (TypeError, ValueError):
                pass
        raise EmbeddingError(f"{self.label} returned an embedding that is not a list of numbers.")

    def _post(self, url: str, body: Any, *, passthrough: Collection[int] = ()) -> httpx.Response:
        """POST JSON, retrying what may succeed later; statuses in ``passthrough``
        are returned to the caller instead of being treated as errors."""
        attempts = self.max_retries + 1
        last_failure = ""
        for attempt in range(attempts):
            with self._lock:
                self.api_calls += 1
            try:
                response = self._client.post(url, json=body)
            except httpx.TransportError as exc:
                last_failure = f"could not reach {self.base_url} ({type(exc).__name__}: {exc})"
                delay = backoff_delay(attempt, random.random())
            else:
                status = response.status_code
                if status < 300 or status in passthrough:
                    return response
                if status in (401, 403):
                    # The server's message is left out: some echo the key they rejected.
                    source = f" from {self.key_source}" if self.key_source else ""
                    raise AuthenticationError(
                        f"{self.label} rejected the API key{source} (HTTP {status})."
                    )
                if status not in RETRYABLE_STATUS and status < 500:
                    raise EmbeddingError(
                        f"{self.label} refused the embedding request with HTTP {status}: "
                        f"{error_detail(response, self._secret)}"
                    )
                last_failure = f"HTTP {status} ({error_detail(response, self._secret)})"
                wait = parse_retry_after(response.headers)
                if wait is not None and wait > MAX_RETRY_AFTER:
                    raise EmbeddingError(
                        f"{self.label} answered HTTP {status} and asked to wait {wait:.0f} "
                        f"seconds, longer than the {MAX_RETRY_AFTER:.0f} seconds we wait."
                    )
                delay = backoff_delay(attempt, random.random()) if wait is None else wait
            if attempt + 1 < attempts:
                self._sleep(delay)
        raise EmbeddingError(
            f"The {self.label} embedding request failed after {attempts} attempts; "
            f"the last one: {last_failure}."
        )

    def _json(self, response: httpx.Response) -> Any:
        try:
            return response.json()
        except ValueError:
            raise EmbeddingError(
                f"{self.label} returned a reply that is not valid JSON "
                f"(HTTP {response.status_code})."
            ) from None


def _require_positive(**values: int) -> None:
    for name, value in values.items():
        if value < 1:
            raise ConfigError(f"{name} must be a positive whole number, not {value}.")
