"""Sources: a git repository (shallow clone), a folder, an installed package of an interpreter."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from contextbase.codegraph import CodeGraph
from contextbase.codegraph.sources import classify, clone, package_checkout
from contextbase.errors import InvalidInputError, NotFoundError, SourceError
from tests.codegraph.conftest import SHOP, write_tree

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=cwd, check=True, capture_output=True,
    )  # fmt: skip


@needs_git
def test_a_git_repository_is_shallow_cloned_into_the_cache(
    graph: CodeGraph, tmp_path: Path
) -> None:
    origin = write_tree(tmp_path / "origin", {**SHOP, "README.md": "# shop\n"})
    _git(origin, "init", "-q")
    _git(origin, "add", ".")
    _git(origin, "commit", "-qm", "first")
    (origin / "shop" / "extra.py").write_text("def later() -> None: ...\n")
    _git(origin, "add", ".")
    _git(origin, "commit", "-qm", "second")
    url = (origin).as_uri()
    repo = graph.parse(url, kind="git")
    assert repo.source_kind == "git" and repo.name == "origin" and repo.version
    assert repo.roots == ["shop"] and repo.file_count == 7
    clones = list((tmp_path / "cache" / "git").rglob(".git"))
    assert len(clones) == 1
    depth = subprocess.run(["git", "-C", str(clones[0].parent), "rev-list", "--count", "HEAD"],
                           capture_output=True, text=True, check=True)  # fmt: skip
    assert depth.stdout.strip() == "1"  # shallow
    again = graph.parse(url, kind="git")  # re-parse: clone replaced, graph replaced
    assert again.file_count == 7 and len(graph.repositories()) == 1
    analysis = graph.check("from shop.extra import later, sooner\n")
    assert [f.status for f in analysis.findings] == ["valid", "not_found"]


@needs_git
def test_bad_git_urls_fail_with_one_sentence(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError):
        clone("--upload-pack=touch /tmp/x", tmp_path)
    with pytest.raises(InvalidInputError):
        clone("ext::sh -c touch% /tmp/pwned", tmp_path)
    with pytest.raises(SourceError, match="could not clone"):
        clone((tmp_path / "missing").as_uri(), tmp_path)


def test_sources_are_classified() -> None:
    assert classify("https://github.com/encode/httpx.git") == "git"
    assert classify("git@github.com:encode/httpx.git") == "git"
    assert classify("httpx") == classify("google.cloud.storage") == "package"
    assert classify("./httpx") == classify("/abs/path") == classify("~/code") == "folder"


def test_an_installed_package_is_read_from_the_interpreters_site_packages() -> None:
    checkout = package_checkout("click", python=sys.executable)
    import importlib.metadata

    import click

    assert checkout.version == importlib.metadata.version("click")
    assert Path(click.__file__).parent == checkout.root / "click"
    assert {"click", "click.core", "click.decorators"} <= {f.module for f in checkout.files}
    single = package_checkout("typing_extensions")
    assert [f.module for f in single.files] == ["typing_extensions"]
    with pytest.raises(NotFoundError, match="not installed"):
        package_checkout("surely_not_installed_pkg")
    with pytest.raises(InvalidInputError):
        package_checkout("not a name")
    with pytest.raises(InvalidInputError, match="interpreter"):
        package_checkout("click", python="/nonexistent/python")


def test_a_missing_folder_is_not_found(graph: CodeGraph, tmp_path: Path) -> None:
    with pytest.raises(NotFoundError):
        graph.parse(str(tmp_path / "nowhere"), kind="folder")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(NotFoundError, match="No Python files"):
        graph.parse(str(empty))
