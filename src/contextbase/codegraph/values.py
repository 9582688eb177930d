"""What the analyser knows about an expression: a module, a class, an instance, a function.

Types come from the graph: a class called is an instance of it, an attribute
has its annotation or the type of the call that set it, a function returns its
return annotation (``Self`` and ``-> "Foo"`` on classmethods meaning the class
it was called on). Annotations are read as source text in the scope that wrote
them, so the same reader serves library code and the script being checked.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Literal

from contextbase.codegraph.extract.pyutil import dotted
from contextbase.codegraph.model import (
    AttributeSymbol,
    ClassSymbol,
    FunctionSymbol,
    ModuleSymbol,
    Symbol,
)
from contextbase.codegraph.resolve import External, Resolver, scopes_of

ValueKind = Literal["module", "class", "instance", "function", "external", "unknown", "self"]

ANNOTATION_CERTAINTY = 0.85
"""An annotation may name a base class while the object is a richer subclass."""

_WRAPPERS = {"Optional", "Annotated", "Final", "ClassVar", "Required", "NotRequired", "ReadOnly"}
_ITERABLES = {
    "list",
    "List",
    "set",
    "Set",
    "frozenset",
    "FrozenSet",
    "Sequence",
    "MutableSequence",
    "Iterable",
    "Iterator",
    "Collection",
    "Generator",
    "AsyncIterator",
    "AsyncIterable",
    "AsyncGenerator",
    "Deque",
    "deque",
    "AbstractSet",
    "MutableSet",
    "KeysView",
    "ValuesView",
}
_CONTEXT_MANAGERS = {
    "ContextManager",
    "AbstractContextManager",
    "AsyncContextManager",
    "AbstractAsyncContextManager",
}
_CONTEXT_DECORATORS = {"contextmanager", "asynccontextmanager"}


@dataclass(frozen=True, eq=False)
class Value:
    """An abstract value. ``symbol`` is the module, class or function it is, or the class
    it is an instance of; ``receiver`` is what a method was looked up on."""

    kind: ValueKind
    symbol: Symbol | None = None
    name: str = ""
    receiver: Value | None = None
    certainty: float = 1.0
    element: Value | None = None
    """What iterating over it yields, when known."""
    entered: Value | None = None
    """What ``with`` binds, when it is a context manager of known result."""
    note: str = ""
    """For an unknown value that came from the graph: why its type is unknown."""

    def same(self, other: Value) -> bool:
        mine = self.symbol.qualname if self.symbol else self.name
        theirs = other.symbol.qualname if other.symbol else other.name
        return self.kind == other.kind and mine == theirs and self.kind != "unknown"

    @property
    def display(self) -> str:
        return self.symbol.qualname if self.symbol else self.name


UNKNOWN = Value("unknown")
SELF = Value("self")


def of_resolved(target: Symbol | External | None) -> Value:
    """The value a name bound to ``target`` has, before any call."""
    if isinstance(target, External):
        return Value("external", name=target.name)
    if isinstance(target, ModuleSymbol):
        return Value("module", target)
    if isinstance(target, ClassSymbol):
        return Value("class", target)
    if isinstance(target, FunctionSymbol):
        return Value("function", target)
    return UNKNOWN


def as_instance(value: Value, certainty: float = ANNOTATION_CERTAINTY) -> Value:
    """The value of an object annotated with ``value`` (a class → an instance of it)."""
    if value.kind == "class":
        return Value("instance", value.symbol, certainty=min(value.certainty, certainty))
    if value.kind in ("external", "self"):
        return value
    return UNKNOWN


def interpret(expr: ast.expr, name_value: Callable[[str], Value], depth: int = 0) -> Value:
    """The value an annotation describes; ``name_value`` resolves dotted names."""
    if depth > 10:
        return UNKNOWN
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        try:
            return interpret(ast.parse(expr.value, mode="eval").body, name_value, depth + 1)
        except SyntaxError:
            return UNKNOWN
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.BitOr):
        return _union([expr.left, expr.right], name_value, depth)
    name = dotted(expr)
    if name is not None:
        return SELF if name.rpartition(".")[2] == "Self" else as_instance(name_value(name))
    if not isinstance(expr, ast.Subscript):
        return UNKNOWN
    head = dotted(expr.value) or ""
    last = head.rpartition(".")[2]
    args = list(expr.slice.elts) if isinstance(expr.slice, ast.Tuple) else [expr.slice]
    inner = lambda index: interpret(args[index], name_value, depth + 1)  # noqa: E731
    if last in _WRAPPERS:
        return inner(0)
    if last == "Union":
        return _union(args, name_value, depth)
    if last in ("type", "Type"):
        value = inner(0)
        return Value("class", value.symbol, certainty=value.certainty) if value.symbol else UNKNOWN
    if last in _ITERABLES or (
        last in ("tuple", "Tuple") and len(args) == 2 and _is_ellipsis(args[1])
    ):
        return Value("unknown", element=inner(0))
    if last in _CONTEXT_MANAGERS:
        return Value("unknown", entered=inner(0))
    if last == "Awaitable":
        return inner(0)
    if last == "Coroutine":
        return inner(-1)
    return as_instance(name_value(head)) if head else UNKNOWN


def _is_ellipsis(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Constant) and expr.value is Ellipsis


def _union(members: list[ast.expr], name_value: Callable[[str], Value], depth: int) -> Value:
    flat: list[ast.expr] = []
    for member in members:
        if isinstance(member, ast.BinOp) and isinstance(member.op, ast.BitOr):
            flat += [member.left, member.right]
        else:
            flat.append(member)
    real = [m for m in flat if not (isinstance(m, ast.Constant) and m.value is None)]
    real = [m for m in real if dotted(m) not in ("None", "NoneType", "types.NoneType")]
    return interpret(real[0], name_value, depth + 1) if len(real) == 1 else UNKNOWN


def self_of(receiver: Value | None) -> Value:
    """What ``Self`` means for a method looked up on ``receiver``."""
    if receiver is None or receiver.symbol is None:
        return UNKNOWN
    if receiver.kind in ("instance", "class"):
        return Value("instance", receiver.symbol, certainty=receiver.certainty)
    return UNKNOWN


class Typer:
    """Types of graph symbols, read from their annotations in their own scope."""

    def __init__(self, resolver: Resolver) -> None:
        self.resolver = resolver

    def annotation(self, text: str, scopes: list[str]) -> Value:
        try:
            expr = ast.parse(text, mode="eval").body
        except SyntaxError:
            return UNKNOWN
        return interpret(
            expr, lambda name: of_resolved(self.resolver.resolve_in_scope(scopes, name))
        )

    def of_symbol(self, symbol: Symbol, receiver: Value | None = None) -> Value:
        """The value of reading ``symbol`` (through ``receiver`` for members)."""
        if not isinstance(symbol, AttributeSymbol):
            value = of_resolved(symbol)
            return replace(value, receiver=receiver) if value.kind == "function" else value
        if symbol.origin == "property" and (receiver is None or receiver.kind != "instance"):
            return UNKNOWN
        member_of = self._enum_owner(symbol)
        if member_of is not None:
            return Value("instance", member_of)
        value = self._attribute(symbol)
        if value.kind == "self":
            value = self_of(receiver)
        if symbol.origin == "class" and self._is_descriptor(value):
            return Value("unknown", note=f"{symbol.qualname} is a descriptor")
        if value.kind == "unknown" and not (value.element or value.entered):
            return Value("unknown", note=f"the type of {symbol.qualname} is not known")
        return value

    def _is_descriptor(self, value: Value) -> bool:
        """A class attribute holding a descriptor gives whatever its ``__get__`` returns."""
        if value.kind != "instance" or not isinstance(value.symbol, ClassSymbol):
            return False
        for dunder in ("__get__", "__set__"):
            found = self.resolver.member(value.symbol, dunder, instance=True)
            if found.owner is not None or found.status == "unknown":
                return True
        return False

    def _enum_owner(self, symbol: AttributeSymbol) -> ClassSymbol | None:
        """The enum a member belongs to (``RED = 1`` in an ``Enum`` subclass)."""
        if symbol.origin != "class" or symbol.name.startswith("_") or symbol.parent is None:
            return None
        owner = self.resolver.first_definition(symbol.parent)
        if isinstance(owner, ClassSymbol) and self.resolver.hierarchy.is_enum(owner):
            return owner
        return None

    def _attribute(self, symbol: AttributeSymbol) -> Value:
        scopes = scopes_of(symbol)
        if symbol.annotation:
            return self.annotation(symbol.annotation, scopes)
        if symbol.call:
            callee = self.resolver.resolve_in_scope(scopes, symbol.call)
            if isinstance(callee, ClassSymbol):
                return Value("instance", callee, certainty=0.9)
            if isinstance(callee, FunctionSymbol):
                return self.returns(callee, None)
        return UNKNOWN

    def returns(self, function: FunctionSymbol, receiver: Value | None) -> Value:
        """What calling ``function`` (looked up on ``receiver``) gives back."""
        if function.returns_self:
            return self_of(receiver)
        if not function.returns:
            return Value("unknown", note=f"{function.qualname} has no return annotation")
        if _returns_receiver_type(function):
            return self_of(receiver)
        value = self.annotation(function.returns, scopes_of(function))
        if value.kind == "self":
            return self_of(receiver)
        if self._is_receiver_base(value, receiver):
            # `-> "Entity"` called on a Product is most often the Product itself.
            return self_of(receiver)
        if _CONTEXT_DECORATORS & {
            d.partition("(")[0].rpartition(".")[2] for d in function.decorators
        }:
            return Value("unknown", entered=value.element or UNKNOWN)
        return value

    def _is_receiver_base(self, value: Value, receiver: Value | None) -> bool:
        """Whether ``value`` is an instance of a class the receiver's class derives from."""
        if value.kind != "instance" or receiver is None:
            return False
        if not isinstance(receiver.symbol, ClassSymbol) or value.symbol is None:
            return False
        return any(
            c is value.symbol or c.qualname == value.symbol.qualname
            for c in self.resolver.mro(receiver.symbol).classes
        )


def _returns_receiver_type(function: FunctionSymbol) -> bool:
    """``def f(self: T) -> T`` and ``def make(cls: type[T]) -> T`` return the receiver's type."""
    if not function.params or function.method_kind not in ("method", "classmethod"):
        return False
    first = (function.params[0].annotation or "").replace(" ", "")
    result = (function.returns or "").strip("'\"")
    return bool(first) and first in (result, f"type[{result}]", f"Type[{result}]")
