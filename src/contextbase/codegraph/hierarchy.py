"""Classes: their MRO across files, and whether a member exists along it.

A base outside the graph is one opaque entry of the MRO unless it is a
standard-library class this interpreter can list (``live``). A member missing
from a fully known MRO is missing; ``__getattr__``, attributes set by computed
names, or an opaque base make it unknown instead. On the class itself (not an
instance) the metaclass's members count too.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from contextbase.codegraph.live import is_enum, is_type, live_members
from contextbase.codegraph.lookup import External, Lookup, scopes_of
from contextbase.codegraph.model import ClassSymbol

if TYPE_CHECKING:
    from contextbase.codegraph.resolve import Resolver

IMPLICIT_MEMBERS = {"__dict__", "__weakref__", "__annotations__", "__module__"}
"""Members every class defined in Python has without declaring them."""
PRIVATE_GETATTR = {
    "pydantic.main.BaseModel",
    "pydantic._internal._model_construction.ModelMetaclass",
}
"""Classes whose ``__getattr__`` serves only private (``_name``) attributes and, with
``extra='allow'``, extra fields: a public name missing from the MRO is still missing."""
METACLASS_INSTANCE_CONFIDENCE = 0.8


@dataclass
class Mro:
    """A class's linearisation: graph classes and outside names in method-resolution order."""

    entries: list[ClassSymbol | External]
    metaclass: ClassSymbol | External | None = None
    unknown_bases: list[str] = field(default_factory=list)

    @property
    def classes(self) -> list[ClassSymbol]:
        return [e for e in self.entries if isinstance(e, ClassSymbol)]

    @property
    def opaque(self) -> list[str]:
        """Bases whose members cannot be listed: outside the graph and not introspectable."""
        outside = [e.name for e in self.entries if isinstance(e, External)]
        return [n for n in outside if live_members(n) is None] + self.unknown_bases


class Hierarchy:
    """MRO and member lookups for the classes a resolver can reach."""

    def __init__(self, resolver: Resolver) -> None:
        self.resolver = resolver
        self._mro: dict[str, Mro] = {}

    def base(self, cls: ClassSymbol, text: str) -> ClassSymbol | External | None:
        """A base class expression, resolved where the class was written."""
        dotted_name = text.partition("[")[0].strip()
        if not dotted_name.replace(".", "").replace("_", "").isalnum():
            return None
        target = self.resolver.resolve_in_scope(scopes_of(cls), dotted_name)
        return target if isinstance(target, ClassSymbol | External) else None

    def mro(self, cls: ClassSymbol) -> Mro:
        """C3 linearisation; a class outside the graph is one opaque entry."""
        cached = self._mro.get(cls.qualname)
        if cached is not None:
            return cached
        self._mro[cls.qualname] = Mro([cls])  # guards against inheritance cycles
        unknown: list[str] = []
        sequences: list[list[ClassSymbol | External]] = []
        direct: list[ClassSymbol | External] = []
        metaclass: ClassSymbol | External | None = None
        if "metaclass" in cls.keywords:
            text = cls.keywords["metaclass"]
            metaclass = self.base(cls, text) or External(text)
        for text in cls.bases:
            base = self.base(cls, text)
            if base is None:
                unknown.append(text)
            elif not (isinstance(base, External) and base.name == "builtins.object"):
                direct.append(base)
                if isinstance(base, ClassSymbol):
                    inherited = self.mro(base)
                    sequences.append(list(inherited.entries))
                    unknown += inherited.unknown_bases
                    metaclass = metaclass or inherited.metaclass
                else:
                    sequences.append([base])
        result = Mro(
            [cls, *_c3_merge([*sequences, direct])], metaclass, list(dict.fromkeys(unknown))
        )
        self._mro[cls.qualname] = result
        return result

    # -- members -----------------------------------------------------------

    def member(
        self, cls: ClassSymbol, name: str, *, instance: bool, depth: int = 0, of_class: bool = False
    ) -> Lookup:
        """``of_class``: ``cls`` is the metaclass of the class being asked about."""
        mro = self.mro(cls)
        for entry in mro.entries:
            if isinstance(entry, ClassSymbol):
                symbol = self.resolver.first_definition(f"{entry.qualname}.{name}")
                if symbol is not None:
                    target = self.resolver.follow(symbol, depth + 1)
                    if isinstance(target, External):
                        return Lookup("found", symbol=symbol, external=target, owner=entry)
                    return Lookup("found", symbol=target or symbol, owner=entry)
            elif name in (live_members(entry.name, class_level=not instance) or ()):
                return Lookup("found", external=External(f"{entry.name}.{name}"))
        if name in (live_members("builtins.object") or ()) or name in IMPLICIT_MEMBERS:
            return Lookup("found", external=External(f"builtins.object.{name}"))
        if not instance:
            found = self._metaclass_member(mro, name, depth)
            if found is not None:
                return found
        return self._missing(cls, mro, name, instance, of_class)

    def _metaclass_member(self, mro: Mro, name: str, depth: int) -> Lookup | None:
        if name in (live_members("builtins.type") or ()):
            return Lookup("found", external=External(f"builtins.type.{name}"))
        meta = mro.metaclass
        if isinstance(meta, ClassSymbol):
            if any(c.dynamic_attrs for c in self.mro(meta).classes):
                return Lookup("unknown", reason=f"its metaclass {meta.qualname} sets attributes")
            found = self.member(meta, name, instance=True, depth=depth + 1, of_class=True)
            return None if found.status == "missing" else found
        if isinstance(meta, External):
            members = live_members(meta.name)
            if members is None:
                return Lookup("unknown", reason=f"its metaclass {meta.name} is outside the graph")
            if name in members:
                return Lookup("found", external=External(f"{meta.name}.{name}"))
        return None

    def _missing(
        self, cls: ClassSymbol, mro: Mro, name: str, instance: bool, of_class: bool = False
    ) -> Lookup:
        classes = mro.classes
        opaque = mro.opaque
        if not instance:
            opaque += [e.name for e in mro.entries if isinstance(e, External)
                       and live_members(e.name, class_level=True) is None]  # fmt: skip
        if opaque:
            bases = ", ".join(dict.fromkeys(opaque))
            return Lookup(
                "unknown", reason=f"{cls.qualname} inherits from {bases}, outside the graph"
            )
        if instance:
            if self.is_metaclass(mro) and not of_class:
                return Lookup("unknown", reason=f"{cls.qualname} is a metaclass: its instances "
                              "are classes with their own members")  # fmt: skip
            if self.is_protocol(cls):
                return Lookup("unknown", reason=f"{cls.qualname} is a Protocol: objects of "
                              "other classes match it and may have more members")  # fmt: skip
            owner = next((c for c in classes if c.has_getattr), None)
            if owner is not None and not _getattr_refuses(owner, classes, name):
                return Lookup("unknown", reason=f"{owner.qualname} defines __getattr__")
            if any(c.dynamic_attrs for c in classes):
                return Lookup("unknown", reason=f"{cls.qualname} sets attributes by computed names")
        confidence = 0.95
        meta = mro.metaclass
        if (
            instance
            and isinstance(meta, ClassSymbol)
            and any(c.dynamic_attrs for c in self.mro(meta).classes)
        ):
            confidence = METACLASS_INSTANCE_CONFIDENCE
        return Lookup("missing", candidates=self.member_names(cls), confidence=confidence)

    def is_metaclass(self, mro: Mro) -> bool:
        return any(isinstance(e, External) and is_type(e.name) for e in mro.entries)

    def is_protocol(self, cls: ClassSymbol) -> bool:
        """Declared ``class P(Protocol)``: a structural type, not a concrete class."""
        bases = [self.base(cls, text) for text in cls.bases]
        return any(
            isinstance(b, External) and b.name.rpartition(".")[2] == "Protocol" for b in bases
        )

    def is_enum(self, cls: ClassSymbol) -> bool:
        """Its class attributes are instances of it (``Colour.RED.value``)."""
        return any(isinstance(e, External) and is_enum(e.name) for e in self.mro(cls).entries)

    def member_names(self, cls: ClassSymbol) -> tuple[str, ...]:
        """Every member name along the MRO, for suggestions."""
        names: list[str] = []
        for entry in self.mro(cls).entries:
            if isinstance(entry, ClassSymbol):
                names += [s.name for s in self.resolver.children(entry.qualname)]
            else:
                names += [n for n in live_members(entry.name) or () if not n.startswith("__")]
        return tuple(dict.fromkeys(names))


def _getattr_refuses(owner: ClassSymbol, classes: list[ClassSymbol], name: str) -> bool:
    """Whether ``owner.__getattr__`` provably cannot serve ``name``."""
    if owner.getattr_names is not None:
        return name not in owner.getattr_names
    if owner.qualname not in PRIVATE_GETATTR or name.startswith("_"):
        return False
    return not any(
        str(c.config.get("extra", c.keywords.get("extra", ""))).strip("'\"") == "allow"
        for c in classes
    )


def _key(entry: ClassSymbol | External) -> str:
    return entry.qualname if isinstance(entry, ClassSymbol) else f"external:{entry.name}"


def _c3_merge(sequences: list[list[ClassSymbol | External]]) -> list[ClassSymbol | External]:
    """C3 merge; an inconsistent hierarchy falls back to depth-first order."""
    pending = [list(s) for s in sequences if s]
    result: list[ClassSymbol | External] = []
    while pending:
        for sequence in pending:
            head = sequence[0]
            if not any(_key(head) in map(_key, other[1:]) for other in pending):
                break
        else:
            seen = {_key(e) for e in result}
            for entry in (e for s in pending for e in s):
                if _key(entry) not in seen:
                    seen.add(_key(entry))
                    result.append(entry)
            return result
        result.append(head)
        pending = [[e for e in s if _key(e) != _key(head)] for s in pending]
        pending = [s for s in pending if s]
    return result
