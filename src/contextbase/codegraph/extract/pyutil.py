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


def module_facts(tree: ast.Module) -> tuple[bool, list[tuple[str, int]]]:
    """One walk over a module: whether it creates names at run time (``globals()[...] =``,
    ``globals().update(...)``, ``setattr(sys.modules[...], ...)``), and the names its
    functions declare ``global`` (module attributes once they run)."""
    dynamic = False
    declared: list[tuple[str, int]] = []
    for node in _walk_outside_getattr(tree):
        if isinstance(node, ast.Global):
            declared += [(name, node.lineno) for name in node.names]
        elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store):
            dynamic = dynamic or _is_globals_call(node.value) or dotted(node.value) == "sys.modules"
        elif isinstance(node, ast.Call):
            func = node.func
            if (
                isinstance(func, ast.Attribute)
                and func.attr in ("update", "setdefault", "__setitem__")
                and _is_globals_call(func.value)
            ) or (dotted(func) == "setattr" and node.args and _is_module_object(node.args[0])):
                dynamic = True
    return dynamic, declared


def _walk_outside_getattr(tree: ast.Module) -> list[ast.AST]:
    """All nodes, except inside a module ``__getattr__`` (its ``globals()`` writes cache
    the names it serves: they are not new names)."""
    nodes: list[ast.AST] = []
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        nodes.append(node)
        if isinstance(node, ast.FunctionDef) and node.name == "__getattr__":
            continue
        stack.extend(ast.iter_child_nodes(node))
    return nodes


def _is_globals_call(expr: ast.expr) -> bool:
    if not isinstance(expr, ast.Call):
        return False
    name = dotted(expr.func)
    return name == "globals" or (name == "vars" and not expr.args)


def _is_module_object(expr: ast.expr) -> bool:
    return isinstance(expr, ast.Subscript) and dotted(expr.value) == "sys.modules"


def getattr_names(
    node: ast.FunctionDef | ast.AsyncFunctionDef, dicts: dict[str, list[str]]
) -> list[str] | None:
    """The names a ``__getattr__`` serves, when it provably serves no others.

    Recognised: a body ending in ``raise AttributeError(...)`` whose name parameter is
    only compared with string constants (``name == "X"``, ``name in ("A", "B")``) or
    looked up in a module-level dict literal (``name in LAZY``, ``LAZY[name]``,
    ``LAZY.get(name)``). Anything else means the served names are unknown (``None``).
    """
    positional = [*node.args.posonlyargs, *node.args.args]
    if not positional or not node.body or not _raises_attribute_error(node.body[-1]):
        return None
    param = positional[-1].arg
    dicts = {**dicts, **dict_literal_keys(node.body)}
    names: set[str] = set()
    understood: set[int] = set()
    for sub in ast.walk(node):
        served = _served_names(sub, param, dicts)
        if served is not None:
            names.update(served)
            understood.update(id(n) for n in ast.walk(sub) if isinstance(n, ast.Name))
        elif isinstance(sub, ast.Raise | ast.JoinedStr):
            understood.update(id(n) for n in ast.walk(sub) if isinstance(n, ast.Name))
    uses = [n for n in ast.walk(node) if isinstance(n, ast.Name) and n.id == param]
    if any(id(use) not in understood for use in uses):
        return None
    return sorted(names)


def _raises_attribute_error(stmt: ast.stmt) -> bool:
    if not isinstance(stmt, ast.Raise) or stmt.exc is None:
        return False
    exc = stmt.exc.func if isinstance(stmt.exc, ast.Call) else stmt.exc
    return (dotted(exc) or "").rpartition(".")[2] == "AttributeError"


def _served_names(node: ast.AST, param: str, dicts: dict[str, list[str]]) -> list[str] | None:
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        left, right = node.left, node.comparators[0]
        if isinstance(node.ops[0], ast.Eq | ast.NotEq):
            for one, other in ((left, right), (right, left)):
                if dotted(one) == param and isinstance(other, ast.Constant):
                    return [other.value] if isinstance(other.value, str) else None
        if isinstance(node.ops[0], ast.In | ast.NotIn) and dotted(left) == param:
            if isinstance(right, ast.Set):
                right = ast.Tuple(elts=right.elts)
            return literal_strings(right) or dicts.get(dotted(right) or "")
    if isinstance(node, ast.Subscript) and dotted(node.slice) == param:
        return dicts.get(dotted(node.value) or "")
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "get"
        and node.args
        and dotted(node.args[0]) == param
    ):
        return dicts.get(dotted(node.func.value) or "")
    return None


def dict_literal_keys(body: list[ast.stmt]) -> dict[str, list[str]]:
    """Module-level ``NAME = {"key": ...}`` dicts with string keys, by name."""
    found: dict[str, list[str]] = {}
    for stmt in body:
        value = stmt.value if isinstance(stmt, ast.Assign | ast.AnnAssign) else None
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [getattr(stmt, "target", None)]
        if not isinstance(value, ast.Dict):
            continue
        keys = [k.value for k in value.keys if isinstance(k, ast.Constant)]
        if len(keys) == len(value.keys) and all(isinstance(k, str) for k in keys):
            for target in targets:
                if isinstance(target, ast.Name):
                    found[target.id] = keys
    return found
