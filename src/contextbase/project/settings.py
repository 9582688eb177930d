"""Settings of the project memory: the Context Tool MVP's defaults, all configurable.

They are read from ``.context/config.yaml`` in the project when it exists (keys
as below, snake_case or camelCase), and can be overridden in code. The seed's
``embeddings`` block does not apply: discoveries are embedded when saved, with
the embedder the server is configured with.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from pydantic.alias_generators import to_camel

from contextbase.errors import ConfigError
from contextbase.project.profile import CONTEXT_DIR, describe_validation_error

CONFIG_FILE = "config.yaml"


class ProjectSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", alias_generator=to_camel, populate_by_name=True)

    scorer_interval_seconds: float = Field(default=300.0, ge=0)
    """How often context items are rescored (and pruned): the seed's 5 minutes."""
    session_timeout_minutes: float = Field(default=30.0, gt=0)
    """An active session with no tool call for this long is completed."""
    archive_after_days: float = Field(default=7.0, ge=0)
    """A completed session is archived this long after it ended."""
    max_tokens: int = Field(default=100_000, ge=1_000)
    """The context budget that pruning keeps active items within."""
    prune_threshold: float = Field(default=0.8, gt=0, le=1)
    """Prune when active items exceed this share of ``max_tokens``."""
    prune_target: float = Field(default=0.64, gt=0, le=1)
    """Archive the lowest-scored items until this share of ``max_tokens`` remains."""
    recency_half_life_hours: float = Field(default=24.0, gt=0)
    """The recency factor halves every this many hours since the last access."""
    access_saturation: float = Field(default=5.0, gt=0)
    """Accesses at which the access factor reaches 63 % (1 - 1/e) of its maximum."""
    recency_weight: float = Field(default=0.6, ge=0, le=1)
    """Share of the score from recency; the rest comes from access."""
    response_tokens: int = Field(default=5_000, ge=200)
    """Default ``tokens`` of get-project-context."""

    @model_validator(mode="after")
    def _target_below_threshold(self) -> ProjectSettings:
        if self.prune_target > self.prune_threshold:
            raise ValueError("pruneTarget must not exceed pruneThreshold")
        return self


def load_project_settings(root: Path, **overrides: Any) -> ProjectSettings:
    """Defaults, then ``.context/config.yaml``, then ``overrides``."""
    path = root / CONTEXT_DIR / CONFIG_FILE
    values: dict[str, Any] = {}
    if path.exists():
        try:
            values = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        except (OSError, yaml.YAMLError) as exc:
            raise ConfigError(f"Cannot read {path}: {exc}.") from exc
        if not isinstance(values, dict):
            raise ConfigError(f"{path} must hold a mapping of settings.")
    values.update({k: v for k, v in overrides.items() if v is not None})
    try:
        return ProjectSettings.model_validate(values)
    except ValidationError as exc:
        raise ConfigError(describe_validation_error(exc, str(path), "settings file")) from exc
