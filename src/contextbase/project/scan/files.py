"""The files of a project, walked once and shared by every detector.

Dependency folders, build output, caches and hidden folders are skipped, and
the walk stops at ``max_files`` so that pointing the scanner at a home folder
by mistake costs seconds, not minutes.
"""

from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

IGNORED_DIRS = frozenset(
    [
        "node_modules",
        "bower_components",
        "jspm_packages",
        "vendor",
        ".venv",
        "venv",
        "virtualenv",
        "__pycache__",
        "site-packages",
        "dist",
        "build",
        "out",
        "target",
        "coverage",
        "htmlcov",
        ".tox",
        ".nox",
        ".eggs",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".next",
        ".nuxt",
        ".svelte-kit",
        ".turbo",
        ".parcel-cache",
        ".gradle",
        ".idea",
        ".vscode",
        ".git",
        ".hg",
        ".svn",
        ".context",
    ]
)
SOURCE_EXTENSIONS = frozenset(
    [
        ".py",
        ".pyi",
        ".js",
        ".jsx",
        ".mjs",
        ".cjs",
        ".ts",
        ".tsx",
        ".mts",
        ".cts",
        ".vue",
        ".svelte",
        ".go",
        ".rs",
        ".java",
        ".kt",
        ".kts",
        ".scala",
    ]
)
MAX_READ_BYTES = 256 * 1024


@dataclass
class FileTree:
    """Project-relative POSIX paths of the files worth looking at, with their sizes."""

    root: Path
    sizes: dict[str, int] = field(default_factory=dict)
    truncated: bool = False

    @property
    def files(self) -> list[str]:
        return list(self.sizes)

    def has(self, rel: str) -> bool:
        return rel in self.sizes

    def first(self, *candidates: str) -> str | None:
        return next((c for c in candidates if c in self.sizes), None)

    def under(self, folder: str) -> list[str]:
        """Files inside ``folder`` (``""`` is the root), at any depth."""
        if not folder:
            return self.files
        prefix = folder.rstrip("/") + "/"
        return [f for f in self.sizes if f.startswith(prefix)]

    def child_dirs(self, folder: str) -> list[str]:
        """The immediate sub-folders of ``folder`` that hold at least one kept file."""
        prefix = folder.rstrip("/") + "/" if folder else ""
        children: dict[str, None] = {}
        for rel in self.sizes:
            if rel.startswith(prefix):
                rest = rel[len(prefix) :]
                if "/" in rest:
                    children.setdefault(prefix + rest.split("/", 1)[0], None)
        return sorted(children)

    def child_files(self, folder: str) -> list[str]:
        prefix = folder.rstrip("/") + "/" if folder else ""
        return sorted(
            rel for rel in self.sizes if rel.startswith(prefix) and "/" not in rel[len(prefix) :]
        )

    def glob_dirs(self, pattern: str) -> list[str]:
        """Folders matching a workspace glob such as ``packages/*`` or ``crates/**``."""
        pattern = pattern.strip().rstrip("/").removeprefix("./")
        dirs: set[str] = set()
        for rel in self.sizes:
            parts = PurePosixPath(rel).parts[:-1]
            for depth in range(1, len(parts) + 1):
                dirs.add("/".join(parts[:depth]))
        if pattern.endswith("/**"):
            base = pattern[:-3]
            return sorted(d for d in dirs if fnmatch.fnmatchcase(d, base + "/*"))
        depth = pattern.count("/")
        return sorted(d for d in dirs if fnmatch.fnmatchcase(d, pattern) and d.count("/") == depth)

    def read(self, rel: str, limit: int = MAX_READ_BYTES) -> str:
        """The text of a file (empty when unreadable), at most ``limit`` bytes."""
        try:
            with open(self.root / rel, "rb") as handle:
                data = handle.read(limit)
        except OSError:
            return ""
        return data.decode("utf-8", errors="replace")

    def source_files(self, folder: str = "") -> list[str]:
        return [f for f in self.under(folder) if is_source(f)]


def is_source(rel: str) -> bool:
    return os.path.splitext(rel)[1] in SOURCE_EXTENSIONS


def walk(root: Path, max_files: int = 50_000) -> FileTree:
    tree = FileTree(root=root)
    for current, dirs, files in os.walk(root):
        dirs[:] = sorted(
            d
            for d in dirs
            if d not in IGNORED_DIRS
            and not d.startswith(".")
            and not d.endswith(".egg-info")
            and not os.path.islink(os.path.join(current, d))
        )
        rel_dir = os.path.relpath(current, root)
        rel_dir = "" if rel_dir == "." else rel_dir.replace(os.sep, "/") + "/"
        for name in sorted(files):
            if name.startswith(".") and name not in _KEPT_DOTFILES:
                continue
            path = os.path.join(current, name)
            try:
                size = os.stat(path).st_size
            except OSError:
                continue
            tree.sizes[rel_dir + name] = size
            if len(tree.sizes) >= max_files:
                tree.truncated = True
                return tree
    return tree


_KEPT_DOTFILES = frozenset({".nvmrc", ".node-version", ".python-version", ".tool-versions"})
