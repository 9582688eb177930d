"""Discoveries: the patterns, rules, decisions and issues learnt while coding.

The agent saves them with a tool; at the end of a session more are extracted
from what the session recorded (the summary and the text of tool arguments)
by deterministic patterns, each match with confidence 1.0:

* labels — ``Decision: …``, ``Rule: …``, ``Pattern: …``, ``Convention: …``,
  ``Issue: …``, ``Gotcha: …``, ``Workaround: …``;
* issues — "X fails (breaks, crashes, hangs, times out) when …", "…, fixed by …";
* decisions — "we decided / chose / agreed / opted / settled …", "the decision was …";
* rules — sentences that start with "Always …" / "Never …", and "must/should always|never";
* patterns — "the convention is …", "by convention …", "we use X for/to/instead of Y".

Everything else — ordinary sentences — is left alone. Enrichment then writes
each discovery into its module in ``project.yaml``: patterns and decisions
under ``patterns``, rules under ``businessRules``, issues under
``commonIssues`` (the schema has no list of decisions).
"""

from __future__ import annotations

import re
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from contextbase.errors import InvalidInputError
from contextbase.project.profile import Issue, ProjectContext
from contextbase.project.sessions import Clock, iso, to_ms
from contextbase.store.db import Database, from_json, to_json

DISCOVERY_TYPES = ("pattern", "rule", "decision", "issue")
MIN_CHARS, MAX_CHARS = 10, 1000


def validate(kind: str, content: str) -> tuple[str, str]:
    """The type and the trimmed content, or InvalidInputError saying what is wrong."""
    kind = (kind or "").strip().lower()
    if kind not in DISCOVERY_TYPES:
        raise InvalidInputError(
            f"A discovery's type must be one of {', '.join(DISCOVERY_TYPES)}, not {kind!r}."
        )
    content = " ".join((content or "").split())
    if not MIN_CHARS <= len(content) <= MAX_CHARS:
        raise InvalidInputError(
            f"A discovery must be {MIN_CHARS} to {MAX_CHARS} characters long"
            f" (this one has {len(content)})."
        )
    return kind, content


# -- extraction ----------------------------------------------------------------

_LABEL = re.compile(
    r"^(decision|rule|pattern|convention|issue|known issue|gotcha|bug|workaround)\s*:\s*(.+)$", re.I
)
_LABEL_TYPES = {
    "decision": "decision",
    "rule": "rule",
    "pattern": "pattern",
    "convention": "pattern",
    "issue": "issue",
    "known issue": "issue",
    "gotcha": "issue",
    "bug": "issue",
    "workaround": "issue",
}
_FAILURE = (
    r"(?:fails?|failed|failing|breaks?|broke|crash(?:es|ed)?|hangs?|hung|times?\s+out|timed\s+out"
    r"|errors?\s+out|deadlocks?)"
)
_ERROR = rf"(?:{_FAILURE}|throws?|threw|raises?|raised|errors?)"
_FIX = (
    r"[,;:.]?\s*(?:and\s+)?(?:(?:it|this|that)\s+(?:was|is|got)\s+)?"
    r"(?:fixed|solved|resolved|worked\s+around|avoided)\s+(?:it\s+)?(?:by|with)\s+"
)
_ISSUE = [
    re.compile(rf"\b{_FAILURE}\b.*\b(?:when|if|on|after|because|unless|whenever)\b", re.I),
    re.compile(rf"\b{_ERROR}\b.*{_FIX}\S", re.I),
    re.compile(
        r"\b(?:the\s+)?(?:fix|workaround|solution)\s+(?:for\s+.+?\s+)?(?:is|was)\s+to\b", re.I
    ),
]
_DECISION = [
    re.compile(
        r"\b(?:we|i|the team)\s+(?:have\s+|had\s+|finally\s+)?"
        r"(?:decided|chose|agreed|opted|settled)\b",
        re.I,
    ),
    re.compile(r"^decided\s+(?:to|on|that)\b", re.I),
    re.compile(r"\bthe\s+decision\s+(?:is|was)\b", re.I),
]
_RULE = [
    re.compile(r"^(?:(?:we|you|one)\s+(?:should|must)\s+)?(?:always|never)\s+[a-z]", re.I),
    re.compile(r"\b(?:must|should)\s+(?:always|never)\b", re.I),
]
_PATTERN = [
    re.compile(r"\b(?:the|our)\s+(?:convention|pattern)\s+(?:is|here\s+is)\b", re.I),
    re.compile(r"\bby\s+convention\b", re.I),
    re.compile(
        r"^(?:we|this\s+project|the\s+codebase)\s+(?:always\s+)?(?:uses?|follows?|prefers?)\s+"
        r".+\b(?:for|to|when|instead\s+of)\b",
        re.I,
    ),
]
_SENTENCE_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"'`(])|\n+")
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")
_SOLUTION_SPLIT = re.compile(_FIX + r"|\s*(?:fix|solution|workaround)\s*:\s*", re.I)


@dataclass(frozen=True)
class Extracted:
    type: str
    content: str


def sentences(text: str) -> list[str]:
    parts = (_BULLET.sub("", part).strip() for part in _SENTENCE_SPLIT.split(text or ""))
    return [part for part in parts if part]


def classify(sentence: str) -> Extracted | None:
    """The discovery a sentence states, if one of the patterns matches it."""
    label = _LABEL.match(sentence)
    if label:
        return _bounded(_LABEL_TYPES[label.group(1).lower()], label.group(2))
    for kind, patterns in (
        ("issue", _ISSUE),
        ("decision", _DECISION),
        ("rule", _RULE),
        ("pattern", _PATTERN),
    ):
        if any(p.search(sentence) for p in patterns):
            return _bounded(kind, sentence)
    return None


def extract(text: str) -> list[Extracted]:
    """Every discovery stated in ``text``, in order, without repeats."""
    found: dict[str, Extracted] = {}
    for sentence in sentences(text):
        hit = classify(sentence)
        if hit and hit.content.lower() not in found:
            found[hit.content.lower()] = hit
    return list(found.values())


def _bounded(kind: str, content: str) -> Extracted | None:
    content = " ".join(content.split())
    if len(content) > MAX_CHARS:
        content = content[: MAX_CHARS - 1].rsplit(" ", 1)[0] + "…"
    return Extracted(kind, content) if len(content) >= MIN_CHARS else None


def split_issue(content: str) -> tuple[str, str]:
    """``"X fails when Y, fixed by Z"`` → ``("X fails when Y", "Z")``."""
    parts = _SOLUTION_SPLIT.split(content, maxsplit=1)
    if len(parts) == 2 and parts[0].strip() and parts[1].strip():
        return parts[0].strip().rstrip(",;:."), parts[1].strip()
    return content, ""


def infer_module(text: str, profile: ProjectContext | None) -> str | None:
    """The module a text is about: the one whose name or files it mentions most."""
    if profile is None or not profile.modules:
        return None
    lowered = text.lower()
    words = Counter(re.findall(r"[a-z0-9_\-]+", lowered))
    scores: dict[str, int] = {}
    for key, module in profile.modules.items():
        score = words.get(key.lower(), 0) * 2
        for path in [kf.path for kf in module.key_files] + ([module.path] if module.path else []):
            if path.lower() in lowered:
                score += 3
        if score:
            scores[key] = score
    if not scores:
        return None
    return max(scores, key=lambda key: (scores[key], len(key)))


# -- storage -------------------------------------------------------------------


@dataclass
class Discovery:
    id: str
    session_id: str
    type: str
    content: str
    module: str | None
    created_at: int
    context: dict[str, Any] = field(default_factory=dict)
    embedding_id: str | None = None
    embedding_model: str | None = None

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> Discovery:
        return cls(
            id=row["id"],
            session_id=row["session_id"],
            type=row["type"],
            content=row["content"],
            module=row["module"],
            created_at=row["created_at"],
            context=from_json(row["context_json"], {}),
            embedding_id=row["embedding_id"],
            embedding_model=row["embedding_model"],
        )

    def to_dict(self) -> dict[str, Any]:
        """The seed's Discovery shape."""
        data: dict[str, Any] = {
            "id": self.id,
            "sessionId": self.session_id,
            "type": self.type,
            "content": self.content,
            "module": self.module,
            "context": {
                "extractedFrom": self.context.get("extractedFrom", "tool"),
                "confidence": self.context.get("confidence", 1.0),
            },
            "createdAt": iso(self.created_at),
        }
        if self.embedding_id:
            data["embedding"] = {"id": self.embedding_id, "model": self.embedding_model}
        return data


class DiscoveryStore:
    def __init__(self, db: Database, *, clock: Clock = time.time) -> None:
        self.db = db
        self.clock = clock

    def add(
        self,
        session_id: str,
        kind: str,
        content: str,
        module: str | None = None,
        *,
        extracted_from: str = "tool",
        confidence: float = 1.0,
    ) -> tuple[Discovery, bool]:
        """Store a discovery; ``(discovery, created)`` — an identical one is returned as is."""
        kind, content = validate(kind, content)
        with self.db.transaction():
            row = self.db.query_one(
                "SELECT * FROM discoveries WHERE type = ? AND content = ?", (kind, content)
            )
            if row:
                return Discovery.from_row(row), False
            discovery_id = str(uuid.uuid4())
            context = {"extractedFrom": extracted_from, "confidence": confidence}
            self.db.execute(
                "INSERT INTO discoveries(id, session_id, type, content, module, context_json,"
                " created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    discovery_id,
                    session_id,
                    kind,
                    content,
                    module,
                    to_json(context),
                    to_ms(self.clock()),
                ),
            )
        found = self.get(discovery_id)
        assert found is not None
        return found, True

    def get(self, discovery_id: str) -> Discovery | None:
        row = self.db.query_one("SELECT * FROM discoveries WHERE id = ?", (discovery_id,))
        return Discovery.from_row(row) if row else None

    def set_embedding(self, discovery_id: str, embedding_id: str, model: str) -> None:
        with self.db.transaction():
            self.db.execute(
                "UPDATE discoveries SET embedding_id = ?, embedding_model = ? WHERE id = ?",
                (embedding_id, model, discovery_id),
            )

    def list(
        self,
        *,
        kind: str | None = None,
        module: str | None = None,
        session_id: str | None = None,
        limit: int = 100,
    ) -> list[Discovery]:
        clauses, params = [], []
        for column, value in (("type", kind), ("module", module), ("session_id", session_id)):
            if value is not None:
                clauses.append(f"{column} = ?")
                params.append(value)
        where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
        rows = self.db.query(
            f"SELECT * FROM discoveries{where} ORDER BY created_at DESC, rowid DESC LIMIT ?",
            (*params, limit),
        )
        return [Discovery.from_row(row) for row in rows]

    def pending_enrichment(self) -> list[Discovery]:
        rows = self.db.query(
            "SELECT * FROM discoveries WHERE module IS NOT NULL"
            " AND json_extract(context_json, '$.enrichedAt') IS NULL ORDER BY created_at"
        )
        return [Discovery.from_row(row) for row in rows]

    def mark_enriched(self, ids: list[str]) -> None:
        stamp = iso(to_ms(self.clock()))
        with self.db.transaction():
            for discovery_id in ids:
                self.db.execute(
                    "UPDATE discoveries SET context_json = json_set(context_json,"
                    " '$.enrichedAt', ?) WHERE id = ?",
                    (stamp, discovery_id),
                )


def enrich(profile: ProjectContext, discoveries: list[Discovery]) -> list[str]:
    """Write discoveries into their modules of ``profile``; the ids written (or already there)."""
    done: list[str] = []
    for discovery in discoveries:
        module = profile.modules.get(discovery.module or "")
        if module is None:
            continue
        if discovery.type in ("pattern", "decision"):
            if discovery.content not in module.patterns:
                module.patterns = [*module.patterns, discovery.content]
        elif discovery.type == "rule":
            if discovery.content not in module.business_rules:
                module.business_rules = [*module.business_rules, discovery.content]
        else:
            description, solution = split_issue(discovery.content)
            if all(issue.description != description for issue in module.common_issues):
                issue = Issue(
                    description=description,
                    solution=solution,
                    session_id=discovery.session_id,
                    discovered_at=datetime.fromtimestamp(discovery.created_at / 1000, UTC),
                )
                module.common_issues = [*module.common_issues, issue]
        done.append(discovery.id)
    return done
