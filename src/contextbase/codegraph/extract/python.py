"""Python symbols from the standard ``ast``: no code is imported or run.

Module and class bodies are walked through ``if``/``try``/``with``/``for`` blocks
(so ``if TYPE_CHECKING:`` imports and ``try: ... except ImportError:`` fallbacks
count), function bodies only for what they add to their class (``self.x = ...``)
or module (``global x``).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from contextbase.codegraph.extract import pyclass
from contextbase.codegraph.extract.pyutil import (
    bound_names,
    decorator_name,
    dict_literal_keys,
    dotted,
    function_params,
    getattr_names,
    literal_strings,
    module_facts,
)
from contextbase.codegraph.model import (
    AttributeSymbol,
    ClassSymbol,
    FunctionSymbol,
    ImportSymbol,
    ModuleSymbol,
    Param,
    Symbol,
)

_PROPERTY_DECORATORS = {"property", "cached_property", "abstractproperty"}
_IMPLICIT_CLASSMETHODS = {"__init_subclass__", "__class_getitem__"}
_ACCESSOR_DECORATORS = {"setter", "getter", "deleter"}
_RANK = {"attribute": 0, "import": 1, "function": 2, "class": 2, "module": 3}


class PythonExtractor:
    """Extracts modules, classes, functions, attributes and imports from Python source."""

    language = "python"
    suffixes = (".py", ".pyi")

    def extract(self, text: str, *, module: str, path: str, is_package: bool) -> list[Symbol]:
        tree = ast.parse(text, filename=path)
        return _ModuleWalker(module, path, is_package).run(tree)


@dataclass
class _Variants:
    """Every ``def`` of one name in one scope, to pick the runtime signature."""

    first: FunctionSymbol
    implementations: list[list[Param]] = field(default_factory=list)
    overloads: list[list[Param]] = field(default_factory=list)


class _ModuleWalker:
    def __init__(self, module: str, path: str, is_package: bool) -> None:
        self.module = module
        self.is_package = is_package
        self.symbols: dict[str, Symbol] = {}
        self.variants: dict[str, _Variants] = {}
        self.mod = ModuleSymbol(
            qualname=module,
            name=module.rpartition(".")[2],
            module=module,
            parent=module.rpartition(".")[0] or None,
            path=path,
            is_package=is_package,
        )

    def run(self, tree: ast.Module) -> list[Symbol]:
        self.dicts = dict_literal_keys(tree.body)
        self.body(tree.body, self.mod.qualname, None)
        dynamic, declared = module_facts(tree)
        self.mod.dynamic = self.mod.dynamic or dynamic
        for name, line in declared:
            self.add(self._attribute(self.mod.qualname, name, line, "module"))
        for qualname, variants in self.variants.items():
            _settle_signature(self.symbols[qualname], variants)  # type: ignore[arg-type]
        return [self.mod, *self.symbols.values()]

    # -- scopes ------------------------------------------------------------

    def body(self, statements: list[ast.stmt], owner: str, cls: ClassSymbol | None) -> None:
        for stmt in statements:
            self.statement(stmt, owner, cls)

    def statement(self, stmt: ast.stmt, owner: str, cls: ClassSymbol | None) -> None:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
            self.function(stmt, owner, cls)
        elif isinstance(stmt, ast.ClassDef):
            self.klass(stmt, owner)
        elif isinstance(stmt, ast.Import | ast.ImportFrom):
            self.imports(stmt, owner)
        elif isinstance(stmt, ast.Assign | ast.AnnAssign | ast.AugAssign):
            self.assignment(stmt, owner, cls)
        elif isinstance(stmt, ast.Expr) and cls is None:
            self._all_mutation(stmt.value)
        else:
            origin = "module" if cls is None else "class"
            targets: list[ast.expr] = []
            if isinstance(stmt, ast.For | ast.AsyncFor):
                targets = [stmt.target]
            elif isinstance(stmt, ast.With | ast.AsyncWith):
                targets = [i.optional_vars for i in stmt.items if i.optional_vars]
            for target in targets:
                for name in bound_names(target):
                    self.add(self._attribute(owner, name, stmt.lineno, origin))
            for block in _blocks(stmt):
                self.body(block, owner, cls)

    def add(self, symbol: Symbol) -> None:
        """Keep the most informative binding of a name: def/class > import > attribute."""
        existing = self.symbols.get(symbol.qualname)
        if existing is None or _RANK[symbol.kind] > _RANK[existing.kind]:
            self.symbols[symbol.qualname] = symbol

    # -- definitions -------------------------------------------------------

    def function(
        self, node: ast.FunctionDef | ast.AsyncFunctionDef, owner: str, cls: ClassSymbol | None
    ) -> None:
        qualname = f"{owner}.{node.name}"
        names = [decorator_name(d) for d in node.decorator_list]
        if cls is not None and _is_accessor(node, self.symbols.get(qualname)):
            self._member_assignments(node, "method", owner, cls)
            return
        returns = ast.unparse(node.returns) if node.returns else None
        if cls is not None and _PROPERTY_DECORATORS & set(names):
            self._member_assignments(node, "method", owner, cls)
            self.symbols[qualname] = AttributeSymbol(
                qualname=qualname,
                name=node.name,
                module=self.module,
                parent=owner,
                line=node.lineno,
                origin="property",
                annotation=returns,
            )
            return
        if cls is None and node.name == "__getattr__":
            self.mod.has_getattr = True
            self.mod.getattr_names = getattr_names(node, self.dicts)
        if cls is not None and node.name in ("__getattr__", "__getattribute__"):
            served = getattr_names(node, self.dicts) if node.name == "__getattr__" else None
            cls.has_getattr, cls.getattr_names = True, served
        kind = "function"
        if cls is not None:
            kind = next((k for k in ("classmethod", "staticmethod") if k in names), "method")
            kind = "classmethod" if node.name in _IMPLICIT_CLASSMETHODS else kind
        params = function_params(node.args)
        symbol = FunctionSymbol(
            qualname=qualname,
            name=node.name,
            module=self.module,
            parent=owner,
            line=node.lineno,
            params=params,
            returns=returns,
            decorators=[ast.unparse(d) for d in node.decorator_list],
            is_async=isinstance(node, ast.AsyncFunctionDef),
            method_kind=kind,
            returns_self=returns is None and pyclass.returns_receiver(node, kind),
        )
        variants = self.variants.get(qualname)
        if variants is None or not isinstance(self.symbols.get(qualname), FunctionSymbol):
            variants = self.variants[qualname] = _Variants(symbol)
            self.symbols[qualname] = symbol
        if "overload" in names:
            variants.overloads.append(params)
        else:
            variants.implementations.append(params)
            if variants.first is not symbol:
                # A later definition wins at run time; it is listed where the name first appears.
                symbol.line = variants.first.line
                self.symbols[qualname] = symbol
        if cls is not None:
            self._member_assignments(node, kind, owner, cls)

    def klass(self, node: ast.ClassDef, owner: str) -> None:
        qualname = f"{owner}.{node.name}"
        cls = ClassSymbol(
            qualname=qualname,
            name=node.name,
            module=self.module,
            parent=owner,
            line=node.lineno,
            bases=[ast.unparse(b) for b in node.bases],
            keywords={k.arg: ast.unparse(k.value) for k in node.keywords if k.arg},
            decorators=[ast.unparse(d) for d in node.decorator_list],
            dataclass=pyclass.dataclass_options(node.decorator_list),
        )
        self.add(cls)
        self.body(node.body, qualname, cls)
        cls.fields = pyclass.class_fields(node.body)
        cls.config = pyclass.model_config(node.body)
        for name, line in pyclass.slot_names(node.body):
            self.add(self._attribute(qualname, name, line, "slot"))

    def imports(self, node: ast.Import | ast.ImportFrom, owner: str) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                name = alias.asname or alias.name.partition(".")[0]
                target = alias.name if alias.asname else name
                self.add(self._import(owner, name, target, node.lineno))
            return
        base = self._absolute(node.level, node.module)
        for alias in node.names:
            if alias.name == "*":
                if owner == self.mod.qualname:
                    self.mod.star_imports.append(base)
                continue
            target = f"{base}.{alias.name}" if base else alias.name
            self.add(self._import(owner, alias.asname or alias.name, target, node.lineno))

    def assignment(
        self, node: ast.Assign | ast.AnnAssign | ast.AugAssign, owner: str, cls: ClassSymbol | None
    ) -> None:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        if cls is None:
            self._all_assignment(node, targets)
        origin = "module" if cls is None else "class"
        annotation = ast.unparse(node.annotation) if isinstance(node, ast.AnnAssign) else None
        value = node.value
        for target in targets:
            if cls is None:
                self._patched_class_attribute(target, node.lineno)
            for name in bound_names(target):
                attribute = self._attribute(owner, name, node.lineno, origin, annotation)
                if isinstance(target, ast.Name) and value is not None:
                    _describe_value(attribute, value)
                self.add(attribute)

    def _patched_class_attribute(self, target: ast.expr, line: int) -> None:
        """``Client.timeout = 5`` at module level adds a class attribute."""
        if not (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)):
            return
        owner = f"{self.mod.qualname}.{target.value.id}"
        if isinstance(self.symbols.get(owner), ClassSymbol):
            self.add(self._attribute(owner, target.attr, line, "class"))

    # -- helpers -----------------------------------------------------------

    def _member_assignments(
        self, node: ast.FunctionDef | ast.AsyncFunctionDef, kind: str, owner: str, cls: ClassSymbol
    ) -> None:
        """``self.x = ...`` makes an instance attribute, ``cls.x = ...`` a class attribute."""
        found = pyclass.member_assignments(node, kind, cls.name)
        cls.dynamic_attrs = cls.dynamic_attrs or found.dynamic
        for member in found.members:
            attribute = self._attribute(owner, member.name, member.line, member.origin)
            attribute.annotation, attribute.call = member.annotation, member.call
            self.add(attribute)

    def _attribute(
        self, owner: str, name: str, line: int, origin: str, annotation: str | None = None
    ) -> AttributeSymbol:
        return AttributeSymbol(
            qualname=f"{owner}.{name}",
            name=name,
            module=self.module,
            parent=owner,
            line=line,
            origin=origin,
            annotation=annotation,  # type: ignore[arg-type]
        )

    def _import(self, owner: str, name: str, target: str, line: int) -> ImportSymbol:
        return ImportSymbol(
            qualname=f"{owner}.{name}",
            name=name,
            module=self.module,
            parent=owner,
            line=line,
            target=target,
        )

    def _absolute(self, level: int, module: str | None) -> str:
        if level == 0:
            return module or ""
        parts = self.module.split(".")
        base = parts if self.is_package else parts[:-1]
        base = base[: max(len(base) - (level - 1), 0)]
        return ".".join([*base, module] if module else base)

    def _all_assignment(self, node: ast.stmt, targets: list[ast.expr]) -> None:
        if not any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
            return
        names = literal_strings(node.value) if node.value is not None else None  # type: ignore[attr-defined]
        if isinstance(node, ast.AugAssign):
            names = (
                None
                if names is None or self.mod.all_names is None
                else (self.mod.all_names + names)
            )
        self.mod.all_names = names
        self.mod.all_computed = names is None

    def _all_mutation(self, expr: ast.expr) -> None:
        if not (
            isinstance(expr, ast.Call)
            and isinstance(expr.func, ast.Attribute)
            and dotted(expr.func.value) == "__all__"
        ):
            return
        added = literal_strings(expr.args[0]) if expr.args else None
        if expr.func.attr == "append" and expr.args and isinstance(expr.args[0], ast.Constant):
            added = [expr.args[0].value] if isinstance(expr.args[0].value, str) else None
        if added is None or self.mod.all_names is None:
            self.mod.all_names, self.mod.all_computed = None, True
        else:
            self.mod.all_names = self.mod.all_names + added


def _blocks(stmt: ast.stmt) -> list[list[ast.stmt]]:
    """The statement lists nested in a compound statement (not function or class bodies)."""
    blocks: list[list[ast.stmt]] = []
    for name in ("body", "orelse", "finalbody"):
        block = getattr(stmt, name, None)
        if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
            blocks.append(block)
    blocks.extend(handler.body for handler in getattr(stmt, "handlers", []))
    blocks.extend(case.body for case in getattr(stmt, "cases", []))
    return blocks


def _is_accessor(node: ast.FunctionDef | ast.AsyncFunctionDef, existing: Symbol | None) -> bool:
    """``@x.setter`` and friends re-bind an existing property: not a new member."""
    for decorator in node.decorator_list:
        if (
            isinstance(decorator, ast.Attribute)
            and decorator.attr in _ACCESSOR_DECORATORS
            and dotted(decorator.value) == node.name
        ):
            return existing is not None
    return False


def _describe_value(attribute: AttributeSymbol, value: ast.expr) -> None:
    if isinstance(value, ast.Name | ast.Attribute):
        attribute.alias = dotted(value)
    elif isinstance(value, ast.Call):
        attribute.call = dotted(value.func)


def _settle_signature(symbol: FunctionSymbol, variants: _Variants) -> None:
    """The implementation is the runtime signature; stubs only have overloads."""
    if variants.implementations:
        symbol.params = variants.implementations[-1]
        symbol.alternatives = variants.implementations[:-1]
    elif variants.overloads:
        symbol.params = variants.overloads[0]
        symbol.alternatives = variants.overloads[1:]
