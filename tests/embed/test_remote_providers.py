"""The OpenAI, Voyage and Ollama embedders against a real local HTTP server."""

from __future__ import annotations

import re
import socket
from collections.abc import Iterator
from email.utils import formatdate
from pathlib import Path
from typing import Any

import httpx
import pytest
from remote_api_server import EmbeddingAPI, vector_for

from contextbase.embed import get_embedder
from contextbase.embed._http import (
    backoff_delay,
    estimate_tokens,
    fit_to_tokens,
    parse_retry_after,
    plan_batches,
)
from contextbase.embed.base import Embedder, space_key
from contextbase.embed.keys import load_api_key
from contextbase.embed.ollama import OllamaEmbedder, ollama_base_url
from contextbase.embed.openai import OpenAIEmbedder
from contextbase.embed.voyage import VoyageEmbedder
from contextbase.errors import (
    AuthenticationError,
    ConfigError,
    EmbeddingError,
    InvalidInputError,
)

KEY = "sk-test-0123456789"


@pytest.fixture
def api() -> Iterator[EmbeddingAPI]:
    with EmbeddingAPI(api_key=KEY) as server:
        yield server


@pytest.fixture
def sleeps() -> list[float]:
    """Pauses the embedder asked for; handed to it as its ``sleep``."""
    return []


@pytest.fixture(autouse=True)
def no_ambient_keys(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Keys and hosts of the machine running the tests must not leak in."""
    for name in ("OPENAI_API_KEY", "VOYAGE_API_KEY", "OLLAMA_HOST"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


def openai(api: EmbeddingAPI, sleeps: list[float], **options: Any) -> OpenAIEmbedder:
    options.setdefault("dimensions", 8)
    return OpenAIEmbedder(api_key=KEY, base_url=api.url, sleep=sleeps.append, **options)


def texts(count: int, prefix: str = "text") -> list[str]:
    return [f"{prefix} number {i}" for i in range(count)]


# --- OpenAI -----------------------------------------------------------------------


def test_openai_speaks_the_embeddings_api(api: EmbeddingAPI, sleeps: list[float]) -> None:
    embedder = OpenAIEmbedder(api_key=KEY, base_url=api.url, sleep=sleeps.append)
    vectors = embedder.embed_documents(["alpha", "beta beta"])

    assert isinstance(embedder, Embedder)
    assert space_key(embedder) == ("openai", "text-embedding-3-small", 1536)
    assert vectors == [vector_for("alpha", 1536), vector_for("beta beta", 1536)]
    (seen,) = api.requests
    assert seen.headers["authorization"] == f"Bearer {KEY}"
    assert seen.body == {
        "model": "text-embedding-3-small",
        "input": ["alpha", "beta beta"],
        "encoding_format": "float",
    }
    assert embedder.api_calls == 1
    assert embedder.tokens_used == 1 + 2  # the server's usage.total_tokens
    assert embedder.embed_query("alpha") == vector_for("alpha", 1536)
    assert sleeps == []


def test_openai_through_get_embedder(api: EmbeddingAPI) -> None:
    embedder = get_embedder("openai:text-embedding-3-small", base_url=api.url, api_key=KEY)
    assert isinstance(embedder, OpenAIEmbedder)
    assert embedder.dimension == 1536
    assert embedder.embed_query("hello") == vector_for("hello", 1536)


def test_openai_dimensions_option_and_v1_base_url(api: EmbeddingAPI) -> None:
    embedder = OpenAIEmbedder(
        "text-embedding-3-large", api_key=KEY, base_url=f"{api.url}/v1/", dimensions=256
    )
    assert embedder.dimension == 256
    assert len(embedder.embed_query("x")) == 256
    assert api.requests[0].path == "/v1/embeddings"
    assert api.requests[0].body["dimensions"] == 256


def test_openai_rejects_impossible_dimensions() -> None:
    with pytest.raises(ConfigError, match="does not accept the dimensions"):
        OpenAIEmbedder("text-embedding-ada-002", api_key=KEY, dimensions=512)
    with pytest.raises(ConfigError, match="at most 1536"):
        OpenAIEmbedder("text-embedding-3-small", api_key=KEY, dimensions=2000)
    with pytest.raises(ConfigError, match="2048"):
        OpenAIEmbedder(api_key=KEY, batch_size=5000)


def test_openai_batches_at_2048_inputs(api: EmbeddingAPI, sleeps: list[float]) -> None:
    many = texts(5000)
    vectors = openai(api, sleeps).embed_documents(many)

    assert sorted(len(batch) for batch in api.inputs()) == [904, 2048, 2048]
    assert vectors == [vector_for(text, 8) for text in many]


def test_openai_batches_within_the_token_budget(api: EmbeddingAPI, sleeps: list[float]) -> None:
    # Each text is 8000 estimated tokens: 37 of them fit the 300k-token budget.
    long_texts = [f"{i} " + "abcd " * 8000 for i in range(100)]
    openai(api, sleeps).embed_documents(long_texts)

    batches = api.inputs()
    assert sorted(len(batch) for batch in batches) == [26, 37, 37]
    assert all(sum(map(estimate_tokens, batch)) <= 300_000 for batch in batches)


def test_concurrent_batches_come_back_in_order(api: EmbeddingAPI, sleeps: list[float]) -> None:
    # The first batch is the slowest, so batches finish out of order.
    api.delay = lambda seen: 0.3 if seen.body["input"][0] == "text number 0" else 0.05
    many = texts(40)
    vectors = openai(api, sleeps, batch_size=10, max_concurrency=4).embed_documents(many)

    assert vectors == [vector_for(text, 8) for text in many]
    assert len(api.requests) == 4
    assert api.max_in_flight >= 2


def test_429_waits_as_long_as_retry_after_says(api: EmbeddingAPI, sleeps: list[float]) -> None:
    api.queue(429, {"error": {"message": "Rate limit reached"}}, {"Retry-After": "7"})
    embedder = openai(api, sleeps)

    assert embedder.embed_query("hi") == vector_for("hi", 8)
    assert sleeps == [7.0]
    assert embedder.api_calls == 2


def test_retry_after_as_an_http_date(api: EmbeddingAPI, sleeps: list[float]) -> None:
    import time

    api.queue(503, {}, {"Retry-After": formatdate(time.time() + 30, usegmt=True)})
    openai(api, sleeps).embed_query("hi")
    (pause,) = sleeps
    assert 27 <= pause <= 30


def test_429_without_retry_after_backs_off(api: EmbeddingAPI, sleeps: list[float]) -> None:
    api.queue(429, {"error": {"message": "slow down"}})
    api.queue(429, {"error": {"message": "slow down"}})
    openai(api, sleeps).embed_query("hi")

    assert len(sleeps) == 2
    assert 0.25 <= sleeps[0] <= 0.5
    assert 0.5 <= sleeps[1] <= 1.0


def test_server_error_then_success(api: EmbeddingAPI, sleeps: list[float]) -> None:
    api.queue(500, {"error": {"message": "The server had an error"}})
    embedder = openai(api, sleeps)

    assert embedder.embed_documents(["a", "b"]) == [vector_for("a", 8), vector_for("b", 8)]
    assert len(sleeps) == 1
    assert embedder.api_calls == 2


def test_exhausted_retries_raise_with_the_status(api: EmbeddingAPI, sleeps: list[float]) -> None:
    for _ in range(3):
        api.queue(503, {"error": {"message": "overloaded"}})
    with pytest.raises(EmbeddingError, match=r"after 3 attempts.*HTTP 503"):
        openai(api, sleeps, max_retries=2).embed_query("hi")
    assert len(sleeps) == 2


def test_unreachable_server_is_retried_then_reported(sleeps: list[float]) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    embedder = OpenAIEmbedder(
        api_key=KEY, base_url=f"http://127.0.0.1:{port}", sleep=sleeps.append, max_retries=2
    )
    with pytest.raises(EmbeddingError, match="could not reach"):
        embedder.embed_query("hi")
    assert len(sleeps) == 2
    assert embedder.api_calls == 3


def test_an_unreasonable_retry_after_is_not_waited_for(
    api: EmbeddingAPI, sleeps: list[float]
) -> None:
    api.queue(429, {}, {"Retry-After": "86400"})
    with pytest.raises(EmbeddingError, match="asked to wait 86400 seconds"):
        openai(api, sleeps).embed_query("hi")
    assert sleeps == []


def test_rejected_key_raises_authentication_error_without_the_key(
    api: EmbeddingAPI, sleeps: list[float]
) -> None:
    secret = "sk-wrong-key-abcdef"
    embedder = OpenAIEmbedder(api_key=secret, base_url=api.url, sleep=sleeps.append)
    with pytest.raises(AuthenticationError) as caught:
        embedder.embed_query("hi")

    message = str(caught.value)
    assert "OpenAI" in message and "api_key option" in message and "401" in message
    assert secret not in message
    assert secret not in repr(embedder)
    assert embedder.api_calls == 1 and sleeps == []


def test_a_bad_request_is_reported_with_the_servers_reason(
    api: EmbeddingAPI, sleeps: list[float]
) -> None:
    api.queue(400, {"error": {"message": "This model's maximum context length is 8192 tokens"}})
    with pytest.raises(EmbeddingError, match=r"HTTP 400: This model's maximum context length"):
        openai(api, sleeps).embed_query("hi")
    assert sleeps == []


def test_malformed_json_raises_embedding_error(api: EmbeddingAPI, sleeps: list[float]) -> None:
    api.queue(200, b"{not json")
    with pytest.raises(EmbeddingError, match="not valid JSON"):
        openai(api, sleeps).embed_query("hi")


def test_wrong_dimension_raises_embedding_error(api: EmbeddingAPI, sleeps: list[float]) -> None:
    api.queue(200, {"data": [{"index": 0, "embedding": [0.1, 0.2, 0.3]}]})
    with pytest.raises(EmbeddingError, match=r"3-dimensional.*should give 8"):
        openai(api, sleeps).embed_query("hi")


@pytest.mark.parametrize(
    "reply",
    [
        {"data": [{"index": 0, "embedding": [0.0] * 8}]},
        {"data": [{"index": 0, "embedding": [0.0] * 8}, {"index": 0, "embedding": [0.0] * 8}]},
        {"data": [{"index": 0, "embedding": [0.0] * 8}, {"index": 1, "embedding": "nope"}]},
        {"vectors": []},
    ],
)
def test_wrong_replies_raise_embedding_error(
    api: EmbeddingAPI, sleeps: list[float], reply: dict[str, Any]
) -> None:
    api.queue(200, reply)
    with pytest.raises(EmbeddingError):
        openai(api, sleeps).embed_documents(["a", "b"])


def test_empty_text_is_sent_as_a_space(api: EmbeddingAPI, sleeps: list[float]) -> None:
    assert openai(api, sleeps).embed_documents(["", "x"]) == [
        vector_for(" ", 8),
        vector_for("x", 8),
    ]
    assert api.inputs() == [[" ", "x"]]


def test_long_text_is_truncated_before_sending(api: EmbeddingAPI, sleeps: list[float]) -> None:
    huge = "word " * 20_000 + "lorem-ipsum_42 " * 5_000
    openai(api, sleeps).embed_query(huge)
    openai(api, sleeps, max_input_tokens=10).embed_query(huge)

    first, second = (batch[0] for batch in api.inputs())
    assert huge.startswith(first) and estimate_tokens(first) <= 8191
    assert 8191 * 3 <= len(first) <= 8191 * 5
    assert second == "word " * 10


def test_a_single_string_is_refused_not_split_into_characters(
    api: EmbeddingAPI, sleeps: list[float]
) -> None:
    with pytest.raises(InvalidInputError, match="list of texts"):
        openai(api, sleeps).embed_documents("one text")  # type: ignore[arg-type]
    assert api.requests == []


def test_an_injected_transport_carries_the_requests() -> None:
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        data = [{"index": 0, "embedding": [0.6, 0.8]}]
        return httpx.Response(200, json={"data": data, "usage": {"total_tokens": 5}})

    embedder = OpenAIEmbedder(
        "compatible-model", api_key=KEY, transport=httpx.MockTransport(answer)
    )
    assert embedder.embed_query("hi") == [0.6, 0.8]
    assert str(seen[0].url) == "https://api.openai.com/v1/embeddings"
    assert embedder.dimension == 2 and embedder.tokens_used == 5


def test_repr_names_the_key_source_not_the_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    text = repr(OpenAIEmbedder())
    assert "OPENAI_API_KEY" in text and KEY not in text


# --- Voyage -----------------------------------------------------------------------


def test_voyage_sends_input_type(api: EmbeddingAPI, sleeps: list[float]) -> None:
    embedder = VoyageEmbedder("voyage-3-lite", api_key=KEY, base_url=api.url, sleep=sleeps.append)
    assert embedder.dimension == 512 and embedder.api_calls == 0

    assert embedder.embed_documents(["a doc"]) == [vector_for("a doc", 512)]
    assert embedder.embed_query("a query") == vector_for("a query", 512)
    assert [seen.body["input_type"] for seen in api.requests] == ["document", "query"]
    assert api.requests[0].body["model"] == "voyage-3-lite"
    assert embedder.tokens_used == 1 + 1


def test_voyage_batches_128_by_default(api: EmbeddingAPI, sleeps: list[float]) -> None:
    embedder = VoyageEmbedder("voyage-test", api_key=KEY, base_url=api.url, sleep=sleeps.append)
    many = texts(300)
    assert embedder.embed_documents(many) == [vector_for(text, 8) for text in many]
    assert sorted(len(batch) for batch in api.inputs()) == [44, 128, 128]
    with pytest.raises(ConfigError, match="1000"):
        VoyageEmbedder(api_key=KEY, batch_size=1001)


def test_voyage_learns_the_dimension_of_an_unknown_model(api: EmbeddingAPI) -> None:
    embedder = VoyageEmbedder("voyage-future-9", api_key=KEY, base_url=api.url)
    assert embedder.dimension == 8
    assert embedder.api_calls == 1
    assert space_key(embedder) == ("voyage", "voyage-future-9", 8)


def test_voyage_rejected_key_names_the_env_var(
    api: EmbeddingAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VOYAGE_API_KEY", "pa-wrong-key")
    embedder = VoyageEmbedder(base_url=api.url)
    with pytest.raises(AuthenticationError, match=r"Voyage.*VOYAGE_API_KEY") as caught:
        embedder.embed_query("hi")
    assert "pa-wrong-key" not in str(caught.value)


# --- Ollama -----------------------------------------------------------------------


def test_ollama_uses_api_embed_in_batches(api: EmbeddingAPI, sleeps: list[float]) -> None:
    embedder = OllamaEmbedder("my-embedder", base_url=api.url, sleep=sleeps.append)
    many = texts(70)

    assert embedder.embed_documents(many) == [vector_for(text, 8) for text in many]
    assert sorted(len(batch) for batch in api.inputs("/api/embed")) == [6, 32, 32]
    assert embedder.dimension == 8
    assert embedder.tokens_used == sum(max(1, len(text) // 4) for text in many)


def test_ollama_known_model_and_host_from_environment(
    api: EmbeddingAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OLLAMA_HOST", api.url.removeprefix("http://"))
    embedder = get_embedder("ollama")
    assert isinstance(embedder, OllamaEmbedder)
    assert space_key(embedder) == ("ollama", "nomic-embed-text", 768)
    assert embedder.base_url == api.url
    assert embedder.embed_query("hi") == vector_for("hi", 768)
    assert api.requests[0].body == {"model": "nomic-embed-text", "input": ["hi"]}


def test_ollama_falls_back_to_the_old_endpoint(api: EmbeddingAPI, sleeps: list[float]) -> None:
    api.legacy_ollama = True
    embedder = OllamaEmbedder("my-embedder", base_url=api.url, sleep=sleeps.append)

    first = embedder.embed_documents(["one", "two"])
    second = embedder.embed_query("three")
    assert [seen.path for seen in api.requests] == [
        "/api/embed",
        "/api/embeddings",
        "/api/embeddings",
        "/api/embeddings",
    ]
    assert api.requests[1].body == {"model": "my-embedder", "prompt": "one"}
    # The old endpoint's vectors are normalised like /api/embed's.
    expected = [vector_for(text, 8) for text in ("one", "two", "three")]
    assert [*first, second] == [pytest.approx(vector) for vector in expected]
    assert embedder.legacy_endpoint and sleeps == []


def test_ollama_missing_model_is_not_mistaken_for_an_old_server(api: EmbeddingAPI) -> None:
    api.queue(404, {"error": 'model "nomic-embed-text" not found, try pulling it first'})
    with pytest.raises(EmbeddingError, match="ollama pull nomic-embed-text"):
        OllamaEmbedder(base_url=api.url).embed_query("hi")
    assert len(api.requests) == 1


@pytest.mark.parametrize(
    ("host", "url"),
    [
        ("0.0.0.0", "http://127.0.0.1:11434"),
        ("localhost:8080", "http://localhost:8080"),
        ("https://ollama.example.com/", "https://ollama.example.com"),
        ("http://[::1]:11434", "http://[::1]:11434"),
        ("http://gpu-box:11434/proxy/", "http://gpu-box:11434/proxy"),
    ],
)
def test_ollama_host_values(host: str, url: str) -> None:
    assert ollama_base_url(host) == url


def test_ollama_bad_host_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="ftp://x"):
        ollama_base_url("ftp://x")


# --- API keys ---------------------------------------------------------------------


def load_openai_key(**options: Any) -> Any:
    options.setdefault("api_key", None)
    options.setdefault("api_key_file", None)
    return load_api_key(
        "OpenAI", env_var="OPENAI_API_KEY", default_file="~/.openai-api-key", **options
    )


def test_key_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", f"  {KEY}\n")
    key = load_openai_key()
    assert key.value == KEY
    assert key.source == "the environment variable OPENAI_API_KEY"
    assert KEY not in repr(key)


def test_key_from_the_default_file(api: EmbeddingAPI, tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / ".voyage-api-key").write_text(f"{KEY}\n")
    embedder = VoyageEmbedder("voyage-x", base_url=api.url)
    embedder.embed_query("hi")
    assert api.requests[0].headers["authorization"] == f"Bearer {KEY}"
    assert embedder.key_source == f"the key file {home / '.voyage-api-key'}"


def test_explicit_key_file_wins_over_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
    key_file = tmp_path / "openai.key"
    key_file.write_text(" sk-from-file \n")
    assert load_openai_key(api_key_file=key_file).value == "sk-from-file"
    assert load_openai_key(api_key="sk-explicit", api_key_file=key_file).value == "sk-explicit"


def test_missing_key_names_the_env_var_and_the_file() -> None:
    with pytest.raises(ConfigError, match=r"OPENAI_API_KEY.*~/\.openai-api-key"):
        OpenAIEmbedder()


def test_unreadable_key_file_names_the_file(tmp_path: Path) -> None:
    not_a_file = tmp_path / "keys"
    not_a_file.mkdir()
    with pytest.raises(
        ConfigError, match=re.escape(f"Cannot read the OpenAI API key file {not_a_file}")
    ):
        OpenAIEmbedder(api_key_file=not_a_file)
    with pytest.raises(ConfigError, match=r"missing\.key"):
        VoyageEmbedder(api_key_file=tmp_path / "missing.key")


def test_empty_or_garbled_key_files_are_config_errors(tmp_path: Path) -> None:
    empty = tmp_path / "empty.key"
    empty.write_text("\n")
    with pytest.raises(ConfigError, match="is empty"):
        load_openai_key(api_key_file=empty)
    two_lines = tmp_path / "two.key"
    two_lines.write_text("OPENAI_API_KEY=\nsk-secret-part\n")
    with pytest.raises(ConfigError, match="single word") as caught:
        load_openai_key(api_key_file=two_lines)
    assert "sk-secret-part" not in str(caught.value)


# --- helpers ----------------------------------------------------------------------


def test_fit_to_tokens_cuts_inside_long_words() -> None:
    assert fit_to_tokens("short text", 100) == ("short text", 3)
    assert fit_to_tokens("abcdefghij", 2) == ("abcdefgh", 2)
    assert fit_to_tokens("a.b.c.d", 3) == ("a.b", 3)
    cut, tokens = fit_to_tokens("数据库索引" * 100, 50)
    assert tokens <= 50 and estimate_tokens(cut) <= 50 and cut


def test_plan_batches_respects_items_and_tokens() -> None:
    assert plan_batches([1] * 5, 2, 100) == [range(0, 2), range(2, 4), range(4, 5)]
    assert plan_batches([60, 50, 10, 200, 5], 10, 100) == [
        range(0, 1),
        range(1, 3),
        range(3, 4),
        range(4, 5),
    ]
    assert plan_batches([], 10, 100) == []


def test_parse_retry_after_forms() -> None:
    assert parse_retry_after({"retry-after": "2.5"}) == 2.5
    assert parse_retry_after({"retry-after-ms": "1500", "retry-after": "9"}) == 1.5
    assert parse_retry_after({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}, now=1445412460) == 20
    assert parse_retry_after({"retry-after": "soon"}) is None
    assert parse_retry_after({}) is None


def test_backoff_grows_and_is_capped() -> None:
    assert backoff_delay(0, 0.0) == 0.25 and backoff_delay(0, 0.999) < 0.5
    assert backoff_delay(3, 0.0) == 2.0
    assert backoff_delay(20, 0.999) <= 30
