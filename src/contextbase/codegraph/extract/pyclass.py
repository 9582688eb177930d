"""What a class body says beyond its definitions: fields, members set in methods, options."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field

from contextbase.codegraph.extract.pyutil import (
    decorator_name,
    dotted,
    has_keyword,
    keyword_constant,
    literal_strings,
)
from contextbase.codegraph.model import FieldInfo

COMPUTED_ALIAS = "*"
"""The alias of a field whose alias is not a string literal (``AliasChoices(...)``)."""
_FIELD_FACTORIES = {"field", "Field", "attrib", "ib", "PrivateAttr"}
_CONFIG_KEYS = {"extra", "populate_by_name", "validate_by_name"}
_RESTORING_METHODS = {
    "__setstate__",
    "__setattr__",
    "__delattr__",
    "__copy__",
    "__deepcopy__",
    "__reduce__",
    "__reduce_ex__",
    "__getstate__",
}
"""Methods whose computed ``setattr`` restores or delegates existing attributes."""
_NAMESPACE_WRITES = {"update", "setdefault", "__setitem__"}


@dataclass(frozen=True)
class Member:
    """An attribute a method assigns on its receiver."""

    name: str
    line: int
    origin: str
    annotation: str | None = None
    call: str | None = None


@dataclass
class MemberScan:
    members: list[Member] = field(default_factory=list)
    dynamic: bool = False
    """Attributes are also set by computed names, so a missing one is not proof."""


def _own_nodes(node: ast.AST) -> Iterator[ast.AST]:
    """Every node of a function body, without descending into nested functions or classes."""
    stack = list(ast.iter_child_nodes(node))
    while stack:
        child = stack.pop()
        yield child
        if not isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            stack.extend(ast.iter_child_nodes(child))


def _receiver(node: ast.FunctionDef | ast.AsyncFunctionDef, kind: str) -> str | None:
    positional = [*node.args.posonlyargs, *node.args.args]
    if kind in ("method", "classmethod") and positional:
        return positional[0].arg
    return None


def member_assignments(
    node: ast.FunctionDef | ast.AsyncFunctionDef, kind: str, class_name: str = ""
) -> MemberScan:
    """Attributes set on ``self`` (or ``cls`` in a classmethod) anywhere in a method, or
    on an instance the method creates (``obj = cls()``, ``obj = super().__new__(cls)``)."""
    scan = MemberScan()
    receiver = _receiver(node, kind)
    if receiver is None:
        return scan
    origin = "class" if kind == "classmethod" else "instance"
    params = {
        a.arg: ast.unparse(a.annotation)
        for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs)
        if a.annotation
    }
    details: dict[str, tuple[str | None, str | None]] = {}
    names: dict[str, int] = {}
    namespace = (f"{receiver}.__dict__", f"vars({receiver})")
    receivers = {receiver, *_new_objects(node, {receiver, class_name} - {""})}
    for sub in ast.walk(node):
        if isinstance(sub, ast.Attribute) and dotted(sub.value) in receivers:
            if isinstance(sub.ctx, ast.Store):
                names.setdefault(sub.attr, sub.lineno)
                scan.dynamic = scan.dynamic or sub.attr == "__dict__"
        elif isinstance(sub, ast.Assign | ast.AnnAssign):
            _note_details(sub, receiver, params, details)
        elif isinstance(sub, ast.Subscript) and isinstance(sub.ctx, ast.Store):
            scan.dynamic = scan.dynamic or _source(sub.value) in namespace
        elif isinstance(sub, ast.Call):
            _note_setattr(sub, receiver, names, scan)
            func = sub.func
            if isinstance(func, ast.Attribute) and func.attr in _NAMESPACE_WRITES:
                scan.dynamic = scan.dynamic or _source(func.value) in namespace
    if node.name in _RESTORING_METHODS:
        scan.dynamic = False
    for name, line in names.items():
        annotation, call = details.get(name, (None, None))
        scan.members.append(Member(name, line, origin, annotation, call))
    return scan


def _new_objects(node: ast.FunctionDef | ast.AsyncFunctionDef, makers: set[str]) -> set[str]:
    """Local names bound to a new instance: ``obj = cls(...)``, ``obj = X.__new__(cls)``."""
    found: set[str] = set()
    for sub in ast.walk(node):
        if not (isinstance(sub, ast.Assign) and isinstance(sub.value, ast.Call)):
            continue
        func = sub.value.func
        creates = dotted(func) in makers or (
            isinstance(func, ast.Attribute) and func.attr == "__new__"
        )
        if creates:
            found.update(t.id for t in sub.targets if isinstance(t, ast.Name))
    return found


def _note_details(
    node: ast.Assign | ast.AnnAssign,
    receiver: str,
    params: dict[str, str],
    details: dict[str, tuple[str | None, str | None]],
) -> None:
    target = node.targets[0] if isinstance(node, ast.Assign) else node.target
    if not (isinstance(target, ast.Attribute) and dotted(target.value) == receiver):
        return
    annotation = ast.unparse(node.annotation) if isinstance(node, ast.AnnAssign) else None
    call = None
    value = node.value
    if isinstance(value, ast.Name) and annotation is None:
        annotation = params.get(value.id)
    elif isinstance(value, ast.Call):
        call = dotted(value.func)
    if annotation or call:
        details.setdefault(target.attr, (annotation, call))


def _source(expr: ast.expr) -> str:
    return ast.unparse(expr).replace(" ", "")


def _note_setattr(call: ast.Call, receiver: str, names: dict[str, int], scan: MemberScan) -> None:
    func = dotted(call.func)
    if func not in ("setattr", "object.__setattr__") and not (
        func and func.endswith("__setattr__")
    ):
        return
    if len(call.args) < 2 or dotted(call.args[0]) != receiver:
        return
    name = call.args[1]
    if isinstance(name, ast.Constant) and isinstance(name.value, str):
        names.setdefault(name.value, call.lineno)
    else:
        scan.dynamic = True


def returns_receiver(node: ast.FunctionDef | ast.AsyncFunctionDef, kind: str) -> bool:
    """Every ``return`` gives back ``self``, or ``cls(...)`` in a classmethod."""
    receiver = _receiver(node, kind)
    if receiver is None:
        return False
    values = [n.value for n in _own_nodes(node) if isinstance(n, ast.Return) and n.value]
    if not values:
        return False
    for value in values:
        if kind == "method" and not (isinstance(value, ast.Name) and value.id == receiver):
            return False
        if kind == "classmethod" and not (
            isinstance(value, ast.Call) and dotted(value.func) == receiver
        ):
            return False
    return True


def dataclass_options(decorators: list[ast.expr]) -> dict[str, bool] | None:
    """``{"init", "kw_only"}`` for a ``@dataclass`` (stdlib or pydantic), else ``None``."""
    for decorator in decorators:
        if decorator_name(decorator) != "dataclass":
            continue
        if isinstance(decorator, ast.Call):
            return {
                "init": keyword_constant(decorator, "init") is not False,
                "kw_only": keyword_constant(decorator, "kw_only") is True,
            }
        return {"init": True, "kw_only": False}
    return None


def _annotation_head(annotation: ast.expr) -> str:
    head = annotation.value if isinstance(annotation, ast.Subscript) else annotation
    name = dotted(head) or ""
    return name.rpartition(".")[2]


def class_fields(body: list[ast.stmt]) -> list[FieldInfo]:
    """Annotated class-level names in order, as dataclass/pydantic fields see them."""
    fields: list[FieldInfo] = []
    kw_only = False
    for node in body:
        if not (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)):
            continue
        head = _annotation_head(node.annotation)
        if head == "KW_ONLY":
            kw_only = True
            continue
        if head == "ClassVar":
            continue
        fields.append(_field(node.target.id, node, kw_only))
    return fields


def _field(name: str, node: ast.AnnAssign, kw_only: bool) -> FieldInfo:
    annotation = ast.unparse(node.annotation)
    value = node.value
    if value is None:
        return FieldInfo(name, annotation, kw_only=kw_only)
    if not (isinstance(value, ast.Call) and decorator_name(value.func) in _FIELD_FACTORIES):
        return FieldInfo(name, annotation, has_default=True, kw_only=kw_only)
    first = value.args[0] if value.args else None
    positional_default = first is not None and not (
        isinstance(first, ast.Constant) and first.value is Ellipsis
    )
    return FieldInfo(
        name,
        annotation,
        has_default=positional_default
        or has_keyword(value, "default", "default_factory", "factory"),
        init=keyword_constant(value, "init") is not False,
        kw_only=kw_only or keyword_constant(value, "kw_only") is True,
        aliases=_aliases(value),
    )


def _aliases(call: ast.Call) -> list[str]:
    """String aliases of ``Field(alias=..., validation_alias=AliasChoices(...))``."""
    aliases: list[str] = []
    for keyword in call.keywords:
        if keyword.arg not in ("alias", "validation_alias"):
            continue
        value = keyword.value
        if isinstance(value, ast.Call) and decorator_name(value.func) == "AliasChoices":
            choices = [a.value for a in value.args if isinstance(a, ast.Constant)]
            if len(choices) != len(value.args) or value.keywords:
                return [COMPUTED_ALIAS]
            aliases += [c for c in choices if isinstance(c, str)]
            if len(aliases) != len(choices):
                return [COMPUTED_ALIAS]
        elif isinstance(value, ast.Constant) and isinstance(value.value, str):
            aliases.append(value.value)
        else:
            return [COMPUTED_ALIAS]
    return list(dict.fromkeys(aliases))


def model_config(body: list[ast.stmt]) -> dict[str, object]:
    """Literal entries of a pydantic ``model_config = ConfigDict(...)`` or ``{...}``."""
    for node in body:
        if not (
            isinstance(node, ast.Assign | ast.AnnAssign)
            and any(dotted(t) == "model_config" for t in _targets(node))
        ):
            continue
        value = node.value
        if isinstance(value, ast.Call):
            return {
                k.arg: k.value.value
                for k in value.keywords
                if k.arg in _CONFIG_KEYS and isinstance(k.value, ast.Constant)
            }
        if isinstance(value, ast.Dict):
            return {
                k.value: v.value
                for k, v in zip(value.keys, value.values, strict=True)
                if isinstance(k, ast.Constant)
                and k.value in _CONFIG_KEYS
                and isinstance(v, ast.Constant)
            }
    return {}


def _targets(node: ast.Assign | ast.AnnAssign) -> list[ast.expr]:
    return node.targets if isinstance(node, ast.Assign) else [node.target]


def slot_names(body: list[ast.stmt]) -> list[tuple[str, int]]:
    """Names listed in a literal ``__slots__``."""
    for node in body:
        if isinstance(node, ast.Assign | ast.AnnAssign) and any(
            dotted(t) == "__slots__" for t in _targets(node)
        ):
            value = node.value
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                return [(value.value, node.lineno)]
            return [(name, node.lineno) for name in literal_strings(value) or []]
    return []
