"""The MCP Inspector's CLI mode (a second, independent MCP client) against the server."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(shutil.which("npx") is None, reason="Node.js (npx) is missing")


def _inspector(db: Path, *method: str) -> dict:  # type: ignore[type-arg]
    done = subprocess.run(
        [
            "npx",
            "-y",
            "@modelcontextprotocol/inspector",
            "--cli",
            sys.executable,
            "-m",
            "contextbase",
            "serve",
            "--db",
            str(db),
            "--tools",
            "docs",
            "--embedder",
            "fake",
            *method,
        ],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ},
    )
    if done.returncode != 0 and "ENOTFOUND" in done.stderr + done.stdout:
        pytest.skip("the npm registry is not reachable")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_inspector_lists_and_calls_tools(numpy_db: Path) -> None:
    listed = _inspector(numpy_db, "--method", "tools/list")
    assert {"resolve-library-id", "query-docs"} <= {t["name"] for t in listed["tools"]}
    called = _inspector(
        numpy_db,
        "--method",
        "tools/call",
        "--tool-name",
        "query-docs",
        "--tool-arg",
        "libraryId=/pypi/numpy",
        "--tool-arg",
        "query=vstack arrays vertically",
    )
    assert not called.get("isError")
    assert "numpy.vstack" in called["content"][0]["text"]
