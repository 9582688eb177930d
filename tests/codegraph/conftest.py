"""Small packages written by the tests, and a code graph in a fresh database."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from contextbase.codegraph import Analysis, CodeGraph
from contextbase.store.db import Database

# A library with the constructs the checker has to understand, spread over files so
# that re-exports, relative imports and inheritance across modules are exercised.
SHOP = {
    "shop/__init__.py": '''
        """A small shop library."""
        from .models import Product, Basket
        from .client import Client as Client
        from . import errors
        from .util import *

        __all__ = ["Product", "Basket", "Client", "errors", "slugify"]
        __version__ = "1.0"
    ''',
    "shop/util.py": """
        __all__ = ["slugify"]

        def slugify(text: str, /, sep: str = "-", *, lower: bool = True) -> str:
            return text

        def _private() -> None: ...
    """,
    "shop/errors.py": '''
        class ShopError(Exception):
            """Anything that goes wrong."""

        class OutOfStock(ShopError):
            def __init__(self, product: str, wanted: int) -> None:
                super().__init__(product)
                self.product = product
                self.wanted = wanted
    ''',
    "shop/base.py": """
        from typing import Generic, TypeVar

        T = TypeVar("T")

        class Entity:
            id: int

            def __init__(self, id: int) -> None:
                self.id = id
                self._dirty = False

            def save(self) -> None: ...

            def refresh(self) -> "Entity":
                return self

        class Named:
            def rename(self, name: str) -> None:
                self.name = name

        class Page(Generic[T]):
            def items(self) -> list[T]: ...
    """,
    "shop/models.py": '''
        from __future__ import annotations

        from dataclasses import dataclass, field, KW_ONLY
        from typing import Self, ClassVar

        from .base import Entity, Named

        class Product(Entity, Named):
            """Inherits save/refresh from Entity, rename from Named."""
            currency: ClassVar[str] = "EUR"

            def __init__(
                self, id: int, name: str, price: float = 0.0, *tags: str, **meta: str
            ) -> None:
                super().__init__(id)
                self.name = name
                self.price = price

            @property
            def label(self) -> str:
                return self.name

            @classmethod
            def create(cls, name: str) -> Self:
                return cls(0, name)

            @classmethod
            def parse(cls, text: str) -> "Product":
                return cls(0, text)

            @staticmethod
            def validate(price: float) -> bool:
                return price >= 0

            def discounted(self, percent: float, /) -> Product:
                return self

            def __call__(self, quantity: int) -> float:
                return self.price * quantity

        @dataclass
        class Line:
            product: Product
            quantity: int = 1
            note: str = field(default="", kw_only=True)
            total: float = field(init=False, default=0.0)

        @dataclass(kw_only=True)
        class GiftLine(Line):
            message: str

        class Basket:
            lines: list[Line]

            def __init__(self) -> None:
                self.lines = []

            def add(self, product: Product, quantity: int = 1) -> Line:
                return Line(product, quantity)

            def __enter__(self) -> Self:
                return self

            def __exit__(self, *args: object) -> None: ...

            def __iter__(self):
                return iter(self.lines)
    ''',
    "shop/client.py": """
        import json
        from contextlib import contextmanager
        from typing import Iterator

        from shop.models import Product, Basket

        class Session:
            def close(self) -> None: ...

        class Client:
            def __init__(self, base_url: str, *, timeout: float = 5.0) -> None:
                self.base_url = base_url
                self.session = Session()

            def get(self, path: str, params: dict | None = None) -> Product: ...

            def basket(self) -> Basket: ...

            @contextmanager
            def transaction(self) -> Iterator[Basket]:
                yield Basket()

        class App:
            def get(self, path: str, *, name: str | None = None): ...

        app = App()
    """,
}


def write_tree(root: Path, files: dict[str, str]) -> Path:
    """Write ``files`` (relative path → source) under ``root``."""
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return root


@pytest.fixture
def graph(tmp_path: Path) -> CodeGraph:
    db = Database(tmp_path / "graph.db")
    return CodeGraph(db, cache=tmp_path / "cache")


@pytest.fixture
def shop_graph(graph: CodeGraph, tmp_path: Path) -> CodeGraph:
    write_tree(tmp_path / "src", SHOP)
    graph.parse(str(tmp_path / "src" / "shop"))
    return graph


Check = Callable[[str], Analysis]


@pytest.fixture
def check(shop_graph: CodeGraph) -> Check:
    def run(script: str) -> Analysis:
        return shop_graph.check(textwrap.dedent(script))

    return run


def statuses(analysis: Analysis) -> dict[str, str]:
    """``name → status`` of every finding (the last one wins for repeated names)."""
    return {f.name: f.status for f in analysis.findings}


def at_line(analysis: Analysis, line: int) -> list[str]:
    return [f.status for f in analysis.findings if f.line == line]
