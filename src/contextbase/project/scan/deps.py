"""Dependencies between modules, from the imports in their files.

Each ecosystem turns an import list into candidate project paths (or ``pkg:``
names of workspace packages); a candidate belongs to the module whose folder
(or file, without its extension) is its longest prefix.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Mapping
from typing import Any

from contextbase.project.scan import golang, java, javascript, python, rust
from contextbase.project.scan.files import FileTree

ImportTargets = Callable[[str, str, dict[str, Any]], list[str]]

_BY_EXTENSION: dict[str, ImportTargets] = {}
for _extensions, _module in (
    (".py .pyi", python),
    (".js .jsx .mjs .cjs .ts .tsx .mts .cts .vue .svelte", javascript),
    (".go", golang),
    (".rs", rust),
    (".java .kt .kts .scala", java),
):
    for _extension in _extensions.split():
        _BY_EXTENSION[_extension] = _module.import_targets

MAX_FILES_PER_MODULE = 300
MAX_BYTES_PER_FILE = 128 * 1024


class ModuleIndex:
    """Finds the module a project path or package name belongs to."""

    def __init__(self, module_paths: Mapping[str, str], packages: Mapping[str, str]) -> None:
        self._prefixes: list[tuple[str, str]] = []
        for name, path in module_paths.items():
            stem = posixpath.splitext(path)[0] if "." in posixpath.basename(path) else path
            self._prefixes.append((stem, name))
        self._prefixes.sort(key=lambda item: len(item[0]), reverse=True)
        self._packages = {_package_key(k): v for k, v in packages.items()}

    def find(self, target: str) -> str | None:
        if target.startswith("pkg:"):
            return self._packages.get(_package_key(target[4:]))
        target = posixpath.splitext(target)[0] if target.endswith(_STRIP) else target
        for prefix, name in self._prefixes:
            if not prefix:  # the module of the project root's own files (a Go root package)
                if target == "":
                    return name
                continue
            if target == prefix or target.startswith(prefix + "/"):
                return name
        return None


_STRIP = (*tuple(_BY_EXTENSION), ".json")


def _package_key(name: str) -> str:
    return name.replace("-", "_").lower()


def module_dependencies(
    tree: FileTree,
    module_files: Mapping[str, list[str]],
    index: ModuleIndex,
    context: dict[str, Any],
) -> dict[str, list[str]]:
    """``{module: [modules it imports]}`` for every module."""
    result: dict[str, list[str]] = {}
    for name, files in module_files.items():
        found: set[str] = set()
        for rel in files[:MAX_FILES_PER_MODULE]:
            targets = _BY_EXTENSION.get(posixpath.splitext(rel)[1])
            if targets is None:
                continue
            for target in targets(rel, tree.read(rel, MAX_BYTES_PER_FILE), context):
                other = index.find(target)
                if other and other != name:
                    found.add(other)
        result[name] = sorted(found)
    return result
