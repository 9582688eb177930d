"""Refusing to fetch private addresses (server-side request forgery).

When the MCP server crawls for an agent, a URL the agent was talked into
(``http://169.254.169.254/``, ``http://localhost:5432/``, a name that
resolves to ``10.0.0.5``) must not reach the user's network. Every request,
each redirect hop included, resolves the host, checks every address it
resolves to, and is then sent to the checked address itself (with the
original Host header and TLS server name), so a DNS answer that changes
between the check and the connection cannot slip through.

Policy: the CLI allows private addresses (the user typed the URL); the MCP
tools refuse them unless ``server.allow_private_urls`` is set, whatever the
transport, because there the URL comes from an agent that may have read it
in a crawled page.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

import anyio

from contextbase.errors import InvalidInputError

Resolver = Callable[[str, int], Awaitable[list[str]]]
"""Returns the IP addresses a host name resolves to."""

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


class BlockedAddressError(InvalidInputError):
    """A URL resolves to an address the configuration does not allow."""


async def system_resolver(host: str, port: int) -> list[str]:
    try:
        infos = await anyio.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as exc:
        raise InvalidInputError(f"Cannot resolve the host {host!r}: {exc}.") from exc
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def is_public(address: IPAddress) -> bool:
    """True for globally routable unicast addresses only."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_global and not address.is_multicast


@dataclass(frozen=True)
class Target:
    """Where a checked request goes: the address to connect to, if pinned."""

    url: str
    host: str
    address: str | None

    def connect_url(self) -> str:
        """The URL with its host replaced by the checked address (the URL itself if unpinned)."""
        if self.address is None:
            return self.url
        parts = urlsplit(self.url)
        ip = f"[{self.address}]" if ":" in self.address else self.address
        netloc = ip if parts.port is None else f"{ip}:{parts.port}"
        return parts._replace(netloc=netloc).geturl()


class UrlGuard:
    """Checks the addresses behind URLs; allows everything when ``allow_private``."""

    def __init__(self, allow_private: bool, resolver: Resolver | None = None) -> None:
        self.allow_private = allow_private
        self.resolver = resolver or system_resolver

    async def check(self, url: str) -> Target:
        """Resolve and check ``url``; raise BlockedAddressError for a private address."""
        parts = urlsplit(url)
        host = parts.hostname or ""
        if self.allow_private:
            return Target(url, host, None)
        port = parts.port or (443 if parts.scheme == "https" else 80)
        try:
            addresses = [ipaddress.ip_address(host)]
        except ValueError:
            addresses = [
                ipaddress.ip_address(a.split("%")[0]) for a in await self.resolver(host, port)
            ]
        if not addresses:
            raise InvalidInputError(f"The host {host!r} has no address.")
        for address in addresses:
            if not is_public(address):
                raise BlockedAddressError(
                    f"Refused to fetch {url}: {host} is a private, loopback or link-local "
                    f"address ({address}); set server.allow_private_urls to allow it."
                )
        return Target(url, host, str(addresses[0]))
