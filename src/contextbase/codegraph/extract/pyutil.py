"""Small readers of Python syntax trees shared by the extractor and the script analyser."""

from __future__ import annotations

import ast

from contextbase.codegraph.model import Param


def dotted(expr: ast.expr | None) -> str | None:
    """``a.b.c`` for a chain of names and attributes, else ``None``."""
    parts: list[str] = []
    while isinstance(expr, ast.Attribute):
        parts.append(expr.attr)
        expr = expr.value
    if not isinstance(expr, ast.Name):
        return None
    parts.append(expr.id)
    return ".".join(reversed(parts))


def decorator_name(expr: ast.expr) -> str:
    """The last name of a decorator's callee: ``functools.lru_cache(8)`` → ``lru_cache``."""
    if isinstance(expr, ast.Call):
        expr = expr.func
    if isinstance(expr, ast.Attribute):
        return expr.attr
    return expr.id if isinstance(expr, ast.Name) else ""


def bound_names(target: ast.expr) -> list[str]:
    """Plain names an assignment target binds (``a, (b, *c) = ...`` → a, b, c)."""
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, ast.Starred):
        return bound_names(target.value)
    if isinstance(target, ast.Tuple | ast.List):
        return [name for element in target.elts for name in bound_names(element)]
    return []


def function_params(args: ast.arguments) -> list[Param]:
    """Parameters in declaration order, with their kinds, defaults and annotations."""
    positional = [*args.posonlyargs, *args.args]
    first_default = len(positional) - len(args.defaults)
    params: list[Param] = []
    for index, arg in enumerate(positional):
        kind = "positional_only" if index < len(args.posonlyargs) else "positional_or_keyword"
        params.append(_param(arg, kind, index >= first_default))
    if args.vararg:
        params.append(_param(args.vararg, "var_positional", False))
    for arg, default in zip(args.kwonlyargs, args.kw_defaults, strict=True):
        params.append(_param(arg, "keyword_only", default is not None))
    if args.kwarg:
        params.append(_param(args.kwarg, "var_keyword", False))
    return params


def _param(arg: ast.arg, kind: str, has_default: bool) -> Param:
    annotation = ast.unparse(arg.annotation) if arg.annotation else None
    return Param(arg.arg, kind, has_default, annotation)  # type: ignore[arg-type]


def literal_strings(expr: ast.expr | None) -> list[str] | None:
    """The strings of a literal list or tuple of strings, else ``None``."""
    if not isinstance(expr, ast.List | ast.Tuple):
        return None
    values = [e.value for e in expr.elts if isinstance(e, ast.Constant)]
    if len(values) != len(expr.elts) or not all(isinstance(v, str) for v in values):
        return None
    return values


def keyword_constant(call: ast.Call, name: str) -> object:
    """The constant value of keyword ``name`` in a call, or ``None``."""
    for keyword in call.keywords:
        if keyword.arg == name and isinstance(keyword.value, ast.Constant):
            return keyword.value.value
    return None


def has_keyword(call: ast.Call, *names: str) -> bool:
    return any(keyword.arg in names for keyword in call.keywords)


def modifies_globals(tree: ast.Module) -> bool:
    """Whether the module creates names at run time: ``globals()[...] = ...``,
    ``globals().update(...)``, ``setattr(sys.modules[...], ...)``."""
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.ctx, ast.Store)
            and (_is_globals_call(node.value) or dotted(node.value) == "sys.modules")
        ):
            return True
        if isinstance(node, ast.Call):
            func = node.func
            if (
                isinstance(func, ast.Attribute)
                and func.attr in ("update", "setdefault", "__setitem__")
                and _is_globals_call(func.value)
            ):
                return True
            if dotted(func) == "setattr" and node.args and _is_module_object(node.args[0]):
                return True
    return False


def _is_globals_call(expr: ast.expr) -> bool:
    if not isinstance(expr, ast.Call):
        return False
    name = dotted(expr.func)
    return name == "globals" or (name == "vars" and not expr.args)


def _is_module_object(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Subscript) and dotted(expr.value) == "sys.modules"
