"""Following dotted paths through the graph: imports, re-exports, aliases and the MRO.

The resolver reads symbols from one or more sources (the stored graph, and the
script being checked as module ``__main__``) and answers three questions:

* what does a dotted path name (``fastapi.FastAPI`` through its re-export)?
* what are the classes of a class's MRO, and which bases lie outside the graph?
* does an object have a member, provably not, or can we not tell?

Names outside the graph come back as :class:`External`; a few of them
(``object``, builtins, ``abc.ABC``, ``typing.Generic``/``Protocol``) are
introspected in this interpreter so that their members count as known.
"""

from __future__ import annotations

import builtins
import types
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Literal, Protocol

from contextbase.codegraph.model import (
    AttributeSymbol,
    ClassSymbol,
    ImportSymbol,
    ModuleSymbol,
    Symbol,
    SymbolTable,
)

MAX_DEPTH = 30
TRANSPARENT_BASES = {
    "builtins.object",
    "abc.ABC",
    "typing.Generic",
    "typing.Protocol",
    "typing_extensions.Generic",
    "typing_extensions.Protocol",
}
"""Bases that add no constructor parameters and whose members this interpreter knows."""
STATIC_METACLASSES = {"builtins.type", "abc.ABCMeta"}
IMPLICIT_MEMBERS = {"__dict__", "__weakref__", "__annotations__"}
"""Members every class defined in Python has without declaring them."""
PRIVATE_GETATTR = {"pydantic.main.BaseModel"}
"""Classes whose ``__getattr__`` serves only private (``_name``) attributes and, with
``extra='allow'``, extra fields: a public name missing from the MRO is still missing."""
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


@dataclass
class Mro:
    """A class's linearisation: graph classes and outside names in method-resolution order."""

    entries: list[ClassSymbol | External]
    metaclass: ClassSymbol | External | None = None
    unknown_bases: list[str] = field(default_factory=list)

    @property
    def classes(self) -> list[ClassSymbol]:
        return [e for e in self.entries if isinstance(e, ClassSymbol)]

    @property
    def opaque(self) -> list[str]:
        """Bases whose members we cannot list: outside the graph and not introspectable."""
        names = [e.name for e in self.entries if isinstance(e, External) and not _known(e.name)]
        return names + self.unknown_bases


class Resolver:
    """Dotted-path resolution over one or more symbol sources, with caches."""

    def __init__(self, sources: Sequence[SymbolSource]) -> None:
        self.sources = list(sources)
        self._mro: dict[str, Mro] = {}

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

    def _definition(self, qualname: str, exclude: Symbol | None = None) -> Symbol | None:
        """A name a package rebinds (``from .x import x``) wins over the submodule."""
        found = [s for s in self.definitions(qualname) if s is not exclude]
        non_modules = [s for s in found if not isinstance(s, ModuleSymbol)]
        return (non_modules or found or [None])[0]

    # -- resolution --------------------------------------------------------

    def resolve(self, dotted: str, _depth: int = 0, _exclude: Symbol | None = None) -> Resolved:
        """The symbol a dotted path names, following imports and aliases."""
        if _depth > MAX_DEPTH:
            return None
        symbol = self._definition(dotted, _exclude)
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
            symbol = self._definition(f"{scope}.{first}")
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
            return self._class_member(owner, name, instance, _depth)
        return Lookup("unknown", reason=f"{owner.qualname} is not a module or class")

    def _module_member(self, module: ModuleSymbol, name: str, depth: int) -> Lookup:
        qualname = f"{module.qualname}.{name}"
        symbol = self._definition(qualname)
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
        for target_name in module.star_imports:
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

    def _class_member(self, cls: ClassSymbol, name: str, instance: bool, depth: int) -> Lookup:
        mro = self.mro(cls)
        for entry in mro.entries:
            if isinstance(entry, ClassSymbol):
                symbol = self._definition(f"{entry.qualname}.{name}")
                if symbol is not None:
                    target = self.follow(symbol, depth + 1)
                    if isinstance(target, External):
                        return Lookup("found", symbol=symbol, external=target, owner=entry)
                    return Lookup("found", symbol=target or symbol, owner=entry)
            elif name in live_members(entry.name):
                return Lookup("found", external=External(f"{entry.name}.{name}"))
        if name in live_members("builtins.object") or name in IMPLICIT_MEMBERS:
            return Lookup("found", external=External(f"builtins.object.{name}"))
        if not instance:
            found = self._metaclass_member(mro, name, depth)
            if found is not None:
                return found
        return self._missing_member(cls, mro, name, instance)

    def _metaclass_member(self, mro: Mro, name: str, depth: int) -> Lookup | None:
        if name in live_members("builtins.type"):
            return Lookup("found", external=External(f"builtins.type.{name}"))
        meta = mro.metaclass
        if isinstance(meta, ClassSymbol):
            found = self._class_member(meta, name, True, depth + 1)
            return found if found.status != "missing" else None
        if isinstance(meta, External) and meta.name not in STATIC_METACLASSES:
            return Lookup("unknown", reason=f"its metaclass {meta.name} is outside the graph")
        return None

    def _missing_member(self, cls: ClassSymbol, mro: Mro, name: str, instance: bool) -> Lookup:
        classes = mro.classes
        if mro.opaque:
            bases = ", ".join(mro.opaque)
            return Lookup(
                "unknown", reason=f"{cls.qualname} inherits from {bases}, outside the graph"
            )
        getattr_owner = next((c for c in classes if c.has_getattr), None)
        if (
            instance
            and getattr_owner is not None
            and not _private_getattr(getattr_owner, classes, name)
        ):
            return Lookup("unknown", reason=f"{getattr_owner.qualname} defines __getattr__")
        if instance and any(c.dynamic_attrs for c in classes):
            return Lookup("unknown", reason=f"{cls.qualname} sets attributes by computed names")
        confidence = 0.95
        if isinstance(mro.metaclass, ClassSymbol) and self._metaclass_is_dynamic(mro.metaclass):
            if not instance:
                return Lookup(
                    "unknown", reason=f"its metaclass {mro.metaclass.qualname} is dynamic"
                )
            confidence = 0.8
        return Lookup("missing", candidates=self.member_names(cls), confidence=confidence)

    def _metaclass_is_dynamic(self, meta: ClassSymbol) -> bool:
        meta_mro = self.mro(meta)
        return any(c.has_getattr or c.dynamic_attrs for c in meta_mro.classes) or bool(
            meta_mro.opaque
        )

    def member_names(self, cls: ClassSymbol) -> tuple[str, ...]:
        """Every member name along the MRO, for suggestions."""
        names: list[str] = []
        for entry in self.mro(cls).entries:
            if isinstance(entry, ClassSymbol):
                names += [s.name for s in self.children(entry.qualname)]
            else:
                names += [n for n in live_members(entry.name) if not n.startswith("__")]
        return tuple(dict.fromkeys(names))

    # -- inheritance -------------------------------------------------------

    def base(self, cls: ClassSymbol, text: str) -> ClassSymbol | External | None:
        """A base class expression, resolved where the class was written."""
        dotted_name = text.partition("[")[0].strip()
        if not dotted_name.replace(".", "").replace("_", "").isalnum():
            return None
        target = self.resolve_in_scope(scopes_of(cls), dotted_name)
        if isinstance(target, ClassSymbol | External):
            return target
        return None

    def mro(self, cls: ClassSymbol) -> Mro:
        """C3 linearisation; a class outside the graph is one opaque entry."""
        cached = self._mro.get(cls.qualname)
        if cached is not None:
            return cached
        self._mro[cls.qualname] = Mro([cls])  # guards against inheritance cycles
        unknown: list[str] = []
        sequences: list[list[ClassSymbol | External]] = []
        direct: list[ClassSymbol | External] = []
        metaclass: ClassSymbol | External | None = None
        if "metaclass" in cls.keywords:
            metaclass = self.base(cls, cls.keywords["metaclass"]) or External(
                cls.keywords["metaclass"]
            )
        for text in cls.bases:
            base = self.base(cls, text)
            if base is None:
                unknown.append(text)
                continue
            if isinstance(base, External) and base.name == "builtins.object":
                continue
            direct.append(base)
            if isinstance(base, ClassSymbol):
                inherited = self.mro(base)
                sequences.append(list(inherited.entries))
                unknown += inherited.unknown_bases
                metaclass = metaclass or inherited.metaclass
            else:
                sequences.append([base])
        entries = [cls, *_c3_merge([*sequences, direct])]
        result = Mro(entries, metaclass, list(dict.fromkeys(unknown)))
        self._mro[cls.qualname] = result
        return result


def _private_getattr(owner: ClassSymbol, classes: list[ClassSymbol], name: str) -> bool:
    """Whether ``owner.__getattr__`` provably cannot serve the public ``name``."""
    if owner.qualname not in PRIVATE_GETATTR or name.startswith("_"):
        return False
    return not any(
        str(c.config.get("extra", c.keywords.get("extra", ""))).strip("'\"") == "allow"
        for c in classes
    )


def scopes_of(symbol: Symbol) -> list[str]:
    """Where names used by ``symbol`` are looked up: enclosing classes, then its module."""
    scopes: list[str] = []
    parent = symbol.parent
    while parent and parent != symbol.module and parent.startswith(symbol.module):
        scopes.append(parent)
        parent = parent.rpartition(".")[0]
    scopes.append(symbol.module)
    return scopes


def _key(entry: ClassSymbol | External) -> str:
    return entry.qualname if isinstance(entry, ClassSymbol) else f"external:{entry.name}"


def _c3_merge(sequences: list[list[ClassSymbol | External]]) -> list[ClassSymbol | External]:
    """C3 merge; an inconsistent hierarchy falls back to depth-first order."""
    pending = [list(s) for s in sequences if s]
    result: list[ClassSymbol | External] = []
    while pending:
        for sequence in pending:
            head = sequence[0]
            if not any(_key(head) in map(_key, other[1:]) for other in pending):
                break
        else:
            flat = [e for s in pending for e in s]
            seen = {_key(e) for e in result}
            return result + [e for e in flat if not (_key(e) in seen or seen.add(_key(e)))]
        result.append(head)
        pending = [[e for e in s if _key(e) != _key(head)] for s in pending]
        pending = [s for s in pending if s]
    return result


def _known(name: str) -> bool:
    return bool(live_members(name)) or name in TRANSPARENT_BASES


@cache
def live_members(name: str) -> frozenset[str]:
    """Members of a builtin or of a few typing/abc bases, read from this interpreter."""
    module, _, attr = name.rpartition(".")
    if module == "builtins":
        value = getattr(builtins, attr, None)
    elif name in TRANSPARENT_BASES:
        import abc
        import typing

        value = {"abc": abc, "typing": typing}.get(module.replace("typing_extensions", "typing"))
        value = getattr(value, attr, None)
    else:
        return frozenset()
    return frozenset(dir(value)) if isinstance(value, type) else frozenset()
