"""The project profile: ``.context/project.yaml``.

The schema is the Context Tool MVP's ``ProjectContext`` (its Zod rules become
pydantic validation): enums for the project type, package manager, architecture
pattern and key-file role; ISO 8601 date-times with a timezone; no duplicate
entries in ``patterns``, ``businessRules`` or ``tech.stack``. Keys are camelCase
in the file, snake_case in Python.

Two deliberate extensions of the seed's schema:

* ``tech.packageManager`` accepts the package managers of every supported
  ecosystem, not only npm/yarn/pnpm/bun: ``pip``, ``pip-tools``, ``uv``,
  ``poetry``, ``pdm``, ``pipenv`` (Python), ``go``, ``cargo``, ``maven``,
  ``gradle``, and ``unknown`` when a folder has no manifest at all.
* a module may carry an optional ``path`` (its folder or file, relative to the
  project root), so a file can be mapped to its module even when it is not one
  of the module's key files.

Unknown keys are rejected (a typo such as ``patern`` would otherwise be lost on
the next save), and every error names the field, e.g.
``modules.api.keyFiles[0].role: Input should be 'entry', 'config', 'core' or 'test'``.
"""

from __future__ import annotations

import os
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainSerializer,
    ValidationError,
    model_validator,
)
from pydantic.alias_generators import to_camel

from contextbase.errors import ConfigError, NotFoundError

PROFILE_VERSION = "1.0"
CONTEXT_DIR = ".context"
PROFILE_FILE = "project.yaml"

ProjectType = Literal["web-app", "api", "cli", "library", "fullstack"]
PackageManager = Literal[
    "npm",
    "yarn",
    "pnpm",
    "bun",
    "pip",
    "pip-tools",
    "uv",
    "poetry",
    "pdm",
    "pipenv",
    "go",
    "cargo",
    "maven",
    "gradle",
    "unknown",
]
ArchitecturePattern = Literal["feature-based", "layered", "modular", "monorepo", "unknown"]
KeyFileRole = Literal["entry", "config", "core", "test"]


def _parse_datetime(value: Any) -> datetime:
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            raise ValueError("must be an ISO 8601 date-time such as 2025-01-15T08:00:00Z") from None
    if not isinstance(value, datetime):
        raise ValueError("must be an ISO 8601 date-time such as 2025-01-15T08:00:00Z")
    if value.tzinfo is None:
        raise ValueError("must carry a timezone, e.g. 2025-01-15T08:00:00Z")
    return value.astimezone(UTC)


def format_datetime(value: datetime) -> str:
    """ISO 8601 in UTC with a ``Z``, as the seed's files show them."""
    return value.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def _no_duplicates(values: list[str]) -> list[str]:
    seen: set[str] = set()
    for value in values:
        if value in seen:
            raise ValueError(f"duplicate entry {value!r}")
        seen.add(value)
    return values


IsoDateTime = Annotated[
    datetime, BeforeValidator(_parse_datetime), PlainSerializer(format_datetime, return_type=str)
]
UniqueStrings = Annotated[list[str], AfterValidator(_no_duplicates)]


class _Model(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        alias_generator=to_camel,
        populate_by_name=True,
        serialize_by_alias=True,
        validate_assignment=True,
    )


class KeyFile(_Model):
    path: str = Field(min_length=1)
    role: KeyFileRole
    description: str | None = None


class Issue(_Model):
    description: str = Field(min_length=1)
    solution: str = ""
    session_id: str = ""
    discovered_at: IsoDateTime


class ModuleContext(_Model):
    name: str = ""
    description: str = ""
    path: str | None = None
    key_files: list[KeyFile] = Field(default_factory=list)
    patterns: UniqueStrings = Field(default_factory=list)
    business_rules: UniqueStrings = Field(default_factory=list)
    common_issues: list[Issue] = Field(default_factory=list)
    dependencies: list[str] = Field(default_factory=list)

    def has_knowledge(self) -> bool:
        """Whether people or the agent wrote something into this module."""
        return bool(self.patterns or self.business_rules or self.common_issues)


class ProjectInfo(_Model):
    name: str = Field(min_length=1, max_length=100)
    type: ProjectType
    path: str = Field(min_length=1)


class TechInfo(_Model):
    stack: UniqueStrings = Field(default_factory=list)
    runtime: str = ""
    package_manager: PackageManager


class ArchitectureInfo(_Model):
    pattern: ArchitecturePattern
    description: str = ""


class ProfileMetadata(_Model):
    created_at: IsoDateTime
    updated_at: IsoDateTime
    last_scan_at: IsoDateTime


class ProjectContext(_Model):
    """The whole of ``project.yaml``."""

    version: str = PROFILE_VERSION
    project: ProjectInfo
    tech: TechInfo
    architecture: ArchitectureInfo
    modules: dict[str, ModuleContext] = Field(default_factory=dict)
    metadata: ProfileMetadata

    @model_validator(mode="after")
    def _module_names(self) -> ProjectContext:
        # A module written by hand may leave ``name`` out: its key is its name.
        for key, module in self.modules.items():
            if not module.name:
                module.name = key
        return self

    def module_for_path(self, path: str) -> str | None:
        """The module a project-relative file belongs to, by key file or module folder."""
        best: tuple[int, str] | None = None
        for key, module in self.modules.items():
            if any(kf.path == path for kf in module.key_files):
                return key
            if module.path and (path == module.path or path.startswith(module.path + "/")):
                depth = module.path.count("/") + 1
                if best is None or depth > best[0]:
                    best = (depth, key)
        return best[1] if best else None


def profile_path(root: Path) -> Path:
    return root / CONTEXT_DIR / PROFILE_FILE


def field_path(location: tuple[int | str, ...]) -> str:
    """``('modules', 'api', 'keyFiles', 0, 'role')`` → ``modules.api.keyFiles[0].role``."""
    text = ""
    for part in location:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else str(part)
    return text or "(top level)"


def describe_validation_error(
    exc: ValidationError, source: str, what: str = "project profile", limit: int = 5
) -> str:
    problems = []
    for error in exc.errors()[:limit]:
        message = error["msg"].removeprefix("Value error, ")
        if error["type"] == "extra_forbidden":
            message = "unknown field (check its spelling)"
        elif error["type"] == "missing":
            message = "required field is missing"
        problems.append(f"{field_path(tuple(error['loc']))}: {message}")
    more = len(exc.errors()) - limit
    suffix = f" (and {more} more)" if more > 0 else ""
    return f"{source} is not a valid {what}: " + "; ".join(problems) + suffix + "."


def parse_profile(data: Any, source: str = "project.yaml") -> ProjectContext:
    """Validate already-parsed YAML data; raises ConfigError naming the field."""
    if not isinstance(data, dict):
        raise ConfigError(f"{source} must hold a mapping with version, project, tech, ....")
    try:
        return ProjectContext.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(describe_validation_error(exc, source)) from exc


def load_profile(path: Path) -> ProjectContext:
    """Read and validate a ``project.yaml``."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise NotFoundError(
            f"No project profile at {path}; run 'contextbase project init' first."
        ) from None
    except OSError as exc:
        raise ConfigError(f"Cannot read {path}: {exc.strerror}.") from exc
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or "syntax error"
        raise ConfigError(f"{path} is not valid YAML{where}: {problem}.") from exc
    return parse_profile(data, str(path))


def dump_profile(profile: ProjectContext) -> str:
    data = profile.model_dump(mode="json", exclude_none=True)
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)


def save_profile(profile: ProjectContext, path: Path) -> None:
    """Write atomically, so a reader never sees half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".project-", suffix=".yaml", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(dump_profile(profile))
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
