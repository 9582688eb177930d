"""What a source yields: one raw file or page."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any


@dataclass
class SourceFile:
    """One file or page from a source, before parsing.

    ``source`` identifies the document within its library version: a path
    relative to the folder, or a URL. ``checksum`` covers the raw bytes, so an
    unchanged file is recognised without parsing it.
    """

    source: str
    data: bytes
    source_type: str = "file"
    content_type: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    unchanged: bool = False
    """The source knows the stored copy is current (an HTTP 304, or a passing
    failure that should not delete the page): the Indexer keeps the stored
    document as it is, and ``data`` may be empty."""

    @property
    def checksum(self) -> str:
        return hashlib.sha256(self.data).hexdigest()
