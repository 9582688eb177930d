"""JavaScript and TypeScript projects: package.json, lockfiles, workspaces."""

from __future__ import annotations

import contextlib
import json
import posixpath
import re
from typing import Any

import yaml

from contextbase.project.scan.files import FileTree
from contextbase.project.scan.model import Detection, join_path, stack_entry, version_label

ECOSYSTEM = "javascript"

FRAMEWORKS: dict[str, tuple[str, set[str]]] = {
    "next": ("Next.js", {"meta"}),
    "nuxt": ("Nuxt", {"meta"}),
    "@sveltejs/kit": ("SvelteKit", {"meta"}),
    "@remix-run/react": ("Remix", {"fullstack"}),
    "astro": ("Astro", {"web"}),
    "gatsby": ("Gatsby", {"frontend"}),
    "react": ("React", {"frontend"}),
    "vue": ("Vue", {"frontend"}),
    "svelte": ("Svelte", {"frontend"}),
    "@angular/core": ("Angular", {"frontend"}),
    "solid-js": ("Solid", {"frontend"}),
    "preact": ("Preact", {"frontend"}),
    "react-native": ("React Native", {"frontend"}),
    "electron": ("Electron", {"frontend"}),
    "express": ("Express", {"backend"}),
    "fastify": ("Fastify", {"backend"}),
    "koa": ("Koa", {"backend"}),
    "@nestjs/core": ("NestJS", {"backend"}),
    "hono": ("Hono", {"backend"}),
    "@hapi/hapi": ("hapi", {"backend"}),
    "@apollo/server": ("Apollo Server", {"backend"}),
    "vite": ("Vite", set()),
    "tailwindcss": ("Tailwind CSS", set()),
    "@prisma/client": ("Prisma", set()),
    "mongoose": ("Mongoose", set()),
    "typeorm": ("TypeORM", set()),
    "sequelize": ("Sequelize", set()),
    "drizzle-orm": ("Drizzle ORM", set()),
    "@reduxjs/toolkit": ("Redux Toolkit", set()),
    "graphql": ("GraphQL", set()),
    "commander": ("Commander", set()),
    "yargs": ("yargs", set()),
    "typescript": ("TypeScript", set()),
}
API_ROUTE_DIRS = ("pages/api", "src/pages/api", "app/api", "src/app/api", "server/api")
LOCKFILES = (
    ("bun.lockb", "bun"),
    ("bun.lock", "bun"),
    ("pnpm-lock.yaml", "pnpm"),
    ("yarn.lock", "yarn"),
    ("package-lock.json", "npm"),
    ("npm-shrinkwrap.json", "npm"),
)


def read_package(tree: FileTree, folder: str) -> dict[str, Any] | None:
    rel = join_path(folder, "package.json")
    if not tree.has(rel):
        return None
    try:
        data = json.loads(tree.read(rel))
    except json.JSONDecodeError:
        return None
    return data if isinstance(data, dict) else None


def detect(tree: FileTree, folder: str) -> Detection | None:
    package = read_package(tree, folder)
    if package is None:
        return None
    found = Detection(ECOSYSTEM, folder, join_path(folder, "package.json"), package_manager="npm")
    found.name = package.get("name") if isinstance(package.get("name"), str) else None
    description = package.get("description")
    found.description = description if isinstance(description, str) else None
    found.package_manager = _package_manager(tree, folder, package)
    found.runtime = _runtime(tree, folder, package, found.package_manager)
    runtime_deps = _deps(package, "dependencies")
    all_deps = {**_deps(package, "devDependencies"), **_deps(package, "peerDependencies")}
    all_deps.update(runtime_deps)
    for name, (label, roles) in FRAMEWORKS.items():  # frameworks first, then libraries
        if name not in all_deps:
            continue
        spec = all_deps[name]
        found.add_stack(stack_entry(label, _installed_version(tree, folder, name) or spec))
        if name in runtime_deps:
            found.roles |= roles
    if "typescript" not in all_deps and tree.has(join_path(folder, "tsconfig.json")):
        found.add_stack("TypeScript")
    if "meta" in found.roles:
        found.roles.discard("meta")
        has_api = any(tree.under(join_path(folder, d)) for d in API_ROUTE_DIRS) or any(
            posixpath.basename(f).startswith(("route.", "+server.")) for f in tree.under(folder)
        )
        found.roles.add("fullstack" if has_api else "web")
    if package.get("bin"):
        found.roles.add("cli")
    found.library = not package.get("private") and bool(
        package.get("main") or package.get("exports") or package.get("module")
    )
    found.workspaces = _workspaces(tree, folder, package)
    code = [join_path(folder, d) for d in ("src", "lib") if tree.source_files(join_path(folder, d))]
    found.source_roots = code[:1] or [folder]
    if found.name:
        found.extra["js_packages"] = {found.name: folder}
    return found


def _deps(package: dict[str, Any], key: str) -> dict[str, str]:
    deps = package.get(key)
    if not isinstance(deps, dict):
        return {}
    return {str(k): v if isinstance(v, str) else "" for k, v in deps.items()}


def _installed_version(tree: FileTree, folder: str, name: str) -> str | None:
    """The exact version in node_modules, when dependencies are installed."""
    path = tree.root / folder / "node_modules" / name / "package.json"
    try:
        version = json.loads(path.read_text(encoding="utf-8")).get("version")
    except (OSError, ValueError, AttributeError):
        return None
    return version if isinstance(version, str) else None


def _package_manager(tree: FileTree, folder: str, package: dict[str, Any]) -> str:
    declared = package.get("packageManager")
    if isinstance(declared, str):
        name = declared.split("@", 1)[0]
        if name in ("npm", "yarn", "pnpm", "bun"):
            return name
    for lockfile, manager in LOCKFILES:
        if tree.has(join_path(folder, lockfile)):
            return manager
    return "npm"


def _runtime(tree: FileTree, folder: str, package: dict[str, Any], manager: str) -> str:
    if manager == "bun":
        declared = str(package.get("packageManager") or "")
        version = version_label(declared.split("@", 1)[1]) if "@" in declared else None
        return f"Bun {version}" if version else "Bun"
    if tree.first(join_path(folder, "deno.json"), join_path(folder, "deno.jsonc")):
        return "Deno"
    engines = package.get("engines") if isinstance(package.get("engines"), dict) else {}
    volta = package.get("volta") if isinstance(package.get("volta"), dict) else {}
    spec = engines.get("node") or volta.get("node")
    for name in (".nvmrc", ".node-version"):
        rel = join_path(folder, name)
        if not spec and tree.has(rel):
            spec = tree.read(rel, 100).strip()
    version = version_label(spec) if isinstance(spec, str) else None
    return f"Node.js {version}" if version else "Node.js"


def _workspaces(tree: FileTree, folder: str, package: dict[str, Any]) -> list[str]:
    patterns: list[str] = []
    declared = package.get("workspaces")
    if isinstance(declared, dict):
        declared = declared.get("packages")
    if isinstance(declared, list):
        patterns += [p for p in declared if isinstance(p, str)]
    pnpm = join_path(folder, "pnpm-workspace.yaml")
    if tree.has(pnpm):
        try:
            data = yaml.safe_load(tree.read(pnpm)) or {}
        except yaml.YAMLError:
            data = {}
        patterns += [p for p in data.get("packages") or [] if isinstance(p, str)]
    lerna = join_path(folder, "lerna.json")
    if tree.has(lerna):
        with contextlib.suppress(ValueError, AttributeError):
            patterns += json.loads(tree.read(lerna)).get("packages") or []
    members: list[str] = []
    for pattern in patterns:
        if pattern.startswith("!"):
            continue
        for member in tree.glob_dirs(join_path(folder, pattern)):
            if tree.has(member + "/package.json") and member not in members:
                members.append(member)
    return members


_IMPORT = re.compile(r"""(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)['"]([^'"\n]+)['"]""")


def import_targets(rel: str, text: str, context: dict[str, Any]) -> list[str]:
    """Project paths (relative imports, ``@/`` aliases) and ``pkg:`` names of an import list."""
    here = posixpath.dirname(rel)
    source_root = context.get("js_source_root", "src")
    targets: list[str] = []
    for spec in _IMPORT.findall(text):
        if spec.startswith("."):
            targets.append(posixpath.normpath(join_path(here, spec)))
        elif spec.startswith(("@/", "~/")):
            targets.append(join_path(source_root, spec[2:]))
        else:
            parts = spec.split("/")
            name = "/".join(parts[:2]) if spec.startswith("@") else parts[0]
            targets.append(f"pkg:{name}")
            targets.append(join_path(source_root, spec))  # a tsconfig baseUrl import
    return targets
