"""Following dotted paths through the graph: imports, re-exports and aliases.

The resolver reads symbols from one or more sources (the stored graph, and the
script being checked as module ``__main__``) and answers:

* what does a dotted path name (``fastapi.FastAPI`` through its re-export)?
* does a module or class (or an instance of it) have a member, provably not,
  or can we not tell? Classes are answered along their MRO by ``hierarchy``.

Names outside the graph come back as :class:`External`.
"""

from __future__ import annotations

import builtins
import types
from collections.abc import Sequence

from contextbase.codegraph.hierarchy import Hierarchy, Mro
from contextbase.codegraph.lookup import (
    External,
    Lookup,
    Resolved,
    SymbolSource,
    TableSource,
    scopes_of,
)
from contextbase.codegraph.model import (
    AttributeSymbol,
    ClassSymbol,
    ImportSymbol,
    ModuleSymbol,
    Symbol,
)

__all__ = [
    "External",
    "Lookup",
    "Mro",
    "Resolved",
    "Resolver",
    "SymbolSource",
    "TableSource",
    "scopes_of",
]

MAX_DEPTH = 30
LAZY_MODULE_CONFIDENCE = 0.75
MODULE_DUNDERS = frozenset(
    {
        *dir(types.ModuleType),
        "__file__",
        "__path__",
        "__spec__",
        "__loader__",
        "__package__",
        "__cached__",
        "__builtins__",
        "__all__",
        "__version__",
    }
)


class Resolver:
    """Dotted-path resolution over one or more symbol sources, with caches."""

    def __init__(self, sources: Sequence[SymbolSource]) -> None:
        self.sources = list(sources)
        self.hierarchy = Hierarchy(self)

    # -- raw access --------------------------------------------------------

    def covers(self, dotted: str) -> bool:
        return any(source.covers(dotted) for source in self.sources)

    def definitions(self, qualname: str) -> list[Symbol]:
        for source in self.sources:
            found = source.lookup(qualname)
            if found:
                return found
        return []

    def children(self, qualname: str) -> list[Symbol]:
        for source in self.sources:
            found = source.children(qualname)
            if found:
                return found
        return []

    def module(self, name: str) -> ModuleSymbol | None:
        return next((s for s in self.definitions(name) if isinstance(s, ModuleSymbol)), None)

    def first_definition(self, qualname: str, exclude: Symbol | None = None) -> Symbol | None:
        """A name a package rebinds (``from .x import x``) wins over the submodule."""
        found = [s for s in self.definitions(qualname) if s is not exclude]
        non_modules = [s for s in found if not isinstance(s, ModuleSymbol)]
        return (non_modules or found or [None])[0]

    # -- resolution --------------------------------------------------------

    def resolve(self, dotted: str, _depth: int = 0, _exclude: Symbol | None = None) -> Resolved:
        """The symbol a dotted path names, following imports and aliases."""
        if _depth > MAX_DEPTH:
            return None
        symbol = self.first_definition(dotted, _exclude)
        if symbol is not None:
            return self.follow(symbol, _depth + 1)
        head, _, last = dotted.rpartition(".")
        if not head:
            return None if self.covers(dotted) else External(dotted)
        owner = self.resolve(head, _depth + 1)
        if isinstance(owner, External):
            return External(f"{owner.name}.{last}")
        if owner is None:
            return None if self.covers(dotted) else External(dotted)
        found = self.member(owner, last, instance=False, _depth=_depth + 1)
        return found.symbol or found.external

    def follow(self, symbol: Symbol, _depth: int = 0) -> Resolved:
        """Imports to what they import, ``X = Y`` aliases to ``Y``; anything else as is."""
        if _depth > MAX_DEPTH:
            return None
        if isinstance(symbol, ImportSymbol):
            if symbol.target == symbol.qualname:
                return self.module(symbol.target)
            return self.resolve(symbol.target, _depth + 1, _exclude=symbol)
        if isinstance(symbol, AttributeSymbol) and symbol.alias:
            target = self.resolve_in_scope(scopes_of(symbol), symbol.alias, _depth + 1)
            if isinstance(target, Symbol) and target is not symbol:
                return target
        return symbol

    def resolve_in_scope(self, scopes: Sequence[str], dotted: str, _depth: int = 0) -> Resolved:
        """A name as code in ``scopes`` (innermost first) sees it, then builtins."""
        first, _, rest = dotted.partition(".")
        base: Resolved = None
        for scope in scopes:
            symbol = self.first_definition(f"{scope}.{first}")
            if symbol is not None:
                base = self.follow(symbol, _depth + 1)
                break
        else:
            if not hasattr(builtins, first):
                return None
            base = External(f"builtins.{first}")
        for part in rest.split(".") if rest else []:
            if isinstance(base, External):
                base = External(f"{base.name}.{part}")
            elif base is not None:
                found = self.member(base, part, instance=False, _depth=_depth + 1)
                base = found.symbol or found.external
        return base

    # -- members -----------------------------------------------------------

    def member(self, owner: Symbol, name: str, *, instance: bool, _depth: int = 0) -> Lookup:
        """Whether ``owner`` (a module or class, or an instance of it) has ``name``."""
        if isinstance(owner, ModuleSymbol):
            return self._module_member(owner, name, _depth)
        if isinstance(owner, ClassSymbol):
            return self.hierarchy.member(owner, name, instance=instance, depth=_depth)
        return Lookup("unknown", reason=f"{owner.qualname} is not a module or class")

    def mro(self, cls: ClassSymbol) -> Mro:
        return self.hierarchy.mro(cls)

    def base(self, cls: ClassSymbol, text: str) -> ClassSymbol | External | None:
        return self.hierarchy.base(cls, text)

    def member_names(self, cls: ClassSymbol) -> tuple[str, ...]:
        return self.hierarchy.member_names(cls)

    def _module_member(self, module: ModuleSymbol, name: str, depth: int) -> Lookup:
        qualname = f"{module.qualname}.{name}"
        symbol = self.first_definition(qualname)
        if symbol is not None:
            target = self.follow(symbol, depth + 1)
            if isinstance(target, External):
                return Lookup("found", symbol=symbol, external=target)
            return Lookup("found", symbol=target or symbol)
        if name in MODULE_DUNDERS:
            return Lookup("found", external=External(qualname))
        star = self._star_member(module, name, depth)
        if star is not None:
            return star
        if module.dynamic:
            return Lookup("unknown", reason=f"module {module.qualname} creates names at run time")
        candidates = tuple(s.name for s in self.children(module.qualname))
        candidates += self._star_names(module) + tuple(module.all_names or ())
        if module.has_getattr and module.getattr_names is not None:
            if name in module.getattr_names:
                return Lookup("found", reason=f"{module.qualname}.__getattr__ serves it")
            served = candidates + tuple(module.getattr_names)
            return Lookup("missing", candidates=served, confidence=0.95)
        if module.has_getattr:
            if module.all_names is not None and name in module.all_names:
                return Lookup("found", reason=f"{module.qualname}.__getattr__ serves it")
            if module.all_names is None or name.startswith("_"):
                return Lookup("unknown", reason=f"module {module.qualname} defines __getattr__")
            # Lazy-import modules list what their __getattr__ serves in __all__.
            return Lookup(
                "missing",
                candidates=candidates,
                confidence=LAZY_MODULE_CONFIDENCE,
                reason=f"not in {module.qualname}.__all__ (the module defines __getattr__)",
            )
        return Lookup("missing", candidates=candidates)

    def _star_member(self, module: ModuleSymbol, name: str, depth: int) -> Lookup | None:
        unknown = None
        for target_name in reversed(module.star_imports):  # a later import * wins
            target = self.resolve(target_name, depth + 1)
            if not isinstance(target, ModuleSymbol) or depth > MAX_DEPTH:
                unknown = f"module {module.qualname} star-imports {target_name}, outside the graph"
                continue
            exported = target.all_names
            if target.all_computed:
                unknown = f"{target_name}.__all__ is computed at run time"
            if exported is not None and name not in exported:
                continue
            if exported is None and name.startswith("_"):
                continue
            found = self._module_member(target, name, depth + 1)
            if found.status != "missing":
                return found
        return Lookup("unknown", reason=unknown) if unknown else None

    def _star_names(self, module: ModuleSymbol) -> tuple[str, ...]:
        names: list[str] = []
        for target_name in module.star_imports:
            target = self.module(target_name)
            if target is not None:
                names += target.all_names or [
                    s.name for s in self.children(target.qualname) if not s.name.startswith("_")
                ]
        return tuple(names)
