"""The relations of a graph, derived from its symbols for the edge table and Cypher export."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from contextbase.codegraph.model import (
    AttributeSymbol,
    ClassSymbol,
    FunctionSymbol,
    ImportSymbol,
    ModuleSymbol,
    Symbol,
    SymbolTable,
)
from contextbase.codegraph.resolve import External, Resolver, TableSource


@dataclass(frozen=True)
class Edge:
    """``src`` ``None`` is the repository node; ``dst`` ``None`` is outside the graph."""

    kind: str
    src: Symbol | None
    dst: Symbol | None
    target: str


def derive_edges(table: SymbolTable, roots: Sequence[str]) -> list[Edge]:
    resolver = Resolver([TableSource(table, roots)])
    edges: list[Edge] = []
    imported: set[tuple[str, str]] = set()
    for symbol in table:
        if isinstance(symbol, ModuleSymbol):
            edges.append(Edge("CONTAINS", None, symbol, symbol.qualname))
            for target in symbol.star_imports:
                edges += _imports(resolver, symbol.qualname, target, imported)
            continue
        parent = _parent(table, symbol)
        if parent is not None:
            edges.append(Edge(_membership(parent, symbol), parent, symbol, symbol.qualname))
        if isinstance(symbol, ClassSymbol):
            for text in symbol.bases:
                base = resolver.base(symbol, text)
                if isinstance(base, ClassSymbol):
                    edges.append(Edge("INHERITS", symbol, base, base.qualname))
                else:
                    name = base.name if isinstance(base, External) else text
                    edges.append(Edge("INHERITS", symbol, None, name))
        elif isinstance(symbol, ImportSymbol) and isinstance(parent, ModuleSymbol):
            edges += _imports(resolver, parent.qualname, symbol.target, imported)
    return edges


def _parent(table: SymbolTable, symbol: Symbol) -> Symbol | None:
    if symbol.parent is None:
        return None
    candidates = table.lookup(symbol.parent)
    owners = [c for c in candidates if isinstance(c, ModuleSymbol | ClassSymbol)]
    wanted = ClassSymbol if symbol.parent != symbol.module else ModuleSymbol
    return next((c for c in owners if isinstance(c, wanted)), owners[0] if owners else None)


def _membership(parent: Symbol, symbol: Symbol) -> str:
    if isinstance(parent, ClassSymbol):
        if isinstance(symbol, FunctionSymbol):
            return "HAS_METHOD"
        if isinstance(symbol, AttributeSymbol):
            return "HAS_ATTRIBUTE"
    return "DEFINES"


def _imports(
    resolver: Resolver, module: str, target: str, seen: set[tuple[str, str]]
) -> list[Edge]:
    """One IMPORTS edge per (module, imported module); ``from m import x`` imports ``m``."""
    found = resolver.module(target)
    name = target if found else target.rpartition(".")[0] or target
    found = found or resolver.module(name)
    if (module, name) in seen or name == module:
        return []
    seen.add((module, name))
    source = resolver.module(module)
    return [Edge("IMPORTS", source, found, name)]
