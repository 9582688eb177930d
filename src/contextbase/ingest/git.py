"""Git repositories as documentation sources: a shallow clone kept in a cache folder.

A branch or tag is cloned with ``--depth 1`` into ``<cache>/<host>/<path>@<ref>``
and updated (fetch + hard reset) on later runs. Local paths and ``file://`` URLs
work as well as remote ones. Git runs as a subprocess with a bounded time and
no prompts, so a bad URL fails fast with one sentence instead of hanging.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

from contextbase.errors import InvalidInputError, SourceError

GIT_TIMEOUT = 600
_SCHEMES = ("http://", "https://", "ssh://", "git://", "file://", "git@")


@dataclass(frozen=True)
class Checkout:
    url: str
    ref: str | None
    path: Path
    commit: str

    def source_url(self, relative: str) -> str:
        """How a file of this checkout is recorded: repository URL, ref and path.

        Without a ref the default branch is named ``HEAD`` (as forges accept it),
        not the commit, so a file's source stays the same across updates.
        """
        ref = self.ref or "HEAD"
        return f"{self.url.removesuffix('.git')}/blob/{ref}/{relative}"


def is_git_url(text: str) -> bool:
    if text.startswith(_SCHEMES):
        return (
            text.startswith(("git@", "file://", "ssh://", "git://"))
            or text.endswith(".git")
            or _is_forge(text)
        )
    return (Path(text).expanduser() / ".git").exists()


def _is_forge(url: str) -> bool:
    host = urlparse(url).hostname or ""
    parts = [p for p in urlparse(url).path.split("/") if p]
    return host in {"github.com", "gitlab.com", "bitbucket.org", "codeberg.org"} and len(parts) == 2


def cache_path(cache: Path, url: str, ref: str | None) -> Path:
    parsed = urlparse(url if "://" in url else f"ssh://{url.replace(':', '/', 1)}")
    where = f"{parsed.hostname or 'local'}{parsed.path}".removesuffix(".git")
    safe = re.sub(r"[^A-Za-z0-9._/-]+", "_", where).strip("/").replace("..", "_")
    return cache / f"{safe}@{re.sub(r'[^A-Za-z0-9._-]+', '_', ref or 'HEAD')}"


def checkout(url: str, ref: str | None, cache: str | Path) -> Checkout:
    """Clone (or update) ``url`` at ``ref`` (branch or tag; default branch if None)."""
    if not url or url.startswith("-"):
        raise InvalidInputError(f"{url!r} is not a git repository URL or path.")
    if ref is not None and (not ref or ref.startswith("-") or ".." in ref):
        raise InvalidInputError(f"{ref!r} is not a valid branch or tag name.")
    local = Path(url).expanduser()
    if "://" not in url and not url.startswith("git@") and local.exists():
        url = local.resolve().as_uri()
    dest = cache_path(Path(cache).expanduser(), url, ref)
    if (dest / ".git").exists():
        _update(dest, url, ref)
    else:
        _clone(dest, url, ref)
    commit = _git(["rev-parse", "HEAD"], cwd=dest).strip()
    return Checkout(url=url, ref=ref, path=dest, commit=commit)


def _clone(dest: Path, url: str, ref: str | None) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    partial = dest.with_name(dest.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    args = ["clone", "--depth", "1", "--quiet"]
    if ref:
        args += ["--branch", ref]
    _git([*args, "--", url, str(partial)])
    partial.rename(dest)


def _update(dest: Path, url: str, ref: str | None) -> None:
    target = ref or "HEAD"
    _git(["fetch", "--depth", "1", "--quiet", "--force", "--", url, target], cwd=dest)
    _git(["reset", "--hard", "--quiet", "FETCH_HEAD"], cwd=dest)
    _git(["clean", "-fdq"], cwd=dest)


def _git(args: list[str], cwd: Path | None = None) -> str:
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "true"}
    try:
        done = subprocess.run(
            ["git", *args],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT,
            check=False,
        )
    except FileNotFoundError as exc:
        raise SourceError("git is not installed; install git to index repositories.") from exc
    except subprocess.TimeoutExpired as exc:
        raise SourceError(f"git {args[0]} took longer than {GIT_TIMEOUT} s.") from exc
    if done.returncode != 0:
        reason = (done.stderr.strip().splitlines() or ["unknown error"])[-1]
        raise SourceError(f"git {args[0]} failed: {reason.removeprefix('fatal: ')}")
    return done.stdout
