"""The code graph feature: parse sources into the store, check scripts, answer queries."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from contextbase.codegraph.analyze import analyze_script
from contextbase.codegraph.cypher import export_cypher
from contextbase.codegraph.extract import SourceFile, extract_files
from contextbase.codegraph.findings import Analysis
from contextbase.codegraph.query import run_command
from contextbase.codegraph.sources import SourceKind, open_source
from contextbase.codegraph.store import GraphStore, RepoInfo
from contextbase.errors import InvalidInputError, NotFoundError
from contextbase.store.db import Database

MAX_SCRIPT_BYTES = 2_000_000


class CodeGraph:
    """Parse repositories and packages into a graph; check AI-written scripts against it."""

    def __init__(self, db: Database, *, cache: Path) -> None:
        """``cache`` holds git clones (``<home>/doc-source``)."""
        self.store = GraphStore(db)
        self.cache = cache

    def parse(
        self,
        source: str,
        *,
        kind: SourceKind | None = None,
        python: str | None = None,
        name: str | None = None,
        progress: Callable[[int, int, SourceFile], None] | None = None,
    ) -> RepoInfo:
        """Parse a git URL, folder or installed package and store (replace) its graph."""
        checkout = open_source(source, cache=self.cache, kind=kind, python=python, name=name)
        if not checkout.files:
            raise NotFoundError(f"No Python files found in {source}.")
        started = time.perf_counter()
        total = len(checkout.files)
        counter = iter(range(1, total + 1))
        extraction = extract_files(
            checkout.files,
            (lambda f: progress(next(counter), total, f)) if progress else None,
        )
        return self.store.replace(
            name=checkout.name,
            source=checkout.source,
            source_kind=checkout.kind,
            version=checkout.version,
            roots=checkout.roots,
            extraction=extraction,
            seconds=time.perf_counter() - started,
        )

    def check(
        self, script: str, *, filename: str = "<script>", repos: list[str] | None = None
    ) -> Analysis:
        """Check a script's references against the graph (or only ``repos``)."""
        if len(script.encode("utf-8", errors="replace")) > MAX_SCRIPT_BYTES:
            raise InvalidInputError(
                f"The script is larger than {MAX_SCRIPT_BYTES // 1_000_000} MB."
            )
        return analyze_script(script, [self.store.reader(repos)], filename)

    def check_file(self, path: Path, *, repos: list[str] | None = None) -> Analysis:
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError as exc:
            raise NotFoundError(f"The script {path} does not exist.") from exc
        except (OSError, UnicodeDecodeError) as exc:
            raise InvalidInputError(f"Cannot read the script {path}: {exc}.") from exc
        return self.check(text, filename=str(path), repos=repos)

    def repositories(self) -> list[RepoInfo]:
        return self.store.repositories()

    def remove(self, name: str) -> None:
        self.store.remove(name)

    def query(self, command: str) -> dict[str, Any]:
        return run_command(self.store, command)

    def export_cypher(self, name: str) -> Iterator[str]:
        return export_cypher(self.store, name)
