"""Rendering JavaScript pages with headless Chromium (``--render``).

Single-page-app documentation ships an empty ``<div id="root">`` and builds
the text in the browser. With rendering on, the crawler still fetches every
page over plain HTTP first (status, redirects, size, type, robots, SSRF
checks) and then asks Chromium, driven by Playwright, for the DOM after the
scripts ran. Every request the browser makes goes through the same address
guard; images, fonts and media are not loaded at all.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from types import TracebackType
from typing import Any

from contextbase.errors import ConfigError, MissingDependencyError, SourceError
from contextbase.ingest.web.ssrf import BlockedAddressError, UrlGuard

CHROMIUM = Path(os.environ.get("CONTEXTBASE_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
_SKIPPED_RESOURCES = frozenset({"image", "media", "font"})


class Renderer:
    """A headless Chromium shared by a crawl; use as ``async with Renderer(...)``."""

    def __init__(
        self,
        guard: UrlGuard,
        *,
        executable: Path = CHROMIUM,
        timeout: float = 30.0,
        max_pages: int = 4,
        user_agent: str | None = None,
    ) -> None:
        self.guard = guard
        self.executable = executable
        self.timeout_ms = timeout * 1000
        self.user_agent = user_agent
        self._pages = asyncio.Semaphore(max_pages)
        self._playwright: Any = None
        self._browser: Any = None
        self._context: Any = None

    async def __aenter__(self) -> Renderer:
        try:
            from playwright.async_api import async_playwright
        except ImportError as exc:
            raise MissingDependencyError(
                "Rendering pages needs Playwright: install 'contextbase[browser]'."
            ) from exc
        if not self.executable.exists():
            raise ConfigError(
                f"Rendering pages needs Chromium at {self.executable} (apt-get install chromium, "
                "or set CONTEXTBASE_CHROMIUM); crawl without --render otherwise."
            )
        self._playwright = await async_playwright().start()
        try:
            self._browser = await self._playwright.chromium.launch(
                executable_path=str(self.executable), args=CHROMIUM_ARGS, headless=True
            )
            self._context = await self._browser.new_context(user_agent=self.user_agent)
            await self._context.route("**/*", self._route)
        except Exception as exc:
            await self._playwright.stop()
            raise SourceError(f"Chromium could not start: {exc}") from exc
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._browser is not None:
            await self._browser.close()
        if self._playwright is not None:
            await self._playwright.stop()

    async def _route(self, route: Any) -> None:
        request = route.request
        if request.resource_type in _SKIPPED_RESOURCES:
            await route.abort()
            return
        if request.url.startswith(("http://", "https://")):
            try:
                await self.guard.check(request.url)
            except BlockedAddressError:
                await route.abort("addressunreachable")
                return
        await route.continue_()

    async def render(self, url: str) -> str:
        """The page's HTML after its scripts ran (network idle, or the timeout)."""
        async with self._pages:
            page = await self._context.new_page()
            try:
                try:
                    await page.goto(url, wait_until="networkidle", timeout=self.timeout_ms)
                except Exception as exc:
                    if "Timeout" not in type(exc).__name__:
                        raise SourceError(f"Chromium could not load {url}: {exc}") from exc
                return str(await page.content())
            finally:
                await page.close()
