"""Merging a re-scan into the profile without losing what people and the agent wrote.

A three-way merge: *ours* is the ``project.yaml`` on disk, *theirs* the fresh
scan, *base* the previous scan (kept in ``.context/last-scan.json``). A value
that differs from the previous scan was edited by someone and is kept; a value
still equal to it follows the code. Without a base (a hand-written file, or
the snapshot was deleted) every non-empty value on disk counts as edited.

Patterns, business rules and known issues never come from a scan, so they are
always kept. A module whose folder disappeared is dropped only if nobody wrote
anything into it; a module someone deleted from the file is not brought back.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TypeVar

from pydantic import ValidationError

from contextbase.project.profile import CONTEXT_DIR, ModuleContext, ProjectContext

SNAPSHOT_FILE = "last-scan.json"

T = TypeVar("T")


def snapshot_path(root: Path) -> Path:
    return root / CONTEXT_DIR / SNAPSHOT_FILE


def load_snapshot(root: Path) -> ProjectContext | None:
    """The previous scan, or ``None`` when missing or unreadable (the merge then keeps more)."""
    try:
        return ProjectContext.model_validate(json.loads(snapshot_path(root).read_text("utf-8")))
    except (OSError, ValueError, ValidationError):
        return None


def save_snapshot(root: Path, scanned: ProjectContext) -> None:
    path = snapshot_path(root)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(scanned.model_dump_json(indent=1, exclude_none=True), encoding="utf-8")


def _pick(ours: T, theirs: T, base: T | None, has_base: bool) -> T:
    if has_base:
        return ours if ours != base else theirs
    return ours if ours else theirs


def merge_profiles(
    ours: ProjectContext, theirs: ProjectContext, base: ProjectContext | None
) -> ProjectContext:
    """The profile after a re-scan: ``theirs`` wherever ``ours`` was not edited."""
    has_base = base is not None
    merged = theirs.model_copy(deep=True)
    merged.version = ours.version
    for section, fields in (
        ("project", ("name", "type")),
        ("tech", ("stack", "runtime", "package_manager")),
        ("architecture", ("pattern", "description")),
    ):
        mine, new = getattr(ours, section), getattr(merged, section)
        old = getattr(base, section) if base else None
        for name in fields:
            value = _pick(
                getattr(mine, name), getattr(new, name), getattr(old, name, None), has_base
            )
            setattr(new, name, value)
    merged.modules = _merge_modules(ours, theirs, base)
    merged.metadata.created_at = ours.metadata.created_at
    return merged


def _merge_modules(
    ours: ProjectContext, theirs: ProjectContext, base: ProjectContext | None
) -> dict[str, ModuleContext]:
    base_modules = base.modules if base else {}
    modules: dict[str, ModuleContext] = {}
    for key, mine in ours.modules.items():
        new = theirs.modules.get(key)
        old = base_modules.get(key)
        if new is None:
            edited = old is None or mine.has_knowledge() or mine.description != old.description
            if edited or base is None:
                modules[key] = mine
            continue
        modules[key] = _merge_module(mine, new, old)
    for key, new in theirs.modules.items():
        deleted_by_someone = key in base_modules and key not in ours.modules
        if key not in modules and not deleted_by_someone:
            modules[key] = new
    return modules


def _merge_module(
    mine: ModuleContext, new: ModuleContext, old: ModuleContext | None
) -> ModuleContext:
    """Scanned fields follow the code unless edited; people's knowledge is kept as is."""
    merged = mine.model_copy(deep=True)
    for name in ("description", "path", "key_files", "dependencies"):
        previous = getattr(old, name) if old is not None else None
        value = _pick(getattr(mine, name), getattr(new, name), previous, old is not None)
        setattr(merged, name, value)
    notes = {kf.path: kf.description for kf in mine.key_files if kf.description}
    for key_file in merged.key_files:
        key_file.description = key_file.description or notes.get(key_file.path)
    return merged
