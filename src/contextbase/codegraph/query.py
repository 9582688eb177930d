"""The ``query_knowledge_graph`` command language.

::

    repos                      repositories in the graph
    explore <repo>             what a repository holds: counts, modules, biggest classes
    classes [repo]             classes (of one repository)
    class <name>               a class: bases, MRO, methods with signatures, attributes
    method <name> [class]      methods or functions of that name (in that class)
    query <SELECT ...>         read-only SQL over codegraph_repos/_nodes/_edges
"""

from __future__ import annotations

import shlex
from typing import Any

from contextbase.codegraph.model import ClassSymbol, node_kind
from contextbase.codegraph.resolve import Resolver
from contextbase.codegraph.sql import run_readonly
from contextbase.codegraph.store import GraphStore
from contextbase.errors import InvalidInputError, NotFoundError

LIST_LIMIT = 100


def run_command(store: GraphStore, command: str) -> dict[str, Any]:
    """Run one command; the result is JSON-ready."""
    text = command.strip()
    verb, _, rest = text.partition(" ")
    verb = verb.lower()
    if verb == "query":
        if not rest.strip():
            raise InvalidInputError("Usage: query <SELECT ...>.")
        return {"command": "query", **run_readonly(store.db.path, rest)}
    try:
        args = shlex.split(rest)
    except ValueError as exc:
        raise InvalidInputError(f"Cannot read the command's arguments: {exc}.") from exc
    if verb == "repos" and not args:
        return {"command": "repos", "repositories": [_repo(r) for r in store.repositories()]}
    if verb == "explore" and len(args) == 1:
        return {"command": "explore", **explore(store, args[0])}
    if verb == "classes" and len(args) <= 1:
        repo_id = store.get(args[0]).id if args else None
        rows = store.find(kind="class", repo_id=repo_id, limit=LIST_LIMIT)
        return {
            "command": "classes",
            "classes": [_brief(r) for r in rows],
            "truncated": len(rows) == LIST_LIMIT,
        }
    if verb == "class" and len(args) == 1:
        return {"command": "class", "classes": describe_class(store, args[0])}
    if verb == "method" and 1 <= len(args) <= 2:
        return {"command": "method", "methods": find_methods(store, *args)}
    raise InvalidInputError(
        f"Unknown command {text!r}. Commands: repos, explore <repo>, classes [repo], "
        "class <name>, method <name> [class], query <SELECT ...>."
    )


def _repo(repo: Any) -> dict[str, Any]:
    keys = (
        "name",
        "source",
        "source_kind",
        "version",
        "roots",
        "file_count",
        "node_count",
        "parsed_at",
    )
    return {k: getattr(repo, k) for k in keys}


def _brief(row: dict[str, Any]) -> dict[str, Any]:
    return {
        k: row[k] for k in ("qualname", "kind", "signature", "file", "line", "repo") if k in row
    }


def explore(store: GraphStore, name: str) -> dict[str, Any]:
    repo = store.get(name)
    counts = store.db.query(
        "SELECT kind, count(*) AS n FROM codegraph_nodes WHERE repo_id=?"
        " GROUP BY kind ORDER BY kind",
        (repo.id,),
    )
    biggest = store.db.query(
        "SELECT c.qualname, count(m.id) AS methods FROM codegraph_nodes c"
        " JOIN codegraph_nodes m ON m.repo_id = c.repo_id AND m.parent = c.qualname"
        " AND m.kind = 'method' WHERE c.repo_id=? AND c.kind='class'"
        " GROUP BY c.id ORDER BY methods DESC, c.qualname LIMIT 15",
        (repo.id,),
    )
    modules = store.find(kind="module", repo_id=repo.id, limit=LIST_LIMIT)
    return {
        "repository": _repo(repo),
        "counts": {row["kind"]: row["n"] for row in counts},
        "modules": [m["qualname"] for m in modules],
        "largest_classes": biggest,
    }


def describe_class(store: GraphStore, name: str) -> list[dict[str, Any]]:
    """Every class called ``name`` (short name, qualname, or a re-exported path)."""
    reader = store.reader()
    resolver = Resolver([reader])
    found: list[ClassSymbol] = []
    resolved = resolver.resolve(name) if "." in name else None
    if isinstance(resolved, ClassSymbol):
        found.append(resolved)
    else:
        for row in store.find(kind="class", name=name, limit=20):
            found += [s for s in reader.lookup(row["qualname"]) if isinstance(s, ClassSymbol)]
    if not found:
        raise NotFoundError(f"No class named {name!r} in the graph.")
    return [_class_details(store, resolver, cls) for cls in found[:10]]


def _class_details(store: GraphStore, resolver: Resolver, cls: ClassSymbol) -> dict[str, Any]:
    mro = resolver.mro(cls)
    members: dict[str, dict[str, Any]] = {}
    for entry in mro.classes:
        for child in resolver.children(entry.qualname):
            members.setdefault(
                child.name,
                {
                    "name": child.name,
                    "kind": node_kind(child),
                    "signature": child.signature(),
                    "defined_in": entry.qualname,
                },
            )
    return {
        "qualname": cls.qualname,
        "bases": cls.bases,
        "mro": [getattr(e, "qualname", None) or getattr(e, "name", "") for e in mro.entries],
        "outside_graph": mro.opaque,
        "members": sorted(members.values(), key=lambda m: m["name"]),
    }


def find_methods(
    store: GraphStore, name: str, class_name: str | None = None
) -> list[dict[str, Any]]:
    rows = store.find(kind=("method", "function"), name=name, limit=LIST_LIMIT)
    if class_name:
        rows = [
            r
            for r in rows
            if r["parent"] and (r["parent"] == class_name or r["parent"].endswith("." + class_name))
        ]
    if not rows:
        where = f" in class {class_name!r}" if class_name else ""
        raise NotFoundError(f"No method or function named {name!r}{where} in the graph.")
    return [{**_brief(r), "parent": r["parent"]} for r in rows]
