"""Members of standard-library base classes, read from this interpreter.

A library class often derives from ``Exception``, ``typing.MutableMapping``,
``abc.ABC`` or ``enum.Enum``. Those are outside the graph, but their members
are knowable without guessing: the classes are imported (only from a fixed list
of standard modules, safe to import) and their namespaces read along their
MRO. Attributes their methods set on ``self`` are read from their source. A
stdlib class whose metaclass or MRO defines ``__getattr__``, or whose source is
unavailable, stays unknowable.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import sys
import typing
from functools import cache

from contextbase.codegraph.extract.pyclass import member_assignments
from contextbase.codegraph.model import Param

SAFE_MODULES = frozenset(
    {
        "builtins",
        "abc",
        "typing",
        "typing_extensions",
        "collections",
        "collections.abc",
        "numbers",
        "enum",
        "contextlib",
        "io",
        "os",
        "pathlib",
        "datetime",
        "decimal",
        "fractions",
        "functools",
        "threading",
        "queue",
        "logging",
        "logging.handlers",
        "argparse",
        "json",
        "string",
        "types",
        "weakref",
        "dataclasses",
        "socketserver",
        "http.server",
        "http.client",
        "http.cookiejar",
        "http.cookies",
        "urllib.parse",
        "urllib.request",
        "email.message",
        "configparser",
        "html.parser",
        "unittest",
        "asyncio",
        "ast",
        "codecs",
        "zipfile",
        "tarfile",
        "tempfile",
        "shutil",
        "sqlite3",
        "csv",
        "pickle",
        "copy",
        "random",
        "uuid",
        "hashlib",
        "hmac",
        "struct",
        "array",
        "socket",
        "ssl",
        "selectors",
        "subprocess",
        "concurrent.futures",
        "multiprocessing",
        "warnings",
        "traceback",
        "inspect",
        "importlib.abc",
        "contextvars",
        "xml.etree.ElementTree",
        "textwrap",
        "difflib",
        "re",
        "heapq",
        "bisect",
        "statistics",
        "operator",
        "itertools",
        "time",
    }
)


@cache
def live_class(name: str) -> type | None:
    """The class a dotted stdlib name denotes (``typing.MutableMapping`` → its ABC)."""
    module, _, attr = name.rpartition(".")
    if module not in SAFE_MODULES:
        return None
    try:
        value = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError):
        return None
    value = typing.get_origin(value) or value
    return value if isinstance(value, type) else None


def _defines_getattr(classes: tuple[type, ...]) -> bool:
    """``enum``'s metaclass ``__getattr__`` only serves the members a class declares."""
    return any(
        "__getattr__" in vars(c) for c in classes if c is not type and c.__module__ != "enum"
    )


@cache
def live_members(name: str, *, class_level: bool = False) -> frozenset[str] | None:
    """Member names of a stdlib class: its namespace along the MRO, plus what its methods
    set on ``self`` (read from its source) or, for access on the class, its metaclass's
    members. ``None`` when they cannot all be listed."""
    cls = live_class(name)
    if cls is None or _defines_getattr(cls.__mro__):
        return None
    names = set(dir(cls))
    for klass in cls.__mro__:
        names.update(vars(klass))
    if not class_level:
        assigned = _instance_attributes(cls)
        if assigned is None:
            return None
        names.update(assigned)
    if class_level:
        meta = type(cls).__mro__
        if _defines_getattr(meta):
            return None
        for klass in meta:
            names.update(vars(klass))
    return frozenset(names)


@cache
def _instance_attributes(cls: type) -> frozenset[str] | None:
    """What the Python methods along the MRO assign on ``self``; ``None`` when a class's
    source cannot be read or it sets attributes by computed names."""
    names: set[str] = set()
    for klass in cls.__mro__:
        functions = [v for v in vars(klass).values() if inspect.isfunction(v)]
        if klass.__module__ == "builtins" or not functions:
            continue
        node = _class_node(functions[0].__code__.co_filename, klass.__name__)
        if node is None:
            return None
        for item in node.body:
            if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                found = member_assignments(item, "method", klass.__name__)
                if found.dynamic:
                    return None
                names.update(member.name for member in found.members)
    return frozenset(names)


def _class_node(filename: str, name: str) -> ast.ClassDef | None:
    """The first ``class name`` in a source file (methods know their real file, even
    when the class is re-exported, as ``collections.abc`` re-exports ``_collections_abc``)."""
    tree = _parsed(filename)
    nodes = ast.walk(tree) if tree else ()
    return next((n for n in nodes if isinstance(n, ast.ClassDef) and n.name == name), None)


@cache
def _parsed(filename: str) -> ast.Module | None:
    if filename.startswith("<frozen "):  # a frozen stdlib module still ships its source
        module = sys.modules.get(filename.removeprefix("<frozen ").rstrip(">"))
        filename = getattr(module, "__file__", None) or ""
    try:
        with open(filename, encoding="utf-8") as handle:
            return ast.parse(handle.read())
    except (OSError, SyntaxError, ValueError):
        return None


def is_type(name: str) -> bool:
    """Whether a stdlib class is ``type`` or derives from it (a metaclass)."""
    cls = live_class(name)
    return cls is not None and issubclass(cls, type)


def is_enum(name: str) -> bool:
    """Whether a stdlib class is ``enum.Enum`` or derives from it."""
    import enum

    cls = live_class(name)
    return cls is not None and issubclass(cls, enum.Enum)


def transparent(name: str) -> bool:
    """A stdlib base that adds no constructor parameters (object's ``__init__``/``__new__``)."""
    cls = live_class(name)
    return cls is not None and cls.__init__ is object.__init__ and cls.__new__ is object.__new__


def live_signature(name: str) -> list[Param] | None:
    """The constructor parameters of a stdlib class, when Python can tell them.

    Builtin exceptions take any positional arguments and no keywords (but for the few
    in ``_KEYWORD_EXCEPTIONS``); classes with a Python ``__init__`` are introspected.
    """
    cls = live_class(name)
    if cls is None:
        return None
    if cls.__module__ == "builtins" and issubclass(cls, BaseException):
        if issubclass(cls, _KEYWORD_EXCEPTIONS):
            return None
        return [Param("args", "var_positional")]
    if not inspect.isfunction(cls.__init__) or cls.__new__ is not object.__new__:
        return None
    try:
        parameters = list(inspect.signature(cls.__init__).parameters.values())[1:]
    except (TypeError, ValueError):
        return None
    return [Param(p.name, _KINDS[p.kind], p.default is not p.empty) for p in parameters]


_KEYWORD_EXCEPTIONS = (ImportError, AttributeError, NameError, UnicodeError, BaseExceptionGroup)
_KINDS = {
    inspect.Parameter.POSITIONAL_ONLY: "positional_only",
    inspect.Parameter.POSITIONAL_OR_KEYWORD: "positional_or_keyword",
    inspect.Parameter.VAR_POSITIONAL: "var_positional",
    inspect.Parameter.KEYWORD_ONLY: "keyword_only",
    inspect.Parameter.VAR_KEYWORD: "var_keyword",
}
