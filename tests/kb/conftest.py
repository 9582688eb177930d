"""Fixtures of the knowledgebase tests: documentation folders, a git repository with a
tag, a local OpenAI-compatible embedding server, and YAML configuration files."""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.embed.remote_api_server import EmbeddingAPI

API_KEY = "sk-kb-test-0123456789"

MANUAL = {
    "indexes.md": """# Indexes

Widgetbase builds B-tree indexes with the CREATE INDEX command. An index speeds up
lookups on the indexed columns at the cost of slower writes.

## Partial indexes

A partial index covers only the rows that satisfy its WHERE predicate, which keeps
the index small when most queries look at a few hot rows.
""",
    "vacuum.rst": """Vacuuming
=========

The VACUUM command reclaims storage occupied by dead tuples. Autovacuum runs it in
the background; tune autovacuum_naptime and autovacuum_vacuum_scale_factor to make
it run more or less often on busy tables.
""",
    "replication.html": """<html><head><title>Replication</title></head><body>
<h1>Replication</h1>
<p>Streaming replication ships the write-ahead log to standby servers. Set
<code>wal_level</code> to <code>replica</code> and list standbys in
<code>synchronous_standby_names</code> for synchronous commits.</p>
</body></html>
""",
    "config.sgml": """<sect1 id="runtime-config-memory">
<title>Memory settings</title>
<para>
The <varname>work_mem</varname> parameter sets the memory a sort or hash operation
may use before it spills to temporary files on disk.
</para>
</sect1>
""",
}

LOCAL_GUIDE = {
    "install.md": """# Installing the Gizmo agent

Download the gizmo-agent package, then run `gizmoctl enroll --token TOKEN` to join
the fleet. The agent reports heartbeats every thirty seconds.
""",
    "troubleshooting.md": """# Troubleshooting

When the dashboard shows a node as stale, restart the agent with
`gizmoctl restart` and check that port 7443 is open in the firewall.
""",
}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def write_tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        [
            "git",
            "-c",
            "user.name=Test",
            "-c",
            "user.email=test@example.com",
            "-c",
            "init.defaultBranch=main",
            *args,
        ],
        cwd=repo,
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout


@pytest.fixture
def git_repo(tmp_path: Path) -> Path:
    """A repository whose docs/ folder holds the manual; tag v1.0 says "thirty seconds"
    nowhere, and a later commit on main adds a page the tag does not have."""
    repo = tmp_path / "widgetbase"
    write_tree(repo / "docs", MANUAL)
    (repo / "README.md").write_text("# Widgetbase\n\nNot documentation.\n", encoding="utf-8")
    git(repo, "init", "--quiet")
    git(repo, "add", ".")
    git(repo, "commit", "--quiet", "-m", "manual 1.0")
    git(repo, "tag", "v1.0")
    write_tree(repo / "docs", {"sharding.md": "# Sharding\n\nSharding arrives in 2.0.\n"})
    git(repo, "add", ".")
    git(repo, "commit", "--quiet", "-m", "manual 2.0")
    return repo


@pytest.fixture
def local_guide(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "guide", LOCAL_GUIDE)


@pytest.fixture
def api() -> Iterator[EmbeddingAPI]:
    with EmbeddingAPI(api_key=API_KEY) as server:
        yield server


@pytest.fixture
def key_file(tmp_path: Path) -> Path:
    path = tmp_path / "openai.key"
    path.write_text(API_KEY + "\n", encoding="utf-8")
    return path


WriteConfig = Callable[..., Path]


@pytest.fixture
def write_config(tmp_path: Path) -> WriteConfig:
    """Write a configuration file; ``name`` picks the file, the rest is its content."""

    def write(data: dict[str, Any], name: str = "kb.yaml") -> Path:
        path = tmp_path / name
        path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
        return path

    return write


def openai_provider(api: EmbeddingAPI, key_file: Path, **extra: Any) -> dict[str, Any]:
    return {
        "provider": "openai",
        "model": "text-embedding-3-small",
        "api_key_file": str(key_file),
        "base_url": api.url,
        **extra,
    }
