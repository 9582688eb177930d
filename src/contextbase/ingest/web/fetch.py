"""Fetching pages politely: bounded concurrency, per-host pacing, retries, size limits.

One ``Fetcher`` wraps one ``httpx.AsyncClient`` (its transport injectable for
tests and benchmarks). A fetch never raises for what the web does (errors,
redirect loops, huge or binary bodies); it returns a ``FetchResult`` saying
what happened, and the crawler decides what that means for the index.
"""

from __future__ import annotations

import asyncio
import email.utils
import posixpath
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Literal
from urllib.parse import urlsplit

import httpx

from contextbase.errors import InvalidInputError
from contextbase.ingest.web.ssrf import BlockedAddressError, UrlGuard
from contextbase.ingest.web.urls import normalize_url

Kind = Literal["html", "markdown", "text", "xml", "gzip", "binary"]
Sleep = Callable[[float], Awaitable[None]]

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
ACCEPT = "text/html,application/xhtml+xml,text/markdown;q=0.9,text/plain;q=0.8,*/*;q=0.5"

_KINDS: dict[str, Kind] = {
    "text/html": "html",
    "application/xhtml+xml": "html",
    "text/markdown": "markdown",
    "text/x-markdown": "markdown",
    "text/plain": "text",
    "text/x-rst": "text",
    "application/xml": "xml",
    "text/xml": "xml",
    "application/gzip": "gzip",
    "application/x-gzip": "gzip",
}
_SUFFIX_KINDS: dict[str, Kind] = {
    ".md": "markdown",
    ".markdown": "markdown",
    ".txt": "text",
    ".html": "html",
    ".htm": "html",
    ".xml": "xml",
    ".gz": "gzip",
}


def _user_agent() -> str:
    from contextbase import __version__

    return f"contextbase/{__version__} (documentation indexer)"


@dataclass
class FetchOptions:
    max_concurrent: int = 10
    per_host_rate: float = 8.0
    """Requests per second to one host (0: unlimited); robots.txt Crawl-delay can lower it."""
    retries: int = 3
    backoff: float = 0.5
    """First retry delay in seconds, doubled on each further retry."""
    max_retry_after: float = 60.0
    """A Retry-After longer than this gives up on the page instead of waiting."""
    max_bytes: int = 5 * 1024 * 1024
    timeout: float = 30.0
    max_redirects: int = 10
    user_agent: str = field(default_factory=_user_agent)


@dataclass
class FetchResult:
    url: str
    """The URL asked for."""
    final_url: str
    """Where redirects led (normalised)."""
    status: int = 0
    """HTTP status of the last response; 0 when no response came."""
    content_type: str = ""
    kind: Kind | None = None
    data: bytes = b""
    etag: str | None = None
    last_modified: str | None = None
    location: str | None = None
    retry_after: str | None = None
    error: str | None = None
    """Why the page could not be fetched."""
    skipped: str | None = None
    """Why a page that was fetched is not taken (binary, too large)."""
    blocked: bool = False
    """The SSRF guard refused an address on the way."""

    @property
    def ok(self) -> bool:
        return self.error is None and self.skipped is None and 200 <= self.status < 300

    @property
    def transient(self) -> bool:
        """A failure worth trying again later (no answer, 429 or 5xx)."""
        return not self.blocked and (self.status == 0 or self.status == 429 or self.status >= 500)

    @property
    def not_modified(self) -> bool:
        return self.status == 304

    @property
    def gone(self) -> bool:
        return self.status in (404, 410)

    @property
    def is_text(self) -> bool:
        return self.kind in ("html", "markdown", "text")


def classify(content_type: str, url: str, head: bytes = b"") -> Kind:
    """What a response holds, from its Content-Type, else its URL suffix, else its bytes."""
    mime = content_type.split(";", 1)[0].strip().lower()
    suffix = posixpath.splitext(urlsplit(url).path)[1].lower()
    if mime == "text/plain" and suffix in (".md", ".markdown"):
        return "markdown"
    if mime in _KINDS:
        return _KINDS[mime]
    if mime.endswith("+xml"):
        return "xml"
    if mime and mime not in ("application/octet-stream", "binary/octet-stream"):
        return "text" if mime.startswith("text/") else "binary"
    if suffix in _SUFFIX_KINDS:
        return _SUFFIX_KINDS[suffix]
    sample = head[:512].lstrip().lower()
    if sample.startswith((b"<!doctype html", b"<html")) or b"<body" in sample:
        return "html"
    if sample.startswith(b"<?xml"):
        return "xml"
    return "binary"


def retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a Retry-After header (delta seconds or an HTTP date)."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    current = time.time() if now is None else now
    return max(0.0, when.timestamp() - current)


class Fetcher:
    """An HTTP client for crawling; use as ``async with Fetcher(...) as fetcher``."""

    def __init__(
        self,
        options: FetchOptions,
        guard: UrlGuard,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        sleep: Sleep | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.options = options
        self.guard = guard
        self.sleep = sleep if sleep is not None else asyncio.sleep
        self.clock = clock
        self.client = httpx.AsyncClient(
            transport=transport,
            timeout=options.timeout,
            follow_redirects=False,
            headers={"User-Agent": options.user_agent, "Accept": ACCEPT},
            limits=httpx.Limits(max_connections=max(options.max_concurrent * 2, 4)),
        )
        self._slots = asyncio.Semaphore(max(1, options.max_concurrent))
        self._next_slot: dict[str, float] = {}
        self._delays: dict[str, float] = {}

    async def __aenter__(self) -> Fetcher:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.client.aclose()

    def set_crawl_delay(self, host: str, seconds: float) -> None:
        self._delays[host] = seconds

    async def fetch(
        self,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        allow_redirect: Callable[[str], bool] | None = None,
    ) -> FetchResult:
        """GET ``url``, following redirects that ``allow_redirect`` accepts."""
        current = url
        visited = {url}
        for _ in range(self.options.max_redirects + 1):
            result = await self._fetch_with_retries(url, current, headers)
            if result.status not in REDIRECT_STATUSES or result.error:
                return result
            target = normalize_url(result.location or "", current)
            if target is None:
                result.error = "redirect without a usable Location"
                return result
            if target in visited:
                result.error = f"redirect loop at {target}"
                return result
            if allow_redirect is not None and not allow_redirect(target):
                result.error = f"redirected out of scope to {target}"
                result.final_url = target
                return result
            visited.add(target)
            current = target
        return FetchResult(url, current, error=f"more than {self.options.max_redirects} redirects")

    async def _fetch_with_retries(
        self, url: str, current: str, headers: Mapping[str, str] | None
    ) -> FetchResult:
        options = self.options
        attempt = 0
        while True:
            await self._pace(urlsplit(current).netloc)
            try:
                async with self._slots:
                    result = await self._request(url, current, headers)
            except InvalidInputError as exc:  # refused or unresolvable address
                blocked = isinstance(exc, BlockedAddressError)
                return FetchResult(url, current, error=str(exc), blocked=blocked)
            except httpx.HTTPError as exc:
                if attempt >= options.retries:
                    return FetchResult(url, current, error=f"{type(exc).__name__}: {exc}")
                await self.sleep(options.backoff * 2**attempt)
                attempt += 1
                continue
            if result.status not in RETRY_STATUSES or attempt >= options.retries:
                return result
            delay = retry_after(result.retry_after)
            if delay is None:
                delay = options.backoff * 2**attempt
            if delay > options.max_retry_after:
                result.error = f"asked to retry after {delay:.0f} s"
                return result
            await self.sleep(delay)
            attempt += 1

    async def _pace(self, host: str) -> None:
        """Reserve the next request slot for ``host`` and wait for it (no busy loop)."""
        rate = self.options.per_host_rate
        interval = max(1.0 / rate if rate > 0 else 0.0, self._delays.get(host, 0.0))
        if interval <= 0:
            return
        now = self.clock()
        slot = max(now, self._next_slot.get(host, now))
        self._next_slot[host] = slot + interval
        if slot > now:
            await self.sleep(slot - now)

    async def _request(
        self, url: str, current: str, headers: Mapping[str, str] | None
    ) -> FetchResult:
        """One request; the body is read only from a 2xx answer."""
        target = await self.guard.check(current)
        extra = dict(headers or {})
        extensions = {}
        if target.address is not None:
            extra["Host"] = urlsplit(current).netloc
            extensions["sni_hostname"] = target.host
        request = self.client.build_request(
            "GET", target.connect_url(), headers=extra, extensions=extensions
        )
        response = await self.client.send(request, stream=True)
        try:
            result = FetchResult(
                url,
                current,
                status=response.status_code,
                content_type=response.headers.get("content-type", ""),
                etag=response.headers.get("etag"),
                last_modified=response.headers.get("last-modified"),
                location=response.headers.get("location"),
                retry_after=response.headers.get("retry-after"),
            )
            if 200 <= response.status_code < 300:
                await self._read_body(response, result)
            return result
        finally:
            await response.aclose()

    async def _read_body(self, response: httpx.Response, result: FetchResult) -> None:
        limit = self.options.max_bytes
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            result.skipped = f"larger than {limit // 1024} KB"
            return
        body = bytearray()
        async for piece in response.aiter_bytes():
            if result.kind is None:
                result.kind = classify(result.content_type, result.final_url, piece)
                if result.kind == "binary":
                    result.skipped = f"not text ({result.content_type or 'unknown type'})"
                    return
            body += piece
            if len(body) > limit:
                result.skipped = f"larger than {limit // 1024} KB"
                return
        if result.kind is None:
            result.kind = classify(result.content_type, result.final_url, bytes(body))
        result.data = bytes(body)
