"""Extractors turn one source file into symbols; ``extract_files`` runs them over a tree.

An extractor knows one language. Python uses the standard ``ast`` module;
another language plugs in by implementing :class:`Extractor` (for example over
tree-sitter) and registering its file suffixes in ``EXTRACTORS``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from contextbase.codegraph.extract.python import PythonExtractor
from contextbase.codegraph.model import ModuleSymbol, Symbol, SymbolTable

log = logging.getLogger(__name__)


class Extractor(Protocol):
    """Symbols of one file of one language."""

    language: str
    suffixes: tuple[str, ...]

    def extract(self, text: str, *, module: str, path: str, is_package: bool) -> list[Symbol]:
        """All symbols of the file, the module symbol first.

        Raises ``SyntaxError`` when the file does not parse.
        """
        ...


EXTRACTORS: tuple[Extractor, ...] = (PythonExtractor(),)


@dataclass(frozen=True)
class SourceFile:
    """One file of a source tree and the module name it is imported as."""

    path: Path
    relpath: str
    module: str
    is_package: bool
    opaque: bool = False
    """A compiled module without source or stub: it exists, its names are unknown."""


@dataclass
class Extraction:
    """The symbols of a tree, plus the files that could not be read."""

    symbols: SymbolTable
    files: int = 0
    failed: list[tuple[str, str]] = field(default_factory=list)
    paths: dict[str, str] = field(default_factory=dict)
    """Module name → file path relative to the source root."""


def extractor_for(path: Path) -> Extractor | None:
    for extractor in EXTRACTORS:
        if path.name.endswith(extractor.suffixes):
            return extractor
    return None


def extract_files(
    files: Iterable[SourceFile], progress: Callable[[SourceFile], None] | None = None
) -> Extraction:
    """Extract every file; a file that does not parse is kept as a dynamic module."""
    result = Extraction(SymbolTable())
    for source in files:
        result.files += 1
        result.paths[source.module] = source.relpath
        if progress:
            progress(source)
        for symbol in _extract_one(source, result):
            result.symbols.add(symbol)
    return result


def _extract_one(source: SourceFile, result: Extraction) -> list[Symbol]:
    extractor = extractor_for(source.path)
    if extractor is None or source.opaque:
        return [_placeholder(source)]
    try:
        text = source.path.read_text(encoding="utf-8", errors="replace")
        return extractor.extract(
            text, module=source.module, path=source.relpath, is_package=source.is_package
        )
    except (SyntaxError, ValueError, RecursionError) as exc:
        log.info("skipping %s: %s", source.relpath, exc)
        result.failed.append((source.relpath, f"{type(exc).__name__}: {exc}"))
        return [_placeholder(source)]


def _placeholder(source: SourceFile) -> ModuleSymbol:
    parent = source.module.rpartition(".")[0] or None
    return ModuleSymbol(
        qualname=source.module,
        name=source.module.rpartition(".")[2],
        module=source.module,
        parent=parent,
        path=source.relpath,
        is_package=source.is_package,
        dynamic=True,
    )
