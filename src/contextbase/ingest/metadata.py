"""Library metadata read from the source itself: pyproject.toml, package.json,
Cargo.toml and the README's first paragraph."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

_README_NAMES = ("README.md", "README.rst", "README.txt", "README", "readme.md")


def detect_metadata(root: str | Path) -> dict[str, Any]:
    """Library fields found in a folder (empty when nothing is there).

    Looks in ``root`` and, for a docs folder inside a project, in its parent.
    Keys are ``Library`` field names plus ``version`` (the package version).
    """
    base = Path(root).expanduser()
    if base.is_file():
        base = base.parent
    for folder in (base, base.parent):
        found = _from_manifests(folder)
        if found:
            found.setdefault("short_description", _readme_paragraph(folder))
            return {k: v for k, v in found.items() if v}
    description = _readme_paragraph(base)
    return {"short_description": description} if description else {}


def _from_manifests(folder: Path) -> dict[str, Any]:
    pyproject = folder / "pyproject.toml"
    if pyproject.is_file():
        data = _toml(pyproject).get("project") or _toml(pyproject).get("tool", {}).get("poetry")
        if data:
            urls = {k.lower(): v for k, v in (data.get("urls") or {}).items()}
            return {
                "name": data.get("name"),
                "version": data.get("version"),
                "short_description": data.get("description") or "",
                "keywords": list(data.get("keywords") or []),
                "license": _license(data.get("license")),
                "homepage_url": urls.get("homepage") or urls.get("documentation"),
                "repository_url": urls.get("repository") or urls.get("source"),
                "language": "Python",
                "ecosystem": "pypi",
            }
    package_json = folder / "package.json"
    if package_json.is_file():
        try:
            data = json.loads(package_json.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            data = {}
        if isinstance(data, dict) and data.get("name"):
            repository = data.get("repository")
            if isinstance(repository, dict):
                repository = repository.get("url")
            return {
                "name": data.get("name"),
                "version": data.get("version"),
                "short_description": data.get("description") or "",
                "keywords": [k for k in data.get("keywords") or [] if isinstance(k, str)],
                "license": _license(data.get("license")),
                "homepage_url": data.get("homepage"),
                "repository_url": repository if isinstance(repository, str) else None,
                "language": "TypeScript" if (folder / "tsconfig.json").exists() else "JavaScript",
                "ecosystem": "npm",
            }
    cargo = folder / "Cargo.toml"
    if cargo.is_file():
        data = _toml(cargo).get("package") or {}
        if data.get("name"):
            return {
                "name": data.get("name"),
                "version": data.get("version") if isinstance(data.get("version"), str) else None,
                "short_description": data.get("description") or "",
                "keywords": list(data.get("keywords") or []),
                "license": _license(data.get("license")),
                "homepage_url": data.get("homepage") or data.get("documentation"),
                "repository_url": data.get("repository"),
                "language": "Rust",
                "ecosystem": "crates.io",
            }
    return {}


def _toml(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _license(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return value.get("text") or value.get("type")
    return None


def _readme_paragraph(folder: Path) -> str:
    for name in _README_NAMES:
        path = folder / name
        if path.is_file():
            try:
                text = path.read_text(encoding="utf-8", errors="replace")
            except OSError:
                return ""
            for block in re.split(r"\n\s*\n", text):
                line = " ".join(block.split())
                if line and not line.startswith(("#", "<", "[!", "!", "=", "-", "*", "..", "|")):
                    return re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", line)[:300]
    return ""
