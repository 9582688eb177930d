"""A knowledgebase embedded by the real local model, searched by meaning."""

from __future__ import annotations

from pathlib import Path

import pytest

from contextbase.embed.fake import FakeEmbedder
from contextbase.embed.local import LocalEmbedder
from contextbase.kb.build import build
from contextbase.kb.config import load_config
from contextbase.kb.search import KnowledgebaseSearch, local_fallback
from tests.kb.conftest import MANUAL, WriteConfig, write_tree

pytestmark = pytest.mark.model


def test_local_model_build_and_fallback_search(
    tmp_path: Path, local_guide: Path, local_embedder: LocalEmbedder, write_config: WriteConfig
) -> None:
    manual = write_tree(tmp_path / "manual", MANUAL)
    config = write_config(
        {
            "embeddings": {"providers": [{"provider": "local"}, {"provider": "fake"}]},
            "sources": [
                {"local_path": str(manual), "project_name": "Widgetbase", "project_version": "1"},
                {"local_path": str(local_guide), "project_name": "Gizmo", "project_version": "1"},
            ],
        }
    )
    summary = build(load_config(config), embedders=[local_embedder, FakeEmbedder()])
    local = next(p for p in summary.providers if p.provider.startswith("local:"))
    assert local.provider == "local:all-MiniLM-L6-v2 (384-d)"
    assert local.vectors == summary.chunks and local.tokens is None

    # This deployment embeds with a provider the file lacks; the file also has the
    # local model's space, and the model is installed: the search uses it.
    kb = KnowledgebaseSearch([summary.output], FakeEmbedder(32), fallback=local_fallback)
    answer = kb.search("tidying away obsolete records", top_n=1)
    assert answer.methods == [
        "pgedge-nla-kb.db: hybrid (keyword + vectors of local:all-MiniLM-L6-v2 (384-d))"
    ]
    assert answer.hits[0].title == "Vacuuming"
    memory = kb.search("how much RAM may sorting use", top_n=1)
    assert memory.hits[0].title == "Memory settings"
    kb.close()
