"""The ``solutions`` tables: rows, labels, exact codes, full-text index and vectors.

Layout (component ``memory`` in ``schema_version``):

* ``solutions`` — one row per solution after the Context8 schema, keyed by an
  integer ``pk`` (the rowid the FTS and vector tables share) and a public UUID
  ``id``; ``error_normalized``/``dedup_key`` come from ``normalize.py``, and
  ``key_terms``/``prose_terms`` hold the distinct indexed tokens ranking reads.
* ``solution_labels`` — tags and labels, one row each, so filters use an index.
* ``solution_codes`` — the exact error codes of each solution's error message.
* ``solutions_fts`` — FTS5, contentless with deletes, over title, normalised
  error, codes, quoted identifiers, context, root cause, solution and tags;
  ``solutions_fts_vocab`` gives the document frequency of each term.
* ``vec_solutions_<space>`` — one vec0 table per embedding space.

Every write happens inside ``db.transaction()`` (BEGIN IMMEDIATE), and every
read is a single statement whose rows are fetched at once, so no read
transaction stays open while a caller waits. Needs apsw ≥ 3.47 (FTS5 tokenizer
access) and SQLite ≥ 3.43 (contentless-delete FTS5 tables).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import apsw

from contextbase.embed import Embedder, space_key
from contextbase.memory.models import ERROR_TYPES, SearchFilters, Solution
from contextbase.search.fts import TOKENIZER
from contextbase.store import vectors
from contextbase.store.db import Database, from_json, to_json
from contextbase.store.vectors import Space, VectorTable

_TYPES = ", ".join(f"'{t}'" for t in ERROR_TYPES)
FTS_COLUMNS = (
    "title",
    "error",
    "codes",
    "identifiers",
    "context",
    "root_cause",
    "solution",
    "tags",
)
KEY_FIELDS = ("title", "error", "codes", "identifiers", "tags")
PROSE_FIELDS = ("context", "root_cause", "solution")
PROSE_CHARS = 4000
"""Only the start of long prose counts when ranking by query coverage."""
BM25_WEIGHTS = (2.0, 4.0, 6.0, 1.0, 0.5, 0.7, 0.7, 1.5)
"""Column weights of ``bm25()``, in ``FTS_COLUMNS`` order: the error and its codes count most."""

MIGRATIONS = [
    f"""
    CREATE TABLE solutions (
        pk INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        title TEXT NOT NULL,
        error_message TEXT NOT NULL,
        error_type TEXT NOT NULL DEFAULT 'other' CHECK (error_type IN ({_TYPES})),
        context TEXT NOT NULL DEFAULT '',
        root_cause TEXT NOT NULL DEFAULT '',
        solution TEXT NOT NULL,
        code_changes TEXT,
        tags TEXT NOT NULL DEFAULT '[]',
        labels TEXT NOT NULL DEFAULT '[]',
        environment TEXT NOT NULL DEFAULT '{{}}',
        project_path TEXT,
        cli_library_id TEXT,
        error_normalized TEXT NOT NULL,
        error_identifiers TEXT NOT NULL DEFAULT '',
        error_codes TEXT NOT NULL DEFAULT '[]',
        key_terms TEXT NOT NULL DEFAULT '',
        prose_terms TEXT NOT NULL DEFAULT '',
        dedup_key TEXT NOT NULL,
        save_count INTEGER NOT NULL DEFAULT 1,
        hit_count INTEGER NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
    );
    CREATE INDEX solutions_dedup ON solutions(dedup_key);
    CREATE INDEX solutions_updated ON solutions(updated_at);
    CREATE INDEX solutions_type ON solutions(error_type);
    CREATE INDEX solutions_project ON solutions(project_path);
    CREATE INDEX solutions_library ON solutions(cli_library_id);
    CREATE TABLE solution_labels (
        kind TEXT NOT NULL CHECK (kind IN ('tag', 'label')),
        value TEXT NOT NULL,
        solution_pk INTEGER NOT NULL REFERENCES solutions(pk) ON DELETE CASCADE,
        PRIMARY KEY (kind, value, solution_pk)
    ) WITHOUT ROWID;
    CREATE INDEX solution_labels_pk ON solution_labels(solution_pk);
    CREATE TABLE solution_codes (
        code TEXT NOT NULL,
        solution_pk INTEGER NOT NULL REFERENCES solutions(pk) ON DELETE CASCADE,
        PRIMARY KEY (code, solution_pk)
    ) WITHOUT ROWID;
    CREATE INDEX solution_codes_pk ON solution_codes(solution_pk);
    CREATE VIRTUAL TABLE solutions_fts USING fts5(
        {", ".join(FTS_COLUMNS)},
        content='', contentless_delete=1, tokenize='{TOKENIZER}'
    );
    CREATE VIRTUAL TABLE solutions_fts_vocab USING fts5vocab(solutions_fts, 'row');
    """,
]

_COLUMNS = (
    "pk, id, title, error_message, error_type, context, root_cause, solution, code_changes,"
    " tags, labels, environment, project_path, cli_library_id, error_normalized,"
    " error_identifiers, error_codes, dedup_key, save_count, hit_count, created_at, updated_at"
)
WRITE_COLUMNS = (
    "id",
    "title",
    "error_message",
    "error_type",
    "context",
    "root_cause",
    "solution",
    "code_changes",
    "tags",
    "labels",
    "environment",
    "project_path",
    "cli_library_id",
    "error_normalized",
    "error_identifiers",
    "error_codes",
    "key_terms",
    "prose_terms",
    "dedup_key",
    "save_count",
    "hit_count",
    "created_at",
    "updated_at",
)


def row_to_solution(row: dict[str, Any]) -> Solution:
    return Solution(
        id=row["id"],
        title=row["title"],
        error_message=row["error_message"],
        solution=row["solution"],
        error_type=row["error_type"],
        context=row["context"],
        root_cause=row["root_cause"],
        code_changes=row["code_changes"],
        tags=from_json(row["tags"], []),
        labels=from_json(row["labels"], []),
        environment=from_json(row["environment"], {}),
        project_path=row["project_path"],
        cli_library_id=row["cli_library_id"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        save_count=row["save_count"],
        hit_count=row["hit_count"],
        error_codes=from_json(row["error_codes"], []),
    )


class SolutionStore:
    """SQL for the solutions tables; no ranking or validation logic lives here."""

    def __init__(self, db: Database) -> None:
        self.db = db
        vectors.migrate(db)
        db.migrate("memory", MIGRATIONS)
        self._tokenizer = db.conn.fts5_tokenizer("porter", ["unicode61", "remove_diacritics", "2"])

    # -- tokens ----------------------------------------------------------------

    def tokens(self, text: str) -> list[str]:
        """The terms FTS5 indexes for ``text`` (stemmed, case- and accent-folded)."""
        if not text:
            return []
        return [
            t[2] for t in self._tokenizer(text.encode("utf-8"), apsw.FTS5_TOKENIZE_DOCUMENT, None)
        ]

    # -- writes (call inside db.transaction()) -----------------------------------

    def terms(self, fts: dict[str, str]) -> dict[str, str]:
        """The distinct indexed tokens of the error-ish fields and of the prose fields.

        Ranking reads them to see which query tokens a candidate contains without
        tokenising its text again on every search.
        """
        key = dict.fromkeys(self.tokens("\n".join(fts.get(c, "") for c in KEY_FIELDS)))
        prose = dict.fromkeys(
            self.tokens("\n".join(fts.get(c, "")[:PROSE_CHARS] for c in PROSE_FIELDS))
        )
        return {
            "key_terms": " ".join(key),
            "prose_terms": " ".join(t for t in prose if t not in key),
        }

    def insert(self, record: dict[str, Any], fts: dict[str, str]) -> int:
        record = {**record, **self.terms(fts)}
        marks = ", ".join("?" for _ in WRITE_COLUMNS)
        self.db.execute(
            f"INSERT INTO solutions({', '.join(WRITE_COLUMNS)}) VALUES ({marks})",
            [_sql_value(record[c]) for c in WRITE_COLUMNS],
        )
        pk = int(self.db.scalar("SELECT pk FROM solutions WHERE id = ?", (record["id"],)))
        self._index(pk, record, fts)
        return pk

    def update(self, pk: int, record: dict[str, Any], fts: dict[str, str]) -> None:
        record = {**record, **self.terms(fts)}
        columns = [c for c in WRITE_COLUMNS if c != "id"]
        assignments = ", ".join(f"{c} = ?" for c in columns)
        self.db.execute(
            f"UPDATE solutions SET {assignments} WHERE pk = ?",
            [*(_sql_value(record[c]) for c in columns), pk],
        )
        self._unindex(pk)
        self._index(pk, record, fts)

    def _index(self, pk: int, record: dict[str, Any], fts: dict[str, str]) -> None:
        self.db.execute(
            f"INSERT INTO solutions_fts(rowid, {', '.join(FTS_COLUMNS)})"
            f" VALUES (?, {', '.join('?' for _ in FTS_COLUMNS)})",
            [pk, *(fts.get(c, "") for c in FTS_COLUMNS)],
        )
        self.db.executemany(
            "INSERT OR IGNORE INTO solution_labels(kind, value, solution_pk) VALUES (?, ?, ?)",
            [("tag", t, pk) for t in record["tags"]] + [("label", x, pk) for x in record["labels"]],
        )
        self.db.executemany(
            "INSERT OR IGNORE INTO solution_codes(code, solution_pk) VALUES (?, ?)",
            [(code, pk) for code in record["error_codes"]],
        )

    def _unindex(self, pk: int) -> None:
        self.db.execute("DELETE FROM solutions_fts WHERE rowid = ?", (pk,))
        self.db.execute("DELETE FROM solution_labels WHERE solution_pk = ?", (pk,))
        self.db.execute("DELETE FROM solution_codes WHERE solution_pk = ?", (pk,))

    def delete(self, pk: int) -> None:
        self._unindex(pk)
        self.db.execute("DELETE FROM solutions WHERE pk = ?", (pk,))
        for space in vectors.list_spaces(self.db):
            self.vector_table(space).delete([pk])

    def count_hit(self, pks: Sequence[int]) -> None:
        marks = ", ".join("?" for _ in pks)
        self.db.execute(
            f"UPDATE solutions SET hit_count = hit_count + 1 WHERE pk IN ({marks})", pks
        )

    # -- reads --------------------------------------------------------------------

    def rows(
        self, where: str, params: Sequence[Any] = (), suffix: str = ""
    ) -> list[dict[str, Any]]:
        """Rows of ``solutions``; ``where``/``suffix`` are fixed SQL from this package."""
        return self.db.query(f"SELECT {_COLUMNS} FROM solutions WHERE {where} {suffix}", params)

    def by_ids(self, ids: Sequence[str]) -> list[dict[str, Any]]:
        if not ids:
            return []
        return self.rows(f"id IN ({', '.join('?' for _ in ids)})", list(ids))

    def by_pks(self, pks: Sequence[int]) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = []
        for start in range(0, len(pks), 500):
            batch = list(pks[start : start + 500])
            found += self.rows(f"pk IN ({', '.join('?' for _ in batch)})", batch)
        return found

    def scoring_rows(self, pks: Sequence[int]) -> list[dict[str, Any]]:
        """What ranking needs of each candidate, without the long texts."""
        found: list[dict[str, Any]] = []
        for start in range(0, len(pks), 500):
            batch = list(pks[start : start + 500])
            found += self.db.query(
                "SELECT pk, key_terms, prose_terms, error_codes, environment, updated_at"
                f" FROM solutions WHERE pk IN ({', '.join('?' for _ in batch)})",
                batch,
            )
        return found

    def by_dedup_key(self, key: str) -> list[dict[str, Any]]:
        return self.rows("dedup_key = ?", (key,), "ORDER BY updated_at DESC LIMIT 20")

    def recent(self, limit: int) -> list[dict[str, Any]]:
        return self.rows("1", (), f"ORDER BY updated_at DESC, pk DESC LIMIT {int(limit)}")

    def count(self) -> int:
        return int(self.db.scalar("SELECT count(*) FROM solutions"))

    def pages(self, size: int = 500) -> Iterator[list[dict[str, Any]]]:
        """All rows in pages by ``pk``: each page is one short read, nothing stays open."""
        last = 0
        while True:
            page = self.rows("pk > ?", (last,), f"ORDER BY pk LIMIT {int(size)}")
            if not page:
                return
            yield page
            last = page[-1]["pk"]

    def bm25(self, match: str, k: int) -> list[tuple[int, float]]:
        """Best ``k`` rows for an FTS5 MATCH expression, as ``(pk, bm25 > 0)``."""
        weights = ", ".join(str(w) for w in BM25_WEIGHTS)
        rows = self.db.execute(
            f"SELECT rowid, -bm25(solutions_fts, {weights}) AS score FROM solutions_fts"
            " WHERE solutions_fts MATCH ? ORDER BY score DESC LIMIT ?",
            (match, k),
        ).fetchall()
        return [(int(pk), float(score)) for pk, score in rows]

    def document_frequencies(self, terms: Iterable[str]) -> dict[str, int]:
        """How many solutions contain each (already tokenised) term."""
        unique = sorted(set(terms))
        found: dict[str, int] = dict.fromkeys(unique, 0)
        for term in unique:
            count = self.db.scalar("SELECT doc FROM solutions_fts_vocab WHERE term = ?", (term,))
            found[term] = int(count or 0)
        return found

    def pks_with_codes(self, codes: Sequence[str], limit: int) -> list[int]:
        if not codes:
            return []
        marks = ", ".join("?" for _ in codes)
        rows = self.db.execute(
            f"SELECT DISTINCT solution_pk FROM solution_codes WHERE code IN ({marks})"
            " ORDER BY solution_pk DESC LIMIT ?",
            (*codes, limit),
        ).fetchall()
        return [int(r[0]) for r in rows]

    def filter_pks(self, pks: Sequence[int], filters: SearchFilters) -> set[int]:
        """The subset of ``pks`` whose solutions satisfy every filter."""
        if not pks:
            return set()
        clauses: list[str] = []
        params: list[Any] = []
        if filters.error_type:
            clauses.append("s.error_type = ?")
            params.append(filters.error_type)
        if filters.project_path:
            clauses.append("s.project_path = ?")
            params.append(filters.project_path)
        if filters.cli_library_id:
            clauses.append("s.cli_library_id = ?")
            params.append(filters.cli_library_id)
        for kind, values in (("tag", filters.tags), ("label", filters.labels)):
            for value in values:
                clauses.append(
                    "EXISTS (SELECT 1 FROM solution_labels l WHERE l.kind = ? AND l.value = ?"
                    " AND l.solution_pk = s.pk)"
                )
                params += [kind, value]
        condition = " AND ".join(clauses) or "1"
        kept: set[int] = set()
        for start in range(0, len(pks), 500):
            batch = list(pks[start : start + 500])
            marks = ", ".join("?" for _ in batch)
            rows = self.db.execute(
                f"SELECT s.pk FROM solutions s WHERE s.pk IN ({marks}) AND {condition}",
                (*batch, *params),
            ).fetchall()
            kept.update(int(r[0]) for r in rows)
        return kept

    # -- vectors ------------------------------------------------------------------

    def space(self, embedder: Embedder) -> Space:
        """The embedder's space, created on first use."""
        return vectors.ensure_space(self.db, *space_key(embedder))

    def existing_space(self, embedder: Embedder) -> Space | None:
        return vectors.find_space(self.db, *space_key(embedder))

    def vector_table(self, space: Space) -> VectorTable:
        return VectorTable(self.db, "solutions", space)

    def pks_without_vector(self, space: Space, limit: int) -> list[int]:
        table = self.vector_table(space)
        if not table.exists():
            rows = self.db.execute("SELECT pk FROM solutions ORDER BY pk LIMIT ?", (limit,))
        else:
            rows = self.db.execute(
                f"SELECT pk FROM solutions WHERE pk NOT IN (SELECT rowid FROM {table.name})"
                " ORDER BY pk LIMIT ?",
                (limit,),
            )
        return [int(r[0]) for r in rows.fetchall()]


def _sql_value(value: Any) -> Any:
    return to_json(value) if isinstance(value, list | dict) else value
