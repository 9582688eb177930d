"""Export a stored graph as Cypher statements that load into Neo4j.

Labels and relationship types follow the seed's Neo4j model (Repository,
File, Class, Method, Function, Attribute, plus Import; CONTAINS, DEFINES,
HAS_METHOD, HAS_ATTRIBUTE, INHERITS, IMPORTS). Every node also carries the
label ``CodeNode`` and a unique ``uid`` so statements can be re-run: loading
the export twice replaces the repository's nodes instead of duplicating them.
Targets outside the graph become ``External`` nodes. Statements batch rows
with ``UNWIND`` so a large package loads in seconds.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

from contextbase.codegraph.store import GraphStore
from contextbase.store.db import from_json

LABELS = {
    "repository": "Repository",
    "module": "File",
    "class": "Class",
    "method": "Method",
    "function": "Function",
    "attribute": "Attribute",
    "import": "Import",
}
RELATIONS = ("CONTAINS", "DEFINES", "HAS_METHOD", "HAS_ATTRIBUTE", "INHERITS", "IMPORTS")
BATCH = 500


def literal(value: Any) -> str:
    """A Cypher literal for a JSON-like value."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else "null"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(literal(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"`{k}`: {literal(v)}" for k, v in value.items()) + "}"
    text = str(value).replace("\\", "\\\\").replace("'", "\\'")
    text = text.replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")
    return f"'{text}'"


def _properties(repo: str, node: dict[str, Any]) -> dict[str, Any]:
    data = from_json(node["data"], {})
    props: dict[str, Any] = {
        "uid": f"{repo}:{node['id']}",
        "repo": repo,
        "kind": node["kind"],
        "name": node["name"],
        "qualname": node["qualname"],
        "module": node["module"],
        "file": node["file"],
        "line": node["line"],
        "signature": node["signature"],
    }
    if node["kind"] in ("method", "function"):
        params = data.get("params", [])
        props["params_list"] = [p["name"] for p in params]
        props["params_detailed"] = [
            f"{p['name']}:{p['kind']}"
            + (f":{p['annotation']}" if p.get("annotation") else "")
            + ("=default" if p.get("has_default") else "")
            for p in params
        ]
        props["return_type"] = data.get("returns")
        props["method_kind"] = data.get("method_kind")
        props["decorators"] = data.get("decorators", [])
    elif node["kind"] == "class":
        props["bases"] = data.get("bases", [])
        props["decorators"] = data.get("decorators", [])
    elif node["kind"] == "attribute":
        props["annotation"] = data.get("annotation")
        props["origin"] = data.get("origin")
    elif node["kind"] == "import":
        props["target"] = data.get("target")
    elif node["kind"] == "module":
        props["is_package"] = data.get("is_package", False)
        props["all"] = data.get("all_names")
    return {k: v for k, v in props.items() if v is not None}


def _batches(rows: list[Any]) -> Iterator[list[Any]]:
    for start in range(0, len(rows), BATCH):
        yield rows[start : start + BATCH]


def export_cypher(store: GraphStore, name: str) -> Iterator[str]:
    """Cypher statements (one per yielded string, each ending in ``;``) for one repository."""
    repo = store.get(name)
    nodes = store.nodes(repo.id)
    uids = {n["id"]: f"{name}:{n['id']}" for n in nodes}
    yield f"// contextbase code graph {name} ({repo.source}, version {repo.version or 'unknown'})"
    yield "CREATE CONSTRAINT codegraph_uid IF NOT EXISTS FOR (n:CodeNode) REQUIRE n.uid IS UNIQUE;"
    yield f"MATCH (n:CodeNode {{repo: {literal(name)}}}) DETACH DELETE n;"
    for kind, label in LABELS.items():
        rows = [_properties(name, n) for n in nodes if n["kind"] == kind]
        for batch in _batches(rows):
            yield (f"UNWIND {literal(batch)} AS row CREATE (n:CodeNode:{label}) SET n = row;")
    edges = store.edges(repo.id)
    for relation in RELATIONS:
        internal = [
            {"a": uids[e["src"]], "b": uids[e["dst"]]}
            for e in edges
            if e["kind"] == relation and e["dst"] is not None
        ]
        for batch in _batches(internal):
            yield (
                f"UNWIND {literal(batch)} AS row MATCH (a:CodeNode {{uid: row.a}}), "
                f"(b:CodeNode {{uid: row.b}}) CREATE (a)-[:{relation}]->(b);"
            )
        external = [
            {"a": uids[e["src"]], "target": e["target"]}
            for e in edges
            if e["kind"] == relation and e["dst"] is None
        ]
        for batch in _batches(external):
            yield (
                f"UNWIND {literal(batch)} AS row MATCH (a:CodeNode {{uid: row.a}}) "
                f"MERGE (b:External {{name: row.target}}) CREATE (a)-[:{relation}]->(b);"
            )
