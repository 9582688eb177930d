"""What the error-solution memory stores and returns, and how its input is checked.

Limits (documented here, enforced by ``SolutionDraft.build``): an error message
or query is at most ``MAX_ERROR_CHARS`` characters — a longer one is refused,
not truncated, because the part that was cut might be the error itself; trim
a log to the error and its nearest frames. Every text must be valid UTF-8.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from contextbase.errors import InvalidInputError

ERROR_TYPES = (
    "compile",
    "runtime",
    "configuration",
    "dependency",
    "network",
    "logic",
    "performance",
    "security",
    "other",
)
MAX_ERROR_CHARS = 32_000
"""Longest error message (and search query) accepted, in characters."""
MAX_TEXT_CHARS = 64_000
"""Longest context, root cause, solution or code change accepted, in characters."""
MAX_TITLE_CHARS = 300
MAX_TAGS = 32
MAX_TAG_CHARS = 64
MAX_ENVIRONMENT_CHARS = 16_000
MAX_BATCH = 10


@dataclass
class Solution:
    """One stored error and its fix."""

    id: str
    title: str
    error_message: str
    solution: str
    error_type: str = "other"
    context: str = ""
    root_cause: str = ""
    code_changes: str | None = None
    tags: list[str] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    environment: dict[str, Any] = field(default_factory=dict)
    project_path: str | None = None
    cli_library_id: str | None = None
    created_at: str = ""
    updated_at: str = ""
    save_count: int = 1
    """How many times this solution was saved (near-duplicates merge into it)."""
    hit_count: int = 0
    """How many times its details were read."""
    error_codes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form used by export, import and ``--json`` (tool argument names)."""
        return {
            "id": self.id,
            "title": self.title,
            "errorMessage": self.error_message,
            "errorType": self.error_type,
            "context": self.context,
            "rootCause": self.root_cause,
            "solution": self.solution,
            "codeChanges": self.code_changes,
            "tags": self.tags,
            "labels": self.labels,
            "environment": self.environment,
            "projectPath": self.project_path,
            "cliLibraryId": self.cli_library_id,
            "createdAt": self.created_at,
            "updatedAt": self.updated_at,
            "saveCount": self.save_count,
            "hitCount": self.hit_count,
            "errorCodes": self.error_codes,
        }

    def preview(self, chars: int = 240) -> str:
        text = " ".join((self.root_cause or self.solution).split())
        return text if len(text) <= chars else text[: chars - 1].rstrip() + "…"


@dataclass(frozen=True)
class SearchHit:
    """A solution found by a search, with its score in [0, 1] and how it was made."""

    solution: Solution
    score: float
    semantic: float | None
    keyword: float | None
    code_match: str
    """``match`` (shares an exact error code with the query), ``conflict`` (its code
    of the same kind differs), or ``none``."""
    matched_codes: tuple[str, ...] = ()
    environment_match: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.solution.id,
            "title": self.solution.title,
            "errorType": self.solution.error_type,
            "tags": self.solution.tags,
            "score": round(self.score, 4),
            "semanticScore": None if self.semantic is None else round(self.semantic, 4),
            "keywordScore": None if self.keyword is None else round(self.keyword, 4),
            "codeMatch": self.code_match,
            "matchedCodes": list(self.matched_codes),
            "environmentMatch": self.environment_match,
            "preview": self.solution.preview(),
            "updatedAt": self.solution.updated_at,
        }


@dataclass(frozen=True)
class SearchFilters:
    """Restrict a search to solutions with all of these properties."""

    error_type: str | None = None
    tags: tuple[str, ...] = ()
    labels: tuple[str, ...] = ()
    project_path: str | None = None
    cli_library_id: str | None = None

    def __bool__(self) -> bool:
        return bool(
            self.error_type or self.tags or self.labels or self.project_path or self.cli_library_id
        )


@dataclass
class SolutionDraft:
    """A validated solution to save (before redaction)."""

    error_message: str
    solution: str
    title: str = ""
    """Empty means: the error's main line, taken after redaction."""
    error_type: str = "other"
    context: str = ""
    root_cause: str = ""
    code_changes: str | None = None
    tags: list[str] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    environment: dict[str, Any] = field(default_factory=dict)
    project_path: str | None = None
    cli_library_id: str | None = None

    @classmethod
    def build(cls, fields: Mapping[str, Any]) -> SolutionDraft:
        """Check tool-style arguments (``errorMessage``, ``rootCause``, ...) or snake_case ones."""
        get = _getter(fields)
        error_message = text_field("errorMessage", get("errorMessage"), MAX_ERROR_CHARS, True)
        solution = text_field("solution", get("solution"), MAX_TEXT_CHARS, True)
        error_type = (text_field("errorType", get("errorType"), 40) or "other").lower()
        if error_type not in ERROR_TYPES:
            raise InvalidInputError(
                f"errorType {error_type!r} is not one of {', '.join(ERROR_TYPES)}."
            )
        title = text_field("title", get("title"), MAX_TITLE_CHARS)
        return cls(
            error_message=error_message,
            solution=solution,
            title=title,
            error_type=error_type,
            context=text_field("context", get("context"), MAX_TEXT_CHARS),
            root_cause=text_field("rootCause", get("rootCause"), MAX_TEXT_CHARS),
            code_changes=text_field("codeChanges", get("codeChanges"), MAX_TEXT_CHARS) or None,
            tags=string_list("tags", get("tags")),
            labels=string_list("labels", get("labels")),
            environment=environment_field("environment", get("environment")),
            project_path=text_field("projectPath", get("projectPath"), 1000) or None,
            cli_library_id=text_field("cliLibraryId", get("cliLibraryId"), 300) or None,
        )


def _getter(fields: Mapping[str, Any]) -> Any:
    def get(name: str) -> Any:
        if name in fields:
            return fields[name]
        snake = re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()
        return fields.get(snake)

    return get


def text_field(name: str, value: Any, limit: int, required: bool = False) -> str:
    """A text argument as a clean ``str``: decoded, valid UTF-8, within ``limit``."""
    if value is None:
        value = ""
    if isinstance(value, bytes | bytearray):
        try:
            value = bytes(value).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InvalidInputError(
                f"{name} is not valid UTF-8 (byte 0x{value[exc.start]:02x} at position "
                f"{exc.start}); send text, not binary data."
            ) from exc
    if not isinstance(value, str):
        raise InvalidInputError(f"{name} must be text, not {type(value).__name__}.")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidInputError(
            f"{name} is not valid UTF-8 (an unpaired surrogate at position {exc.start}); "
            "send text, not binary data."
        ) from exc
    value = value.replace("\x00", "").strip()
    if required and not value:
        raise InvalidInputError(f"{name} is empty; it is required.")
    if len(value) > limit:
        raise InvalidInputError(
            f"{name} has {len(value):,} characters; the limit is {limit:,}. "
            "Keep the error line and its nearest frames, not the whole log."
        )
    return value


def string_list(name: str, value: Any) -> list[str]:
    """Tags or labels: a list of short strings (a comma-separated string is accepted)."""
    if value is None or value == "":
        return []
    if isinstance(value, str):
        value = value.split(",")
    if not isinstance(value, list | tuple):
        raise InvalidInputError(f"{name} must be a list of strings.")
    items: dict[str, None] = {}
    for item in value:
        text = text_field(name, item, MAX_TAG_CHARS)
        if text:
            items.setdefault(text.lower() if name == "tags" else text, None)
    if len(items) > MAX_TAGS:
        raise InvalidInputError(f"{name} has {len(items)} entries; the limit is {MAX_TAGS}.")
    return list(items)


def environment_field(name: str, value: Any) -> dict[str, Any]:
    """An environment snapshot: a JSON object (or a JSON string of one)."""
    if value is None or value == "":
        return {}
    if isinstance(value, str | bytes):
        text = text_field(name, value, MAX_ENVIRONMENT_CHARS)
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InvalidInputError(f"{name} is not valid JSON: {exc.msg}.") from exc
    if not isinstance(value, dict):
        raise InvalidInputError(f'{name} must be an object such as {{"python": "3.12"}}.')
    if len(json.dumps(value, default=str)) > MAX_ENVIRONMENT_CHARS:
        raise InvalidInputError(f"{name} is larger than {MAX_ENVIRONMENT_CHARS:,} characters.")
    return {str(k): v for k, v in value.items()}


def solution_id(value: Any, name: str = "solutionId") -> str:
    """A solution id in canonical form; refuses anything that is not a UUID."""
    text = text_field(name, value, 100, required=True)
    try:
        return str(uuid.UUID(text))
    except ValueError as exc:
        raise InvalidInputError(
            f"{name} {text!r} is not a solution id; ids are UUIDs such as "
            "'3f2b6c1e-0d4a-4c5b-9a7e-2f1d8c9b0a11', as returned by search-solutions."
        ) from exc


def default_title(error_message: str) -> str:
    """The first meaningful line of the error, shortened."""
    lines = [line.strip() for line in error_message.splitlines() if line.strip()]
    best = next((line for line in reversed(lines) if re.search(r"error|exception", line, re.I)), "")
    title = best or (lines[0] if lines else "Error")
    return title if len(title) <= 120 else title[:119].rstrip() + "…"


def int_in_range(name: str, value: Any, low: int, high: int) -> int:
    """A whole number from ``low`` to ``high`` (``5``, ``5.0`` and ``"5"`` all count)."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise InvalidInputError(f"{name} must be a whole number from {low} to {high}.")
    try:
        number = int(value) if not isinstance(value, float) or value.is_integer() else None
    except ValueError:
        number = None
    if number is None or not low <= number <= high:
        raise InvalidInputError(
            f"{name} must be a whole number from {low} to {high}, not {value!r}."
        )
    return number


def float_in_range(name: str, value: Any, low: float, high: float) -> float:
    """A number from ``low`` to ``high``."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = float("nan")
    if isinstance(value, bool) or not low <= number <= high:
        raise InvalidInputError(f"{name} must be a number from {low:g} to {high:g}, not {value!r}.")
    return number
