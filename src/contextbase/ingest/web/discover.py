"""Deciding what to crawl: text files, llms.txt, sitemaps, or links.

The order follows what gives the cleanest documents with the fewest requests:

1. a start URL that is a ``.txt``/``.md`` file is taken as it is; an
   ``llms.txt`` brings the pages it lists with it;
2. a start URL that is a sitemap brings the pages it lists;
3. otherwise ``llms.txt`` under the start folder or at the site root, then
   the sitemaps named in robots.txt or found at the usual places
   (``sitemap.xml``, ``sitemap_index.xml``, sitemap indexes followed);
4. otherwise a breadth-first crawl of the links under the start folder.

Only URLs in the crawl's scope are kept from any list.
"""

from __future__ import annotations

import gzip
import html
import re
import zlib
from dataclasses import dataclass, field
from typing import Literal
from urllib.parse import urlsplit

from contextbase.ingest.web.fetch import Fetcher, FetchResult
from contextbase.ingest.web.robots import RobotsRules
from contextbase.ingest.web.urls import Scope, normalize_url

Strategy = Literal["single", "text", "llms", "sitemap", "crawl"]

MAX_SITEMAPS = 50
MAX_SITEMAP_BYTES = 50 * 1024 * 1024
_LOC = re.compile(
    r"<(?:\w+:)?loc>\s*(?:<!\[CDATA\[)?\s*(.*?)\s*(?:\]\]>)?\s*</(?:\w+:)?loc>", re.S | re.I
)
_MD_LINK = re.compile(r"\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_QUOTE = re.compile(r"^\s*>\s?(.*)$")


@dataclass
class Plan:
    """How to crawl: pages to start from, and whether to follow their links."""

    strategy: Strategy
    seeds: list[str]
    follow_links: bool = False
    summary: str = ""
    """A site description found on the way (llms.txt's blockquote)."""
    sitemaps: list[str] = field(default_factory=list)


def is_llms_txt(url: str) -> bool:
    return urlsplit(url).path.rsplit("/", 1)[-1].lower().startswith("llms")


def is_text_file(url: str) -> bool:
    return urlsplit(url).path.lower().endswith((".txt", ".md", ".markdown"))


def is_sitemap_url(url: str) -> bool:
    path = urlsplit(url).path.lower()
    return path.endswith((".xml", ".xml.gz")) and "sitemap" in path


def llms_links(text: str, base: str, scope: Scope) -> list[str]:
    """In-scope pages an llms.txt lists, in order."""
    found: dict[str, None] = {}
    for target in _MD_LINK.findall(text):
        url = normalize_url(target, base)
        if url and url != base and scope.contains(url):
            found.setdefault(url, None)
    return list(found)


def llms_summary(text: str) -> str:
    """The blockquote under an llms.txt title: its summary of the site."""
    lines = [m.group(1) for line in text.splitlines() if (m := _QUOTE.match(line))]
    return " ".join(" ".join(lines).split())[:500]


def sitemap_entries(data: bytes) -> tuple[bool, list[str]]:
    """``(is_index, locations)`` of a sitemap or sitemap index (plain or gzipped)."""
    if data[:2] == b"\x1f\x8b":
        try:
            data = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(data, MAX_SITEMAP_BYTES)
        except (zlib.error, gzip.BadGzipFile):
            return False, []
    text = data.decode("utf-8", errors="replace")
    is_index = bool(re.search(r"<(?:\w+:)?sitemapindex[\s>]", text[:4096]))
    return is_index, [html.unescape(loc) for loc in _LOC.findall(text)]


class Discovery:
    """Finds the crawl plan for a start page already fetched."""

    def __init__(self, fetcher: Fetcher, scope: Scope, robots: RobotsRules, scheme: str) -> None:
        self.fetcher = fetcher
        self.scope = scope
        self.robots = robots
        self.root = f"{scheme}://{scope.host}"

    async def plan(self, start: FetchResult, *, single_page: bool = False) -> Plan:
        url = start.final_url
        if single_page:
            return Plan("single", [url])
        if start.kind in ("markdown", "text") or is_text_file(url):
            if is_llms_txt(url):
                text = start.data.decode("utf-8", errors="replace")
                links = llms_links(text, url, self.scope)
                return Plan("llms", [url, *links], summary=llms_summary(text))
            return Plan("text", [url])
        if start.kind in ("xml", "gzip") or is_sitemap_url(url):
            pages = await self._read_sitemaps([url], start)
            return Plan("sitemap", pages, sitemaps=[url])
        llms = await self._probe_llms(url)
        if llms is not None:
            return llms
        candidates = self._sitemap_candidates()
        pages = await self._read_sitemaps(candidates)
        if pages:
            return Plan("sitemap", [url, *(p for p in pages if p != url)], sitemaps=candidates)
        return Plan("crawl", [url], follow_links=True)

    async def _probe_llms(self, start: str) -> Plan | None:
        root = self.root
        for candidate in dict.fromkeys([f"{root}{self.scope.prefix}llms.txt", f"{root}/llms.txt"]):
            if not self.robots.allowed(candidate):
                continue
            result = await self.fetcher.fetch(candidate, allow_redirect=self.scope.same_site)
            if not result.ok or result.kind not in ("markdown", "text"):
                continue
            text = result.data.decode("utf-8", errors="replace")
            links = llms_links(text, result.final_url, self.scope)
            if links:
                seeds = [start, *(link for link in links if link != start)]
                return Plan("llms", seeds, summary=llms_summary(text))
        return None

    def _sitemap_candidates(self) -> list[str]:
        base = self.root
        named = [u for s in self.robots.sitemaps if (u := normalize_url(s, base))]
        usual = [
            f"{base}{self.scope.prefix}sitemap.xml",
            f"{base}/sitemap.xml",
            f"{base}/sitemap_index.xml",
        ]
        return list(dict.fromkeys([*named, *usual]))

    async def _read_sitemaps(
        self, locations: list[str], first: FetchResult | None = None
    ) -> list[str]:
        """Page URLs in scope from sitemaps, following sitemap indexes breadth-first."""
        pending = list(locations)
        seen: set[str] = set()
        pages: dict[str, None] = {}
        while pending and len(seen) < MAX_SITEMAPS:
            location = pending.pop(0)
            if location in seen:
                continue
            seen.add(location)
            if first is not None and location == first.final_url:
                result = first
            else:
                result = await self.fetcher.fetch(location)
            if not result.ok or result.kind not in ("xml", "gzip", "text"):
                continue
            is_index, entries = sitemap_entries(result.data)
            for entry in entries:
                url = normalize_url(entry, result.final_url)
                if url is None:
                    continue
                if is_index:
                    pending.append(url)
                elif self.scope.contains(url):
                    pages.setdefault(url, None)
        return list(pages)
