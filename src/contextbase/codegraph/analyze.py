"""Walking a script to learn what each name holds, and checking every reference on the way.

The walk follows the order code runs in: imports bind modules, assignments
and ``with``/``for`` targets bind values, branches are walked separately and
merged (a name bound to different things in two branches becomes unknown).
Function bodies are walked after the module body, with the module's final
names and their parameters typed from annotations (``self`` is an instance
of its class). The script is also extracted as module ``__main__`` so its own
classes — subclasses of library classes included — resolve like any other.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Sequence
from dataclasses import dataclass, field

from contextbase.codegraph.extract.python import PythonExtractor
from contextbase.codegraph.extract.pyutil import decorator_name, dotted
from contextbase.codegraph.findings import Analysis
from contextbase.codegraph.model import ClassSymbol, FunctionSymbol, Symbol, SymbolTable
from contextbase.codegraph.references import ReferenceChecker
from contextbase.codegraph.resolve import Resolver, SymbolSource, TableSource
from contextbase.codegraph.values import UNKNOWN, Value, interpret
from contextbase.errors import InvalidInputError

SCRIPT_MODULE = "__main__"
SELF_CERTAINTY = 0.8
"""``self`` in a script's class may be a subclass (a mixin) with more members."""

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef
_NARROWING = {"isinstance", "hasattr", "issubclass"}


@dataclass
class Scope:
    names: dict[str, Value] = field(default_factory=dict)
    parent: Scope | None = None

    def get(self, name: str) -> Value | None:
        if name in self.names:
            return self.names[name]
        return self.parent.get(name) if self.parent else None

    def fork(self) -> Scope:
        return Scope(dict(self.names), self.parent)

    def merge(self, before: dict[str, Value], branches: Sequence[Scope]) -> None:
        """Names bound alike in every branch that binds them keep their value."""
        for name in {n for b in branches for n in b.names}:
            values = [b.names.get(name, before.get(name)) for b in branches]
            bound = [v for v in values if v is not None]
            first = bound[0]
            self.names[name] = first if all(v.same(first) for v in bound) else UNKNOWN


@dataclass
class _Deferred:
    node: FunctionNode | ast.Lambda
    scope: Scope
    owner: ClassSymbol | None


def parse_script(text: str, filename: str = "<script>") -> ast.Module:
    """The script's syntax tree; a syntax error becomes one clear sentence."""
    try:
        return ast.parse(text, filename=filename)
    except SyntaxError as exc:
        where = f"line {exc.lineno}" + (f", column {exc.offset}" if exc.offset else "")
        raise InvalidInputError(
            f"The script {filename} does not parse ({exc.msg} at {where}); fix it and check again."
        ) from exc
    except ValueError as exc:
        raise InvalidInputError(f"The script {filename} cannot be parsed: {exc}.") from exc


def analyze_script(
    text: str, sources: Sequence[SymbolSource], filename: str = "<script>"
) -> Analysis:
    """Check every reference the script makes to the graph held by ``sources``."""
    tree = parse_script(text, filename)
    symbols = PythonExtractor().extract(text, module=SCRIPT_MODULE, path=filename, is_package=False)
    resolver = Resolver([TableSource(SymbolTable(symbols), [SCRIPT_MODULE]), *sources])
    return _Walker(resolver, Analysis(filename)).run(tree)


class _Walker:
    def __init__(self, resolver: Resolver, analysis: Analysis) -> None:
        self.resolver = resolver
        self.analysis = analysis
        self.check = ReferenceChecker(resolver, analysis)
        self.deferred: list[_Deferred] = []
        self.narrowed: set[str] = set()
        """Expressions an isinstance()/hasattr() check made unpredictable (per function)."""

    def run(self, tree: ast.Module) -> Analysis:
        module_scope = Scope()
        self.block(tree.body, module_scope, SCRIPT_MODULE)
        while self.deferred:
            self.function_body(self.deferred.pop(0))
        self.analysis.findings.sort(key=lambda f: (f.line, f.column))
        return self.analysis

    # -- statements --------------------------------------------------------

    def block(self, statements: list[ast.stmt], scope: Scope, owner: str | None) -> None:
        for stmt in statements:
            self.stmt(stmt, scope, owner)

    def stmt(self, node: ast.stmt, scope: Scope, owner: str | None) -> None:
        """``owner`` is the qualname new definitions get (``None`` inside functions)."""
        if isinstance(node, ast.Import):
            for alias in node.names:
                value = self.check.import_module(alias.name, node)
                if alias.asname:
                    scope.names[alias.asname] = value
                else:
                    top = alias.name.partition(".")[0]
                    scope.names[top] = self._top_module(top, value)
        elif isinstance(node, ast.ImportFrom):
            self.import_from(node, scope)
        elif isinstance(node, FunctionNode):
            self.function_def(node, scope, owner)
        elif isinstance(node, ast.ClassDef):
            self.class_def(node, scope, owner)
        elif isinstance(node, ast.Assign):
            self.assign(node.targets, node.value, scope)
        elif isinstance(node, ast.AnnAssign):
            self.ann_assign(node, scope)
        elif isinstance(node, ast.AugAssign):
            self.expr(node.target, scope)
            self.expr(node.value, scope)
            self.bind(node.target, UNKNOWN, scope)
        elif isinstance(node, ast.If | ast.While):
            self.expr(node.test, scope)
            self.branches(scope, owner, node.body, node.orelse)
        elif isinstance(node, ast.For | ast.AsyncFor):
            self.for_loop(node, scope, owner)
        elif isinstance(node, ast.With | ast.AsyncWith):
            self.with_block(node, scope, owner)
        elif isinstance(node, ast.Try | ast.TryStar):
            self.try_block(node, scope, owner)
        elif isinstance(node, ast.Match):
            self.expr(node.subject, scope)
            self.branches(scope, owner, *[case.body for case in node.cases], [])
        elif isinstance(node, ast.Delete):
            for target in node.targets:
                if not isinstance(target, ast.Name):
                    self.expr(target, scope)
        else:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.expr):
                    self.expr(child, scope)

    def import_from(self, node: ast.ImportFrom, scope: Scope) -> None:
        names = [a.name for a in node.names if a.name != "*"]
        if node.level or not node.module:
            values = [UNKNOWN for _ in names]
        else:
            values = self.check.import_names(node.module, names, node)
        bound = [a.asname or a.name for a in node.names if a.name != "*"]
        scope.names.update(zip(bound, values, strict=True))

    def _top_module(self, top: str, value: Value) -> Value:
        if value.kind == "external":
            return Value("external", name=top)
        module = self.resolver.module(top)
        return Value("module", module) if module else UNKNOWN

    def assign(self, targets: list[ast.expr], value_node: ast.expr, scope: Scope) -> None:
        if isinstance(value_node, ast.Tuple | ast.List) and all(
            isinstance(t, ast.Tuple | ast.List) and len(t.elts) == len(value_node.elts)
            for t in targets
        ):
            values = [self.expr(item, scope) for item in value_node.elts]
            for target in targets:
                for element, value in zip(target.elts, values, strict=True):  # type: ignore[attr-defined]
                    self.bind(element, value, scope)
            return
        value = self.expr(value_node, scope)
        for target in targets:
            self.bind(target, value, scope)

    def ann_assign(self, node: ast.AnnAssign, scope: Scope) -> None:
        self.expr(node.annotation, scope)
        value = self.expr(node.value, scope) if node.value else UNKNOWN
        declared = self.annotation(node.annotation, scope)
        if declared.kind != "unknown" or node.value is None:
            value = declared
        self.bind(node.target, value, scope)

    def branches(self, scope: Scope, owner: str | None, *blocks: list[ast.stmt]) -> None:
        before = dict(scope.names)
        forks = []
        for block in blocks:
            fork = scope.fork()
            self.block(block, fork, owner)
            forks.append(fork)
        scope.merge(before, forks)

    def for_loop(self, node: ast.For | ast.AsyncFor, scope: Scope, owner: str | None) -> None:
        iterable = self.expr(node.iter, scope)
        body = scope.fork()
        is_async = isinstance(node, ast.AsyncFor)
        self.bind(node.target, self.check.element(iterable, is_async=is_async), body)
        self.block(node.body, body, owner)
        before = dict(scope.names)
        orelse = scope.fork()
        self.block(node.orelse, orelse, owner)
        scope.merge(before, [body, orelse])

    def with_block(self, node: ast.With | ast.AsyncWith, scope: Scope, owner: str | None) -> None:
        for item in node.items:
            manager = self.expr(item.context_expr, scope)
            if item.optional_vars is not None:
                is_async = isinstance(node, ast.AsyncWith)
                entered = self.check.entered(manager, item.context_expr, is_async=is_async)
                self.bind(item.optional_vars, entered, scope)
        self.block(node.body, scope, owner)

    def try_block(self, node: ast.Try | ast.TryStar, scope: Scope, owner: str | None) -> None:
        before = dict(scope.names)
        body = scope.fork()
        self.block(node.body, body, owner)
        self.block(node.orelse, body, owner)
        forks = [body]
        for handler in node.handlers:
            fork = body.fork()
            if handler.type is not None:
                caught = self.expr(handler.type, fork)
                if handler.name:
                    fork.names[handler.name] = (
                        Value("instance", caught.symbol) if (caught.kind == "class") else UNKNOWN
                    )
            self.block(handler.body, fork, owner)
            forks.append(fork)
        scope.merge(before, forks)
        self.block(node.finalbody, scope, owner)

    def bind(self, target: ast.expr, value: Value, scope: Scope) -> None:
        if isinstance(target, ast.Name):
            scope.names[target.id] = value
        elif isinstance(target, ast.Tuple | ast.List):
            for element in target.elts:
                self.bind(element, UNKNOWN, scope)
        elif isinstance(target, ast.Starred):
            self.bind(target.value, UNKNOWN, scope)
        elif isinstance(target, ast.Attribute):
            self.expr(target.value, scope)
        elif isinstance(target, ast.Subscript):
            self.expr(target.value, scope)
            self.expr(target.slice, scope)

    # -- definitions -------------------------------------------------------

    def function_def(self, node: FunctionNode, scope: Scope, owner: str | None) -> None:
        for expr in [*node.decorator_list, *node.args.defaults, *node.args.kw_defaults]:
            if expr is not None:
                self.expr(expr, scope)
        for arg in _all_args(node.args):
            if arg.annotation is not None:
                self.expr(arg.annotation, scope)
        if node.returns is not None:
            self.expr(node.returns, scope)
        symbol = self._own_symbol(owner, node.name)
        scope.names[node.name] = (
            Value("function", symbol) if isinstance(symbol, FunctionSymbol) else UNKNOWN
        )
        cls = self._own_symbol(owner, "")
        self.deferred.append(_Deferred(node, scope, cls if isinstance(cls, ClassSymbol) else None))

    def class_def(self, node: ast.ClassDef, scope: Scope, owner: str | None) -> None:
        for expr in [*node.decorator_list, *node.bases, *(k.value for k in node.keywords)]:
            self.expr(expr, scope)
        symbol = self._own_symbol(owner, node.name)
        body_scope = Scope(parent=scope)
        inner_owner = symbol.qualname if isinstance(symbol, ClassSymbol) else None
        self.block(node.body, body_scope, inner_owner)
        scope.names[node.name] = (
            Value("class", symbol) if isinstance(symbol, ClassSymbol) else UNKNOWN
        )

    def _own_symbol(self, owner: str | None, name: str) -> Symbol | None:
        if owner is None:
            return None
        found = self.resolver.definitions(f"{owner}.{name}" if name else owner)
        return found[0] if found else None

    def function_body(self, deferred: _Deferred) -> None:
        node = deferred.node
        self.narrowed = set()
        scope = Scope(parent=_enclosing(deferred))
        positional = [*node.args.posonlyargs, *node.args.args]
        for arg in _all_args(node.args):
            annotation = arg.annotation
            scope.names[arg.arg] = self.annotation(annotation, scope) if annotation else UNKNOWN
        for splat in (node.args.vararg, node.args.kwarg):
            if splat is not None:
                scope.names[splat.arg] = UNKNOWN
        if deferred.owner is not None and positional and isinstance(node, FunctionNode):
            kinds = {decorator_name(d) for d in node.decorator_list}
            if "staticmethod" not in kinds:
                implicit = node.name in ("__new__", "__init_subclass__", "__class_getitem__")
                kind = "class" if "classmethod" in kinds or implicit else "instance"
                scope.names[positional[0].arg] = Value(
                    kind, deferred.owner, certainty=SELF_CERTAINTY
                )
        if isinstance(node, ast.Lambda):
            self.expr(node.body, scope)
        else:
            self.block(node.body, scope, None)

    # -- expressions -------------------------------------------------------

    def annotation(self, expr: ast.expr, scope: Scope) -> Value:
        """The value an annotation in the script describes (nothing is recorded)."""
        return interpret(expr, lambda name: self._dotted_value(name, scope))

    def _dotted_value(self, name: str, scope: Scope) -> Value:
        first, *rest = name.split(".")
        value = self.name_value(first, scope)
        for part in rest:
            value = self.check.member_silently(value, part)
        return value

    def name_value(self, name: str, scope: Scope) -> Value:
        value = scope.get(name)
        if value is not None:
            return value
        return Value("external", name=f"builtins.{name}") if hasattr(builtins, name) else UNKNOWN

    def expr(self, node: ast.expr, scope: Scope) -> Value:
        if isinstance(node, ast.Name):
            return self.name_value(node.id, scope)
        if isinstance(node, ast.Attribute):
            base = self.expr(node.value, scope)
            if self.narrowed and ast.unparse(node.value) in self.narrowed:
                return UNKNOWN
            return self.check.attribute(base, node, call=False)[0]
        if isinstance(node, ast.Call):
            return self.call(node, scope)
        if isinstance(node, ast.Await):
            return self.expr(node.value, scope)
        if isinstance(node, ast.NamedExpr):
            value = self.expr(node.value, scope)
            self.bind(node.target, value, scope)
            return value
        if isinstance(node, ast.Subscript):
            base = self.expr(node.value, scope)
            self.expr(node.slice, scope)
            return base if base.kind == "class" else UNKNOWN
        if isinstance(node, ast.IfExp):
            self.expr(node.test, scope)
            body, orelse = self.expr(node.body, scope), self.expr(node.orelse, scope)
            return body if body.same(orelse) else UNKNOWN
        if isinstance(node, ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp):
            return self.comprehension(node, scope)
        if isinstance(node, ast.Lambda):
            self.deferred.append(_Deferred(node, scope, None))
            return UNKNOWN
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                self.expr(child, scope)
        return UNKNOWN

    def call(self, node: ast.Call, scope: Scope) -> Value:
        finding = None
        if isinstance(node.func, ast.Attribute):
            base = self.expr(node.func.value, scope)
            if self.narrowed and ast.unparse(node.func.value) in self.narrowed:
                base = UNKNOWN
            func, finding = self.check.attribute(base, node.func, call=True)
        else:
            func = self.expr(node.func, scope)
        for arg in node.args:
            self.expr(arg.value if isinstance(arg, ast.Starred) else arg, scope)
        for keyword in node.keywords:
            self.expr(keyword.value, scope)
        if _is_super(node.func):
            return UNKNOWN
        if dotted(node.func) in _NARROWING and node.args:
            # After isinstance()/hasattr() the checked object may be anything the check allowed.
            checked = node.args[0]
            if isinstance(checked, ast.Name):
                scope.names[checked.id] = UNKNOWN
            else:
                self.narrowed.add(ast.unparse(checked))
        return self.check.call(func, node, finding)

    def comprehension(
        self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp, scope: Scope
    ) -> Value:
        inner = Scope(parent=scope)
        for generator in node.generators:
            iterable = self.expr(generator.iter, inner)
            element = self.check.element(iterable, is_async=bool(generator.is_async))
            self.bind(generator.target, element, inner)
            for condition in generator.ifs:
                self.expr(condition, inner)
        if isinstance(node, ast.DictComp):
            self.expr(node.key, inner)
            self.expr(node.value, inner)
        else:
            self.expr(node.elt, inner)
        return UNKNOWN


def _enclosing(deferred: _Deferred) -> Scope:
    """Methods see the module (or enclosing function), never their class body."""
    scope = deferred.scope
    if deferred.owner is not None and scope.parent is not None:
        return scope.parent
    return scope


def _all_args(args: ast.arguments) -> list[ast.arg]:
    extra = [a for a in (args.vararg, args.kwarg) if a is not None]
    return [*args.posonlyargs, *args.args, *args.kwonlyargs, *extra]


def _is_super(func: ast.expr) -> bool:
    return dotted(func) == "super"
