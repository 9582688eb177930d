"""Checking single references — an import, an attribute, a call — and recording findings.

The script walker (``analyze``) decides what each expression is; this module
asks the graph about it and writes one :class:`Finding` per reference into the
analysis. Confidence is the chance the status is right: a missing member of a
class whose whole MRO is in the graph is near-certain; one reached through a
return annotation a little less (the object may be a richer subclass).
"""

from __future__ import annotations

import ast
from dataclasses import replace

from contextbase.codegraph.findings import Analysis, Finding, FindingKind, Status
from contextbase.codegraph.model import ClassSymbol, FunctionSymbol, ModuleSymbol, Symbol
from contextbase.codegraph.resolve import Lookup, Resolver
from contextbase.codegraph.signatures import Signature, call_signature, constructor
from contextbase.codegraph.validate import CallShape, bind_any, close_matches
from contextbase.codegraph.values import UNKNOWN, Typer, Value

ARGUMENT_CONFIDENCE = 0.9
LENIENT_KEYWORD_CONFIDENCE = 0.7
"""Pydantic ignores unknown fields unless ``extra='forbid'``: wrong, but not an error."""
UNCERTAIN_CONFIDENCE = 0.5
UNKNOWN_TYPE_CONFIDENCE = 0.3
SCRIPT_PREFIX = "__main__."
"""The script is module ``__main__``; its own names are shown without the prefix."""


class ReferenceChecker:
    def __init__(self, resolver: Resolver, analysis: Analysis) -> None:
        self.resolver = resolver
        self.typer = Typer(resolver)
        self.analysis = analysis

    def record(
        self,
        node: ast.AST,
        kind: FindingKind,
        name: str,
        status: Status,
        message: str,
        suggestion: str | None = None,
        confidence: float = 1.0,
        position: tuple[int, int] | None = None,
    ) -> Finding:
        line, column = position or (getattr(node, "lineno", 0), getattr(node, "col_offset", 0))
        name = name.removeprefix(SCRIPT_PREFIX)
        message = message.replace(SCRIPT_PREFIX, "")
        finding = Finding(
            line, column + 1, kind, name, status, message, suggestion, round(confidence, 2)
        )
        self.analysis.findings.append(finding)
        return finding

    # -- imports -----------------------------------------------------------

    def import_module(self, dotted: str, node: ast.stmt) -> Value:
        """``import a.b.c``: every module on the path must exist."""
        if not self.resolver.covers(dotted):
            self.analysis.external_modules.add(dotted.partition(".")[0])
            return Value("external", name=dotted)
        module = self.resolver.module(dotted)
        if module is not None:
            self.record(node, "import", dotted, "valid", f"module {dotted} exists")
            return Value("module", module)
        parent, _, last = dotted.rpartition(".")
        siblings = [s.name for s in self.resolver.children(parent) if isinstance(s, ModuleSymbol)]
        self._missing(node, "import", dotted, f"no module named '{dotted}'", last, siblings, 0.95)
        return UNKNOWN

    def import_names(self, module_name: str, names: list[str], node: ast.stmt) -> list[Value]:
        """``from module import a, b``: the module must exist, then each name in it."""
        if not self.resolver.covers(module_name):
            self.analysis.external_modules.add(module_name.partition(".")[0])
            return [Value("external", name=f"{module_name}.{name}") for name in names]
        module = self.resolver.module(module_name)
        if module is None:
            self.import_module(module_name, node)
            return [UNKNOWN for _ in names]
        return [self._import_name(module, name, node) for name in names]

    def _import_name(self, module: ModuleSymbol, name: str, node: ast.stmt) -> Value:
        dotted = f"{module.qualname}.{name}"
        lookup = self.resolver.member(module, name, instance=False)
        if lookup.status == "found":
            self.record(node, "import", dotted, "valid", f"{dotted} exists")
            return self._value_of(lookup, Value("module", module))
        if lookup.status == "missing":
            message = f"cannot import name '{name}' from '{module.qualname}'"
            if lookup.reason:
                message += f" ({lookup.reason})"
            self._missing(
                node, "import", dotted, message, name, lookup.candidates, lookup.confidence
            )
        else:
            message = f"cannot tell whether {dotted} exists: {lookup.reason}"
            self._uncertain(node, "import", dotted, message)
        return UNKNOWN

    # -- attributes --------------------------------------------------------

    def attribute(
        self, base: Value, node: ast.Attribute, *, call: bool
    ) -> tuple[Value, Finding | None]:
        """``base.attr``; for a call, the finding is returned so arguments can amend it."""
        position = _attribute_position(node)
        if base.kind == "external":
            self.analysis.unchecked_references += 1
            return Value("external", name=f"{base.name}.{node.attr}"), None
        if base.kind == "unknown":
            if base.note:
                self._uncertain(
                    node,
                    "method_call" if call else "attribute",
                    node.attr,
                    f"cannot check '.{node.attr}': {base.note}",
                    UNKNOWN_TYPE_CONFIDENCE,
                    position,
                )
            return UNKNOWN, None
        if base.kind not in ("module", "class", "instance") or base.symbol is None:
            return UNKNOWN, None
        lookup = self.resolver.member(base.symbol, node.attr, instance=base.kind == "instance")
        name = f"{base.symbol.qualname}.{node.attr}"
        kind = _member_kind(base, lookup.symbol, call)
        if lookup.status == "found":
            finding = self.record(
                node,
                kind,
                name,
                "valid",
                f"{name} exists",
                confidence=base.certainty,
                position=position,
            )
            return self._value_of(lookup, base), finding
        if lookup.status == "missing":
            message = f"{_describe(base)} has no attribute '{node.attr}'"
            confidence = lookup.confidence * base.certainty
            self._missing(
                node, kind, name, message, node.attr, lookup.candidates, confidence, position
            )
        else:
            message = f"cannot tell whether {_describe(base)} has '{node.attr}': {lookup.reason}"
            self._uncertain(node, kind, name, message, position=position)
        return UNKNOWN, None

    def member_silently(self, base: Value, name: str) -> Value:
        """``base.name`` without recording anything (for annotations)."""
        if base.kind == "external":
            return Value("external", name=f"{base.name}.{name}")
        if base.kind not in ("module", "class", "instance") or base.symbol is None:
            return UNKNOWN
        lookup = self.resolver.member(base.symbol, name, instance=base.kind == "instance")
        return self._value_of(lookup, base) if lookup.status == "found" else UNKNOWN

    def _value_of(self, lookup: Lookup, owner: Value) -> Value:
        if lookup.external is not None:
            return Value("external", name=lookup.external.name)
        if lookup.symbol is None:
            return UNKNOWN
        value = self.typer.of_symbol(lookup.symbol, receiver=owner)
        if value.kind in ("instance", "class") and owner.certainty < 1:
            value = Value(value.kind, value.symbol, certainty=min(value.certainty, owner.certainty))
        return value

    # -- calls -------------------------------------------------------------

    def call(self, func: Value, node: ast.Call, finding: Finding | None) -> Value:
        """Check a call's arguments against what it calls; return what the call gives back."""
        target, receiver, kind = self._callable(func)
        if target is None:
            if func.kind == "external":
                self.analysis.unchecked_references += 1
            return UNKNOWN
        if finding is None and isinstance(node.func, ast.Name):
            finding = self.record(
                node,
                kind,
                target.qualname,
                "valid",
                f"{target.qualname} exists",
                confidence=func.certainty,
            )
        signature = (
            constructor(self.resolver, target)
            if isinstance(target, ClassSymbol)
            else call_signature(target, receiver)
        )
        if isinstance(target, FunctionSymbol) and self._in_protocol(target):
            signature = replace(signature, exact=False, reason="a Protocol only sketches it")
        if signature.known:
            self._check_arguments(signature, node, kind, target, finding, func.certainty)
        if isinstance(target, ClassSymbol):
            return Value("instance", target, certainty=func.certainty)
        return self.typer.returns(target, receiver)

    def _in_protocol(self, function: FunctionSymbol) -> bool:
        owner = self.resolver.first_definition(function.parent or "")
        return isinstance(owner, ClassSymbol) and self.resolver.hierarchy.is_protocol(owner)

    def _callable(
        self, func: Value
    ) -> tuple[ClassSymbol | FunctionSymbol | None, Value | None, FindingKind]:
        if func.kind == "class" and isinstance(func.symbol, ClassSymbol):
            return func.symbol, None, "class_instantiation"
        if func.kind == "function" and isinstance(func.symbol, FunctionSymbol):
            kind = "method_call" if func.symbol.method_kind != "function" else "function_call"
            return func.symbol, func.receiver, kind
        if func.kind == "instance" and isinstance(func.symbol, ClassSymbol):
            lookup = self.resolver.member(func.symbol, "__call__", instance=True)
            if isinstance(lookup.symbol, FunctionSymbol):
                return lookup.symbol, func, "method_call"
        return None, None, "function_call"

    def _check_arguments(
        self,
        signature: Signature,
        node: ast.Call,
        kind: FindingKind,
        target: Symbol,
        finding: Finding | None,
        certainty: float,
    ) -> None:
        problems = bind_any(signature.variants, _shape(node))
        for index, problem in enumerate(problems):
            position = _keyword_position(node, problem.keyword)
            message = f"{target.qualname.removeprefix(SCRIPT_PREFIX)}() {problem.message}"
            if not signature.exact:
                if target.qualname.startswith(SCRIPT_PREFIX):
                    return  # the script's own decorators are its author's business
                self._uncertain(
                    node,
                    kind,
                    target.qualname,
                    f"{message}, but {signature.reason}",
                    position=position,
                )
                continue
            confidence = ARGUMENT_CONFIDENCE * certainty
            if problem.code == "unknown_keyword" and not signature.strict_keywords:
                confidence = LENIENT_KEYWORD_CONFIDENCE * certainty
                message += " (pydantic ignores it unless extra='forbid'; it is probably a mistake)"
            if index == 0 and finding is not None:
                finding.status, finding.message = "invalid_arguments", message
                finding.suggestion, finding.confidence = problem.suggestion, round(confidence, 2)
                if position:
                    finding.line, finding.column = position[0], position[1] + 1
                continue
            self.record(
                node,
                kind,
                target.qualname,
                "invalid_arguments",
                message,
                problem.suggestion,
                confidence,
                position,
            )

    # -- protocols ---------------------------------------------------------

    def entered(self, manager: Value, node: ast.expr, *, is_async: bool) -> Value:
        """What ``with manager as x`` binds to ``x``."""
        if manager.entered is not None:
            return manager.entered
        if manager.kind != "instance" or manager.symbol is None:
            return UNKNOWN
        dunder = "__aenter__" if is_async else "__enter__"
        lookup = self.resolver.member(manager.symbol, dunder, instance=True)
        if isinstance(lookup.symbol, FunctionSymbol):
            return self.typer.returns(lookup.symbol, manager)
        if lookup.status == "missing":
            name = f"{manager.symbol.qualname}.{dunder}"
            message = f"{_describe(manager)} is not a context manager (no {dunder})"
            self.record(
                node,
                "attribute",
                name,
                "not_found",
                message,
                confidence=lookup.confidence * manager.certainty,
            )
        return UNKNOWN

    def element(self, iterable: Value, *, is_async: bool) -> Value:
        """What ``for x in iterable`` binds to ``x``."""
        if iterable.element is not None:
            return iterable.element
        if iterable.kind != "instance" or iterable.symbol is None:
            return UNKNOWN
        lookup = self.resolver.member(
            iterable.symbol, "__aiter__" if is_async else "__iter__", instance=True
        )
        if isinstance(lookup.symbol, FunctionSymbol):
            return self.typer.returns(lookup.symbol, iterable).element or UNKNOWN
        return UNKNOWN

    # -- recording helpers -------------------------------------------------

    def _missing(
        self,
        node: ast.AST,
        kind: FindingKind,
        name: str,
        message: str,
        wrong: str,
        candidates: tuple[str, ...] | list[str],
        confidence: float,
        position: tuple[int, int] | None = None,
    ) -> None:
        matches = close_matches(wrong, list(candidates))
        if matches:
            message += "; did you mean " + " or ".join(f"'{m}'" for m in matches) + "?"
        self.record(
            node,
            kind,
            name,
            "not_found",
            message,
            matches[0] if matches else None,
            confidence,
            position,
        )

    def _uncertain(
        self,
        node: ast.AST,
        kind: FindingKind,
        name: str,
        message: str,
        confidence: float = UNCERTAIN_CONFIDENCE,
        position: tuple[int, int] | None = None,
    ) -> None:
        self.record(node, kind, name, "uncertain", message, None, confidence, position)


def _member_kind(base: Value, symbol: Symbol | None, call: bool) -> FindingKind:
    if not call:
        return "attribute"
    if isinstance(symbol, ClassSymbol):
        return "class_instantiation"
    return "function_call" if base.kind == "module" else "method_call"


def _describe(value: Value) -> str:
    """Python's wording: ``'Client' object``, ``class 'Client'``, ``module 'httpx'``."""
    if value.kind == "instance":
        return f"'{value.display}' object"
    return f"{value.kind} '{value.display}'"


def _attribute_position(node: ast.Attribute) -> tuple[int, int]:
    """Where the attribute's name starts (the end line of a chain split over lines)."""
    line = node.end_lineno or node.lineno
    column = (node.end_col_offset or 0) - len(node.attr)
    return line, max(column, 0)


def _keyword_position(node: ast.Call, keyword: str | None) -> tuple[int, int] | None:
    for item in node.keywords:
        if keyword is not None and item.arg == keyword:
            return item.lineno, item.col_offset
    return None


def _shape(node: ast.Call) -> CallShape:
    return CallShape(
        positional=sum(1 for a in node.args if not isinstance(a, ast.Starred)),
        keywords=tuple(k.arg for k in node.keywords if k.arg is not None),
        star_args=any(isinstance(a, ast.Starred) for a in node.args),
        star_kwargs=any(k.arg is None for k in node.keywords),
    )
