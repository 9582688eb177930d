"""API keys of the remote embedding providers, and where each one came from.

A key is looked for in this order: the ``api_key`` argument, the
``api_key_file`` argument, the provider's environment variable
(``OPENAI_API_KEY``, ``VOYAGE_API_KEY``), then the provider's default key file
(``~/.openai-api-key``, ``~/.voyage-api-key``). Explicit arguments come first
because a configuration file that names a key file means that file.

A key never appears in a message, a log line or a ``repr``; messages name its
source instead.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from contextbase.errors import ConfigError


@dataclass(frozen=True)
class ApiKey:
    """A secret and a human description of where it was found."""

    value: str = field(repr=False)
    source: str

    def __repr__(self) -> str:
        return f"ApiKey(source={self.source!r})"


def load_api_key(
    label: str,
    *,
    api_key: str | None,
    api_key_file: str | Path | None,
    env_var: str,
    default_file: str,
) -> ApiKey:
    """Find the API key of the provider called ``label`` (e.g. ``OpenAI``).

    Raises ConfigError when no source holds a key, when a key file cannot be
    read, or when the key found is not one printable word.
    """
    if api_key and api_key.strip():
        return _checked(api_key.strip(), "the api_key option", label)
    if api_key_file is not None:
        return _read_key_file(Path(api_key_file).expanduser(), label)
    from_env = os.environ.get(env_var, "").strip()
    if from_env:
        return _checked(from_env, f"the environment variable {env_var}", label)
    path = Path(default_file).expanduser()
    if not path.exists():
        raise ConfigError(
            f"No {label} API key found: set the environment variable {env_var} "
            f"or put the key in {default_file}."
        )
    return _read_key_file(path, label)


def _read_key_file(path: Path, label: str) -> ApiKey:
    try:
        value = path.read_text(encoding="utf-8").strip()
    except UnicodeDecodeError:
        raise ConfigError(f"The {label} API key file {path} is not UTF-8 text.") from None
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise ConfigError(f"Cannot read the {label} API key file {path}: {reason}.") from None
    if not value:
        raise ConfigError(f"The {label} API key file {path} is empty.")
    return _checked(value, f"the key file {path}", label)


def _checked(value: str, source: str, label: str) -> ApiKey:
    # A key goes into an HTTP header: whitespace or control characters inside it
    # would fail there with an obscure error, so say which source is wrong.
    if not value.isascii() or not value.isprintable() or any(c.isspace() for c in value):
        raise ConfigError(
            f"The {label} API key from {source} must be a single word of printable "
            "ASCII characters; check that it holds only the key."
        )
    return ApiKey(value, source)
