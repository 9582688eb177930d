"""The result of checking a script: one finding per reference to the graph."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

Status = Literal["valid", "not_found", "invalid_arguments", "uncertain"]
FindingKind = Literal["import", "attribute", "method_call", "function_call", "class_instantiation"]
HALLUCINATIONS = ("not_found", "invalid_arguments")


@dataclass
class Finding:
    """One checked reference. ``column`` is 1-based, as editors count."""

    line: int
    column: int
    kind: FindingKind
    name: str
    status: Status
    message: str
    suggestion: str | None = None
    confidence: float = 1.0

    @property
    def is_hallucination(self) -> bool:
        return self.status in HALLUCINATIONS

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Analysis:
    """Everything found in one script."""

    script: str
    findings: list[Finding] = field(default_factory=list)
    external_modules: set[str] = field(default_factory=set)
    """Top-level modules the script imports that are not in the graph (not checked)."""
    unchecked_references: int = 0
    """Attribute accesses and calls on values from outside the graph."""

    @property
    def hallucinations(self) -> list[Finding]:
        return [f for f in self.findings if f.is_hallucination]

    @property
    def uncertain(self) -> list[Finding]:
        return [f for f in self.findings if f.status == "uncertain"]

    @property
    def valid(self) -> list[Finding]:
        return [f for f in self.findings if f.status == "valid"]
