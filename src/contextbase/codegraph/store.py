"""The code graph in the contextbase database: repository, node and edge tables.

Nodes are the symbols (plus one ``repository`` node per repository), edges the
relations between them (CONTAINS, DEFINES, HAS_METHOD, HAS_ATTRIBUTE,
INHERITS, IMPORTS). An edge to something outside the graph keeps its target
as text with no destination node. Re-parsing a repository replaces its whole
graph in one transaction, so readers see the old graph or the new one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from contextbase.codegraph.edges import Edge, derive_edges
from contextbase.codegraph.extract import Extraction
from contextbase.codegraph.model import ModuleSymbol, Symbol, node_kind, symbol_from_data
from contextbase.errors import NotFoundError
from contextbase.store.db import Database, from_json, to_json, utcnow

COMPONENT = "codegraph"

_SCHEMA = """
CREATE TABLE codegraph_repos (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    source TEXT NOT NULL,
    source_kind TEXT NOT NULL,
    version TEXT,
    roots TEXT NOT NULL,
    file_count INTEGER NOT NULL,
    node_count INTEGER NOT NULL,
    failed TEXT NOT NULL,
    parse_seconds REAL NOT NULL,
    parsed_at TEXT NOT NULL
);
CREATE TABLE codegraph_nodes (
    id INTEGER PRIMARY KEY,
    repo_id INTEGER NOT NULL REFERENCES codegraph_repos(id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    name TEXT NOT NULL,
    qualname TEXT NOT NULL,
    parent TEXT,
    module TEXT,
    file TEXT,
    line INTEGER,
    signature TEXT,
    data TEXT NOT NULL
);
CREATE INDEX codegraph_nodes_qualname ON codegraph_nodes(repo_id, qualname);
CREATE INDEX codegraph_nodes_parent ON codegraph_nodes(repo_id, parent);
CREATE INDEX codegraph_nodes_name ON codegraph_nodes(name, kind);
CREATE TABLE codegraph_edges (
    repo_id INTEGER NOT NULL REFERENCES codegraph_repos(id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    src INTEGER NOT NULL,
    dst INTEGER,
    target TEXT NOT NULL
);
CREATE INDEX codegraph_edges_src ON codegraph_edges(src);
CREATE INDEX codegraph_edges_dst ON codegraph_edges(dst);
CREATE INDEX codegraph_edges_repo ON codegraph_edges(repo_id, kind);
"""
MIGRATIONS = [_SCHEMA]
TABLES = ("codegraph_repos", "codegraph_nodes", "codegraph_edges")


@dataclass(frozen=True)
class RepoInfo:
    id: int
    name: str
    source: str
    source_kind: str
    version: str | None
    roots: list[str]
    file_count: int
    node_count: int
    failed: list[list[str]]
    parse_seconds: float
    parsed_at: str

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> RepoInfo:
        values = dict(row)
        values["roots"] = from_json(values["roots"], [])
        values["failed"] = from_json(values["failed"], [])
        return cls(**values)

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


class GraphStore:
    """Code graphs of any number of repositories in one database."""

    def __init__(self, db: Database) -> None:
        self.db = db
        db.migrate(COMPONENT, MIGRATIONS)

    # -- writing -----------------------------------------------------------

    def replace(
        self,
        *,
        name: str,
        source: str,
        source_kind: str,
        version: str | None,
        roots: list[str],
        extraction: Extraction,
        seconds: float,
    ) -> RepoInfo:
        """Store a repository's graph, replacing any earlier graph of the same name."""
        symbols = list(extraction.symbols)
        with self.db.transaction():
            self._delete(name)
            self.db.execute(
                "INSERT INTO codegraph_repos(name, source, source_kind, version, roots, file_count,"
                " node_count, failed, parse_seconds, parsed_at) VALUES (?,?,?,?,?,?,?,?,?,?)",
                (
                    name,
                    source,
                    source_kind,
                    version,
                    to_json(roots),
                    extraction.files,
                    len(symbols),
                    to_json(extraction.failed),
                    round(seconds, 3),
                    utcnow(),
                ),
            )
            repo_id = int(self.db.scalar("SELECT id FROM codegraph_repos WHERE name=?", (name,)))
            first = int(self.db.scalar("SELECT coalesce(max(id), 0) + 1 FROM codegraph_nodes"))
            ids = {id(symbol): first + 1 + index for index, symbol in enumerate(symbols)}
            self.db.executemany(
                "INSERT INTO codegraph_nodes(id, repo_id, kind, name, qualname, parent, module,"
                " file, line, signature, data) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                [
                    (
                        first,
                        repo_id,
                        "repository",
                        name,
                        name,
                        None,
                        None,
                        None,
                        None,
                        None,
                        to_json({"source": source, "version": version}),
                    )
                ]
                + [_node_row(ids[id(s)], repo_id, s, extraction) for s in symbols],
            )
            edges = derive_edges(extraction.symbols, roots)
            self.db.executemany(
                "INSERT INTO codegraph_edges(repo_id, kind, src, dst, target) VALUES (?,?,?,?,?)",
                [_edge_row(repo_id, edge, first, ids) for edge in edges],
            )
        return self.get(name)

    def remove(self, name: str) -> None:
        with self.db.transaction():
            if not self._delete(name):
                raise NotFoundError(f"No code graph named {name!r}; see `contextbase graph list`.")

    def _delete(self, name: str) -> bool:
        repo_id = self.db.scalar("SELECT id FROM codegraph_repos WHERE name=?", (name,))
        if repo_id is None:
            return False
        self.db.execute("DELETE FROM codegraph_edges WHERE repo_id=?", (repo_id,))
        self.db.execute("DELETE FROM codegraph_nodes WHERE repo_id=?", (repo_id,))
        self.db.execute("DELETE FROM codegraph_repos WHERE id=?", (repo_id,))
        return True

    # -- reading -----------------------------------------------------------

    def repositories(self) -> list[RepoInfo]:
        rows = self.db.query("SELECT * FROM codegraph_repos ORDER BY name")
        return [RepoInfo.from_row(r) for r in rows]

    def get(self, name: str) -> RepoInfo:
        row = self.db.query_one("SELECT * FROM codegraph_repos WHERE name=?", (name,))
        if row is None:
            known = ", ".join(r.name for r in self.repositories()) or "none yet"
            raise NotFoundError(f"No code graph named {name!r} (known: {known}).")
        return RepoInfo.from_row(row)

    def reader(self, repos: list[str] | None = None) -> GraphReader:
        return GraphReader(self.db, [self.get(n) for n in repos] if repos else self.repositories())

    def nodes(self, repo_id: int) -> list[dict[str, Any]]:
        return self.db.query(
            "SELECT * FROM codegraph_nodes WHERE repo_id=? ORDER BY id", (repo_id,)
        )

    def edges(self, repo_id: int) -> list[dict[str, Any]]:
        return self.db.query(
            "SELECT * FROM codegraph_edges WHERE repo_id=? ORDER BY rowid", (repo_id,)
        )

    def find(
        self,
        *,
        kind: str | tuple[str, ...],
        name: str | None = None,
        parent: str | None = None,
        repo_id: int | None = None,
        limit: int = 200,
    ) -> list[dict[str, Any]]:
        """Nodes by kind and optionally short name or qualname, parent qualname and repository."""
        kinds = (kind,) if isinstance(kind, str) else kind
        sql = (
            "SELECT n.*, r.name AS repo FROM codegraph_nodes n JOIN codegraph_repos r"
            f" ON r.id = n.repo_id WHERE n.kind IN ({','.join('?' * len(kinds))})"
        )
        params: list[Any] = list(kinds)
        if name is not None:
            sql += " AND (n.name = ? OR n.qualname = ?)"
            params += [name, name]
        if parent is not None:
            sql += " AND n.parent = ?"
            params.append(parent)
        if repo_id is not None:
            sql += " AND n.repo_id = ?"
            params.append(repo_id)
        return self.db.query(sql + " ORDER BY n.qualname LIMIT ?", [*params, limit])


class GraphReader:
    """Symbols read on demand from the store; the newest repository wins a shared prefix."""

    def __init__(self, db: Database, repos: list[RepoInfo]) -> None:
        self.db = db
        self._roots: dict[str, int] = {}
        for repo in sorted(repos, key=lambda r: (r.parsed_at, r.id)):
            self._roots.update({root: repo.id for root in repo.roots})
        self._lookups: dict[str, list[Symbol]] = {}
        self._children: dict[str, list[Symbol]] = {}

    def _repo_for(self, dotted: str) -> int | None:
        parts = dotted.split(".")
        for end in range(len(parts), 0, -1):
            repo_id = self._roots.get(".".join(parts[:end]))
            if repo_id is not None:
                return repo_id
        return None

    def covers(self, dotted: str) -> bool:
        return self._repo_for(dotted) is not None

    def lookup(self, qualname: str) -> list[Symbol]:
        if qualname not in self._lookups:
            self._lookups[qualname] = self._select("qualname", qualname)
        return self._lookups[qualname]

    def children(self, qualname: str) -> list[Symbol]:
        if qualname not in self._children:
            self._children[qualname] = self._select("parent", qualname)
        return self._children[qualname]

    def _select(self, column: str, value: str) -> list[Symbol]:
        repo_id = self._repo_for(value)
        if repo_id is None:
            return []
        rows = self.db.query(
            "SELECT kind, name, qualname, parent, module, line, data FROM codegraph_nodes"
            f" WHERE repo_id=? AND {column}=? AND kind != 'repository' ORDER BY id",
            (repo_id, value),
        )
        return [_symbol(row) for row in rows]


def _symbol(row: dict[str, Any]) -> Symbol:
    common = {k: row[k] for k in ("qualname", "name", "module", "parent", "line")}
    return symbol_from_data(row["kind"], common, from_json(row["data"], {}))


def _node_row(node_id: int, repo_id: int, symbol: Symbol, extraction: Extraction) -> tuple:
    file = extraction.paths.get(symbol.module)
    if isinstance(symbol, ModuleSymbol):
        file = symbol.path
    return (
        node_id,
        repo_id,
        node_kind(symbol),
        symbol.name,
        symbol.qualname,
        symbol.parent,
        symbol.module,
        file,
        symbol.line,
        symbol.signature(),
        to_json(symbol.data()),
    )


def _edge_row(repo_id: int, edge: Edge, repository_node: int, ids: dict[int, int]) -> tuple:
    src = repository_node if edge.src is None else ids[id(edge.src)]
    dst = ids[id(edge.dst)] if edge.dst is not None else None
    return (repo_id, edge.kind, src, dst, edge.target)
