"""Project memory search with the real local model (all-MiniLM-L6-v2)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from contextbase.project.service import ProjectService
from tests.project.conftest import SHOP, write_tree

pytestmark = pytest.mark.model

DISCOVERIES = [
    ("decision", "Chose SQLite in WAL mode because it needs no separate server process"),
    ("issue", "Payment webhooks arrive twice after a timeout, fixed by an idempotency key"),
    ("pattern", "The user interface is styled with Tailwind utility classes only"),
    ("rule", "Passwords are hashed with argon2id and never logged"),
]


def test_meaning_finds_discoveries_without_shared_words(
    tmp_path: Path, local_embedder: Any
) -> None:
    shop = write_tree(tmp_path / "shop", SHOP)
    service = ProjectService(shop, embedder=local_embedder)
    for kind, content in DISCOVERIES:
        service.save_discovery(kind, content)
    for query, expected in [
        ("which database engine did we pick", DISCOVERIES[0][1]),
        ("how are components made to look nice", DISCOVERIES[2][1]),
        ("credential storage security", DISCOVERIES[3][1]),
    ]:
        hits = service.search_project_memory(query, 5)
        found = [h.item.content for h in hits if h.item.type == "discovery"]
        assert found[0] == expected, query
    stored = service.list_discoveries()
    assert all("all-MiniLM-L6-v2" in (d.embedding_model or "") for d in stored)
    service.close()
