"""Building and running the MCP server.

``build_server`` registers the enabled tool groups; ``serve`` runs it over
stdio or streamable HTTP. Nothing heavy is opened before the first tool call.
"""

from __future__ import annotations

import hmac
import importlib
import ipaddress
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from mcp.server import MCPServer
from starlette.types import ASGIApp, Receive, Scope, Send

from contextbase.config import TOOL_GROUPS, Settings
from contextbase.errors import ConfigError
from contextbase.server.state import ServerState

INSTRUCTIONS = """contextbase serves documentation the user indexed locally, and memories of
solved errors, of this project and of code structure. For library questions call
resolve-library-id, then query-docs. Before debugging an error, call search-solutions;
after fixing one, save it with save-error-solution."""

GROUP_MODULES = {group: f"contextbase.server.{group}_tools" for group in TOOL_GROUPS}


def enabled_groups(settings: Settings) -> list[str]:
    unknown = [g for g in settings.server.tools if g not in TOOL_GROUPS]
    if unknown:
        raise ConfigError(
            f"Unknown tool group {unknown[0]!r}; choose from {', '.join(TOOL_GROUPS)}."
        )
    return [g for g in TOOL_GROUPS if g in settings.server.tools]


def build_server(settings: Settings) -> tuple[MCPServer, ServerState]:
    state = ServerState(settings)

    @asynccontextmanager
    async def lifespan(_: MCPServer) -> AsyncIterator[ServerState]:
        try:
            yield state
        finally:
            state.close()

    from contextbase import __version__

    mcp = MCPServer(
        name="contextbase",
        version=__version__,
        instructions=INSTRUCTIONS,
        lifespan=lifespan,
        log_level="WARNING",
    )
    for group in enabled_groups(settings):
        module = importlib.import_module(GROUP_MODULES[group])
        module.register(mcp, state, read_only=settings.server.read_only)
    return mcp, state


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class BearerAuth:
    """Rejects HTTP requests without ``Authorization: Bearer <token>`` (401)."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers = dict(scope.get("headers") or [])
            given = headers.get(b"authorization", b"")
            if not hmac.compare_digest(given, self.expected):
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [
                            (b"content-type", b"application/json"),
                            (b"www-authenticate", b"Bearer"),
                        ],
                    }
                )
                await send(
                    {
                        "type": "http.response.body",
                        "body": b'{"error": "missing or wrong bearer token"}',
                    }
                )
                return
        await self.app(scope, receive, send)


def serve(
    settings: Settings, transport: str = "stdio", host: str = "127.0.0.1", port: int = 8765
) -> None:
    logging.basicConfig(level=logging.WARNING)
    token = settings.server.token
    if transport == "http" and not is_loopback(host) and not token:
        raise ConfigError(
            f"Serving on {host} (not loopback) needs a bearer token: pass --token or set "
            "CONTEXTBASE_TOKEN."
        )
    mcp, _ = build_server(settings)
    if transport == "stdio":
        mcp.run("stdio")
        return
    if transport != "http":
        raise ConfigError(f"Unknown transport {transport!r}; use stdio or http.")
    import uvicorn
    from mcp.server.transport_security import TransportSecuritySettings

    security = (
        None
        if is_loopback(host)
        else TransportSecuritySettings(enable_dns_rebinding_protection=False)
    )
    app: ASGIApp = mcp.streamable_http_app(host=host, transport_security=security)
    if token:
        app = BearerAuth(app, token)
    uvicorn.run(app, host=host, port=port, log_level="warning")
