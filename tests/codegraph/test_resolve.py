"""Resolution: re-exports, aliases, the MRO across files, and what stays unknown."""

from __future__ import annotations

from pathlib import Path

import pytest

from contextbase.codegraph import CodeGraph
from contextbase.codegraph.extract import extract_files
from contextbase.codegraph.model import ClassSymbol, FunctionSymbol
from contextbase.codegraph.resolve import External, Resolver, TableSource
from contextbase.codegraph.sources import folder_checkout
from tests.codegraph.conftest import SHOP, write_tree

DIAMOND = {
    "geo/__init__.py": "from .shapes import Square\nfrom .base import Shape as PublicShape\n",
    "geo/base.py": """
        class Shape:
            def area(self) -> float: ...
            def describe(self) -> str: ...
    """,
    "geo/mixins.py": """
        from geo.base import Shape
        class Coloured(Shape):
            def describe(self) -> str: ...
            def paint(self, colour: str) -> None: ...
        class Bordered(Shape):
            def border(self) -> None: ...
    """,
    "geo/shapes.py": """
        from .mixins import Coloured, Bordered
        from . import mixins
        class Square(Coloured, Bordered):
            def side(self) -> float: ...
        class Odd(mixins.Coloured, UnknownBase):
            pass
        Box = Square
    """,
    "geo/lazy.py": """
        import importlib
        __all__ = ["Thing"]
        def __getattr__(name):
            return importlib.import_module("geo." + name)
    """,
    "geo/deprecated.py": """
        _MOVED = {"Older": "geo.base"}
        def __getattr__(name):
            if name == "Old" or name in _MOVED:
                return 1
            raise AttributeError(f"no {name}")
    """,
}


@pytest.fixture
def resolver(tmp_path: Path) -> Resolver:
    checkout = folder_checkout(write_tree(tmp_path, DIAMOND) / "geo")
    return Resolver([TableSource(extract_files(checkout.files).symbols, checkout.roots)])


def test_re_exported_and_defining_paths_resolve_to_the_same_class(resolver: Resolver) -> None:
    direct = resolver.resolve("geo.shapes.Square")
    exported = resolver.resolve("geo.Square")
    assert isinstance(direct, ClassSymbol) and direct is exported
    assert resolver.resolve("geo.PublicShape").qualname == "geo.base.Shape"  # type: ignore[union-attr]
    assert resolver.resolve("geo.shapes.Box") is direct  # `Box = Square`
    method = resolver.resolve("geo.Square.paint")
    assert isinstance(method, FunctionSymbol) and method.qualname == "geo.mixins.Coloured.paint"
    assert resolver.resolve("geo.Square.nope") is None
    assert resolver.resolve("requests.Session") == External("requests.Session")


def test_mro_is_c3_across_files(resolver: Resolver) -> None:
    square = resolver.resolve("geo.Square")
    assert isinstance(square, ClassSymbol)
    order = [c.qualname for c in resolver.mro(square).classes]
    assert order == ["geo.shapes.Square", "geo.mixins.Coloured", "geo.mixins.Bordered",
                     "geo.base.Shape"]  # fmt: skip
    found = resolver.member(square, "describe", instance=True)
    assert found.owner is not None and found.owner.qualname == "geo.mixins.Coloured"
    assert resolver.member(square, "border", instance=True).status == "found"
    missing = resolver.member(square, "perimeter", instance=True)
    assert missing.status == "missing" and "side" in missing.candidates


def test_unresolvable_bases_make_members_unknown(resolver: Resolver) -> None:
    odd = resolver.resolve("geo.shapes.Odd")
    assert isinstance(odd, ClassSymbol)
    assert resolver.mro(odd).opaque == ["UnknownBase"]
    assert resolver.member(odd, "paint", instance=True).status == "found"
    assert resolver.member(odd, "anything", instance=True).status == "unknown"


def test_lazy_modules_use_all(resolver: Resolver) -> None:
    lazy = resolver.module("geo.lazy")
    assert lazy is not None
    assert resolver.member(lazy, "Thing", instance=False).status == "found"  # listed in __all__
    assert resolver.member(lazy, "_thing", instance=False).status == "unknown"
    assert resolver.member(lazy, "__all__", instance=False).status == "found"
    missing = resolver.member(lazy, "Thnig", instance=False)
    assert missing.status == "missing" and missing.confidence < 0.9
    deprecated = resolver.module("geo.deprecated")
    assert deprecated is not None and deprecated.getattr_names == ["Old", "Older"]
    assert resolver.member(deprecated, "Older", instance=False).status == "found"
    refused = resolver.member(deprecated, "Oldest", instance=False)
    assert refused.status == "missing" and refused.confidence == 0.95


def test_builtin_and_abc_bases_are_known(graph: CodeGraph, tmp_path: Path) -> None:
    write_tree(
        tmp_path / "src",
        {
            "errs/__init__.py": """
        import abc
        from typing import Generic, TypeVar
        T = TypeVar("T")
        class AppError(Exception):
            code = 1
        class Repo(abc.ABC, Generic[T]):
            @abc.abstractmethod
            def get(self, key: str) -> T: ...
    """
        },
    )
    graph.parse(str(tmp_path / "src" / "errs"))
    analysis = graph.check(
        "from errs import AppError, Repo\n"
        "e = AppError('x')\n"
        "e.args, e.with_traceback(None), e.code\n"
        "e.cod\n"
        "class Mem(Repo[int]):\n"
        "    def get(self, key: str) -> int:\n"
        "        return 1\n"
        "Mem().get('a')\n"
        "Mem().gett('a')\n"
        "Mem(1)\n"
    )
    found = {f.line: f.status for f in analysis.hallucinations}
    assert found == {4: "not_found", 9: "not_found", 10: "invalid_arguments"}


def test_the_store_reader_resolves_like_memory(shop_graph: CodeGraph) -> None:
    resolver = Resolver([shop_graph.store.reader()])
    product = resolver.resolve("shop.Product")
    assert isinstance(product, ClassSymbol) and product.qualname == "shop.models.Product"
    assert [c.qualname for c in resolver.mro(product).classes] == [
        "shop.models.Product", "shop.base.Entity", "shop.base.Named"]  # fmt: skip
    assert resolver.resolve("shop.slugify").qualname == "shop.util.slugify"  # type: ignore[union-attr]
    assert not resolver.covers("shopping")


def test_shop_tree_written(tmp_path: Path) -> None:
    root = write_tree(tmp_path, SHOP)
    assert (root / "shop" / "models.py").read_text().startswith("from __future__")


def test_standard_library_bases_are_introspected(graph: CodeGraph, tmp_path: Path) -> None:
    write_tree(
        tmp_path / "src",
        {
            "std/__init__.py": """
        import enum
        import threading
        import typing as t

        class Registry(t.MutableMapping[str, int]):
            def __getitem__(self, key: str) -> int: ...
            def __setitem__(self, key: str, value: int) -> None: ...
            def __delitem__(self, key: str) -> None: ...
            def __iter__(self): ...
            def __len__(self) -> int: ...

        class Colour(enum.Enum):
            RED = 1

        class Worker(threading.Thread):
            def work(self) -> None: ...

        class Failed(RuntimeError):
            pass
    """
        },
    )
    graph.parse(str(tmp_path / "src" / "std"))
    analysis = graph.check(
        "from std import Registry, Colour, Worker, Failed\n"
        "r = Registry()\n"
        "r.get('a'), r.setdefault('a', 1), r.items()\n"
        "r.get_item('a')\n"
        "Colour.RED.value, Colour.RED.name, Colour.__members__\n"
        "Colour.RED.valeu\n"
        "Worker(target=print, daemon=True).start()\n"
        "Worker(target=print, deamon=True)\n"
        "Failed('boom')\n"
        "Failed('boom', code=2)\n"
    )
    found = {f.line: f.suggestion for f in analysis.hallucinations}
    assert found == {4: "items", 6: "value", 8: "daemon", 10: None}
    assert not analysis.uncertain


@pytest.mark.slow
def test_real_pydantic_in_the_graph(graph: CodeGraph) -> None:
    graph.parse("pydantic", kind="package")
    analysis = graph.check(
        "from pydantic import BaseModel, Field, ValidatonError\n"
        "class User(BaseModel):\n"
        "    name: str\n"
        "    tags: list[str] = Field(default_factory=list)\n"
        "u = User(name='a')\n"
        "u.model_dump(), u.model_dump_json(indent=2), User.model_validate({'name': 'b'})\n"
        "u.model_dumps()\n"
        "User.model_validate_dict({})\n"
        "u.model_dump(exclude_nones=True)\n"
        "User(nme='a')\n"
    )
    found = {f.line: f.suggestion for f in analysis.hallucinations}
    assert found == {1: "ValidationError", 7: "model_dump", 8: "model_validate", 9: "exclude_none",
                     10: "name"}  # fmt: skip


def test_protocols_and_patched_class_attributes(graph: CodeGraph, tmp_path: Path) -> None:
    write_tree(
        tmp_path / "src",
        {
            "proto/__init__.py": """
        from typing import Protocol

        class Readable(Protocol):
            def read(self) -> bytes: ...

        class File(Readable):
            def read(self) -> bytes: ...

        def source() -> Readable: ...

        class Config:
            pass

        Config.debug = False
    """
        },
    )
    graph.parse(str(tmp_path / "src" / "proto"))
    analysis = graph.check(
        "from proto import source, File, Config\n"
        "source().read(), source().seek(0)\n"
        "File().seek(0)\n"
        "Config.debug, Config().debug\n"
    )
    assert [(f.line, f.name) for f in analysis.hallucinations] == [(3, "proto.File.seek")]
    assert [f.line for f in analysis.uncertain] == [2]  # a Protocol may have more members
