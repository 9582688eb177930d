"""What the project memory's operations answer: plain data with a text and a dict form."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from contextbase.project.context import ContextItem
from contextbase.project.discoveries import Discovery
from contextbase.project.profile import ProjectContext
from contextbase.project.sessions import Session


@dataclass
class ContextView:
    """What get-project-context answers."""

    text: str
    profile: ProjectContext
    items: list[tuple[ContextItem, float | None]]
    tokens: int
    query: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "project": self.profile.project.name,
            "query": self.query,
            "tokens": self.tokens,
            "items": [{**item.to_dict(), "match": score} for item, score in self.items],
            "text": self.text,
        }


@dataclass
class FileContext:
    path: str
    exists: bool
    module: str | None
    role: str
    description: str | None
    patterns: list[str] = field(default_factory=list)
    rules: list[str] = field(default_factory=list)
    issues: list[str] = field(default_factory=list)
    dependencies: list[str] = field(default_factory=list)
    dependents: list[str] = field(default_factory=list)
    access_count: int = 0

    def to_text(self, *, with_access: bool = True) -> str:
        lines = [f"# {self.path}" + ("" if self.exists else " (not on disk)")]
        lines.append(f"Module: {self.module or 'none'}. Role: {self.role}.")
        if self.description:
            lines.append(f"Description: {self.description}")
        if self.dependencies:
            lines.append(f"Its module depends on: {', '.join(self.dependencies)}.")
        if self.dependents:
            lines.append(f"Modules depending on it: {', '.join(self.dependents)}.")
        for title, entries in (
            ("Patterns", self.patterns),
            ("Rules", self.rules),
            ("Known issues", self.issues),
        ):
            if entries:
                lines += [f"## {title}", *(f"- {e}" for e in entries)]
        if with_access:
            plural = "s" if self.access_count != 1 else ""
            lines.append(f"Accessed {self.access_count} time{plural}.")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class MemoryHit:
    item: ContextItem
    score: float

    def to_dict(self) -> dict[str, Any]:
        meta = self.item.metadata
        return {
            "type": meta.get("discoveryType", self.item.type),
            "kind": self.item.type,
            "source": self.item.source,
            "module": meta.get("module"),
            "content": self.item.content,
            "status": self.item.status,
            "score": round(self.score, 6),
            "id": meta.get("discoveryId", self.item.id),
        }


@dataclass
class SessionEnd:
    session: Session
    discoveries: list[Discovery]
