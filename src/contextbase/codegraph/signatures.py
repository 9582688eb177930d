"""What a call accepts: a function's parameters, or a class's constructor along its MRO.

A constructor is the first ``__init__`` or ``__new__`` on the MRO, else the
``__init__`` a ``@dataclass`` or a pydantic model synthesises from its fields,
else ``object()``'s, which takes no arguments. Anything the graph cannot see
(a base class outside it, a metaclass with ``__call__``, a class decorator
that may replace the class) makes the signature unknown rather than guessed.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from contextbase.codegraph.extract.pyclass import COMPUTED_ALIAS
from contextbase.codegraph.live import live_class, live_signature, transparent
from contextbase.codegraph.model import ClassSymbol, FieldInfo, FunctionSymbol, Param
from contextbase.codegraph.resolve import External, Mro, Resolver
from contextbase.codegraph.values import Value

PYDANTIC_MODELS = {
    "pydantic.main.BaseModel",
    "pydantic.BaseModel",
    "sqlmodel.main.SQLModel",
    "sqlmodel.SQLModel",
}
PYDANTIC_SETTINGS = {"pydantic_settings.main.BaseSettings", "pydantic_settings.BaseSettings"}
SIGNATURE_PRESERVING = {
    "staticmethod",
    "classmethod",
    "abstractmethod",
    "abstractclassmethod",
    "abstractstaticmethod",
    "overload",
    "override",
    "final",
    "lru_cache",
    "cache",
    "wraps",
    "deprecated",
    "contextmanager",
    "asynccontextmanager",
    "no_type_check",
    "setter",
    "getter",
    "deleter",
}
"""Decorators that leave a function callable with the parameters it declares."""
HARMLESS_CLASS_DECORATORS = {
    "dataclass",
    "final",
    "total_ordering",
    "runtime_checkable",
    "unique",
    "deprecated",
    "with_config",
    "verify",
    "dataclass_transform",
}


@dataclass(frozen=True)
class Signature:
    """The parameter lists a call may bind to (any one suffices); none when unknown."""

    variants: list[list[Param]]
    origin: str
    reason: str = ""
    exact: bool = True
    """False when a decorator may have changed the signature: a failed binding is uncertain."""
    strict_keywords: bool = True
    """False for pydantic models that ignore unknown fields (``extra='ignore'``)."""

    @property
    def known(self) -> bool:
        return bool(self.variants)


def decorator_names(decorators: list[str]) -> list[str]:
    return [d.partition("(")[0].rpartition(".")[2].strip() for d in decorators]


def call_signature(function: FunctionSymbol, receiver: Value | None) -> Signature:
    """The parameters a call of ``function``, looked up on ``receiver``, binds to."""
    variants = [function.params, *function.alternatives]
    bound = function.method_kind == "classmethod" or (
        function.method_kind == "method" and receiver is not None and receiver.kind == "instance"
    )
    if bound:
        variants = [_drop_receiver(v) for v in variants]
    unknown = [d for d in decorator_names(function.decorators) if d not in SIGNATURE_PRESERVING]
    reason = f"it is decorated with @{unknown[0]}" if unknown else ""
    return Signature(variants, function.qualname, reason, exact=not unknown)


def _drop_receiver(params: list[Param]) -> list[Param]:
    if params and params[0].kind in ("positional_only", "positional_or_keyword"):
        return params[1:]
    return params


def constructor(resolver: Resolver, cls: ClassSymbol) -> Signature:
    """What ``cls(...)`` accepts."""
    unknown = [d for d in decorator_names(cls.decorators) if d not in HARMLESS_CLASS_DECORATORS]
    if unknown:
        return _unknown(cls, f"it is decorated with @{unknown[0]}")
    if resolver.hierarchy.is_protocol(cls):
        return _unknown(cls, "it is a Protocol, standing for other classes")
    mro = resolver.mro(cls)
    if mro.unknown_bases:
        return _unknown(cls, f"its base {mro.unknown_bases[0]} cannot be resolved")
    meta_problem = _metaclass_problem(resolver, mro)
    if meta_problem:
        return _unknown(cls, meta_problem)
    for entry in mro.entries:
        if isinstance(entry, External):
            if entry.name in PYDANTIC_MODELS | PYDANTIC_SETTINGS:
                return _pydantic(cls, mro, settings=entry.name in PYDANTIC_SETTINGS)
            if transparent(entry.name):
                continue
            inherited = live_signature(entry.name)
            if inherited is not None:
                return Signature([inherited], f"{entry.name}.__init__")
            return _unknown(cls, f"it inherits from {entry.name}, outside the graph")
        if entry.qualname in PYDANTIC_MODELS | PYDANTIC_SETTINGS:
            return _pydantic(cls, mro, settings=entry.qualname in PYDANTIC_SETTINGS)
        for dunder in ("__init__", "__new__"):
            found = resolver.definitions(f"{entry.qualname}.{dunder}")
            if not found:
                continue
            if not isinstance(found[0], FunctionSymbol):
                return _unknown(cls, f"{entry.qualname}.{dunder} is not a plain function")
            function = found[0]
            unknown = [
                d for d in decorator_names(function.decorators) if d not in SIGNATURE_PRESERVING
            ]
            return Signature(
                [_drop_receiver(v) for v in (function.params, *function.alternatives)],
                function.qualname,
                f"it is decorated with @{unknown[0]}" if unknown else "",
                exact=not unknown,
            )
        if entry.dataclass is not None and entry.dataclass.get("init", True):
            return _dataclass(cls, mro)
    return Signature([[]], "object.__init__")


def _unknown(cls: ClassSymbol, reason: str) -> Signature:
    return Signature([], cls.qualname, reason)


def _metaclass_problem(resolver: Resolver, mro: Mro) -> str:
    meta = mro.metaclass
    if isinstance(meta, External):
        live = live_class(meta.name)
        if live is None or live.__call__ is not type.__call__:  # type: ignore[comparison-overlap]
            return f"its metaclass {meta.name} is outside the graph or defines __call__"
    if isinstance(meta, ClassSymbol):
        found = resolver.member(meta, "__call__", instance=True)
        if found.owner is not None:
            return f"its metaclass {meta.qualname} defines __call__"
    return ""


def _dataclass(cls: ClassSymbol, mro: Mro) -> Signature:
    if any(isinstance(e, External) and not transparent(e.name) for e in mro.entries):
        return _unknown(cls, "a base outside the graph may add dataclass fields")
    fields: dict[str, FieldInfo] = {}
    for entry in reversed(mro.classes):
        if entry.dataclass is None:
            continue
        for info in entry.fields:
            kw_only = info.kw_only or entry.dataclass.get("kw_only", False)
            fields[info.name] = replace(info, kw_only=kw_only)
    params = [
        Param(f.name, "keyword_only" if f.kw_only else "positional_or_keyword", f.has_default)
        for f in fields.values()
        if f.init
    ]
    params.sort(key=lambda p: p.kind == "keyword_only")
    return Signature([params], f"dataclass fields of {cls.qualname}")


def _pydantic(cls: ClassSymbol, mro: Mro, *, settings: bool) -> Signature:
    """Pydantic models take fields as keywords; settings may read them from the environment."""
    fields: dict[str, FieldInfo] = {}
    extra: str | None = None
    for entry in reversed(mro.classes):
        if entry.qualname in PYDANTIC_MODELS | PYDANTIC_SETTINGS:
            continue
        fields.update({f.name: f for f in entry.fields if not f.name.startswith("_")})
        extra = (
            str(entry.config.get("extra") or entry.keywords.get("extra", "")).strip("'\"") or extra
        )
    params: list[Param] = []
    for info in fields.values():
        optional = info.has_default or settings or bool(info.aliases)
        params += [Param(a, "keyword_only", True) for a in info.aliases if a != COMPUTED_ALIAS]
        params.append(Param(info.name, "keyword_only", optional))
    if extra == "allow" or any(COMPUTED_ALIAS in f.aliases for f in fields.values()):
        params.append(Param("data", "var_keyword"))
    return Signature(
        [params], f"pydantic fields of {cls.qualname}", strict_keywords=extra == "forbid"
    )
