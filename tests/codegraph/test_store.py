"""The graph in SQLite: node and edge tables, atomic re-parse, queries, Cypher export."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from contextbase.codegraph import CodeGraph
from contextbase.codegraph import store as store_module
from contextbase.codegraph.cypher import literal
from contextbase.codegraph.sql import run_readonly
from contextbase.errors import InvalidInputError, NotFoundError
from tests.codegraph.conftest import SHOP, write_tree


def test_nodes_and_edges_of_every_kind(shop_graph: CodeGraph) -> None:
    db = shop_graph.store.db
    kinds = {r["kind"] for r in db.query("SELECT DISTINCT kind FROM codegraph_nodes")}
    assert kinds == {"repository", "module", "class", "method", "function", "attribute", "import"}
    edges = {r["kind"] for r in db.query("SELECT DISTINCT kind FROM codegraph_edges")}
    assert edges == {"CONTAINS", "DEFINES", "HAS_METHOD", "HAS_ATTRIBUTE", "INHERITS", "IMPORTS"}
    inherits = db.query(
        "SELECT s.qualname AS cls, e.target, e.dst FROM codegraph_edges e"
        " JOIN codegraph_nodes s ON s.id = e.src WHERE e.kind = 'INHERITS' ORDER BY 1, 2"
    )
    pairs = {(r["cls"], r["target"], r["dst"] is not None) for r in inherits}
    assert ("shop.models.Product", "shop.base.Entity", True) in pairs
    assert ("shop.errors.ShopError", "builtins.Exception", False) in pairs  # outside the graph
    method = db.query_one(
        "SELECT signature, file, line FROM codegraph_nodes"
        " WHERE qualname = 'shop.client.Client.get'"
    )
    assert method == {"signature": "def get(self, path: str, params: dict | None = ...) -> Product",
                      "file": "shop/client.py", "line": 15}  # fmt: skip


def test_re_parsing_replaces_the_graph_atomically(
    shop_graph: CodeGraph, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = shop_graph.store.get("shop")
    assert before.file_count == 6 and before.version is None
    (tmp_path / "src" / "shop" / "extra.py").write_text("def added() -> None: ...\n")

    def fail(*args: object) -> list[object]:
        raise RuntimeError("disk full")

    monkeypatch.setattr(store_module, "derive_edges", fail)
    with pytest.raises(RuntimeError):
        shop_graph.parse(str(tmp_path / "src" / "shop"))
    assert shop_graph.store.get("shop").file_count == 6  # the old graph is intact
    assert not shop_graph.store.find(kind="function", name="added")

    monkeypatch.undo()
    after = shop_graph.parse(str(tmp_path / "src" / "shop"))
    assert after.file_count == 7
    assert len(shop_graph.store.find(kind="function", name="added")) == 1
    count = shop_graph.store.db.scalar(
        "SELECT count(*) FROM codegraph_nodes WHERE name='Product' AND kind='class'"
    )
    assert count == 1  # replaced, not duplicated


def test_list_and_remove(shop_graph: CodeGraph) -> None:
    assert [r.name for r in shop_graph.repositories()] == ["shop"]
    shop_graph.remove("shop")
    assert shop_graph.repositories() == []
    assert shop_graph.store.db.scalar("SELECT count(*) FROM codegraph_edges") == 0
    with pytest.raises(NotFoundError):
        shop_graph.remove("shop")


def test_query_commands(shop_graph: CodeGraph) -> None:
    repos = shop_graph.query("repos")["repositories"]
    assert repos[0]["name"] == "shop" and repos[0]["roots"] == ["shop"]
    explored = shop_graph.query("explore shop")
    assert explored["counts"]["class"] >= 10 and "shop.models" in explored["modules"]
    classes = {c["qualname"] for c in shop_graph.query("classes shop")["classes"]}
    assert {"shop.models.Product", "shop.client.Client"} <= classes
    [product] = shop_graph.query("class shop.Product")["classes"]  # through the re-export
    assert product["mro"] == ["shop.models.Product", "shop.base.Entity", "shop.base.Named"]
    members = {m["name"]: m for m in product["members"]}
    assert members["save"]["defined_in"] == "shop.base.Entity"  # inherited members listed
    assert members["create"]["kind"] == "method"
    assert shop_graph.query("class Product")["classes"][0]["qualname"] == "shop.models.Product"
    methods = shop_graph.query("method get Client")["methods"]
    assert [m["qualname"] for m in methods] == ["shop.client.Client.get"]
    with pytest.raises(NotFoundError):
        shop_graph.query("class Nope")
    with pytest.raises(InvalidInputError, match="Unknown command"):
        shop_graph.query("drop everything")


def test_read_only_sql_is_bounded_and_refuses_anything_else(shop_graph: CodeGraph) -> None:
    result = shop_graph.query(
        "query SELECT name, signature FROM codegraph_nodes WHERE kind = 'method' ORDER BY name"
    )
    assert result["row_count"] > 5 and set(result["rows"][0]) == {"name", "signature"}
    path = shop_graph.store.db.path
    capped = run_readonly(path, "SELECT * FROM codegraph_nodes", max_rows=3)
    assert capped["row_count"] == 3 and capped["truncated"]
    refused = [
        "DELETE FROM codegraph_nodes",
        "SELECT 1; DELETE FROM codegraph_nodes",
        "SELECT * FROM schema_version",
        "WITH x AS (SELECT 1) SELECT * FROM sqlite_master",
        "SELECT load_extension('x')",
        "PRAGMA query_only = 0",
        "SELECT * FROM nowhere",
    ]
    for sql in refused:
        with pytest.raises(InvalidInputError):
            run_readonly(path, sql)
    endless = (
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n"
    )
    with pytest.raises(InvalidInputError, match="longer than"):
        run_readonly(path, endless, seconds=0.2)
    assert shop_graph.store.db.scalar("SELECT count(*) FROM codegraph_nodes") > 50


def test_cypher_export(shop_graph: CodeGraph) -> None:
    statements = list(shop_graph.export_cypher("shop"))
    assert statements[1].startswith("CREATE CONSTRAINT codegraph_uid IF NOT EXISTS")
    assert statements[2] == "MATCH (n:CodeNode {repo: 'shop'}) DETACH DELETE n;"
    text = "\n".join(statements)
    for label in ("Repository", "File", "Class", "Method", "Function", "Attribute", "Import"):
        assert f"CREATE (n:CodeNode:{label}) SET n = row;" in text
    for relation in ("CONTAINS", "DEFINES", "HAS_METHOD", "HAS_ATTRIBUTE", "INHERITS", "IMPORTS"):
        assert f"CREATE (a)-[:{relation}]->(b);" in text
    assert "MERGE (b:External {name: row.target})" in text
    assert "`params_list`: ['self', 'path', 'params']" in text
    assert all(s.endswith(";") for s in statements[1:])
    assert literal("it's a \\ path\n") == "'it\\'s a \\\\ path\\n'"
    assert literal({"a": [1, 2.5, None, True]}) == "{`a`: [1, 2.5, null, true]}"
    # every single-quoted literal is closed: no stray quote breaks a statement
    for statement in statements[1:]:
        unescaped = re.sub(r"\\.", "", statement)
        assert unescaped.count("'") % 2 == 0


def test_two_repositories_and_json_safe_results(graph: CodeGraph, tmp_path: Path) -> None:
    write_tree(tmp_path / "a", SHOP)
    write_tree(tmp_path / "b", {"other/__init__.py": "def f(x): ...\n"})
    graph.parse(str(tmp_path / "a" / "shop"))
    graph.parse(str(tmp_path / "b" / "other"))
    assert [r.name for r in graph.repositories()] == ["other", "shop"]
    analysis = graph.check("import other\nfrom shop import Product\nother.f(1, 2)\n")
    assert [f.line for f in analysis.hallucinations] == [3]
    only_shop = graph.check("import other\nother.f(1, 2)\n", repos=["shop"])
    assert only_shop.hallucinations == [] and only_shop.external_modules == {"other"}
    json.dumps(graph.query("explore other"))
