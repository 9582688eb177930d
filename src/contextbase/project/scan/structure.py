"""Modules and the architecture pattern, from the folder structure.

* **monorepo**: declared workspaces (npm/yarn/pnpm/lerna, Cargo, go.work, Maven
  modules, Gradle includes, uv), or several manifests side by side with none at
  the root. Each package is a module.
* **feature-based**: a ``features/``, ``modules/`` or ``domains/`` folder, or
  folders that each hold several layers (``auth/{routes,service,models}``,
  Django apps). Each feature is a module.
* **layered**: the source root's folders are layers of at least two of the
  presentation, business and data tiers (``controllers``, ``services``,
  ``models``, ...). Each layer is a module.
* **modular**: two or more other folders (or, in a flat package, files).
* **unknown**: nothing to tell apart.

Go's ``internal/``, ``pkg/`` and ``cmd/`` only group packages: their children
are the modules.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from dataclasses import dataclass, field

from contextbase.project.scan.files import FileTree, is_source
from contextbase.project.scan.keyfiles import TEST_DIRS, KeyFileDraft, is_test, role_of

TIERS: dict[str, str] = {
    **dict.fromkeys(
        [
            "controllers",
            "controller",
            "routes",
            "routers",
            "router",
            "handlers",
            "handler",
            "api",
            "endpoints",
            "views",
            "resolvers",
            "presentation",
            "templates",
            "urls",
            "forms",
            "serializers",
        ],
        "presentation",
    ),
    **dict.fromkeys(
        ["services", "service", "usecases", "use_cases", "application", "domain"], "business"
    ),
    **dict.fromkeys(
        [
            "models",
            "model",
            "entities",
            "entity",
            "repositories",
            "repository",
            "repos",
            "dao",
            "db",
            "database",
            "persistence",
            "schemas",
            "dto",
            "dtos",
        ],
        "data",
    ),
    **dict.fromkeys(["middleware", "middlewares", "infrastructure", "infra"], "infrastructure"),
}
"""Folder (or file) names that say which layer of an application they hold."""
CORE_TIERS = frozenset({"presentation", "business", "data"})
FEATURE_CONTAINERS = frozenset({"features", "modules", "domains"})
GROUPING_DIRS = frozenset({"internal", "pkg", "cmd"})
NOT_MODULES = TEST_DIRS | frozenset(
    [
        "docs",
        "doc",
        "examples",
        "example",
        "scripts",
        "benchmarks",
        "bench",
        "assets",
        "static",
        "public",
        "fixtures",
        "node_modules",
        "migrations",
        "locale",
        "locales",
    ]
)
SKIPPED_FILE_STEMS = frozenset({"__init__", "index", "setup", "conftest", "__main__", "mod"})
MAX_MODULES = 40
ONE_PACKAGE_PER_FOLDER = frozenset({".go", ".java", ".kt", ".scala"})


@dataclass
class ModuleDraft:
    name: str
    path: str
    files: list[str]
    description: str | None = None
    key_files: list[KeyFileDraft] = field(default_factory=list)
    dependencies: list[str] = field(default_factory=list)


@dataclass
class Structure:
    pattern: str
    description: str
    modules: list[ModuleDraft]


def analyse_members(tree: FileTree, members: dict[str, str | None]) -> Structure:
    """A monorepo: ``{member folder: package name}``."""
    modules = [
        ModuleDraft(_short_name(name or posixpath.basename(folder)), folder, _files(tree, folder))
        for folder, name in members.items()
    ]
    modules = _unique(modules)
    names = ", ".join(m.name for m in modules[:8]) + (", ..." if len(modules) > 8 else "")
    return Structure("monorepo", f"Monorepo of {len(modules)} packages: {names}.", modules)


def analyse(tree: FileTree, source_roots: list[str], name: str = "root") -> Structure:
    """Modules under the source roots, and the pattern they form; ``name`` names the
    module of files at the project root."""
    if len(source_roots) > 1:
        modules = [
            ModuleDraft(posixpath.basename(root) or "root", root, _files(tree, root))
            for root in source_roots
        ]
        return Structure(
            "modular", f"Modular: {len(modules)} top-level packages.", _unique(modules)
        )
    root = source_roots[0] if source_roots else ""
    where = f" under {root}/" if root else ""
    dirs = _module_dirs(tree, root)
    containers = [d for d in dirs if posixpath.basename(d) in FEATURE_CONTAINERS]
    features = [c for d in containers for c in _code_dirs(tree, d)]
    if len(features) >= 2:
        shared = [d for d in _expand(tree, dirs) if d not in containers]
        modules = [_dir_module(tree, d) for d in features + shared]
        names = ", ".join(posixpath.basename(d) for d in features[:8])
        text = f"Feature-based: {len(features)} feature modules ({names}){where}."
        return Structure("feature-based", text, _finish(tree, root, modules, name))
    dirs = _expand(tree, dirs)
    layers = [d for d in dirs if posixpath.basename(d).lower() in TIERS]
    if _tiers(posixpath.basename(d) for d in layers) >= 2 and len(layers) * 2 >= len(dirs):
        modules = [_dir_module(tree, d) for d in dirs]
        names = ", ".join(posixpath.basename(d) for d in layers[:8])
        return Structure("layered", f"Layered: {names}{where}.", _finish(tree, root, modules, name))
    sliced = [d for d in dirs if _layers_inside(tree, d) >= 2]
    if len(sliced) >= 2 and len(sliced) * 2 >= len(dirs):
        modules = [_dir_module(tree, d) for d in dirs]
        names = ", ".join(posixpath.basename(d) for d in sliced[:8])
        text = (
            f"Feature-based: {len(sliced)} feature modules with their own layers ({names}){where}."
        )
        return Structure("feature-based", text, _finish(tree, root, modules, name))
    modules = [_dir_module(tree, d) for d in dirs]
    if len(dirs) < 2:
        modules += _file_modules(tree, root)
    if len(modules) >= 2:
        text = f"Modular: {len(modules)} modules{where}."
        return Structure("modular", text, _finish(tree, root, modules, name))
    return Structure(
        "unknown", "No module structure to tell apart.", _finish(tree, root, modules, name)
    )


def _files(tree: FileTree, path: str) -> list[str]:
    return [path] if tree.has(path) else tree.under(path)


def _code_dirs(tree: FileTree, folder: str) -> list[str]:
    return [
        d
        for d in tree.child_dirs(folder)
        if posixpath.basename(d) not in NOT_MODULES and tree.source_files(d)
    ]


def _module_dirs(tree: FileTree, root: str) -> list[str]:
    return _code_dirs(tree, root)


def _expand(tree: FileTree, dirs: list[str]) -> list[str]:
    expanded: list[str] = []
    for d in dirs:
        if posixpath.basename(d) in GROUPING_DIRS and _code_dirs(tree, d):
            expanded += _code_dirs(tree, d)
        else:
            expanded.append(d)
    return expanded


def _tiers(names: Iterable[str]) -> int:
    """How many of the presentation, business and data tiers the names cover."""
    return len({TIERS.get(name.lower()) for name in names} & CORE_TIERS)


def _layers_inside(tree: FileTree, folder: str) -> int:
    names = [posixpath.basename(d) for d in tree.child_dirs(folder)]
    names += [posixpath.splitext(posixpath.basename(f))[0] for f in tree.child_files(folder)]
    return _tiers(names)


def _dir_module(tree: FileTree, folder: str) -> ModuleDraft:
    return ModuleDraft(posixpath.basename(folder), folder, tree.under(folder))


def _file_modules(tree: FileTree, root: str) -> list[ModuleDraft]:
    """In a flat Python, JavaScript or Rust package each file is a module (in Go and Java
    the files of a folder form one package)."""
    modules = []
    for rel in tree.child_files(root):
        stem, extension = posixpath.splitext(posixpath.basename(rel))
        if extension in ONE_PACKAGE_PER_FOLDER:
            continue
        if is_source(rel) and stem not in SKIPPED_FILE_STEMS and role_of(rel) == "core":
            modules.append(ModuleDraft(stem.lstrip("_") or stem, rel, [rel]))
    return modules


def _finish(
    tree: FileTree, root: str, modules: list[ModuleDraft], root_name: str
) -> list[ModuleDraft]:
    """Add the source root's own files as a module when they matter, then cap and dedupe."""
    covered = {m.path for m in modules}
    own = [f for f in tree.child_files(root) if is_source(f) and f not in covered]
    code = [f for f in own if not is_test(f)]
    entry = any(role_of(f) == "entry" and not f.endswith("__init__.py") for f in code)
    if modules and (len(code) >= 2 or entry):
        modules.insert(0, ModuleDraft(posixpath.basename(root) or root_name, root, own))
    elif not modules and own:
        modules = [ModuleDraft(posixpath.basename(root) or root_name, root, own)]
    modules.sort(key=lambda m: -len(m.files))
    return sorted(_unique(modules[:MAX_MODULES]), key=lambda m: m.path)


def _unique(modules: list[ModuleDraft]) -> list[ModuleDraft]:
    seen: set[str] = set()
    for module in modules:
        name = module.name
        if name in seen:
            name = module.path
        module.name = name
        seen.add(name)
    return modules


def _short_name(name: str) -> str:
    """``@acme/ui`` → ``ui``: the package part of a scoped npm name."""
    return name.rsplit("/", 1)[-1] if name.startswith("@") else name
