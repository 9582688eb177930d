"""Argument binding, checked against Python itself on the same signatures."""

from __future__ import annotations

import ast
import inspect

import pytest

from contextbase.codegraph.extract.pyutil import function_params
from contextbase.codegraph.validate import CallShape, bind, close_matches

SIGNATURES = [
    "def f(a, b=1): ...",
    "def f(a, /, b, *, c, d=2): ...",
    "def f(*args, key=None): ...",
    "def f(a, /, **kw): ...",
    "def f(a, *args, b, **kw): ...",
    "def f(): ...",
]
CALLS = ["f()", "f(1)", "f(1, 2)", "f(1, 2, 3)", "f(a=1)", "f(1, b=2)", "f(1, c=3)",
         "f(1, 2, c=3)", "f(1, a=1)", "f(key=1)", "f(1, b=2, c=3, d=4)", "f(zzz=1)"]  # fmt: skip


def _shape(call: str) -> CallShape:
    node = ast.parse(call, mode="eval").body
    assert isinstance(node, ast.Call)
    return CallShape(len(node.args), tuple(k.arg for k in node.keywords if k.arg))


@pytest.mark.parametrize("definition", SIGNATURES)
def test_binding_agrees_with_python(definition: str) -> None:
    namespace: dict[str, object] = {}
    exec(definition, namespace)
    signature = inspect.signature(namespace["f"])  # type: ignore[arg-type]
    function = ast.parse(definition).body[0]
    assert isinstance(function, ast.FunctionDef)
    params = function_params(function.args)
    for call in CALLS:
        node = ast.parse(call, mode="eval").body
        args = [ast.literal_eval(a) for a in node.args]  # type: ignore[attr-defined]
        kwargs = {k.arg: ast.literal_eval(k.value) for k in node.keywords}  # type: ignore[attr-defined]
        try:
            signature.bind(*args, **kwargs)
            python_accepts = True
        except TypeError:
            python_accepts = False
        assert (not bind(params, _shape(call))) == python_accepts, (definition, call)


def test_splats_skip_arity_but_not_unknown_keywords() -> None:
    params = function_params(ast.parse("def f(a, b): ...").body[0].args)  # type: ignore[attr-defined]
    assert bind(params, CallShape(0, (), star_args=True)) == []
    assert bind(params, CallShape(5, (), star_args=True)) == []
    [problem] = bind(params, CallShape(0, ("c",), star_kwargs=True))
    assert problem.code == "unknown_keyword"


def test_suggestions_prefer_public_close_names() -> None:
    names = ["get", "post", "_get_private", "stream", "timeout"]
    assert close_matches("gett", names) == ["get"]
    assert close_matches("timout", names)[0] == "timeout"
    assert close_matches("Timeout", ["timeout"]) == ["timeout"]
    assert "_get_private" not in close_matches("get_private", names)
