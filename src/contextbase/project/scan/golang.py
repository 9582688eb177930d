"""Go projects: go.mod (and go.work workspaces)."""

from __future__ import annotations

import posixpath
import re
from typing import Any

from contextbase.project.scan.files import FileTree
from contextbase.project.scan.model import Detection, join_path, stack_entry

ECOSYSTEM = "go"

FRAMEWORKS: dict[str, tuple[str, set[str]]] = {
    "github.com/gin-gonic/gin": ("Gin", {"backend"}),
    "github.com/labstack/echo": ("Echo", {"backend"}),
    "github.com/gofiber/fiber": ("Fiber", {"backend"}),
    "github.com/go-chi/chi": ("chi", {"backend"}),
    "github.com/gorilla/mux": ("Gorilla mux", {"backend"}),
    "google.golang.org/grpc": ("gRPC", {"backend"}),
    "github.com/spf13/cobra": ("Cobra", {"cli"}),
    "github.com/urfave/cli": ("urfave/cli", {"cli"}),
    "github.com/spf13/viper": ("Viper", set()),
    "gorm.io/gorm": ("GORM", set()),
    "github.com/jmoiron/sqlx": ("sqlx", set()),
    "github.com/jackc/pgx": ("pgx", set()),
}

_MODULE = re.compile(r"^module\s+(\S+)", re.M)
_GO_VERSION = re.compile(r"^go\s+(\d+\.\d+)", re.M)
_REQUIRE = re.compile(r"^\s*(?:require\s+)?([\w.\-]+\.[\w.\-/]+)\s+(v[\w.\-+]+)", re.M)
_USE = re.compile(r"^\s*(?:use\s+)?(\./[\w.\-/]*|\.)\s*$", re.M)
_PACKAGE_MAIN = re.compile(r"^package\s+main\b", re.M)
_MAJOR_SUFFIX = re.compile(r"/v\d+$")


def detect(tree: FileTree, folder: str) -> Detection | None:
    gomod = join_path(folder, "go.mod")
    gowork = join_path(folder, "go.work")
    if not tree.has(gomod) and not tree.has(gowork):
        return None
    found = Detection(ECOSYSTEM, folder, gomod if tree.has(gomod) else gowork, "go")
    text = tree.read(gomod) if tree.has(gomod) else ""
    module = _MODULE.search(text)
    if module:
        found.extra["go_modules"] = {module.group(1): folder}
        found.name = module.group(1).rstrip("/").split("/")[-1]
        if _MAJOR_SUFFIX.search(module.group(1)):
            found.name = module.group(1).split("/")[-2]
    version = _GO_VERSION.search(text or tree.read(gowork))
    found.runtime = f"Go {version.group(1)}" if version else "Go"
    for path, spec in _REQUIRE.findall(text):
        key = _MAJOR_SUFFIX.sub("", path)
        if key in FRAMEWORKS:
            label, roles = FRAMEWORKS[key]
            found.add_stack(stack_entry(label, spec))
            found.roles |= roles
    if tree.has(gowork):
        for member in _USE.findall(tree.read(gowork)):
            member_folder = posixpath.normpath(join_path(folder, member))
            if member_folder not in (".", folder) and tree.has(member_folder + "/go.mod"):
                found.workspaces.append(member_folder)
    has_main = False
    serves_http = False
    for rel in tree.source_files(folder):
        if not rel.endswith(".go") or rel.endswith("_test.go"):
            continue
        head = tree.read(rel, 64 * 1024)
        if _PACKAGE_MAIN.search(head):
            has_main = True
            serves_http = serves_http or "ListenAndServe" in head
    if serves_http:
        found.roles.add("backend")
    elif has_main:
        found.roles.add("cli")
    found.library = not has_main
    found.source_roots = [folder]
    return found


_IMPORT_LINE = re.compile(r'^\s*(?:import\s+)?(?:[\w.]+\s+)?"([^"]+)"', re.M)
_IMPORT_BLOCK = re.compile(r"^import\s*\((.*?)\)", re.M | re.S)
_IMPORT_SINGLE = re.compile(r'^import\s+(?:[\w.]+\s+)?"([^"]+)"', re.M)


def import_targets(rel: str, text: str, context: dict[str, Any]) -> list[str]:
    """Project folders imported by a Go file (imports under the module path)."""
    modules: dict[str, str] = context.get("go_modules", {})
    paths = _IMPORT_SINGLE.findall(text)
    for block in _IMPORT_BLOCK.findall(text):
        paths += _IMPORT_LINE.findall(block)
    targets: list[str] = []
    for path in paths:
        for module, folder in modules.items():
            if path == module or path.startswith(module + "/"):
                targets.append(join_path(folder, path[len(module) + 1 :]).rstrip("/"))
    return targets
