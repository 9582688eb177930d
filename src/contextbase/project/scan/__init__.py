"""Scanning a project folder into a profile (``ProjectContext``).

Detection reads the files themselves, never the network: each ecosystem module
(``python``, ``javascript``, ``golang``, ``rust``, ``java``) reads its
manifests into a ``Detection`` (name, stack with versions, runtime, package
manager, what kind of program it is, workspace members, source roots);
``structure`` finds the modules and the architecture pattern; ``keyfiles``
picks each module's key files; ``deps`` resolves imports between modules;
``docs`` describes modules from their READMEs and doc comments.
"""

from __future__ import annotations

import posixpath
import re
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from contextbase.errors import NotFoundError
from contextbase.project.profile import (
    PROFILE_VERSION,
    ArchitectureInfo,
    KeyFile,
    ModuleContext,
    ProfileMetadata,
    ProjectContext,
    ProjectInfo,
    TechInfo,
)
from contextbase.project.scan import docs, golang, java, javascript, python, rust
from contextbase.project.scan.deps import ModuleIndex, module_dependencies
from contextbase.project.scan.files import FileTree, walk
from contextbase.project.scan.keyfiles import is_test, select_key_files
from contextbase.project.scan.model import Detection
from contextbase.project.scan.structure import ModuleDraft, Structure, analyse, analyse_members

__all__ = ["MANIFEST_NAMES", "detect_all", "looks_like_project", "scan_project"]

ECOSYSTEMS = (python, javascript, golang, rust, java)
MANIFEST_NAMES = frozenset(
    [
        "pyproject.toml",
        "setup.py",
        "setup.cfg",
        "requirements.txt",
        "Pipfile",
        "manage.py",
        "package.json",
        "go.mod",
        "go.work",
        "Cargo.toml",
        "pom.xml",
        "build.gradle",
        "build.gradle.kts",
        "settings.gradle",
        "settings.gradle.kts",
    ]
)
COMPANION_DIRS = frozenset(
    {"frontend", "client", "web", "webapp", "ui", "www", "app", "backend", "server", "api"}
)
MAX_STACK = 15
_LANGUAGE_OF = {
    ".py": "python",
    ".js": "javascript",
    ".jsx": "javascript",
    ".ts": "javascript",
    ".tsx": "javascript",
    ".mjs": "javascript",
    ".vue": "javascript",
    ".svelte": "javascript",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".kt": "java",
}
_RUNTIME_OF = {
    "python": "Python",
    "javascript": "Node.js",
    "go": "Go",
    "rust": "Rust",
    "java": "Java",
}


def looks_like_project(root: Path) -> bool:
    """A folder with version control or a manifest: safe to scan and write ``.context`` into."""
    return (root / ".git").exists() or any((root / name).is_file() for name in MANIFEST_NAMES)


def detect_all(tree: FileTree, folder: str = "") -> list[Detection]:
    return [found for eco in ECOSYSTEMS if (found := eco.detect(tree, folder)) is not None]


def scan_project(
    root: Path, *, now: datetime | None = None, max_files: int = 50_000
) -> ProjectContext:
    """Scan ``root`` into a fresh profile (no merge: see ``merge.merge_profiles``)."""
    root = root.expanduser().resolve()
    if not root.is_dir():
        raise NotFoundError(f"The project folder {root} does not exist.")
    now = now or datetime.now(UTC)
    tree = walk(root, max_files=max_files)
    top = detect_all(tree)
    members = _members(tree, top)
    companions = [] if members else _companions(tree, top)
    everything = top + [d for ds in members.values() for d in ds] + companions
    primary = _primary(tree, top or everything)
    if len(members) >= 2:
        names = {
            folder: next((d.name for d in ds if d.name), None) for folder, ds in members.items()
        }
        structure = analyse_members(tree, names)
    else:
        root_name = (primary.name if primary else None) or root.name or "root"
        structure = analyse(tree, primary.source_roots if primary else [""], root_name)
    context = _import_context(everything, primary)
    _complete_modules(tree, structure, members, context)
    modules = {
        m.name: ModuleContext(
            name=m.name,
            description=m.description or "",
            path=m.path or None,
            key_files=[KeyFile(path=k.path, role=k.role) for k in m.key_files],  # type: ignore[arg-type]
            dependencies=m.dependencies,
        )
        for m in structure.modules
    }
    stack: list[str] = []
    for found in everything:
        stack += [s for s in found.stack if s not in stack]
    runtimes = list(dict.fromkeys(d.runtime for d in (top or everything) if d.runtime))
    if not runtimes:
        runtimes = [_RUNTIME_OF[lang] for lang in _languages(tree)[:1]]
    name = (primary.name if primary and primary.name else None) or root.name or "project"
    return ProjectContext(
        version=PROFILE_VERSION,
        project=ProjectInfo(name=name[:100], type=_project_type(everything), path=str(root)),
        tech=TechInfo(
            stack=stack[:MAX_STACK],
            runtime=", ".join(runtimes),
            package_manager=primary.package_manager if primary else "unknown",  # type: ignore[arg-type]
        ),
        architecture=ArchitectureInfo(
            pattern=structure.pattern,  # type: ignore[arg-type]
            description=structure.description,
        ),
        modules=modules,
        metadata=ProfileMetadata(created_at=now, updated_at=now, last_scan_at=now),
    )


def _members(tree: FileTree, top: list[Detection]) -> dict[str, list[Detection]]:
    """Workspace members, or (with no manifest at the root) sub-projects side by side."""
    folders: list[str] = []
    for found in top:
        folders += found.workspaces
        if found.ecosystem == "python":
            folders += python.workspace_members(tree, found)
    if not top:
        for child in tree.child_dirs(""):
            if detect_all(tree, child):
                folders.append(child)
            else:
                folders += [g for g in tree.child_dirs(child) if detect_all(tree, g)]
    members: dict[str, list[Detection]] = {}
    for folder in dict.fromkeys(folders):
        found = detect_all(tree, folder)
        if found:
            members[folder] = found
    return members


def _companions(tree: FileTree, top: list[Detection]) -> list[Detection]:
    """A frontend/ or backend/ project of another ecosystem beside the root manifest."""
    ecosystems = {d.ecosystem for d in top}
    found: list[Detection] = []
    for child in tree.child_dirs(""):
        if posixpath.basename(child).lower() in COMPANION_DIRS:
            found += [d for d in detect_all(tree, child) if d.ecosystem not in ecosystems]
    return found


def _languages(tree: FileTree) -> list[str]:
    counts = Counter(
        _LANGUAGE_OF[ext]
        for rel in tree.files
        if (ext := posixpath.splitext(rel)[1]) in _LANGUAGE_OF and not is_test(rel)
    )
    return [language for language, _ in counts.most_common()]


def _primary(tree: FileTree, candidates: list[Detection]) -> Detection | None:
    """The detection of the language most of the code is written in."""
    if not candidates:
        return None
    ranking = {language: i for i, language in enumerate(_languages(tree))}
    return min(candidates, key=lambda d: ranking.get(d.ecosystem, len(ranking)))


def _project_type(detections: list[Detection]) -> str:
    roles: set[str] = set()
    for found in detections:
        roles |= found.roles
    if "fullstack" in roles or ("frontend" in roles and roles & {"backend", "web"}):
        return "fullstack"
    if roles & {"web", "frontend"}:
        return "web-app"
    if "backend" in roles:
        return "api"
    if "cli" in roles:
        return "cli"
    return "library"


def _import_context(detections: list[Detection], primary: Detection | None) -> dict[str, Any]:
    context: dict[str, Any] = {}
    for found in detections:
        for key, value in found.extra.items():
            if isinstance(value, dict):
                context.setdefault(key, {}).update(value)
            elif isinstance(value, list):
                context.setdefault(key, []).extend(value)
    if primary and primary.ecosystem == "javascript" and primary.source_roots:
        context["js_source_root"] = primary.source_roots[0]
    return context


def _complete_modules(
    tree: FileTree,
    structure: Structure,
    members: dict[str, list[Detection]],
    context: dict[str, Any],
) -> None:
    """Key files, descriptions and dependencies of every module."""
    modules = structure.modules
    outside_tests = [
        rel
        for rel in tree.files
        if is_test(rel) and not any(_inside(rel, m.path) for m in modules if m.path)
    ]
    packages: dict[str, str] = {}
    for module in modules:
        member = members.get(module.path, [])
        for found in member:
            if found.name:
                packages[found.name] = module.name
            module.description = module.description or found.description
        tests = [t for t in outside_tests if _mentions(t, module.name)]
        module.key_files = select_key_files(tree, module.files, tests)
        module.description = (
            module.description or docs.describe(tree, module.path) or _fallback(module)
        )
    for name in context.get("rust_crates", {}):
        owner = next((m.name for m in modules if m.name.replace("-", "_") == name), None)
        if owner:
            packages[name] = owner
    index = ModuleIndex({m.name: m.path for m in modules}, packages)
    dependencies = module_dependencies(
        tree, {m.name: [f for f in m.files if not is_test(f)] for m in modules}, index, context
    )
    for module in modules:
        module.dependencies = dependencies.get(module.name, [])


def _inside(rel: str, path: str) -> bool:
    return rel == path or rel.startswith(path + "/")


def _mentions(rel: str, name: str) -> bool:
    words = set(re.split(r"[^a-z0-9]+", rel.lower()))
    return name.lower().lstrip("_") in words


def _fallback(module: ModuleDraft) -> str:
    count = sum(1 for f in module.files if not is_test(f))
    where = module.path or "the project root"
    return f"{count} file{'s' if count != 1 else ''} in {where}."
