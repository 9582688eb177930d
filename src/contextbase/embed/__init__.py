"""Embedding providers, chosen by a spec string.

``local`` (all-MiniLM-L6-v2), ``none`` (keyword-only), ``fake[:DIM]`` (tests),
``openai[:MODEL]``, ``voyage[:MODEL]``, ``ollama[:MODEL]``. Remote providers are
imported lazily so their dependencies and settings matter only when used.
"""

from __future__ import annotations

from typing import Any

from contextbase.embed.base import Embedder, space_key
from contextbase.errors import ConfigError

__all__ = ["Embedder", "configured_embedder", "get_embedder", "space_key"]

PROVIDERS = ("local", "none", "fake", "openai", "voyage", "ollama")
KEYWORD_ONLY_NOTICE = (
    "The local embedding model is not installed: running keyword-only "
    "(install 'contextbase[local]' for semantic search)."
)
_noticed = False


def get_embedder(spec: str | None, **options: Any) -> Embedder | None:
    """Build the embedder a spec names; ``None`` for keyword-only (``none``).

    ``options`` are passed to remote providers (``api_key``, ``base_url``, ...).
    """
    spec = (spec or "local").strip()
    provider, _, model = spec.partition(":")
    provider = provider.lower()
    try:
        return _build(provider, model, options)
    except TypeError as exc:
        raise ConfigError(f"Invalid option for the {provider} embedding provider: {exc}.") from exc


def _build(provider: str, model: str, options: dict[str, Any]) -> Embedder | None:
    if provider == "none":
        return None
    if provider == "local":
        from contextbase.embed.local import LocalEmbedder

        return LocalEmbedder()
    if provider == "fake":
        from contextbase.embed.fake import FakeEmbedder

        return FakeEmbedder(dimension=int(model) if model else 64)
    if provider == "openai":
        from contextbase.embed.openai import OpenAIEmbedder

        return OpenAIEmbedder(model=model or None, **options)
    if provider == "voyage":
        from contextbase.embed.voyage import VoyageEmbedder

        return VoyageEmbedder(model=model or None, **options)
    if provider == "ollama":
        from contextbase.embed.ollama import OllamaEmbedder

        return OllamaEmbedder(model=model or None, **options)
    raise ConfigError(
        f"Unknown embedding provider {provider!r}; choose one of {', '.join(PROVIDERS)}."
    )


def configured_embedder(spec: str | None, **options: Any) -> Embedder | None:
    """The embedder settings ask for; ``local`` without the model means keyword-only.

    The fallback is announced once per process on stderr.
    """
    global _noticed
    if (spec or "local").strip().lower() == "local":
        from contextbase.embed.local import is_available

        if not is_available():
            if not _noticed:
                import sys

                print(KEYWORD_ONLY_NOTICE, file=sys.stderr)
                _noticed = True
            return None
    return get_embedder(spec, **options)
