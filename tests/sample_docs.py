"""Small real documentation samples for tests, copied from ../shared/corpora."""

from __future__ import annotations

import shutil
from pathlib import Path

NUMPY_PAGES = [
    "numpy.vstack",
    "numpy.hstack",
    "numpy.concatenate",
    "numpy.stack",
    "numpy.reshape",
    "numpy.zeros",
    "numpy.ones",
    "numpy.arange",
    "numpy.linspace",
    "numpy.argsort",
    "numpy.sort",
    "numpy.unique",
    "numpy.where",
    "numpy.transpose",
    "numpy.dot",
    "numpy.mean",
    "numpy.median",
    "numpy.std",
    "numpy.cumsum",
    "numpy.clip",
]


def copy_numpy_sample(shared: Path, dest: Path) -> Path:
    """About twenty NumPy reference pages (DevDocs HTML) under ``dest``."""
    source = shared / "corpora" / "devdocs-html" / "numpy~1.22" / "reference" / "generated"
    target = dest / "numpy~1.22" / "reference" / "generated"
    target.mkdir(parents=True, exist_ok=True)
    for name in NUMPY_PAGES:
        shutil.copy(source / f"{name}.html", target / f"{name}.html")
    return dest / "numpy~1.22"


def copy_fastapi_sample(shared: Path, dest: Path, count: int = 12) -> Path:
    """A dozen FastAPI tutorial pages (MkDocs Markdown) under ``dest``."""
    source = shared / "corpora" / "fastapi-md" / "tutorial"
    target = dest / "fastapi"
    target.mkdir(parents=True, exist_ok=True)
    for path in sorted(source.glob("*.md"))[:count]:
        shutil.copy(path, target / path.name)
    return target
