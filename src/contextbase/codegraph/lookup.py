"""The vocabulary of resolution: where symbols come from and what a lookup answers."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from contextbase.codegraph.model import ClassSymbol, Symbol, SymbolTable


class SymbolSource(Protocol):
    """Where symbols are read from: the store, or a table in memory."""

    def covers(self, dotted: str) -> bool:
        """Whether ``dotted`` lies under a module prefix this source holds."""
        ...

    def lookup(self, qualname: str) -> list[Symbol]: ...

    def children(self, qualname: str) -> list[Symbol]: ...


class TableSource:
    """Symbols held in memory (a fresh extraction, or the script being checked)."""

    def __init__(self, table: SymbolTable, roots: Sequence[str]) -> None:
        self.table = table
        self.roots = tuple(roots)

    def covers(self, dotted: str) -> bool:
        return any(dotted == r or dotted.startswith(r + ".") for r in self.roots)

    def lookup(self, qualname: str) -> list[Symbol]:
        return self.table.lookup(qualname)

    def children(self, qualname: str) -> list[Symbol]:
        return self.table.children(qualname)


@dataclass(frozen=True)
class External:
    """A name outside the graph, such as ``requests.get`` or ``builtins.Exception``."""

    name: str


Resolved = Symbol | External | None


@dataclass(frozen=True)
class Lookup:
    """The answer to "does X have member Y?"."""

    status: Literal["found", "missing", "unknown"]
    symbol: Symbol | None = None
    external: External | None = None
    owner: ClassSymbol | None = None
    reason: str = ""
    candidates: tuple[str, ...] = ()
    confidence: float = 1.0


def scopes_of(symbol: Symbol) -> list[str]:
    """Where names used by ``symbol`` are looked up: enclosing classes, then its module."""
    scopes: list[str] = []
    parent = symbol.parent
    while parent and parent != symbol.module and parent.startswith(symbol.module):
        scopes.append(parent)
        parent = parent.rpartition(".")[0]
    scopes.append(symbol.module)
    return scopes
