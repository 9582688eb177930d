"""Extraction of every construct the checker relies on, from small packages written here."""

from __future__ import annotations

from pathlib import Path

from contextbase.codegraph.extract import extract_files
from contextbase.codegraph.model import (
    AttributeSymbol,
    ClassSymbol,
    FunctionSymbol,
    ImportSymbol,
    ModuleSymbol,
    Param,
    SymbolTable,
)
from contextbase.codegraph.sources import folder_checkout
from tests.codegraph.conftest import SHOP, write_tree

CONSTRUCTS = {
    "lib/__init__.py": """
        from typing import TYPE_CHECKING
        from .core import *
        from .core import Engine as Engine
        from . import core
        import lib.core as core_alias

        if TYPE_CHECKING:
            from .typing_only import Hint

        try:
            from ._speedups import fast
        except ImportError:
            def fast(x: int) -> int:
                return x

        __all__ = ["Engine", "fast"]
        __all__ += ["core"]
        __all__.append("VERSION")
        VERSION: str = "1"
        default_engine = Engine()
        Alias = Engine

        def __getattr__(name: str) -> object:
            raise AttributeError(name)
    """,
    "lib/core.py": '''
        import abc
        from dataclasses import dataclass, field
        from typing import overload

        __all__ = ["Engine", "Config"]

        class Meta(type):
            pass

        class Engine(abc.ABC, metaclass=Meta):
            """An engine."""
            kind = "v8"
            size: int = 2
            __slots__ = ("fuel",)

            def __init__(self, a, /, b, c=1, *args, d, e=2, **kw) -> None:
                self.running = False
                self.parts: list[str] = []
                self.a = a
                setattr(self, "tagged", True)

            def __new__(cls, *args, **kwargs):
                return super().__new__(cls)

            def __call__(self, speed: float) -> "Engine":
                return self

            def __getattr__(self, name):
                raise AttributeError(name)

            @property
            def power(self) -> float:
                return 1.0

            @power.setter
            def power(self, value: float) -> None: ...

            @classmethod
            def build(cls, name: str):
                return cls(name, 1, d=2)

            @staticmethod
            def helper(x: int) -> int:
                return x

            async def start(self) -> None: ...

            @overload
            def pick(self, x: int) -> int: ...
            @overload
            def pick(self, x: str) -> str: ...
            def pick(self, x):
                return x

            class Inner:
                depth = 1

        @dataclass(kw_only=True)
        class Config:
            name: str
            retries: int = 3
            tags: list = field(default_factory=list)
            secret: str = field(init=False, default="")

        def refuel(engine: Engine, litres: float = 10.0) -> Engine:
            global LAST
            LAST = engine
            return engine
    ''',
    "lib/broken.py": "def oops(:\n",
    "lib/sub/__init__.py": "",
    "lib/sub/deep.py": "from ..core import Engine\nfrom .. import core\n",
}


def _table(root: Path) -> SymbolTable:
    checkout = folder_checkout(root)
    return extract_files(checkout.files).symbols


def _one(table: SymbolTable, qualname: str):  # type: ignore[no-untyped-def]
    found = table.lookup(qualname)
    assert found, f"{qualname} was not extracted"
    return found[0]


def test_modules_packages_and_their_import_paths(tmp_path: Path) -> None:
    root = write_tree(tmp_path, CONSTRUCTS) / "lib"
    checkout = folder_checkout(root)
    assert checkout.roots == ["lib"]
    modules = {f.module: f for f in checkout.files}
    assert set(modules) == {"lib", "lib.core", "lib.broken", "lib.sub", "lib.sub.deep"}
    assert modules["lib"].is_package and not modules["lib.core"].is_package
    extraction = extract_files(checkout.files)
    assert [path for path, _ in extraction.failed] == ["lib/broken.py"]
    broken = _one(extraction.symbols, "lib.broken")
    assert isinstance(broken, ModuleSymbol) and broken.dynamic  # exists, names unknown


def test_module_level_names_all_imports_and_re_exports(tmp_path: Path) -> None:
    table = _table(write_tree(tmp_path, CONSTRUCTS) / "lib")
    package = _one(table, "lib")
    assert isinstance(package, ModuleSymbol)
    assert package.all_names == ["Engine", "fast", "core", "VERSION"]
    assert package.star_imports == ["lib.core"]
    assert package.has_getattr
    imports = {s.name: s.target for s in table.children("lib") if isinstance(s, ImportSymbol)}
    assert imports["Engine"] == "lib.core.Engine"
    assert imports["core"] == "lib.core"
    assert imports["core_alias"] == "lib.core"
    assert imports["Hint"] == "lib.typing_only.Hint"  # under `if TYPE_CHECKING:`
    assert imports["TYPE_CHECKING"] == "typing.TYPE_CHECKING"
    fast = _one(table, "lib.fast")
    assert isinstance(fast, FunctionSymbol)  # the fallback definition wins over the import
    version = _one(table, "lib.VERSION")
    assert isinstance(version, AttributeSymbol) and version.annotation == "str"
    assert _one(table, "lib.default_engine").call == "Engine"
    assert _one(table, "lib.Alias").alias == "Engine"
    deep = {s.name: s.target for s in table.children("lib.sub.deep")}
    assert deep == {"Engine": "lib.core.Engine", "core": "lib.core"}
    assert isinstance(_one(table, "lib.core.LAST"), AttributeSymbol)  # `global LAST`


def test_classes_bases_decorators_attributes_and_properties(tmp_path: Path) -> None:
    table = _table(write_tree(tmp_path, CONSTRUCTS) / "lib")
    engine = _one(table, "lib.core.Engine")
    assert isinstance(engine, ClassSymbol)
    assert engine.bases == ["abc.ABC"] and engine.keywords == {"metaclass": "Meta"}
    assert engine.has_getattr and not engine.dynamic_attrs
    members = {s.name: s for s in table.children("lib.core.Engine")}
    origins = {n: s.origin for n, s in members.items() if isinstance(s, AttributeSymbol)}
    assert origins == {
        "kind": "class", "size": "class", "__slots__": "class", "fuel": "slot",
        "running": "instance", "parts": "instance", "a": "instance", "tagged": "instance",
        "power": "property",
    }  # fmt: skip
    assert members["parts"].annotation == "list[str]"
    assert members["power"].annotation == "float"
    assert isinstance(members["Inner"], ClassSymbol)
    config = _one(table, "lib.core.Config")
    assert config.decorators == ["dataclass(kw_only=True)"]
    assert config.dataclass == {"init": True, "kw_only": True}
    fields = {f.name: (f.has_default, f.init) for f in config.fields}
    assert fields == {"name": (False, True), "retries": (True, True), "tags": (True, True),
                      "secret": (True, False)}  # fmt: skip


def test_methods_dunders_and_parameter_kinds(tmp_path: Path) -> None:
    table = _table(write_tree(tmp_path, CONSTRUCTS) / "lib")
    members = {s.name: s for s in table.children("lib.core.Engine")}
    for dunder in ("__init__", "__new__", "__call__", "__getattr__"):
        assert isinstance(members[dunder], FunctionSymbol), dunder
    init = members["__init__"]
    assert init.params == [
        Param("self", "positional_only"),
        Param("a", "positional_only"),
        Param("b", "positional_or_keyword"),
        Param("c", "positional_or_keyword", has_default=True),
        Param("args", "var_positional"),
        Param("d", "keyword_only"),
        Param("e", "keyword_only", has_default=True),
        Param("kw", "var_keyword"),
    ]
    assert init.signature() == "def __init__(self, a, /, b, c=..., *args, d, e=..., **kw) -> None"
    assert members["build"].method_kind == "classmethod" and members["build"].returns_self
    assert members["helper"].method_kind == "staticmethod"
    assert members["start"].is_async
    assert members["__call__"].returns == "'Engine'"  # as ast.unparse writes it
    pick = members["pick"]
    assert [p.name for p in pick.params] == ["self", "x"] and pick.alternatives == []
    refuel = _one(table, "lib.core.refuel")
    assert refuel.method_kind == "function" and refuel.returns == "Engine"
    assert refuel.params[1] == Param("litres", "positional_or_keyword", True, "float")


def test_stub_overloads_become_alternative_signatures(tmp_path: Path) -> None:
    root = (
        write_tree(
            tmp_path,
            {
                "stubbed/__init__.pyi": """
        from typing import overload
        @overload
        def load(path: str) -> bytes: ...
        @overload
        def load(path: str, encoding: str) -> str: ...
    """,
                "stubbed/__init__.py": "def load(*args): ...\n",
            },
        )
        / "stubbed"
    )
    assert [f.path.suffix for f in folder_checkout(root).files] == [".py"]  # source beats stub
    (root / "__init__.py").unlink()
    load = _one(_table(root), "stubbed.load")
    assert [len(v) for v in [load.params, *load.alternatives]] == [1, 2]


def test_src_layout_and_shop_package_extract(tmp_path: Path) -> None:
    write_tree(tmp_path / "repo", {"src/shop/__init__.py": SHOP["shop/__init__.py"],
                                   "setup.py": "x = 1\n"})  # fmt: skip
    checkout = folder_checkout(tmp_path / "repo")
    assert checkout.roots == ["shop"]  # src/ layout: setup.py is not a module
