"""Which files of a module matter, and in which role: entry, config, core or test."""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass

from contextbase.project.scan.files import FileTree, is_source

TEST_DIRS = frozenset(
    {"tests", "test", "__tests__", "spec", "specs", "testing", "e2e", "__mocks__", "testdata"}
)
ENTRY_NAMES = frozenset(
    [
        "__init__.py",
        "__main__.py",
        "main.py",
        "app.py",
        "cli.py",
        "server.py",
        "manage.py",
        "wsgi.py",
        "asgi.py",
        "index.ts",
        "index.tsx",
        "index.js",
        "index.jsx",
        "index.mjs",
        "main.ts",
        "main.js",
        "server.ts",
        "server.js",
        "app.ts",
        "app.js",
        "main.go",
        "lib.rs",
        "main.rs",
        "mod.rs",
        "Main.java",
        "App.java",
        "Main.kt",
        "App.kt",
        "Application.kt",
        "page.tsx",
        "layout.tsx",
    ]
)
CONFIG_NAMES = frozenset(
    [
        "settings.py",
        "config.py",
        "conf.py",
        "configuration.py",
        "constants.py",
        "config.ts",
        "config.js",
        "config.go",
        "config.rs",
        "package.json",
        "pyproject.toml",
        "setup.cfg",
        "go.mod",
        "Cargo.toml",
        "pom.xml",
        "build.gradle",
        "build.gradle.kts",
        "tsconfig.json",
        "application.yml",
        "application.yaml",
        "application.properties",
    ]
)
_TEST_FILE = re.compile(
    r"^(test_.*\.py|.*_test\.py|conftest\.py|.*_test\.go|.*\.(test|spec)\.[cm]?[jt]sx?"
    r"|.*Tests?\.(java|kt)|.*_test\.rs)$"
)
_CONFIG_FILE = re.compile(r"^.*\.config\.[cm]?[jt]s$")
_APPLICATION = re.compile(r"^\w+Application\.(java|kt)$")
LIMITS = {"entry": 2, "config": 2, "core": 4, "test": 2}


@dataclass(frozen=True)
class KeyFileDraft:
    path: str
    role: str


def role_of(rel: str) -> str:
    """The role a file plays in its module, from its name and folder."""
    name = posixpath.basename(rel)
    parts = rel.split("/")[:-1]
    if _TEST_FILE.match(name) or any(p in TEST_DIRS for p in parts) or "src/test" in rel:
        return "test"
    if name in ENTRY_NAMES or _APPLICATION.match(name):
        return "entry"
    if name in CONFIG_NAMES or _CONFIG_FILE.match(name):
        return "config"
    return "core"


def is_test(rel: str) -> bool:
    return role_of(rel) == "test"


def select_key_files(tree: FileTree, files: list[str], tests: list[str]) -> list[KeyFileDraft]:
    """A few files per role; the largest sources are the core ones."""
    by_role: dict[str, list[str]] = {role: [] for role in LIMITS}
    for rel in files:
        role = role_of(rel)
        if role == "core" and not is_source(rel):
            continue
        by_role[role].append(rel)
    by_role["test"] += [t for t in tests if t not in by_role["test"]]
    for role in ("core", "test"):
        by_role[role].sort(key=lambda rel: (-tree.sizes.get(rel, 0), rel))
    for role in ("entry", "config"):
        by_role[role].sort(key=lambda rel: (rel.count("/"), rel))  # the shallowest first
    return [
        KeyFileDraft(rel, role) for role, limit in LIMITS.items() for rel in by_role[role][:limit]
    ]
