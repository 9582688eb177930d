"""Where the code of a graph comes from: a git URL, a local folder, or an installed package.

Every source ends up as a folder on disk plus the list of its Python files and
the module name each one is imported as. Installed packages are located by
asking the interpreter the user runs (``--python``), without importing them, so
the graph matches the version that code really meets.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlparse

from contextbase.codegraph.extract import SourceFile
from contextbase.errors import InvalidInputError, NotFoundError, SourceError

SourceKind = Literal["git", "folder", "package"]

MAX_FILE_BYTES = 4_000_000
_SKIP_DIRS = {"__pycache__", "node_modules", "site-packages", "venv", "build", "dist"}
_COMPILED = (".so", ".pyd")
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_PACKAGE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")
_GIT_SCHEMES = {"https", "http", "ssh", "git", "file"}
_SCP_LIKE = re.compile(r"^[\w.-]+@[\w.-]+:[\w./~-]+$")


@dataclass
class Checkout:
    """A source made ready to parse."""

    name: str
    source: str
    kind: SourceKind
    root: Path
    files: list[SourceFile]
    roots: list[str]
    """Module prefixes this source defines: imports under them are checked."""
    version: str | None = None


def classify(source: str) -> SourceKind:
    """A URL is git, something path-like is a folder, a dotted identifier is a package."""
    if _is_git_url(source):
        return "git"
    if _PACKAGE_NAME.match(source) and not Path(source).is_absolute():
        return "package"
    return "folder"


def _is_git_url(source: str) -> bool:
    return bool(_SCP_LIKE.match(source)) or urlparse(source).scheme in _GIT_SCHEMES


def open_source(
    source: str,
    *,
    cache: Path,
    kind: SourceKind | None = None,
    python: str | None = None,
    name: str | None = None,
) -> Checkout:
    """Resolve ``source`` to files on disk (cloning a git URL into ``cache``)."""
    kind = kind or classify(source)
    if kind == "git":
        root, version = clone(source, cache)
        checkout = folder_checkout(root, name or _repo_name(source))
        checkout.kind, checkout.source, checkout.version = "git", source, version
        return checkout
    if kind == "package":
        return package_checkout(source, python=python, name=name)
    path = Path(source).expanduser()
    if not path.is_dir():
        raise NotFoundError(f"The folder {path} does not exist.")
    return folder_checkout(path.resolve(), name)


# -- git ----------------------------------------------------------------------


def _repo_name(url: str) -> str:
    tail = re.split(r"[/:]", url.rstrip("/"))[-1]
    return tail.removesuffix(".git") or "repository"


def clone(url: str, cache: Path) -> tuple[Path, str | None]:
    """Shallow-clone ``url`` into the cache, replacing an earlier clone."""
    if url.startswith("-") or not _is_git_url(url):
        raise InvalidInputError(f"{url!r} is not a git URL (https://, ssh://, git@host:path).")
    parsed = urlparse(url)
    place = (parsed.netloc or url.partition("@")[2].partition(":")[0] or "local") + (
        parsed.path if parsed.scheme else "/" + url.partition(":")[2]
    )
    parts = [re.sub(r"[^\w.-]", "_", p) for p in place.split("/") if p not in ("", ".", "..")]
    dest = cache.joinpath("git", *parts)
    tmp = dest.with_name(f"{dest.name}.tmp-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.parent.mkdir(parents=True, exist_ok=True)
    env = {
        **os.environ,
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_ALLOW_PROTOCOL": "https:http:ssh:git:file",
    }
    command = ["git", "-c", "protocol.ext.allow=never", "clone", "--depth", "1", "--quiet"]
    try:
        done = subprocess.run(
            [*command, "--", url, str(tmp)], env=env, capture_output=True, text=True, timeout=900
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise SourceError(f"Cannot run git to clone {url}: {exc}.") from exc
    if done.returncode != 0:
        shutil.rmtree(tmp, ignore_errors=True)
        detail = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "no output"
        raise SourceError(f"git could not clone {url}: {detail}")
    shutil.rmtree(dest, ignore_errors=True)
    tmp.rename(dest)
    head = subprocess.run(
        ["git", "-C", str(dest), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    )
    return dest, head.stdout.strip() or None


# -- folders ------------------------------------------------------------------


def folder_checkout(path: Path, name: str | None = None) -> Checkout:
    """A folder that is a package itself, or holds packages (``src/`` layout included)."""
    if (path / "__init__.py").exists() or (path / "__init__.pyi").exists():
        files = list(_walk(path, path.name, path.parent))
        roots = [path.name]
    else:
        base = path / "src" if _holds_python(path / "src") else path
        files = list(_walk(base, "", path))
        roots = sorted({f.module.partition(".")[0] for f in files})
    return Checkout(name or path.name, str(path), "folder", path, files, roots)


def _holds_python(path: Path) -> bool:
    return path.is_dir() and any(
        p.suffix == ".py" or (p / "__init__.py").exists() for p in path.iterdir()
    )


def _walk(directory: Path, prefix: str, relative_to: Path) -> list[SourceFile]:
    """Python files under ``directory`` as modules named ``prefix.<path>``."""
    files: list[SourceFile] = []
    by_module: dict[str, list[Path]] = {}
    for entry in sorted(directory.iterdir()):
        if entry.is_dir() and not entry.is_symlink():
            if entry.name in _SKIP_DIRS or not _IDENTIFIER.match(entry.name):
                continue
            sub = f"{prefix}.{entry.name}" if prefix else entry.name
            files.extend(_walk(entry, sub, relative_to))
            continue
        stem = entry.name.partition(".")[0]
        if entry.is_file() and _IDENTIFIER.match(stem) and _is_module_file(entry):
            by_module.setdefault(stem, []).append(entry)
    for stem, paths in by_module.items():
        chosen = _preferred(paths)
        if chosen.stat().st_size > MAX_FILE_BYTES:
            continue
        is_package = stem == "__init__"
        module = prefix if is_package else ".".join(filter(None, (prefix, stem)))
        if not module:
            continue
        files.append(
            SourceFile(
                path=chosen,
                relpath=chosen.relative_to(relative_to).as_posix(),
                module=module,
                is_package=is_package,
                opaque=chosen.name.endswith(_COMPILED),
            )
        )
    return files


def _is_module_file(path: Path) -> bool:
    return path.suffix in (".py", ".pyi") or path.name.endswith(_COMPILED)


def _preferred(paths: list[Path]) -> Path:
    """Source beats stub, stub beats a compiled module."""
    for suffix in (".py", ".pyi"):
        for path in paths:
            if path.suffix == suffix:
                return path
    return paths[0]


# -- installed packages -------------------------------------------------------

_PROBE = r"""
import importlib.metadata, importlib.util, json, os, sys
sys.path = [p for p in sys.path if p and os.path.abspath(p) != os.getcwd()]
top = sys.argv[1]
try:
    spec = importlib.util.find_spec(top)
except (ImportError, ValueError) as exc:
    spec = None
if spec is None:
    print(json.dumps({"error": "missing"}))
    raise SystemExit
version = None
for dist in importlib.metadata.packages_distributions().get(top, []):
    try:
        version = importlib.metadata.version(dist)
        break
    except importlib.metadata.PackageNotFoundError:
        pass
print(json.dumps({"origin": spec.origin, "locations": list(spec.submodule_search_locations or []),
                  "version": version, "python": sys.version.split()[0]}))
"""


def package_checkout(
    package: str, *, python: str | None = None, name: str | None = None
) -> Checkout:
    """An installed package, located by the interpreter ``python`` (default: this one)."""
    if not _PACKAGE_NAME.match(package):
        raise InvalidInputError(f"{package!r} is not an importable package name.")
    interpreter = python or sys.executable
    top, _, rest = package.partition(".")
    info = _probe(interpreter, top)
    if info.get("error"):
        raise NotFoundError(f"The package {package!r} is not installed for {interpreter}.")
    files: list[SourceFile] = []
    root = Path(info["origin"] or "").parent
    if info["locations"]:
        for location in map(Path, info["locations"]):
            directory = location.joinpath(*rest.split(".")) if rest else location
            root = location.parent
            if directory.is_dir():
                files.extend(_walk(directory, package, location.parent))
    elif info["origin"] and not rest:
        origin = Path(info["origin"])
        root = origin.parent
        files.append(
            SourceFile(origin, origin.name, top, False, opaque=origin.name.endswith(_COMPILED))
        )
    if not files:
        raise NotFoundError(f"The package {package!r} has no Python files to parse.")
    version = info.get("version")
    return Checkout(
        name or package,
        package,
        "package",
        root,
        files,
        [package],
        str(version) if version else None,
    )


def _probe(interpreter: str, top: str) -> dict[str, Any]:
    try:
        done = subprocess.run(
            [interpreter, "-E", "-c", _PROBE, top], capture_output=True, text=True, timeout=60
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise InvalidInputError(f"Cannot run the interpreter {interpreter}: {exc}.") from exc
    try:
        return json.loads(done.stdout.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError) as exc:
        raise SourceError(
            f"The interpreter {interpreter} could not locate {top!r}: {done.stderr.strip()[-300:]}"
        ) from exc
