"""A real HTTP server on 127.0.0.1 speaking the OpenAI, Voyage and Ollama embedding APIs.

It answers like the real services (request validation, reply shapes, usage,
401 for a wrong key) and can be scripted: ``queue()`` replies that the next
requests receive instead of the normal answer, ``delay`` to slow some
requests down. Every request is recorded in ``requests``.
"""

from __future__ import annotations

import json
import math
import re
import threading
import time
import zlib
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

KNOWN_DIMENSIONS = {
    "text-embedding-3-small": 1536,
    "text-embedding-3-large": 3072,
    "text-embedding-ada-002": 1536,
    "voyage-3": 1024,
    "voyage-3-lite": 512,
    "nomic-embed-text": 768,
}
DEFAULT_DIMENSION = 8


def vector_for(text: str, dimension: int) -> list[float]:
    """The unit vector the server returns for ``text``: a hashed bag of its words.

    Texts sharing words get similar vectors (so rankings in tests mean something),
    and a checksum component keeps distinct texts apart.
    """
    raw = [0.0] * dimension
    for word in re.findall(r"[a-z0-9]+", text.lower()):
        raw[zlib.crc32(word.encode()) % (dimension - 1) + 1] += 1.0
    raw[0] = (zlib.crc32(text.encode()) % 1000 + 1) / 1000
    norm = math.sqrt(sum(v * v for v in raw))
    return [v / norm for v in raw]


@dataclass
class Reply:
    status: int
    body: bytes
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Seen:
    path: str
    headers: dict[str, str]
    body: Any


class EmbeddingAPI:
    """Start with ``with EmbeddingAPI() as api:``; ``api.url`` is its base URL."""

    def __init__(self, api_key: str | None = None) -> None:
        self.api_key = api_key
        """When set, requests must carry ``Authorization: Bearer <api_key>``."""
        self.legacy_ollama = False
        """Behave like Ollama before 0.3: no ``/api/embed``."""
        self.delay: Callable[[Seen], float] = lambda seen: 0.0
        self.requests: list[Seen] = []
        self.max_in_flight = 0
        self._in_flight = 0
        self._script: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> EmbeddingAPI:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def queue(self, status: int, body: Any = None, headers: dict[str, str] | None = None) -> None:
        """Answer the next unscripted request with this reply (bytes are sent as is)."""
        raw = body if isinstance(body, bytes) else json.dumps(body or {}).encode()
        self._script.append(Reply(status, raw, headers or {}))

    def inputs(self, path: str = "/v1/embeddings") -> list[list[str]]:
        """The ``input`` list of every request to ``path``, in arrival order."""
        return [seen.body["input"] for seen in self.requests if seen.path == path]

    def handle(self, path: str, headers: dict[str, str], raw: bytes) -> Reply:
        try:
            body = json.loads(raw)
        except ValueError:
            return _error(400, "The request body is not valid JSON.")
        seen = Seen(path, headers, body)
        with self._lock:
            self.requests.append(seen)
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)
            scripted = self._script.popleft() if self._script else None
        try:
            time.sleep(self.delay(seen))
            return scripted or self._answer(seen)
        finally:
            with self._lock:
                self._in_flight -= 1

    def _answer(self, seen: Seen) -> Reply:
        body = seen.body
        model = body.get("model")
        if not isinstance(model, str):
            return _error(400, "'model' is required.")
        dimension = body.get("dimensions") or KNOWN_DIMENSIONS.get(model, DEFAULT_DIMENSION)
        if seen.path == "/v1/embeddings":
            expected = f"Bearer {self.api_key}"
            if self.api_key and seen.headers.get("authorization") != expected:
                given = seen.headers.get("authorization", "").removeprefix("Bearer ")
                # Like OpenAI, echo the rejected key so a test can see it is not leaked.
                return _error(401, f"Incorrect API key provided: {given}.")
            return self._answer_openai_style(body, model, dimension)
        if seen.path == "/api/embed" and not self.legacy_ollama:
            texts = body.get("input")
            if not isinstance(texts, list):
                return _error(400, "'input' must be a list.")
            vectors = [vector_for(t, dimension) for t in texts]
            tokens = sum(max(1, len(t) // 4) for t in texts)
            return _json(200, {"model": model, "embeddings": vectors, "prompt_eval_count": tokens})
        if seen.path == "/api/embeddings":
            prompt = body.get("prompt")
            if not isinstance(prompt, str):
                return _error(400, "'prompt' must be a string.")
            # The old endpoint returns vectors that are not unit length.
            return _json(200, {"embedding": [3 * v for v in vector_for(prompt, dimension)]})
        return Reply(404, b"404 page not found", {"Content-Type": "text/plain"})

    def _answer_openai_style(self, body: dict[str, Any], model: str, dimension: int) -> Reply:
        texts = body.get("input")
        voyage = "input_type" in body
        limit = 1000 if voyage else 2048
        if not isinstance(texts, list) or not 1 <= len(texts) <= limit:
            return _error(400, f"'input' must be a list of 1 to {limit} strings.")
        if not all(isinstance(t, str) and t for t in texts):
            return _error(400, "'input' must not contain empty strings.")
        if voyage and body["input_type"] not in ("document", "query", None):
            return _error(400, "'input_type' must be document or query.")
        if not voyage and body.get("encoding_format") != "float":
            return _error(400, "this server only sends float vectors.")
        data = [
            {"object": "embedding", "index": i, "embedding": vector_for(t, dimension)}
            for i, t in enumerate(texts)
        ]
        data.reverse()  # replies are ordered by "index", not by position
        tokens = sum(max(1, len(t) // 4) for t in texts)
        usage = {"prompt_tokens": tokens, "total_tokens": tokens}
        return _json(200, {"object": "list", "data": data, "model": model, "usage": usage})


def _json(status: int, payload: Any) -> Reply:
    return Reply(status, json.dumps(payload).encode(), {"Content-Type": "application/json"})


def _error(status: int, message: str) -> Reply:
    return _json(status, {"error": {"message": message, "type": "invalid_request_error"}})


def _handler_for(api: EmbeddingAPI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            headers = {name.lower(): value for name, value in self.headers.items()}
            reply = api.handle(self.path, headers, raw)
            self.send_response(reply.status)
            for name, value in reply.headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(reply.body)))
            self.end_headers()
            self.wfile.write(reply.body)

        def log_message(self, format: str, *args: Any) -> None:
            pass  # keep test output clean

    return Handler
