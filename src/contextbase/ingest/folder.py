"""A local folder as a documentation source."""

from __future__ import annotations

import fnmatch
import logging
import os
from collections.abc import Iterator, Sequence
from pathlib import Path

from contextbase.errors import SourceError
from contextbase.ingest.files import SourceFile
from contextbase.parse import SUPPORTED_SUFFIXES

log = logging.getLogger("contextbase.ingest")

SKIPPED_DIRS = frozenset(
    {".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "venv", ".tox", "site-packages"}
)
MAX_FILE_BYTES = 20 * 1024 * 1024


def iter_folder(
    root: str | Path,
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    source_type: str = "file",
) -> Iterator[SourceFile]:
    """Yield the documentation files under ``root``, sorted, as SourceFiles.

    ``include``/``exclude`` are glob patterns on the path relative to ``root``
    (``docs/**/*.md``, ``*/legacy/*``). Without ``include``, files with a
    supported suffix (and suffix-less text files) are taken. Unreadable files are
    skipped with a warning.
    """
    base = Path(root).expanduser()
    if not base.exists():
        raise SourceError(f"The folder {base} does not exist.")
    if base.is_file():
        yield from _read(base, base.name, source_type, base.parent.resolve())
        return
    root_path = base.resolve()
    for path in sorted(_walk(base)):
        relative = path.relative_to(base).as_posix()
        if exclude and any(fnmatch.fnmatch(relative, pattern) for pattern in exclude):
            continue
        if include:
            if not any(fnmatch.fnmatch(relative, pattern) for pattern in include):
                continue
        elif path.suffix.lower() not in SUPPORTED_SUFFIXES and path.suffix:
            continue
        yield from _read(path, relative, source_type, root_path)


def _walk(base: Path) -> Iterator[Path]:
    for directory, dirs, files in os.walk(base):
        dirs[:] = [d for d in dirs if d not in SKIPPED_DIRS and not d.startswith(".")]
        for name in files:
            if not name.startswith("."):
                yield Path(directory) / name


def _read(path: Path, relative: str, source_type: str, root: Path) -> Iterator[SourceFile]:
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            log.warning("Skipped %s: larger than %d MB.", relative, MAX_FILE_BYTES >> 20)
            return
        data = path.read_bytes()
    except OSError as exc:
        log.warning("Skipped %s: %s", relative, exc.strerror or exc)
        return
    yield SourceFile(
        source=relative, data=data, source_type=source_type, metadata={"root": str(root)}
    )
