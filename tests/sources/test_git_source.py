"""Git repositories the tests create: tags, branches, updates, a docs folder, metadata."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from contextbase.config import load_settings
from contextbase.embed import get_embedder
from contextbase.errors import InvalidInputError, SourceError
from contextbase.ingest import git
from contextbase.ingest.sources import AddResult, SourceSpec, add_source, source_kind
from contextbase.store.db import Database

GUIDE = """# Guide

Configure the client before the first request.

## Retries

Retry a request with exponential backoff when the server is busy:

```python
import time

def fetch_with_retries(client, url, attempts=5):
    delay = 0.5
    for attempt in range(attempts):
        response = client.get(url)
        if response.status_code != 503:
            return response
        time.sleep(delay)
        delay *= 2
    raise RuntimeError(f"{url} stayed unavailable")
```

The delay doubles after each failure.
"""


def run(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = tmp_path / "gitdemo"
    (repo / "docs").mkdir(parents=True)
    (repo / "pyproject.toml").write_text(
        '[project]\nname = "gitdemo"\nversion = "1.0.0"\n'
        'description = "A demo client library."\nkeywords = ["http"]\n'
    )
    (repo / "README.md").write_text("# gitdemo\n\nA demo client library for tests.\n")
    (repo / "docs" / "guide.md").write_text(GUIDE)
    (repo / "docs" / "api.md").write_text("# API\n\nThe `Client` class sends requests.\n")
    (repo / "src.py").write_text("print('not documentation')\n")
    run(repo, "init", "--quiet", "--initial-branch", "main")
    run(repo, "-c", "user.name=t", "-c", "user.email=t@example.org", "add", ".")
    run(repo, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-qm", "v1")
    run(repo, "tag", "v1.0")
    return repo


def commit(repo: Path, message: str) -> None:
    run(repo, "add", "-A")
    run(repo, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-qm", message)


def add(db: Database, location: str, **spec: object) -> AddResult:
    settings = load_settings(db=db.path)
    return add_source(
        db,
        settings,
        SourceSpec(location, **spec),  # type: ignore[arg-type]
        embedders=[get_embedder("fake")],
    )


def sources(db: Database, version: str) -> set[str]:
    rows = db.query("SELECT source FROM documents WHERE version = ?", (version,))
    return {row["source"] for row in rows}


def test_a_tag_of_a_file_url_repository_is_indexed_with_its_metadata(
    repo: Path, tmp_path: Path, private_home: Path
) -> None:
    db = Database(tmp_path / "git.db")
    url = repo.as_uri()
    result = add(db, url, ref="v1.0", path="docs")
    assert result.kind == "git"
    assert result.library.context7_id == "/pypi/gitdemo"
    assert result.library.short_description == "A demo client library."
    assert result.version == "v1.0"
    assert sources(db, "v1.0") == {f"{url}/blob/v1.0/docs/guide.md", f"{url}/blob/v1.0/docs/api.md"}
    assert result.code_examples == 1
    assert result.source is not None
    assert result.source.source_id == str(repo)
    assert result.source.kind == "git"
    assert result.source.metadata["ref"] == "v1.0"
    assert (private_home / "doc-source").is_dir()


def test_a_branch_is_updated_on_rerun(repo: Path, tmp_path: Path) -> None:
    db = Database(tmp_path / "git.db")
    url = repo.as_uri()
    add(db, url, ref="main", path="docs")
    (repo / "docs" / "api.md").unlink()
    (repo / "docs" / "howto.md").write_text("# How-to\n\nSend a request with the client.\n")
    (repo / "docs" / "guide.md").write_text(GUIDE.replace("doubles", "grows"))
    commit(repo, "v2 docs")
    again = add(db, url, ref="main", path="docs")
    assert sources(db, "main") == {
        f"{url}/blob/main/docs/guide.md",
        f"{url}/blob/main/docs/howto.md",
    }
    assert again.report.indexed == 2 and again.report.removed == 1
    texts = " ".join(r["text"] for r in db.query("SELECT text FROM chunks WHERE version='main'"))
    assert "grows" in texts and "doubles" not in texts
    # the tag still holds the old text
    add(db, url, ref="v1.0", path="docs")
    assert f"{url}/blob/v1.0/docs/api.md" in sources(db, "v1.0")


def test_the_default_branch_keeps_stable_sources(repo: Path, tmp_path: Path) -> None:
    db = Database(tmp_path / "git.db")
    url = repo.as_uri()
    add(db, url, path="docs", version="")
    (repo / "docs" / "api.md").write_text("# API\n\nChanged.\n")
    commit(repo, "change")
    again = add(db, url, path="docs", version="")
    assert again.report.indexed == 1 and again.report.unchanged == 1
    assert f"{url}/blob/HEAD/docs/guide.md" in sources(db, "")


def test_local_paths_are_folders_unless_a_ref_is_given(repo: Path) -> None:
    assert source_kind(str(repo)) == "folder"
    assert source_kind(str(repo), ref="v1.0") == "git"
    assert source_kind(repo.as_uri()) == "git"
    assert source_kind("https://github.com/org/repo") == "git"
    assert source_kind("https://docs.example.org/guide/") == "web"
    assert git.is_git_url("https://example.org/some/repo.git")


def test_bad_refs_and_paths_fail_with_one_sentence(repo: Path, tmp_path: Path) -> None:
    db = Database(tmp_path / "git.db")
    with pytest.raises(SourceError, match="git clone failed"):
        add(db, repo.as_uri(), ref="no-such-tag")
    with pytest.raises(InvalidInputError, match="outside"):
        add(db, repo.as_uri(), ref="v1.0", path="../..")
    with pytest.raises(InvalidInputError):
        git.checkout(repo.as_uri(), "--upload-pack=evil", tmp_path / "cache")
