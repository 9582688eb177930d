"""Checking scripts against a graph: statuses, suggestions, arguments and type inference."""

from __future__ import annotations

import pytest

from contextbase.codegraph import CodeGraph
from contextbase.errors import InvalidInputError
from tests.codegraph.conftest import Check, at_line, statuses


def test_imports_resolve_through_re_exports_and_report_missing_names(check: Check) -> None:
    analysis = check("""
        import shop
        import shop.models as m
        import shop.nothere
        from shop import Product, Client, slugify, Prodcut
        from shop.models import Product as P2, Basket
        from shop.client import Client as C2
        import requests
        from yaml import safe_load
    """)
    found = statuses(analysis)
    assert found["shop"] == "valid"
    assert found["shop.models"] == "valid"
    assert found["shop.Product"] == found["shop.models.Product"] == "valid"
    assert found["shop.Client"] == found["shop.client.Client"] == "valid"
    assert found["shop.slugify"] == "valid"  # through `from .util import *` and util.__all__
    assert found["shop.nothere"] == "not_found"
    missing = next(f for f in analysis.findings if f.name == "shop.Prodcut")
    assert missing.status == "not_found" and missing.suggestion == "Product"
    assert (missing.line, missing.kind) == (5, "import")
    # modules outside the graph are not checked, never errors
    assert analysis.external_modules == {"requests", "yaml"}
    assert not any("requests" in f.name or "yaml" in f.name for f in analysis.findings)


def test_methods_found_along_the_mro_and_missing_ones_suggested(check: Check) -> None:
    analysis = check("""
        from shop import Product
        p = Product(1, "tea")
        p.save()          # Entity, through the MRO
        p.rename("mate")  # Named, second base
        p.name, p.price, p.id, p._dirty   # instance attributes set in __init__ methods
        p.label.upper()   # property typed str (outside the graph: not checked)
        p.currency
        p.__class__, p.__dict__
        p.sav()
        p.refrsh()
        Product.nope
    """)
    lines = {f.line: f for f in analysis.findings if f.status != "valid"}
    assert set(lines) == {10, 11, 12}
    assert lines[10].suggestion == "save" and lines[10].kind == "method_call"
    assert lines[10].column == 3 and lines[10].confidence >= 0.9
    assert lines[11].suggestion == "refresh"
    assert lines[12].status == "not_found" and lines[12].kind == "attribute"
    assert "'shop.models.Product' object has no attribute 'sav'" in lines[10].message


def test_arguments_are_bound_like_python(check: Check) -> None:
    analysis = check("""
        from shop import Product, Client, slugify
        c = Client("http://x", timeout=3)
        Client("http://x", 3)
        Client(timeout=3)
        Client("http://x", timout=3)
        slugify("A b", sep="_", lower=False)
        slugify(text="A b")
        slugify("a", "-", True)
        Product(1, "tea", 2.0, "green", "loose", origin="CN")
        Product(1, "tea", id=2)
        c.get("/p", {"a": 1})
        c.get("/p", {"a": 1}, 3)
        c.get(*["/p"])
        c.get(**{"path": "/p"})
        c.get("/p", parms={}, **{})
    """)
    by_line = {f.line: f for f in analysis.findings if f.status == "invalid_arguments"}
    assert set(by_line) == {4, 5, 6, 8, 9, 11, 13, 16}
    assert "keyword-only" in by_line[4].message and "'timeout'" in by_line[4].message
    assert "missing required argument 'base_url'" in by_line[5].message
    assert by_line[6].suggestion == "timeout" and by_line[6].column == 20
    assert "positional-only" in by_line[8].message
    assert "takes 2 positional arguments but 3 were given" in by_line[9].message
    assert "multiple values for argument 'id'" in by_line[11].message
    assert "takes 2 positional arguments but 3 were given" in by_line[13].message
    assert by_line[16].suggestion == "params"  # splats skip arity, not unknown keywords
    assert at_line(analysis, 7) == ["valid"] and at_line(analysis, 10) == ["valid"]


def test_constructors_of_dataclasses(check: Check) -> None:
    analysis = check("""
        from shop.models import Line, GiftLine, Product
        p = Product(1, "tea")
        Line(p)
        Line(p, 2, note="x")
        Line(p, 2, "x")
        Line(p, total=3.0)
        GiftLine(p, message="hi")
        GiftLine(p)
        GiftLine(p, 1, message="hi", note="n")
    """)
    bad = {f.line: f.message for f in analysis.findings if f.status == "invalid_arguments"}
    assert set(bad) == {6, 7, 9}
    assert "takes 2 positional" in bad[6] and "'note'" in bad[6]
    assert "'total'" in bad[7]
    assert "missing required argument 'message'" in bad[9]


def test_pydantic_fields_are_constructor_keywords(graph: CodeGraph, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from tests.codegraph.conftest import write_tree

    write_tree(
        tmp_path / "src",
        {
            "models/__init__.py": """
        from pydantic import BaseModel, ConfigDict, Field

        class User(BaseModel):
            name: str
            age: int = 0
            email: str = Field(alias="mail")
            _secret: str = "x"

        class Strict(BaseModel):
            model_config = ConfigDict(extra="forbid")
            x: int

        class Loose(BaseModel, extra="allow"):
            x: int = 1

        class Admin(User):
            level: int
    """
        },
    )
    graph.parse(str(tmp_path / "src" / "models"))
    analysis = graph.check(
        "from models import User, Strict, Loose, Admin\n"
        "User(name='a', mail='m')\n"
        "User(name='a', mail='m', agee=3)\n"
        "User('a')\n"
        "Strict(x=1, y=2)\n"
        "Loose(x=1, anything=2)\n"
        "Admin(name='a', level=1, mail='m')\n"
        "Admin(name='a', mail='m')\n"
        "User(age=1, mail='m')\n"
    )
    bad = {f.line: f for f in analysis.findings if f.status == "invalid_arguments"}
    assert set(bad) == {3, 4, 5, 8, 9}
    assert bad[3].suggestion == "age" and bad[3].confidence < bad[5].confidence
    assert "missing required argument 'level'" in bad[8].message
    assert "'name'" in bad[9].message
    # pydantic itself is outside this graph: its base is recognised by name
    assert analysis.external_modules == set()


def test_external_bases_make_missing_members_uncertain(graph: CodeGraph, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from tests.codegraph.conftest import write_tree

    write_tree(
        tmp_path / "src",
        {
            "ext/__init__.py": """
        import requests
        from enum import Enum

        class MySession(requests.Session):
            def hello(self) -> None: ...

        class Color(Enum):
            RED = 1

        class Dynamic:
            def __getattr__(self, name: str) -> int:
                return 1

        class Configured:
            def __init__(self, **options: int) -> None:
                for key, value in options.items():
                    setattr(self, key, value)
    """
        },
    )
    graph.parse(str(tmp_path / "src" / "ext"))
    analysis = graph.check(
        "from ext import MySession, Color, Dynamic, Configured\n"
        "s = MySession()\n"
        "s.hello()\n"
        "s.get('http://x')\n"
        "s.hallo()\n"
        "Color.RED.value\n"
        "Dynamic().anything\n"
        "Configured(a=1).a\n"
    )
    found = {f.line: f.status for f in analysis.findings if f.kind != "import"}
    assert found[3] == "valid"
    assert found[4] == found[5] == "uncertain"  # requests.Session is outside the graph
    assert "outside the graph" in next(f.message for f in analysis.findings if f.line == 5)
    assert found[7] == "uncertain" and found[8] == "uncertain"
    assert not analysis.hallucinations


def test_decorators_are_calls_on_their_object(check: Check) -> None:
    analysis = check("""
        from shop.client import app, App
        import functools

        @app.get("/items", name="items")
        def items() -> list:
            return []

        @app.gett("/x")
        def x() -> None: ...

        @app.get("/y", nme="y")
        def y() -> None: ...

        @functools.lru_cache(maxsize=8)
        def cached(n: int) -> int:
            return n

        cached(1)
        cached(1, 2)
    """)
    assert at_line(analysis, 5) == ["valid"]
    assert at_line(analysis, 9) == ["not_found"]
    assert at_line(analysis, 12) == ["invalid_arguments"]
    assert at_line(analysis, 20) == ["invalid_arguments"]  # the script's own function


def test_types_flow_through_assignments_annotations_with_and_returns(check: Check) -> None:
    analysis = check("""
        from shop import Client, Product
        from shop.models import Basket

        def use(client: Client, maybe: "Product | None", items: list[Product]) -> None:
            client.session.close()
            client.session.closed()
            maybe.sav()
            for item in items:
                item.sav()

        client = Client("http://x")
        product = client.get("/p")
        product.sav()
        fresh = Product.create("x")
        fresh.sav()
        parsed = Product.parse("x")
        parsed.sav()
        with client.basket() as basket:
            basket.ad(product)
        with Basket() as other:
            line = other.add(product)
            line.quantity
            line.quantit
        with client.transaction() as tx:
            tx.ad(product)
        for line in Basket():
            pass
        chained = product.refresh().discounted(10).sav()
        annotated: Product = make()
        annotated.sav()
        total = product(3)
        product(quantity=3, extra=1)
    """)
    bad = sorted(f.line for f in analysis.hallucinations)
    assert bad == [7, 8, 10, 14, 16, 18, 20, 24, 26, 29, 31, 33]


def test_branches_merge_to_unknown_and_unknown_types_are_not_errors(check: Check) -> None:
    analysis = check("""
        import random
        from shop import Product, Basket
        if random.random() > 0.5:
            thing = Product(1, "a")
        else:
            thing = Basket()
        thing.add(None)
        thing.whatever()
        same = Product(1, "a") if random.random() else Product(2, "b")
        same.sav()
        data = {"a": 1}
        data.nope()
    """)
    assert [f.line for f in analysis.hallucinations] == [11]


def test_unknown_types_from_the_graph_are_reported_as_uncertain(check: Check) -> None:
    analysis = check("""
        from shop.models import Basket
        b = Basket()
        it = b.__iter__()
        it.whatever()
    """)
    uncertain = [f for f in analysis.uncertain if f.line == 5]
    assert uncertain and "has no return annotation" in uncertain[0].message


def test_the_scripts_own_classes_subclass_library_classes(check: Check) -> None:
    analysis = check("""
        from shop import Product, Client

        class Tea(Product):
            def brew(self) -> None:
                self.save()
                self.steep()
                self.rename("x")

        class Plain:
            def __init__(self, a: int) -> None:
                self.a = a

            def run(self) -> None:
                self.a
                self.b

        Tea(1, "green").brew()
        Tea(1, "green").sav()
        Plain(1, 2)
    """)
    bad = {f.line: f.status for f in analysis.hallucinations}
    assert bad == {7: "not_found", 16: "not_found", 19: "not_found", 20: "invalid_arguments"}


def test_a_syntax_error_is_a_clear_error(check: Check) -> None:
    with pytest.raises(InvalidInputError, match=r"does not parse .* line 2"):
        check("import shop\ndef broken(:\n")


def test_isinstance_and_hasattr_guards_are_not_flagged(check: Check) -> None:
    analysis = check("""
        from shop import Product
        from shop.models import Basket

        def describe(thing: Product, holder) -> None:
            if isinstance(thing, Basket):
                thing.add(None)
            if hasattr(holder.item, "sku"):
                print(holder.item.sku)
            thing.sav()
    """)
    assert [f.line for f in analysis.hallucinations] == []
    assert not any(f.name.endswith(".add") for f in analysis.findings)


def test_attributes_set_on_instances_a_classmethod_builds(graph: CodeGraph, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from tests.codegraph.conftest import write_tree

    write_tree(
        tmp_path / "src",
        {
            "aux/__init__.py": """
        class Resetter:
            def __set__(self, obj, value) -> None: ...

        class Aux:
            cache = Resetter()

            @classmethod
            def build(cls, data: list) -> "Aux":
                made = cls()
                made.data = data
                return made
    """
        },
    )
    graph.parse(str(tmp_path / "src" / "aux"))
    analysis = graph.check(
        "from aux import Aux\na = Aux.build([1])\na.data.append(2)\na.cache.items()\na.dta\n"
    )
    assert [(f.line, f.suggestion) for f in analysis.hallucinations] == [(5, "data")]
