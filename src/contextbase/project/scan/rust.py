"""Rust projects: Cargo.toml, including workspaces."""

from __future__ import annotations

import re
import tomllib
from typing import Any

from contextbase.project.scan.files import FileTree
from contextbase.project.scan.model import Detection, join_path, stack_entry

ECOSYSTEM = "rust"

FRAMEWORKS: dict[str, tuple[str, set[str]]] = {
    "axum": ("Axum", {"backend"}),
    "actix-web": ("Actix Web", {"backend"}),
    "rocket": ("Rocket", {"backend"}),
    "warp": ("Warp", {"backend"}),
    "poem": ("Poem", {"backend"}),
    "tide": ("Tide", {"backend"}),
    "tonic": ("tonic", {"backend"}),
    "yew": ("Yew", {"frontend"}),
    "leptos": ("Leptos", {"frontend"}),
    "dioxus": ("Dioxus", {"frontend"}),
    "tauri": ("Tauri", {"frontend"}),
    "tokio": ("Tokio", set()),
    "clap": ("clap", set()),
    "serde": ("Serde", set()),
    "diesel": ("Diesel", set()),
    "sqlx": ("SQLx", set()),
    "sea-orm": ("SeaORM", set()),
    "hyper": ("Hyper", set()),
    "reqwest": ("reqwest", set()),
    "pyo3": ("PyO3", set()),
}


def _cargo(tree: FileTree, folder: str) -> dict[str, Any] | None:
    rel = join_path(folder, "Cargo.toml")
    if not tree.has(rel):
        return None
    try:
        return tomllib.loads(tree.read(rel))
    except tomllib.TOMLDecodeError:
        return None


def detect(tree: FileTree, folder: str) -> Detection | None:
    cargo = _cargo(tree, folder)
    if cargo is None:
        return None
    found = Detection(ECOSYSTEM, folder, join_path(folder, "Cargo.toml"), "cargo")
    package = cargo.get("package") or {}
    workspace = cargo.get("workspace") or {}
    shared = workspace.get("package") or {}
    found.name = package.get("name") if isinstance(package.get("name"), str) else None
    description = package.get("description")
    found.description = description if isinstance(description, str) else None
    rust_version = _inherited(package.get("rust-version"), shared.get("rust-version"))
    edition = _inherited(package.get("edition"), shared.get("edition"))
    if rust_version:
        found.runtime = f"Rust {rust_version}"
    else:
        found.runtime = f"Rust (edition {edition})" if edition else "Rust"
    versions = {**_versions(workspace.get("dependencies")), **_versions(cargo.get("dependencies"))}
    for name, spec in versions.items():
        if name in FRAMEWORKS:
            label, roles = FRAMEWORKS[name]
            found.add_stack(stack_entry(label, spec))
            found.roles |= roles
    for pattern in workspace.get("members") or []:
        for member in tree.glob_dirs(join_path(folder, pattern)):
            if tree.has(member + "/Cargo.toml") and member not in found.workspaces:
                found.workspaces.append(member)
    src = join_path(folder, "src")
    has_lib = tree.has(src + "/lib.rs") or "lib" in cargo
    has_bin = tree.has(src + "/main.rs") or bool(cargo.get("bin")) or bool(tree.under(src + "/bin"))
    if has_bin and not has_lib and not found.roles & {"backend", "frontend"}:
        found.roles.add("cli")
    found.library = has_lib
    found.source_roots = [src] if tree.under(src) else [folder]
    if found.name:
        found.extra["rust_crates"] = {found.name.replace("-", "_"): found.source_roots[0]}
    return found


def _inherited(value: Any, shared: Any) -> str | None:
    if isinstance(value, dict) and value.get("workspace"):
        value = shared
    return str(value) if isinstance(value, str | int) else None


def _versions(deps: Any) -> dict[str, str]:
    if not isinstance(deps, dict):
        return {}
    versions: dict[str, str] = {}
    for name, spec in deps.items():
        if isinstance(spec, dict):
            spec = spec.get("version") or ""
        versions[str(name)] = spec if isinstance(spec, str) else ""
    return versions


_USE = re.compile(r"\b(?:use\s+(?:::)?(\w+)|crate::(\w+))")
_GROUP = re.compile(r"crate::\{([^}]*)\}")
_SKIP = frozenset({"self", "super", "std", "core", "alloc", "crate"})


def import_targets(rel: str, text: str, context: dict[str, Any]) -> list[str]:
    """``crate::x`` paths of this crate and ``pkg:`` names of other workspace crates."""
    crates: dict[str, str] = context.get("rust_crates", {})
    source_root = next((root for root in crates.values() if rel.startswith(root + "/")), "src")
    targets: list[str] = []
    for first, crate_item in _USE.findall(text):
        if crate_item:
            targets.append(f"{source_root}/{crate_item}")
        elif first and first not in _SKIP:
            targets.append(f"pkg:{first}")
    for group in _GROUP.findall(text):
        for item in group.split(","):
            name = item.strip().split("::")[0]
            if name.isidentifier() and name != "self":
                targets.append(f"{source_root}/{name}")
    return targets
