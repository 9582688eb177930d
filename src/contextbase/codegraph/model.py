"""The code graph's vocabulary: symbols extracted from source code.

A symbol is one named thing a program can reach by a dotted path: a module, a
class, a function or method, an attribute, or a name a module imports from
elsewhere (which is how re-exports resolve: ``fastapi.FastAPI`` is an import
symbol in ``fastapi/__init__.py`` whose target is ``fastapi.applications.FastAPI``).

Every symbol has a ``qualname`` (its full dotted path, unique within one
repository except for deliberate duplicates such as a submodule shadowed by a
name of its package) and a ``parent`` (the qualname of what contains it). The
extractor produces these records, the store persists them, and the resolver
reads them back; the node and edge tables are derived from them.

Annotations, base classes and decorators are kept as source text and resolved
lazily in the scope of the module that wrote them, so an extractor needs to
know nothing about other files.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, Literal

ParamKind = Literal[
    "positional_only", "positional_or_keyword", "var_positional", "keyword_only", "var_keyword"
]
MethodKind = Literal["function", "method", "classmethod", "staticmethod"]

_PREFIX = {"var_positional": "*", "var_keyword": "**"}


@dataclass(frozen=True)
class Param:
    """One parameter of a function, with its kind as ``inspect`` names them."""

    name: str
    kind: ParamKind
    has_default: bool = False
    annotation: str | None = None

    def render(self) -> str:
        text = _PREFIX.get(self.kind, "") + self.name
        if self.annotation:
            text += f": {self.annotation}"
        if self.has_default:
            text += " = ..." if self.annotation else "=..."
        return text


def render_params(params: list[Param]) -> str:
    """``(a, /, b=..., *args, c, **kw)`` with the ``/`` and ``*`` markers Python uses."""
    parts: list[str] = []
    kinds = [p.kind for p in params]
    for index, param in enumerate(params):
        starts_keyword_only = param.kind == "keyword_only" and "*" not in parts
        if starts_keyword_only and "var_positional" not in kinds[:index]:
            parts.append("*")
        parts.append(param.render())
        is_last_posonly = param.kind == "positional_only" and (
            index + 1 == len(params) or params[index + 1].kind != "positional_only"
        )
        if is_last_posonly:
            parts.append("/")
    return "(" + ", ".join(parts) + ")"


@dataclass(frozen=True)
class FieldInfo:
    """An annotated class-level name: a dataclass or pydantic field candidate."""

    name: str
    annotation: str
    has_default: bool = False
    init: bool = True
    kw_only: bool = False
    aliases: list[str] = field(default_factory=list)
    """Names pydantic accepts for it (``alias``, ``validation_alias``, ``AliasChoices``);
    ``["*"]`` when they are computed."""


_COMMON_FIELDS = {"qualname", "name", "module", "parent", "line"}


def _plain(value: Any) -> Any:
    """JSON-ready copy of a field value (``asdict`` deep-copies and is slow)."""
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, Param | FieldInfo):
        return dict(vars(value))
    if isinstance(value, dict):
        return dict(value)
    return value


@dataclass(kw_only=True)
class Symbol:
    """Something a dotted path reaches."""

    kind: ClassVar[str] = "symbol"
    qualname: str
    name: str
    module: str
    parent: str | None
    line: int = 0

    def data(self) -> dict[str, Any]:
        """Kind-specific fields, stored as JSON."""
        return {
            f.name: _plain(getattr(self, f.name))
            for f in fields(self)
            if f.name not in _COMMON_FIELDS
        }

    def signature(self) -> str | None:
        """A one-line rendering for people; ``None`` when there is nothing to show."""
        return None


@dataclass(kw_only=True)
class ModuleSymbol(Symbol):
    kind: ClassVar[str] = "module"
    path: str = ""
    is_package: bool = False
    all_names: list[str] | None = None
    """``__all__`` when it is a literal list; ``None`` when absent or computed."""
    all_computed: bool = False
    """``__all__`` exists but is built at run time, so ``import *`` exports are unknown."""
    star_imports: list[str] = field(default_factory=list)
    """Modules imported with ``from x import *``, as absolute names."""
    has_getattr: bool = False
    """Defines a module-level ``__getattr__`` (usually lazy imports of the names in ``__all__``)."""
    getattr_names: list[str] | None = None
    """The names that ``__getattr__`` serves, when provably no others."""
    dynamic: bool = False
    """Names may appear at run time: ``globals()`` writes, or a compiled module with no
    source or stub."""


@dataclass(kw_only=True)
class ClassSymbol(Symbol):
    kind: ClassVar[str] = "class"
    bases: list[str] = field(default_factory=list)
    keywords: dict[str, str] = field(default_factory=dict)
    """Class keywords such as ``metaclass=ABCMeta`` or ``extra="forbid"``, as source text."""
    decorators: list[str] = field(default_factory=list)
    fields: list[FieldInfo] = field(default_factory=list)
    dataclass: dict[str, bool] | None = None
    """``{"init": ..., "kw_only": ...}`` when decorated with a ``dataclass``."""
    config: dict[str, Any] = field(default_factory=dict)
    """Literal pydantic ``model_config`` entries (``extra``, ``populate_by_name``)."""
    has_getattr: bool = False
    getattr_names: list[str] | None = None
    """The names its ``__getattr__`` serves, when provably no others."""
    dynamic_attrs: bool = False
    """Its methods set attributes by computed name (``setattr(self, ...)``, ``__dict__``)."""

    def signature(self) -> str | None:
        return f"class {self.name}({', '.join(self.bases)})" if self.bases else f"class {self.name}"


@dataclass(kw_only=True)
class FunctionSymbol(Symbol):
    """A function, or a method when its parent is a class."""

    kind: ClassVar[str] = "function"
    params: list[Param] = field(default_factory=list)
    returns: str | None = None
    decorators: list[str] = field(default_factory=list)
    is_async: bool = False
    method_kind: MethodKind = "function"
    alternatives: list[list[Param]] = field(default_factory=list)
    """Other signatures of the same name: conditional definitions, or the
    ``@overload`` variants of a stub that has no implementation."""
    returns_self: bool = False
    """No return annotation, but the body returns ``self`` or ``cls(...)``."""

    @property
    def graph_kind(self) -> str:
        return "method" if self.method_kind != "function" else "function"

    def signature(self) -> str | None:
        prefix = "async def " if self.is_async else "def "
        text = prefix + self.name + render_params(self.params)
        return text + (f" -> {self.returns}" if self.returns else "")


@dataclass(kw_only=True)
class AttributeSymbol(Symbol):
    kind: ClassVar[str] = "attribute"
    origin: Literal["module", "class", "instance", "property", "slot"] = "module"
    annotation: str | None = None
    alias: str | None = None
    """Dotted name this attribute is bound to (``Client = _Client``): followed like an import."""
    call: str | None = None
    """Dotted callee when the value is a call (``app = FastAPI()``): its result type."""

    def signature(self) -> str | None:
        return f"{self.name}: {self.annotation}" if self.annotation else None


@dataclass(kw_only=True)
class ImportSymbol(Symbol):
    kind: ClassVar[str] = "import"
    target: str = ""
    """Absolute dotted path of what the name is bound to."""

    def signature(self) -> str | None:
        return f"{self.name} -> {self.target}"


SYMBOL_TYPES: dict[str, type[Symbol]] = {
    t.kind: t for t in (ModuleSymbol, ClassSymbol, FunctionSymbol, AttributeSymbol, ImportSymbol)
}


def node_kind(symbol: Symbol) -> str:
    """The kind stored in the node table (methods are functions whose parent is a class)."""
    return symbol.graph_kind if isinstance(symbol, FunctionSymbol) else symbol.kind


def symbol_from_data(kind: str, common: dict[str, Any], data: dict[str, Any]) -> Symbol:
    """Rebuild a symbol from its stored columns and JSON data."""
    kind = "function" if kind == "method" else kind
    known = {f.name for f in fields(SYMBOL_TYPES[kind])}
    values = {k: v for k, v in data.items() if k in known}  # tolerate older stored data
    if kind == "function":
        values["params"] = [Param(**p) for p in values.get("params", [])]
        values["alternatives"] = [
            [Param(**p) for p in alt] for alt in values.get("alternatives", [])
        ]
    elif kind == "class":
        info = {f.name for f in fields(FieldInfo)}
        values["fields"] = [
            FieldInfo(**{k: v for k, v in f.items() if k in info}) for f in values.get("fields", [])
        ]
    return SYMBOL_TYPES[kind](**common, **values)


class SymbolTable:
    """Symbols held in memory, indexed by qualname and by parent."""

    def __init__(self, symbols: Iterable[Symbol] = ()) -> None:
        self._by_name: dict[str, list[Symbol]] = defaultdict(list)
        self._children: dict[str, list[Symbol]] = defaultdict(list)
        self._order: list[Symbol] = []
        for symbol in symbols:
            self.add(symbol)

    def add(self, symbol: Symbol) -> None:
        self._by_name[symbol.qualname].append(symbol)
        if symbol.parent is not None:
            self._children[symbol.parent].append(symbol)
        self._order.append(symbol)

    def lookup(self, qualname: str) -> list[Symbol]:
        return list(self._by_name.get(qualname, ()))

    def children(self, qualname: str) -> list[Symbol]:
        return list(self._children.get(qualname, ()))

    def __iter__(self) -> Iterator[Symbol]:
        return iter(self._order)

    def __len__(self) -> int:
        return len(self._order)
