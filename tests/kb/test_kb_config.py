"""kb-builder configuration: defaults, relative paths, and one clear message per mistake."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from contextbase.errors import ConfigError
from contextbase.kb.build import make_embedders
from contextbase.kb.config import load_config
from tests.kb.conftest import WriteConfig


def _valid(folder: Path) -> dict[str, Any]:
    return {
        "embeddings": {"providers": [{"provider": "fake"}]},
        "sources": [{"local_path": str(folder), "project_name": "Guide", "project_version": "1.0"}],
    }


def test_relative_paths_follow_the_config_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, local_guide: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    config = tmp_path / "conf" / "kb.yaml"
    config.parent.mkdir()
    config.write_text(
        "output: out/kb.db\nembeddings: {providers: [{provider: fake}]}\n"
        "sources:\n  - {local_path: ../guide, project_name: Guide, project_version: 3}\n",
        encoding="utf-8",
    )
    loaded = load_config(config)
    assert loaded.config.sources[0].local_path == local_guide.resolve()
    assert loaded.config.sources[0].project_version == "3"
    assert loaded.config.doc_source == config.parent / "doc-source"
    assert loaded.output() == config.parent / "out" / "kb.db"
    # --output is a command-line path: relative to the current directory, and it wins.
    assert loaded.output("mine.db") == elsewhere / "mine.db"


def test_default_output_and_config_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, local_guide: Path, write_config: WriteConfig
) -> None:
    write_config(_valid(local_guide), name="pgedge-nla-kb-builder.yaml")
    monkeypatch.chdir(tmp_path)
    loaded = load_config()
    assert loaded.output() == tmp_path / "pgedge-nla-kb.db"
    monkeypatch.chdir(local_guide)
    with pytest.raises(ConfigError, match=r"pgedge-nla-kb-builder\.yaml does not exist; pass"):
        load_config()


BAD_CONFIGS = [
    ("missing sources", lambda d: d.pop("sources"), r"'sources' is missing"),
    (
        "missing project name",
        lambda d: d["sources"][0].pop("project_name"),
        r"'sources\[0\]\.project_name' is missing",
    ),
    ("missing embeddings", lambda d: d.pop("embeddings"), r"'embeddings' is missing"),
    (
        "unknown provider",
        lambda d: d["embeddings"]["providers"].append({"provider": "cohere"}),
        r"at 'embeddings\.providers\[1\]\.provider': unknown provider 'cohere'; choose one of",
    ),
    (
        "unknown key",
        lambda d: d["sources"][0].update(branchh="main"),
        r"'sources\[0\]\.branchh' is not a known setting",
    ),
    (
        "two kinds of source",
        lambda d: d["sources"][0].update(git_url="file:///x"),
        r"at 'sources\[0\]': a source needs exactly one of git_url or local_path",
    ),
    (
        "branch and tag",
        lambda d: d["sources"].append(
            {
                "git_url": "file:///x",
                "branch": "a",
                "tag": "b",
                "project_name": "X",
                "project_version": "1",
            }
        ),
        r"at 'sources\[1\]': give a branch or a tag, not both",
    ),
    (
        "float version",
        lambda d: d["sources"][0].update(project_version=9.6),
        r"at 'sources\[0\]\.project_version': write the version in quotes \('9\.6'\)",
    ),
    (
        "option of another provider",
        lambda d: d["embeddings"]["providers"][0].update(endpoint="http://x"),
        r"endpoint does not apply to the fake provider",
    ),
    (
        "escaping docs path",
        lambda d: d["sources"].append(
            {
                "git_url": "file:///x",
                "docs_path": "../etc",
                "project_name": "X",
                "project_version": "1",
            }
        ),
        r"docs_path must be a relative path inside the repository",
    ),
    (
        "duplicate version",
        lambda d: d["sources"].append(dict(d["sources"][0])),
        r"Guide 1\.0 is declared by two sources",
    ),
    ("no sources", lambda d: d.update(sources=[]), r"at 'sources': List should have at least 1"),
]


@pytest.mark.parametrize(
    ("change", "message"), [c[1:] for c in BAD_CONFIGS], ids=[c[0] for c in BAD_CONFIGS]
)
def test_bad_config_names_the_field(
    change: Any, message: str, local_guide: Path, write_config: WriteConfig
) -> None:
    data = _valid(local_guide)
    change(data)
    path = write_config(data)
    with pytest.raises(ConfigError, match=message) as caught:
        load_config(path)
    text = str(caught.value)
    assert str(path) in text and "\n" not in text


def test_source_path_missing(tmp_path: Path, local_guide: Path, write_config: WriteConfig) -> None:
    data = _valid(local_guide)
    data["sources"].append(
        {"local_path": "no-such-docs", "project_name": "Other", "project_version": "1"}
    )
    with pytest.raises(
        ConfigError,
        match=(
            rf"at 'sources\[1\]\.local_path': the folder {tmp_path}/no-such-docs does not exist\.$"
        ),
    ):
        load_config(write_config(data))


def test_unreadable_key_file(tmp_path: Path, local_guide: Path, write_config: WriteConfig) -> None:
    data = _valid(local_guide)
    data["embeddings"]["providers"] = [{"provider": "openai", "api_key_file": "missing.key"}]
    with pytest.raises(
        ConfigError,
        match=(
            r"at 'embeddings\.providers\[0\]\.api_key_file': cannot read the key file "
            rf"{tmp_path}/missing\.key \(No such file or directory\)\.$"
        ),
    ):
        load_config(write_config(data))
    (tmp_path / "empty.key").write_text("\n", encoding="utf-8")
    data["embeddings"]["providers"] = [{"provider": "voyage", "api_key_file": "empty.key"}]
    with pytest.raises(ConfigError, match=r"providers\[0\]\.api_key_file': the key file .* empty"):
        load_config(write_config(data))


def test_provider_without_key_names_the_provider(
    local_guide: Path, write_config: WriteConfig, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("VOYAGE_API_KEY", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    data = _valid(local_guide)
    data["embeddings"]["providers"].append({"provider": "voyage"})
    loaded = load_config(write_config(data))
    with pytest.raises(ConfigError, match=r"at 'embeddings\.providers\[1\]': No Voyage API key"):
        make_embedders(loaded)


def test_unknown_source_selection(local_guide: Path, write_config: WriteConfig) -> None:
    loaded = load_config(write_config(_valid(local_guide)))
    assert [s.name for s in loaded.config.select(["guide@1.0"])] == ["Guide 1.0"]
    with pytest.raises(ConfigError, match="No source is named 'Manual'; the sources are: Guide"):
        loaded.config.select(["Manual"])


def test_cli_prints_one_sentence(
    tmp_path: Path, local_guide: Path, write_config: WriteConfig
) -> None:
    data = _valid(local_guide)
    data["embeddings"]["providers"][0]["provider"] = "cohere"
    path = write_config(data)
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from contextbase.kb.cli import main; main()",
            "--config",
            str(path),
        ],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("Error: Configuration error in")
    assert "'embeddings.providers[0].provider': unknown provider 'cohere'" in lines[0]
