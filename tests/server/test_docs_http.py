"""The documentation tools over streamable HTTP, with and without a bearer token."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import httpx2
import pytest
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client

pytestmark = pytest.mark.anyio


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _start(db: Path, *extra: str) -> tuple[subprocess.Popen[bytes], str]:
    port = _free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "contextbase",
            "serve",
            "--transport",
            "http",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--db",
            str(db),
            "--tools",
            "docs",
            "--embedder",
            "fake",
            *extra,
        ],
        env={**os.environ},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return proc, f"http://127.0.0.1:{port}/mcp"
        except OSError:
            if proc.poll() is not None:
                message = proc.stderr.read().decode() if proc.stderr else "server died"
                raise RuntimeError(message) from None
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError("server did not start")


@pytest.fixture
def server(numpy_db: Path) -> Iterator[str]:
    proc, url = _start(numpy_db)
    yield url
    proc.terminate()
    proc.wait(timeout=10)


@pytest.fixture
def token_server(numpy_db: Path) -> Iterator[str]:
    proc, url = _start(numpy_db, "--token", "s3cret-token")
    yield url
    proc.terminate()
    proc.wait(timeout=10)


async def test_query_over_http(server: str) -> None:
    async with Client(server) as client:
        result = await client.call_tool(
            "query-docs", {"libraryId": "/pypi/numpy", "query": "join arrays along an axis"}
        )
        assert not result.is_error
        assert "numpy.concatenate" in result.content[0].text


async def test_token_required(token_server: str) -> None:
    denied = httpx.post(token_server, json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
    assert denied.status_code == 401
    wrong = httpx.post(token_server, json={}, headers={"Authorization": "Bearer nope"})
    assert wrong.status_code == 401
    headers = {"Authorization": "Bearer s3cret-token"}
    async with (
        httpx2.AsyncClient(headers=headers) as http,
        Client(streamable_http_client(token_server, http_client=http)) as client,
    ):
        names = {t.name for t in (await client.list_tools()).tools}
        assert "resolve-library-id" in names


def test_non_loopback_needs_token(numpy_db: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "contextbase",
            "serve",
            "--transport",
            "http",
            "--host",
            "0.0.0.0",
            "--port",
            str(_free_port()),
            "--db",
            str(numpy_db),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ},
    )
    assert done.returncode == 1
    assert "bearer token" in done.stderr and "Traceback" not in done.stderr
