"""A website as a documentation source.

``Crawler.files()`` yields one ``SourceFile`` per page, ready for the
Indexer. The crawl itself runs on an asyncio loop in a worker thread, so
pages keep arriving while the Indexer parses and embeds the previous ones.

Re-crawls are incremental: pages the store already has are requested with
``If-None-Match``/``If-Modified-Since``, and a 304 (or a passing failure
such as a 503 or a timeout) yields the page flagged ``unchanged`` so the
Indexer keeps the stored copy. Pages answering 404/410 are listed in
``stats.gone``; a crawl that ran to its end (``stats.complete``) lets the
Indexer remove every page it did not see.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import queue
import threading
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from selectolax.lexbor import LexborHTMLParser

from contextbase.errors import SourceError
from contextbase.ingest.files import SourceFile
from contextbase.ingest.web.discover import Discovery, Plan, is_llms_txt
from contextbase.ingest.web.fetch import Fetcher, FetchOptions, FetchResult, Sleep
from contextbase.ingest.web.render import CHROMIUM, Renderer
from contextbase.ingest.web.robots import RobotsRules
from contextbase.ingest.web.ssrf import Resolver, UrlGuard
from contextbase.ingest.web.urls import Scope, looks_like_page, normalize_url, require_url
from contextbase.parse.decode import charset_from_content_type, decode_text
from contextbase.store.db import utcnow

log = logging.getLogger("contextbase.ingest")

MAX_FAILURES_KEPT = 50
_MIME = {"html": "text/html", "markdown": "text/markdown", "text": "text/plain"}


@dataclass
class CrawlOptions:
    max_depth: int = 3
    """Links followed from the start page (breadth-first crawls only)."""
    max_pages: int = 1000
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    single_page: bool = False
    render: bool = False
    respect_robots: bool = True
    allow_private: bool = False
    """Allow private, loopback and link-local addresses (see ``ssrf``)."""
    browser: Path = CHROMIUM
    fetch: FetchOptions = field(default_factory=FetchOptions)


@dataclass
class KnownPage:
    """What the store remembers of a page, for conditional requests."""

    etag: str | None = None
    last_modified: str | None = None
    links: list[str] = field(default_factory=list)


@dataclass
class CrawlStats:
    strategy: str = ""
    fetched: int = 0
    """Pages answered (changed or not)."""
    queued: int = 0
    """Pages waiting to be fetched."""
    failed: int = 0
    unchanged: int = 0
    skipped: int = 0
    """Pages not taken: binary, too large, disallowed by robots.txt, noindex, duplicates."""
    gone: list[str] = field(default_factory=list)
    """Pages answering 404 or 410."""
    failures: list[dict[str, str]] = field(default_factory=list)
    truncated: bool = False
    """More pages were in scope than ``max_pages``."""
    cancelled: bool = False
    complete: bool = False
    """The crawl saw everything in scope: missing pages may be removed from the index."""

    def as_dict(self) -> dict[str, Any]:
        return {
            "strategy": self.strategy,
            "fetched": self.fetched,
            "queued": self.queued,
            "failed": self.failed,
            "unchanged": self.unchanged,
            "skipped": self.skipped,
            "gone": self.gone[:MAX_FAILURES_KEPT],
            "gone_count": len(self.gone),
            "failures": self.failures,
            "truncated": self.truncated,
            "cancelled": self.cancelled,
            "complete": self.complete,
        }


_DONE = object()


class Crawler:
    """Crawls one site from ``start_url``; iterate ``files()`` to get its pages."""

    def __init__(
        self,
        start_url: str,
        options: CrawlOptions | None = None,
        *,
        known: Mapping[str, KnownPage] | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        sleep: Sleep | None = None,
        resolver: Resolver | None = None,
        cancelled: Callable[[], bool] | None = None,
        on_progress: Callable[[CrawlStats], None] | None = None,
    ) -> None:
        self.start_url = require_url(start_url)
        self.options = options or CrawlOptions()
        self.known = dict(known or {})
        self.transport = transport
        self.sleep = sleep
        self.guard = UrlGuard(self.options.allow_private, resolver)
        self.cancelled = cancelled or (lambda: False)
        self.on_progress = on_progress or (lambda stats: None)
        self.stats = CrawlStats()
        self.scope = Scope.from_start(self.start_url, self.options.include, self.options.exclude)
        self.plan: Plan | None = None
        self._stop = threading.Event()

    # -- the synchronous face, for the Indexer -----------------------------

    def files(self) -> Iterator[SourceFile]:
        """Pages as they arrive; stopping the iteration stops the crawl."""
        handoff: queue.Queue[Any] = queue.Queue(maxsize=8)

        def pump() -> None:
            async def run() -> None:
                try:
                    async for file in self.crawl():
                        await asyncio.to_thread(self._put, handoff, file)
                        if self._stop.is_set():
                            break
                except BaseException as exc:  # handed to the consuming thread
                    self._put(handoff, exc)
                    return
                self._put(handoff, _DONE)

            asyncio.run(run())

        thread = threading.Thread(target=pump, name="contextbase-crawl", daemon=True)
        thread.start()
        try:
            while True:
                item = handoff.get()
                if item is _DONE:
                    break
                if isinstance(item, BaseException):
                    raise item
                yield item
        finally:
            self._stop.set()
            while thread.is_alive():
                with contextlib.suppress(queue.Empty):
                    handoff.get(timeout=0.05)
            thread.join()

    def _put(self, handoff: queue.Queue[Any], item: Any) -> None:
        while not self._stop.is_set():
            try:
                handoff.put(item, timeout=0.1)
                return
            except queue.Full:
                continue

    def stopping(self) -> bool:
        """True once the consumer went away or the caller cancelled the crawl."""
        if self._stop.is_set():
            return True
        if self.cancelled():
            self.stats.cancelled = True
            return True
        return False

    # -- the crawl ----------------------------------------------------------

    async def crawl(self) -> AsyncIterator[SourceFile]:
        """Pages as they are fetched, on the caller's event loop."""
        await self.guard.check(self.start_url)
        out: asyncio.Queue[Any] = asyncio.Queue(maxsize=max(16, self.options.fetch.max_concurrent))
        task = asyncio.create_task(self._produce(out))
        try:
            while True:
                item = await out.get()
                if item is _DONE:
                    break
                if isinstance(item, Exception):
                    raise item
                yield item
            await task
        finally:
            if not task.done():
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)

    async def _produce(self, out: asyncio.Queue[Any]) -> None:
        try:
            await self._run(out)
        except Exception as exc:
            await out.put(exc)
        else:
            await out.put(_DONE)

    async def _run(self, out: asyncio.Queue[Any]) -> None:
        fetch_options = self.options.fetch
        async with Fetcher(
            fetch_options, self.guard, transport=self.transport, sleep=self.sleep
        ) as fetcher:
            robots = await self._robots(fetcher, self.start_url)
            if not robots.allowed(self.start_url):
                raise SourceError(f"robots.txt of {self.scope.host} disallows {self.start_url}.")
            # Always fetched in full: discovery reads it (an llms.txt, a sitemap, links).
            first = await fetcher.fetch(self.start_url)
            if not first.ok:
                reason = first.error or first.skipped or f"HTTP {first.status}"
                raise SourceError(f"Could not fetch {self.start_url}: {reason}.")
            if first.final_url != self.start_url and not self.scope.contains(first.final_url):
                # The site moved (http -> https, example.com -> www.example.com): follow it.
                self.scope = Scope.from_start(
                    first.final_url, self.options.include, self.options.exclude
                )
                robots = await self._robots(fetcher, first.final_url)
            scheme = first.final_url.split(":", 1)[0]
            discovery = Discovery(fetcher, self.scope, robots, scheme)
            self.plan = plan = await discovery.plan(first, single_page=self.options.single_page)
            self.stats.strategy = plan.strategy
            await _Run(self, fetcher, robots, plan, out).execute(first)

    async def _robots(self, fetcher: Fetcher, url: str) -> RobotsRules:
        agent = self.options.fetch.user_agent
        if not self.options.respect_robots:
            return RobotsRules.allow_all(agent)
        scheme, rest = url.split("://", 1)
        robots_url = f"{scheme}://{rest.split('/', 1)[0]}/robots.txt"
        result = await fetcher.fetch(robots_url, allow_redirect=lambda u: True)
        if result.blocked:
            return RobotsRules.allow_all(agent)
        text = result.data.decode("utf-8", errors="replace") if result.ok else ""
        status = 404 if result.error and result.status < 500 else result.status
        rules = RobotsRules.from_response(status, text, agent)
        if rules.crawl_delay:
            fetcher.set_crawl_delay(self.scope.host, rules.crawl_delay)
        return rules

    def conditional_headers(self, url: str) -> dict[str, str]:
        known = self.known.get(url)
        headers: dict[str, str] = {}
        if known is not None:
            if known.etag:
                headers["If-None-Match"] = known.etag
            if known.last_modified:
                headers["If-Modified-Since"] = known.last_modified
        return headers


class _Run:
    """One execution of a plan: the queue, the workers and the page handling."""

    def __init__(
        self,
        crawler: Crawler,
        fetcher: Fetcher,
        robots: RobotsRules,
        plan: Plan,
        out: asyncio.Queue[Any],
    ) -> None:
        self.crawler = crawler
        self.options = crawler.options
        self.stats = crawler.stats
        self.scope = crawler.scope
        self.fetcher = fetcher
        self.robots = robots
        self.plan = plan
        self.out = out
        self.queue: asyncio.Queue[tuple[str, int]] = asyncio.Queue()
        self.seen: set[str] = set()
        self.emitted: set[str] = set()
        self.scheduled = 0
        self.renderer: Renderer | None = None

    async def execute(self, first: FetchResult) -> None:
        start = self.crawler.start_url
        self.seen.update({start, first.final_url})
        self.scheduled = 1
        if self.options.render:
            fetch = self.options.fetch
            self.renderer = Renderer(
                self.crawler.guard,
                executable=self.options.browser,
                timeout=fetch.timeout,
                max_pages=min(4, fetch.max_concurrent),
                user_agent=fetch.user_agent,
            )
            await self.renderer.__aenter__()
        try:
            if first.is_text:
                await self._handle(start, first, 0)
            for seed in self.plan.seeds:
                self._enqueue(seed, 0)
            workers = [
                asyncio.create_task(self._work())
                for _ in range(max(1, self.options.fetch.max_concurrent))
            ]
            try:
                await self.queue.join()
            finally:
                for worker in workers:
                    worker.cancel()
                await asyncio.gather(*workers, return_exceptions=True)
        finally:
            if self.renderer is not None:
                await self.renderer.__aexit__(None, None, None)
        stats = self.stats
        stats.complete = not (stats.truncated or self.crawler.stopping())
        self.crawler.on_progress(stats)

    def _enqueue(self, url: str, depth: int) -> None:
        if url in self.seen or not self.scope.contains(url) or not looks_like_page(url):
            return
        self.seen.add(url)
        if self.scheduled >= self.options.max_pages:
            self.stats.truncated = True
            return
        self.scheduled += 1
        self.queue.put_nowait((url, depth))
        self.stats.queued += 1

    async def _work(self) -> None:
        while True:
            url, depth = await self.queue.get()
            try:
                if not self.crawler.stopping():
                    await self._visit(url, depth)
            except Exception as exc:  # one bad page must not end the crawl
                log.warning("Crawling %s failed: %s", url, exc)
                self._fail(url, f"{type(exc).__name__}: {exc}")
            finally:
                self.stats.queued -= 1
                self.queue.task_done()
                self.crawler.on_progress(self.stats)

    async def _visit(self, url: str, depth: int) -> None:
        if not self.robots.allowed(url):
            self.stats.skipped += 1
            return
        result = await self.fetcher.fetch(
            url, headers=self.crawler.conditional_headers(url), allow_redirect=self.scope.contains
        )
        await self._handle(url, result, depth)

    async def _handle(self, url: str, result: FetchResult, depth: int) -> None:
        stats = self.stats
        known = self.crawler.known.get(url)
        if result.not_modified:
            stats.fetched += 1
            stats.unchanged += 1
            await self._emit(SourceFile(url, b"", "url", metadata={"url": url}, unchanged=True))
            self._follow(known.links if known else [], depth)
            return
        if result.gone:
            stats.gone.append(url)
            self._fail(url, f"HTTP {result.status}")
            return
        if result.skipped or (result.ok and not result.is_text):
            stats.skipped += 1
            return
        if not result.ok:
            self._fail(url, result.error or f"HTTP {result.status}")
            if known is not None and result.transient:
                # A passing failure: keep the stored copy (and where it led) rather than
                # delete the page and everything only it links to.
                await self._emit(SourceFile(url, b"", "url", metadata={"url": url}, unchanged=True))
                self._follow(known.links, depth)
            return
        stats.fetched += 1
        final = result.final_url
        self.seen.add(final)
        if final in self.emitted:
            stats.skipped += 1
            return
        data, content_type = result.data, self._content_type(result)
        links: list[str] = []
        if result.kind == "html":
            if self.renderer is not None:
                data = (await self.renderer.render(final)).encode("utf-8")
                content_type = "text/html; charset=utf-8"
            page = _HtmlPage(data, content_type, final)
            if self.plan.follow_links and not page.nofollow:
                links = [u for u in page.links() if self.scope.contains(u)]
                self._follow(links, depth)
            if page.noindex:
                stats.skipped += 1
                return
        metadata: dict[str, Any] = {"url": final, "fetched_at": utcnow()}
        if result.etag:
            metadata["etag"] = result.etag
        if result.last_modified:
            metadata["last_modified"] = result.last_modified
        if links:
            metadata["links"] = links
        await self._emit(SourceFile(final, data, "url", content_type, metadata))

    def _follow(self, links: list[str], depth: int) -> None:
        if not self.plan.follow_links or depth >= self.options.max_depth:
            return
        for link in links:
            self._enqueue(link, depth + 1)

    def _content_type(self, result: FetchResult) -> str:
        kind = result.kind or "text"
        if kind == "text" and is_llms_txt(result.final_url):
            kind = "markdown"
        charset = charset_from_content_type(result.content_type)
        mime = _MIME.get(kind, "text/plain")
        return f"{mime}; charset={charset}" if charset else mime

    async def _emit(self, file: SourceFile) -> None:
        self.emitted.add(file.source)
        await self.out.put(file)

    def _fail(self, url: str, reason: str) -> None:
        self.stats.failed += 1
        if len(self.stats.failures) < MAX_FAILURES_KEPT:
            self.stats.failures.append({"url": url, "reason": reason})


class _HtmlPage:
    """Links and robots directives of one HTML page."""

    def __init__(self, data: bytes, content_type: str, url: str) -> None:
        text = decode_text(data, charset_from_content_type(content_type)) or ""
        self.tree = LexborHTMLParser(text)
        self.url = url
        directives = " ".join(
            (node.attributes.get("content") or "").lower()
            for node in self.tree.css('meta[name="robots"]')
        )
        self.noindex = "noindex" in directives or "none" in directives
        self.nofollow = "nofollow" in directives or "none" in directives

    def links(self) -> list[str]:
        base = self.url
        for node in self.tree.css("base[href]"):
            base = normalize_url(node.attributes.get("href") or "", self.url) or self.url
            break
        found: dict[str, None] = {}
        for node in self.tree.css("a[href]"):
            rel = (node.attributes.get("rel") or "").lower()
            if "nofollow" in rel:
                continue
            url = normalize_url(node.attributes.get("href") or "", base)
            if url:
                found.setdefault(url, None)
        return list(found)
