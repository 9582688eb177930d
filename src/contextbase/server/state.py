"""What the server's tools share: settings and lazily opened resources.

Nothing heavy happens at start-up: the database opens on the first tool call
that needs it and the embedding model loads on the first call that embeds,
so ``initialize`` is answered at once.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar

from contextbase.config import Settings
from contextbase.embed import Embedder, configured_embedder
from contextbase.store.db import Database

T = TypeVar("T")


class ServerState:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._lock = threading.RLock()
        self._db: Database | None = None
        self._embedder: Embedder | None = None
        self._embedder_loaded = False
        self._features: dict[str, Any] = {}

    @property
    def db(self) -> Database:
        with self._lock:
            if self._db is None:
                self._db = Database(self.settings.db)
            return self._db

    @property
    def embedder(self) -> Embedder | None:
        """The configured embedder, or ``None`` in keyword-only mode."""
        with self._lock:
            if not self._embedder_loaded:
                self._embedder = configured_embedder(
                    self.settings.embedder, **self.settings.embedder_options
                )
                self._embedder_loaded = True
            return self._embedder

    def feature(self, name: str, factory: Callable[[ServerState], T]) -> T:
        """A feature object built once, on first use, from this state."""
        with self._lock:
            if name not in self._features:
                self._features[name] = factory(self)
            return self._features[name]

    def close(self) -> None:
        with self._lock:
            for feature in self._features.values():
                close = getattr(feature, "close", None)
                if callable(close):
                    close()
            self._features.clear()
            if self._db is not None:
                self._db.close()
                self._db = None
