"""The kb-builder configuration file (YAML), validated with pydantic.

::

    output: pgedge-nla-kb.db          # optional; --output wins over it
    doc_source: doc-source            # where git sources are checked out
    chunking: {target_tokens: 350, overlap_tokens: 40, min_tokens: 60}
    embeddings:
      providers:
        - {provider: openai, model: text-embedding-3-small, api_key_file: ~/.openai-api-key}
        - {provider: voyage, model: voyage-3, api_key_file: ~/.voyage-api-key}
        - {provider: ollama, model: nomic-embed-text, endpoint: http://localhost:11434}
        - {provider: local}
    sources:
      - {git_url: https://github.com/postgres/postgres.git, tag: REL_17_0,
         docs_path: doc/src/sgml, project_name: PostgreSQL, project_version: "17"}
      - {local_path: ./pgedge-docs, project_name: pgEdge, project_version: "25.1"}

Relative paths (``output``, ``doc_source``, ``local_path``, ``api_key_file``)
are relative to the folder of the configuration file, so a build gives the
same result whatever the current directory; ``~`` is the user's home.

Every mistake becomes one :class:`ConfigError` sentence naming the file and
the field (``sources[1].local_path``), so the builder fails before any work.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path, PurePosixPath
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from contextbase.chunk import ChunkOptions
from contextbase.errors import ConfigError

DEFAULT_CONFIG = "pgedge-nla-kb-builder.yaml"
DEFAULT_OUTPUT = "pgedge-nla-kb.db"
DEFAULT_DOC_SOURCE = "doc-source"
PROVIDERS = ("openai", "voyage", "ollama", "local", "fake")
"""``fake`` is the deterministic test embedder; never ship a knowledgebase with it."""
_KEYED = ("openai", "voyage")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ProviderConfig(_Strict):
    """One embedding provider; every chunk is embedded by each of them."""

    provider: str
    model: str | None = None
    """The provider's model; its default when omitted."""
    api_key_file: Path | None = None
    """OpenAI and Voyage: file holding the key (default ~/.openai-api-key, ~/.voyage-api-key,
    or the OPENAI_API_KEY / VOYAGE_API_KEY environment variables)."""
    base_url: str | None = None
    """OpenAI and Voyage: API base URL (Azure, OpenAI-compatible servers, test servers)."""
    endpoint: str | None = None
    """Ollama: the server address (default OLLAMA_HOST, else http://localhost:11434)."""
    dimensions: int | None = Field(default=None, ge=1)
    """OpenAI v3 models: shorter vectors."""
    batch_size: int | None = Field(default=None, ge=1)
    max_concurrency: int | None = Field(default=None, ge=1)

    @field_validator("provider")
    @classmethod
    def _known(cls, value: str) -> str:
        name = value.strip().lower()
        if name not in PROVIDERS:
            raise ValueError(f"unknown provider {value!r}; choose one of {', '.join(PROVIDERS)}")
        return name

    @model_validator(mode="after")
    def _options_apply(self) -> ProviderConfig:
        allowed = {
            "api_key_file": _KEYED,
            "base_url": _KEYED,
            "endpoint": ("ollama",),
            "dimensions": ("openai",),
            "batch_size": ("openai", "voyage", "ollama"),
            "max_concurrency": ("openai", "voyage", "ollama"),
        }
        for option, providers in allowed.items():
            if getattr(self, option) is not None and self.provider not in providers:
                raise ValueError(f"{option} does not apply to the {self.provider} provider")
        return self

    @property
    def spec(self) -> str:
        """The ``get_embedder`` spec: ``openai:text-embedding-3-small``, ``local``."""
        return f"{self.provider}:{self.model}" if self.model else self.provider

    def options(self) -> dict[str, Any]:
        """Keyword options for ``get_embedder`` (paths already resolved)."""
        options = {
            "api_key_file": self.api_key_file,
            "base_url": self.base_url or self.endpoint,
            "dimensions": self.dimensions,
            "batch_size": self.batch_size,
            "max_concurrency": self.max_concurrency,
        }
        return {key: value for key, value in options.items() if value is not None}


class EmbeddingsConfig(_Strict):
    providers: list[ProviderConfig]
    """An empty list builds a keyword-only knowledgebase."""

    @model_validator(mode="after")
    def _distinct(self) -> EmbeddingsConfig:
        specs = [p.spec for p in self.providers]
        for spec in specs:
            if specs.count(spec) > 1:
                raise ValueError(f"the provider {spec} is listed twice")
        return self


class ChunkingConfig(_Strict):
    target_tokens: int = Field(default=350, ge=50, le=4000)
    overlap_tokens: int = Field(default=40, ge=0, le=1000)
    min_tokens: int = Field(default=60, ge=0, le=1000)

    def options(self) -> ChunkOptions:
        return ChunkOptions(self.target_tokens, self.overlap_tokens, self.min_tokens)


class SourceConfig(_Strict):
    """A git repository (``git_url``) or a local folder (``local_path``) of documentation,
    indexed as one version of one project."""

    project_name: str = Field(min_length=1)
    project_version: str = Field(min_length=1)
    git_url: str | None = None
    branch: str | None = None
    tag: str | None = None
    docs_path: str | None = None
    """Folder of the documentation inside the repository (default: the whole repository)."""
    local_path: Path | None = None
    include: list[str] = Field(default_factory=list)
    """Glob patterns (relative to the docs folder) of files to take; default: every
    supported file."""
    exclude: list[str] = Field(default_factory=list)

    @field_validator("project_version", mode="before")
    @classmethod
    def _version_text(cls, value: Any) -> Any:
        # YAML reads 17 as a number (fine) but 10.10 as the float 10.1 (wrong):
        # refuse floats rather than guess which text was meant.
        if isinstance(value, bool):
            raise ValueError("must be text such as '17'")
        if isinstance(value, int):
            return str(value)
        if isinstance(value, float):
            raise ValueError(f"write the version in quotes ('{value}') so YAML keeps it as text")
        return value

    @field_validator("project_name", "project_version")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be blank")
        return value.strip()

    @model_validator(mode="after")
    def _one_kind(self) -> SourceConfig:
        if (self.git_url is None) == (self.local_path is None):
            raise ValueError("a source needs exactly one of git_url or local_path")
        if self.local_path is not None:
            extra = [f for f in ("branch", "tag", "docs_path") if getattr(self, f) is not None]
            if extra:
                raise ValueError(f"{extra[0]} only applies to a git_url source")
        if self.branch is not None and self.tag is not None:
            raise ValueError("give a branch or a tag, not both")
        if self.docs_path is not None:
            parts = PurePosixPath(self.docs_path).parts
            if PurePosixPath(self.docs_path).is_absolute() or ".." in parts:
                raise ValueError("docs_path must be a relative path inside the repository")
        return self

    @property
    def ref(self) -> str | None:
        return self.tag or self.branch

    @property
    def name(self) -> str:
        return f"{self.project_name} {self.project_version}"

    def matches(self, selector: str) -> bool:
        """``--source`` selection: the project name, or ``name@version``."""
        wanted = selector.strip().lower()
        return wanted in (
            self.project_name.lower(),
            f"{self.project_name}@{self.project_version}".lower(),
        )


class KbConfig(_Strict):
    output: Path | None = None
    doc_source: Path = Path(DEFAULT_DOC_SOURCE)
    chunking: ChunkingConfig = Field(default_factory=ChunkingConfig)
    embeddings: EmbeddingsConfig
    sources: list[SourceConfig] = Field(min_length=1)

    @model_validator(mode="after")
    def _distinct_versions(self) -> KbConfig:
        seen: set[tuple[str, str]] = set()
        for source in self.sources:
            key = (source.project_name.lower(), source.project_version)
            if key in seen:
                raise ValueError(f"{source.name} is declared by two sources")
            seen.add(key)
        return self

    def select(self, names: Sequence[str]) -> list[SourceConfig]:
        """The sources ``--source`` names (all when none is given)."""
        if not names:
            return list(self.sources)
        unknown = [n for n in names if not any(s.matches(n) for s in self.sources)]
        if unknown:
            known = ", ".join(sorted({s.project_name for s in self.sources}))
            raise ConfigError(f"No source is named {unknown[0]!r}; the sources are: {known}.")
        return [s for s in self.sources if any(s.matches(n) for n in names)]


class LoadedConfig:
    """A validated configuration and the file it came from, with paths resolved."""

    def __init__(self, config: KbConfig, path: Path) -> None:
        self.config = config
        self.path = path

    @property
    def base(self) -> Path:
        return self.path.parent

    def output(self, override: str | Path | None = None) -> Path:
        """``--output`` (relative to the current directory), else the file's ``output``,
        else ``pgedge-nla-kb.db`` beside the configuration file."""
        if override is not None:
            return Path(override).expanduser().resolve()
        return self.config.output or self.base / DEFAULT_OUTPUT


def load_config(path: str | Path | None = None) -> LoadedConfig:
    """Read and check a kb-builder configuration (default ``pgedge-nla-kb-builder.yaml``
    in the current directory)."""
    file = Path(path or DEFAULT_CONFIG).expanduser().resolve()
    if not file.is_file():
        hint = "" if path else "; pass --config FILE"
        raise ConfigError(f"The configuration file {file} does not exist{hint}.")
    try:
        data = yaml.safe_load(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"Cannot read the configuration file {file}: {exc}.") from exc
    except yaml.YAMLError as exc:
        where = getattr(exc, "problem_mark", None)
        line = f" at line {where.line + 1}" if where else ""
        raise ConfigError(f"The configuration file {file} is not valid YAML{line}.") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"The configuration file {file} must hold a mapping of settings.")
    try:
        config = KbConfig.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(_describe(exc, file)) from None
    _resolve_paths(config, file)
    return LoadedConfig(config, file)


def field_error(file: Path, field: str, problem: str) -> ConfigError:
    """The one-sentence error for a wrong setting."""
    return ConfigError(f"Configuration error in {file} at '{field}': {problem.rstrip('.')}.")


def _describe(exc: ValidationError, file: Path) -> str:
    first = exc.errors()[0]
    field = _field_name(first["loc"])
    kind = first["type"]
    if kind == "missing":
        return f"Configuration error in {file}: '{field}' is missing."
    if kind == "extra_forbidden":
        return f"Configuration error in {file}: '{field}' is not a known setting."
    message = str(first["msg"]).removeprefix("Value error, ")
    return str(field_error(file, field or "(top level)", message))


def _field_name(loc: Sequence[int | str]) -> str:
    name = ""
    for part in loc:
        name += f"[{part}]" if isinstance(part, int) else (f".{part}" if name else str(part))
    return name


def _resolve(base: Path, path: Path) -> Path:
    path = path.expanduser()
    return path if path.is_absolute() else (base / path).resolve()


def _resolve_paths(config: KbConfig, file: Path) -> None:
    base = file.parent
    if config.output is not None:
        config.output = _resolve(base, config.output)
    config.doc_source = _resolve(base, config.doc_source)
    for index, provider in enumerate(config.embeddings.providers):
        if provider.api_key_file is not None:
            provider.api_key_file = _resolve(base, provider.api_key_file)
            _check_key_file(
                file, f"embeddings.providers[{index}].api_key_file", provider.api_key_file
            )
    for index, source in enumerate(config.sources):
        if source.local_path is not None:
            source.local_path = _resolve(base, source.local_path)
            if not source.local_path.is_dir():
                problem = "does not exist" if not source.local_path.exists() else "is not a folder"
                raise field_error(
                    file,
                    f"sources[{index}].local_path",
                    f"the folder {source.local_path} {problem}",
                )


def _check_key_file(file: Path, field: str, key_file: Path) -> None:
    try:
        text = key_file.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise field_error(file, field, f"the key file {key_file} is not UTF-8 text") from None
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise field_error(file, field, f"cannot read the key file {key_file} ({reason})") from None
    if not text.strip():
        raise field_error(file, field, f"the key file {key_file} is empty")
