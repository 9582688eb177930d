"""The error-solution memory: save, search, read, delete, export and import.

``SolutionMemory`` is what the MCP tools and the CLI call. Saving redacts
secrets first, then merges a near-duplicate (same normalised error and
essentially the same fix) into the existing solution instead of adding a copy.
The embedding model always runs before the write transaction opens, so other
processes sharing the database wait for the lock only as long as the SQL takes.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TextIO

from contextbase.embed import Embedder
from contextbase.errors import InvalidInputError, NotFoundError
from contextbase.memory.models import (
    MAX_BATCH,
    MAX_ERROR_CHARS,
    SearchFilters,
    SearchHit,
    Solution,
    SolutionDraft,
    default_title,
    environment_field,
    float_in_range,
    int_in_range,
    solution_id,
    text_field,
)
from contextbase.memory.normalize import (
    PLACEHOLDER,
    code_value,
    embedding_text,
    extract_codes,
    normalize_error,
)
from contextbase.memory.redact import redact
from contextbase.memory.search import SolutionSearch, validate_mode
from contextbase.memory.store import SolutionStore, row_to_solution
from contextbase.store.db import Database, utcnow

MAX_LIMIT = 20
DUPLICATE_SIMILARITY = 0.75
"""Token overlap (Jaccard) above which two fixes of the same error are one solution."""
EMBED_BATCH = 64


@dataclass(frozen=True)
class SaveResult:
    solution: Solution
    created: bool
    """False when the save merged into an existing near-duplicate."""
    redacted: dict[str, int] = field(default_factory=dict)
    """Kinds of secrets removed before storing, with counts."""


@dataclass(frozen=True)
class SearchResult:
    hits: list[SearchHit]
    mode: str
    """The mode actually used (``hybrid`` falls back to ``sparse`` without a model)."""
    total: int
    """How many solutions the memory holds."""


@dataclass(frozen=True)
class ImportReport:
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    redacted: dict[str, int] = field(default_factory=dict)


class SolutionMemory:
    """The feature object; one per process and database, safe across threads."""

    def __init__(
        self,
        db: Database,
        embedder: Embedder | None,
        *,
        home: Path | None = None,
        semantic_weight: float | None = None,
    ) -> None:
        self.db = db
        self.embedder = embedder
        self.home = home
        self.store = SolutionStore(db)
        options = {} if semantic_weight is None else {"semantic_weight": semantic_weight}
        self.searcher = SolutionSearch(self.store, embedder, **options)

    # -- save -----------------------------------------------------------------------

    def save(self, fields: Mapping[str, Any] | SolutionDraft) -> SaveResult:
        """Store a solved error; merges into a near-duplicate instead of copying it."""
        draft = fields if isinstance(fields, SolutionDraft) else SolutionDraft.build(fields)
        draft, redacted = self._redact(draft)
        now = utcnow()
        record = _record(draft, str(uuid.uuid4()), now, now)
        vector = self._embed([record])
        with self.db.transaction():
            duplicate = self._near_duplicate(record)
            if duplicate is None:
                pk = self.store.insert(record, _fts(record))
            else:
                pk = duplicate["pk"]
                record = _merge(duplicate, record)
                self.store.update(pk, record, _fts(record))
            self._store_vectors([(pk, vector[0])] if vector else [])
            row = self.store.by_pks([pk])[0]
        return SaveResult(row_to_solution(row), duplicate is None, redacted)

    def _redact(self, draft: SolutionDraft) -> tuple[SolutionDraft, dict[str, int]]:
        counts: dict[str, int] = {}

        def clean(text: str | None) -> str | None:
            if not text:
                return text
            result = redact(text, home=self.home)
            for kind, n in result.counts.items():
                counts[kind] = counts.get(kind, 0) + n
            return result.text

        environment = draft.environment
        if environment:
            environment = json.loads(clean(json.dumps(environment, ensure_ascii=False)) or "{}")
        cleaned = replace(
            draft,
            title=clean(draft.title) or "",
            error_message=clean(draft.error_message) or "",
            context=clean(draft.context) or "",
            root_cause=clean(draft.root_cause) or "",
            solution=clean(draft.solution) or "",
            code_changes=clean(draft.code_changes),
            project_path=clean(draft.project_path),
            environment=environment,
        )
        return cleaned, counts

    def _near_duplicate(self, record: Mapping[str, Any]) -> dict[str, Any] | None:
        fix = set(self.store.tokens(record["solution"]))
        for row in self.store.by_dedup_key(record["dedup_key"]):
            other = set(self.store.tokens(row["solution"]))
            union = fix | other
            if not union or len(fix & other) / len(union) >= DUPLICATE_SIMILARITY:
                return row
        return None

    def _embed(self, records: list[dict[str, Any]]) -> list[list[float]]:
        if self.embedder is None or not records:
            return []
        return self.embedder.embed_documents([_document_text(r) for r in records])

    def _store_vectors(self, rows: list[tuple[int, list[float]]]) -> None:
        if not rows or self.embedder is None:
            return
        table = self.store.vector_table(self.store.space(self.embedder))
        table.upsert((pk, vector, ()) for pk, vector in rows)

    # -- read -----------------------------------------------------------------------

    def search(
        self,
        query: Any,
        *,
        limit: Any = 5,
        min_score: Any = 0.3,
        mode: str | None = "hybrid",
        environment: Mapping[str, Any] | str | None = None,
        filters: SearchFilters | None = None,
    ) -> SearchResult:
        """Solutions for an error message or keywords, best first, scores in [0, 1]."""
        text = text_field("query", query, MAX_ERROR_CHARS, required=True)
        count = int_in_range("limit", limit, 1, MAX_LIMIT)
        threshold = float_in_range("minScore", min_score, 0.0, 1.0)
        chosen = validate_mode(mode)
        used = "sparse" if chosen == "hybrid" and self.embedder is None else chosen
        hits = self.searcher.search(
            text,
            limit=count,
            min_score=threshold,
            mode=chosen,
            environment=environment_field("environment", environment),
            filters=filters,
        )
        return SearchResult(hits, used, self.store.count())

    def get(self, solution_id_: Any, *, count_hit: bool = True) -> Solution:
        """One solution by id; raises NotFoundError for an unknown id."""
        found, missing = self.batch_get([solution_id_], count_hit=count_hit)
        if missing:
            raise NotFoundError(
                f"No solution has the id {missing[0]}; search-solutions lists the ids that exist."
            )
        return found[0]

    def batch_get(self, ids: Any, *, count_hit: bool = True) -> tuple[list[Solution], list[str]]:
        """Solutions for 1–10 ids, in the order asked, and the ids that were not found."""
        if isinstance(ids, str) or not isinstance(ids, list | tuple):
            raise InvalidInputError("solutionIds must be a list of solution ids.")
        if not 1 <= len(ids) <= MAX_BATCH:
            raise InvalidInputError(
                f"solutionIds has {len(ids)} ids; ask for 1 to {MAX_BATCH} at a time."
            )
        wanted = list(dict.fromkeys(solution_id(i, "solutionIds") for i in ids))
        rows = {row["id"]: row for row in self.store.by_ids(wanted)}
        if rows and count_hit:
            with self.db.transaction():
                self.store.count_hit([row["pk"] for row in rows.values()])
                rows = {row["id"]: row for row in self.store.by_ids(wanted)}
        found = [row_to_solution(rows[i]) for i in wanted if i in rows]
        return found, [i for i in wanted if i not in rows]

    def recent(self, limit: int = 10) -> list[Solution]:
        return [row_to_solution(r) for r in self.store.recent(int_in_range("limit", limit, 1, 100))]

    def count(self) -> int:
        return self.store.count()

    # -- delete -----------------------------------------------------------------------

    def delete(self, solution_id_: Any) -> Solution:
        """Remove a solution and its index entries; returns what was removed."""
        sid = solution_id(solution_id_)
        with self.db.transaction():
            rows = self.store.by_ids([sid])
            if not rows:
                raise NotFoundError(f"No solution has the id {sid}; nothing was deleted.")
            self.store.delete(rows[0]["pk"])
        return row_to_solution(rows[0])

    # -- export / import -------------------------------------------------------------

    def export_jsonl(self, out: TextIO) -> int:
        """Write every solution as one JSON object per line; returns how many."""
        written = 0
        for page in self.store.pages():
            for row in page:
                out.write(json.dumps(row_to_solution(row).to_dict(), ensure_ascii=False) + "\n")
                written += 1
        return written

    def import_jsonl(self, lines: Iterable[str | bytes]) -> ImportReport:
        """Import an export; idempotent: an id already present is updated only by a newer copy.

        Every line is checked before anything is written, so a bad file changes nothing.
        """
        records: list[dict[str, Any]] = []
        counts: dict[str, int] = {}
        for number, line in enumerate(lines, start=1):
            try:
                text = line.decode("utf-8") if isinstance(line, bytes) else line
                if not text.strip():
                    continue
                record, redacted = self._import_record(json.loads(text))
            except UnicodeDecodeError as exc:
                raise InvalidInputError(f"Line {number} of the import is not valid UTF-8.") from exc
            except (json.JSONDecodeError, InvalidInputError) as exc:
                reason = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
                raise InvalidInputError(f"Line {number} of the import: {reason}") from exc
            for kind, n in redacted.items():
                counts[kind] = counts.get(kind, 0) + n
            records.append(record)
        added = updated = unchanged = 0
        for start in range(0, len(records), EMBED_BATCH):
            batch = records[start : start + EMBED_BATCH]
            existing = {r["id"]: r for r in self.store.by_ids([r["id"] for r in batch])}
            todo = [
                r
                for r in batch
                if r["id"] not in existing or r["updated_at"] > existing[r["id"]]["updated_at"]
            ]
            unchanged += len(batch) - len(todo)
            vectors = self._embed(todo)
            with self.db.transaction():
                written: list[tuple[int, list[float]]] = []
                for index, record in enumerate(todo):
                    current = self.store.by_ids([record["id"]])
                    if current and record["updated_at"] <= current[0]["updated_at"]:
                        unchanged += 1
                        continue
                    if current:
                        pk = current[0]["pk"]
                        self.store.update(pk, record, _fts(record))
                        updated += 1
                    else:
                        pk = self.store.insert(record, _fts(record))
                        added += 1
                    if vectors:
                        written.append((pk, vectors[index]))
                self._store_vectors(written)
        return ImportReport(added, updated, unchanged, counts)

    def _import_record(self, data: Any) -> tuple[dict[str, Any], dict[str, int]]:
        if not isinstance(data, dict):
            raise InvalidInputError("each line must be a JSON object.")
        draft, redacted = self._redact(SolutionDraft.build(data))
        now = utcnow()
        created = text_field("createdAt", data.get("createdAt"), 64) or now
        updated = text_field("updatedAt", data.get("updatedAt"), 64) or created
        record = _record(draft, solution_id(data.get("id"), "id"), created, updated)
        record["save_count"] = int_in_range("saveCount", data.get("saveCount", 1), 1, 10**9)
        record["hit_count"] = int_in_range("hitCount", data.get("hitCount", 0), 0, 10**9)
        return record, redacted

    # -- maintenance ----------------------------------------------------------------

    def reindex(self) -> int:
        """Embed solutions that have no vector in the current model's space; returns how many."""
        if self.embedder is None:
            return 0
        space = self.store.space(self.embedder)
        done = 0
        while pks := self.store.pks_without_vector(space, EMBED_BATCH):
            rows = self.store.by_pks(pks)
            vectors = self._embed(rows)
            with self.db.transaction():
                self._store_vectors([(row["pk"], v) for row, v in zip(rows, vectors, strict=True)])
            done += len(rows)
        return done


# -- records -----------------------------------------------------------------------


def _record(draft: SolutionDraft, sid: str, created: str, updated: str) -> dict[str, Any]:
    normalized = normalize_error(draft.error_message)
    title_codes = extract_codes(draft.title)
    codes = list(dict.fromkeys((*normalized.codes, *title_codes)))
    return {
        "id": sid,
        "title": draft.title or default_title(draft.error_message),
        "error_message": draft.error_message,
        "error_type": draft.error_type,
        "context": draft.context,
        "root_cause": draft.root_cause,
        "solution": draft.solution,
        "code_changes": draft.code_changes,
        "tags": draft.tags,
        "labels": draft.labels,
        "environment": draft.environment,
        "project_path": draft.project_path,
        "cli_library_id": draft.cli_library_id,
        "error_normalized": normalized.text,
        "error_identifiers": "\n".join(normalized.identifiers),
        "error_codes": codes,
        "dedup_key": normalized.key,
        "save_count": 1,
        "hit_count": 0,
        "created_at": created,
        "updated_at": updated,
    }


def _merge(existing: Mapping[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """The newer save wins field by field where it says something; lists and counts add up."""
    merged = dict(new)
    for column in ("context", "root_cause", "code_changes", "project_path", "cli_library_id"):
        if not new[column]:
            merged[column] = existing[column]
    if new["error_type"] == "other":
        merged["error_type"] = existing["error_type"]
    merged["tags"] = list(dict.fromkeys([*json.loads(existing["tags"]), *new["tags"]]))
    merged["labels"] = list(dict.fromkeys([*json.loads(existing["labels"]), *new["labels"]]))
    merged["environment"] = {**json.loads(existing["environment"]), **new["environment"]}
    merged["id"] = existing["id"]
    merged["created_at"] = existing["created_at"]
    merged["save_count"] = existing["save_count"] + 1
    merged["hit_count"] = existing["hit_count"]
    return merged


def _fts(record: Mapping[str, Any]) -> dict[str, str]:
    return {
        "title": record["title"],
        "error": " ".join(PLACEHOLDER.sub(" ", record["error_normalized"]).split()),
        "codes": " ".join(code_value(c) for c in record["error_codes"]),
        "identifiers": record["error_identifiers"],
        "context": record["context"],
        "root_cause": record["root_cause"],
        "solution": record["solution"],
        "tags": " ".join([*record["tags"], *record["labels"]]),
    }


def _document_text(record: Mapping[str, Any]) -> str:
    """What the model embeds: title, the error's key lines and the root cause."""
    parts = [record["title"], embedding_text(record["error_message"], max_chars=800)]
    if record["root_cause"]:
        parts.append(record["root_cause"][:600])
    return "\n".join(parts)
