"""Settings: defaults, then ``~/.contextbase/config.yaml``, then ``CONTEXTBASE_*`` env.

The data directory is ``~/.contextbase`` unless ``CONTEXTBASE_HOME`` says
otherwise; the database is ``contextbase.db`` inside it unless ``--db`` or
``CONTEXTBASE_DB`` names another file.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from contextbase.errors import ConfigError

TOOL_GROUPS = ("docs", "rag", "kb", "memory", "project", "graph")


class ServerSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    tools: list[str] = Field(default_factory=lambda: list(TOOL_GROUPS))
    read_only: bool = False
    token: str | None = None
    allow_private_urls: bool = False
    """Allow the crawl tools to fetch private, loopback and link-local addresses."""
    project: Path | None = None
    """Project folder for the project tools (default: the client's root, else cwd)."""
    script_roots: list[Path] = Field(default_factory=list)
    """Folders the graph tools may read scripts from (``script_path``)."""


class Settings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    home: Path
    db: Path
    embedder: str = "local"
    """Embedding provider spec: local, none, openai[:model], voyage[:model], ollama[:model]."""
    embedder_options: dict[str, Any] = Field(default_factory=dict)
    chunk_tokens: int = Field(default=350, ge=50, le=4000)
    chunk_overlap_tokens: int = Field(default=40, ge=0, le=1000)
    knowledgebases: list[Path] = Field(default_factory=list)
    """Knowledgebase files built by kb-builder, opened read-only beside the database."""
    server: ServerSettings = Field(default_factory=ServerSettings)

    @property
    def config_file(self) -> Path:
        return self.home / "config.yaml"


def default_home() -> Path:
    return Path(os.environ.get("CONTEXTBASE_HOME") or "~/.contextbase").expanduser()


def load_settings(db: str | Path | None = None, **overrides: Any) -> Settings:
    """Settings from the config file and environment; explicit arguments win."""
    home = default_home()
    values: dict[str, Any] = {"home": home, "db": home / "contextbase.db"}
    config_file = home / "config.yaml"
    if config_file.exists():
        values.update(_read_yaml(config_file))
    env = os.environ
    if env.get("CONTEXTBASE_DB"):
        values["db"] = env["CONTEXTBASE_DB"]
    if env.get("CONTEXTBASE_EMBEDDER"):
        values["embedder"] = env["CONTEXTBASE_EMBEDDER"]
    if env.get("CONTEXTBASE_KNOWLEDGEBASES"):
        values["knowledgebases"] = env["CONTEXTBASE_KNOWLEDGEBASES"].split(os.pathsep)
    if env.get("CONTEXTBASE_PROJECT"):
        values.setdefault("server", {})["project"] = env["CONTEXTBASE_PROJECT"]
    if env.get("CONTEXTBASE_TOKEN"):
        values.setdefault("server", {})["token"] = env["CONTEXTBASE_TOKEN"]
    if db is not None:
        values["db"] = db
    values.update({k: v for k, v in overrides.items() if v is not None})
    try:
        settings = Settings.model_validate(values)
    except ValidationError as exc:
        raise ConfigError(_describe(exc, config_file)) from exc
    settings.db = Path(settings.db).expanduser()
    return settings


def _read_yaml(path: Path) -> dict[str, Any]:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as exc:
        raise ConfigError(f"Cannot read the configuration file {path}: {exc}") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"The configuration file {path} must hold a mapping of settings.")
    return data


def _describe(exc: ValidationError, source: Path) -> str:
    first = exc.errors()[0]
    field = ".".join(str(part) for part in first["loc"]) or "(root)"
    return f"Setting '{field}' is invalid ({first['msg']}); check {source} or the environment."
