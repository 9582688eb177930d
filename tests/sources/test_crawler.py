"""The crawler against a real HTTP server on 127.0.0.1: discovery, scope, robots, failures."""

from __future__ import annotations

import pytest

from contextbase.errors import SourceError
from contextbase.ingest.web.crawler import Crawler, KnownPage
from tests.sources.site import Page, Site, Sleeps, fast_options


def crawl(site: Site, path: str, sleeps: Sleeps | None = None, **options: object) -> Crawler:
    crawler = Crawler(site.url(path), fast_options(**options), sleep=sleeps or Sleeps())
    crawler.pages = {f.source: f for f in crawler.files()}  # type: ignore[attr-defined]
    return crawler


def test_breadth_first_crawl_respects_scope_robots_depth_and_failures(
    docs_site: Site, sleeps: Sleeps
) -> None:
    crawler = crawl(docs_site, "/bfs/", sleeps)
    pages, stats = crawler.pages, crawler.stats  # type: ignore[attr-defined]
    url = docs_site.url
    assert stats.strategy == "crawl"
    assert set(pages) == {
        url(p)
        for p in [
            "/bfs/",
            "/bfs/guide/intro",
            "/bfs/deep/level2",
            "/bfs/deep/level3",
            "/bfs/flaky",
            "/bfs/busy",
            "/bfs/latin",
            "/bfs/sjis",
            "/bfs/guide/target",
            "/bfs/code",
        ]
    }
    # depth 3 from the start page; level4 is one link too deep
    assert not docs_site.requested("/bfs/deep/level4")
    # robots.txt disallows /bfs/private/; pages outside the start folder are out of scope
    assert not docs_site.requested("/bfs/private/secret")
    assert not docs_site.requested("/outside/page")
    assert not docs_site.requested("/bfs/logo.png")
    # the fragment and tracking-parameter spellings are one page, fetched once
    assert len(docs_site.requested("/bfs/guide/intro")) == 1
    # a 500 then success, and a 429 honouring Retry-After (through the injected sleep)
    assert len(docs_site.requested("/bfs/flaky")) == 2
    assert len(docs_site.requested("/bfs/busy")) == 2
    assert 2.0 in sleeps.waits
    reasons = {f["url"]: f["reason"] for f in stats.failures}
    assert stats.gone == [url("/bfs/missing")]
    assert "redirect loop" in reasons[url("/bfs/loop-a")]
    assert "out of scope" in reasons[url("/bfs/redirect-out")]
    assert stats.skipped >= 2  # the huge page and the binary download
    assert len(docs_site.requested("/bfs/loop-a")) == 1
    assert stats.complete and not stats.truncated
    # pages keep their type and charset for the parser; binary and huge pages never arrive
    assert pages[url("/bfs/latin")].content_type == "text/html; charset=iso-8859-1"
    assert "Crème".encode("iso-8859-1") in pages[url("/bfs/latin")].data
    intro = pages[url("/bfs/guide/intro")]
    assert intro.metadata["etag"] and intro.metadata["links"] == [url("/bfs/deep/level2")]


def test_llms_txt_pages_are_fetched_directly(docs_site: Site) -> None:
    crawler = crawl(docs_site, "/llms/")
    pages = crawler.pages  # type: ignore[attr-defined]
    url = docs_site.url
    assert crawler.stats.strategy == "llms"
    assert set(pages) == {url("/llms/"), url("/llms/alpha.md"), url("/llms/beta.md")}
    assert pages[url("/llms/beta.md")].content_type == "text/markdown"
    assert crawler.plan is not None
    assert crawler.plan.summary == "A fixture documentation set for the crawler tests."
    assert not docs_site.requested("/llms/never-linked-page")


def test_an_llms_txt_start_url_is_indexed_with_its_pages(docs_site: Site) -> None:
    crawler = crawl(docs_site, "/llms/llms.txt")
    assert crawler.stats.strategy == "llms"
    assert set(crawler.pages) == {  # type: ignore[attr-defined]
        docs_site.url(p) for p in ("/llms/llms.txt", "/llms/alpha.md", "/llms/beta.md")
    }


def test_a_markdown_url_is_taken_as_it_is(docs_site: Site) -> None:
    crawler = crawl(docs_site, "/llms/alpha.md")
    assert crawler.stats.strategy == "text"
    assert list(crawler.pages) == [docs_site.url("/llms/alpha.md")]  # type: ignore[attr-defined]


def test_sitemap_index_from_robots_txt_including_gzip(docs_site: Site) -> None:
    crawler = crawl(docs_site, "/maps/")
    url = docs_site.url
    assert crawler.stats.strategy == "sitemap"
    assert set(crawler.pages) == {  # type: ignore[attr-defined]
        url("/maps/"),
        url("/maps/one"),
        url("/maps/two?a=1&b=2"),
        url("/maps/three"),
    }
    assert not docs_site.requested("/maps/not-in-sitemap")  # sitemaps are not link-crawled
    assert not docs_site.requested("/other/x")  # listed, but outside the start folder


def test_single_page_include_exclude_and_max_pages(docs_site: Site) -> None:
    single = crawl(docs_site, "/bfs/", single_page=True)
    assert list(single.pages) == [docs_site.url("/bfs/")]  # type: ignore[attr-defined]
    assert single.stats.strategy == "single"

    narrowed = crawl(docs_site, "/bfs/", exclude=("*/deep/*", "/code"), include=("*/bfs/*",))
    assert not any("/deep/" in u or u.endswith("/code") for u in narrowed.pages)  # type: ignore[attr-defined]
    assert docs_site.url("/bfs/guide/intro") in narrowed.pages  # type: ignore[attr-defined]

    limited = crawl(docs_site, "/bfs/", max_pages=3)
    assert len(limited.pages) <= 3  # type: ignore[attr-defined]
    assert limited.stats.truncated and not limited.stats.complete


def test_conditional_requests_and_unchanged_pages(docs_site: Site) -> None:
    first = crawl(docs_site, "/bfs/", max_depth=2)
    known = {
        source: KnownPage(file.metadata.get("etag"), None, file.metadata.get("links", []))
        for source, file in first.pages.items()  # type: ignore[attr-defined]
    }
    docs_site.log.clear()
    again = Crawler(docs_site.url("/bfs/"), fast_options(max_depth=2), known=known, sleep=Sleeps())
    files = list(again.files())
    intro = docs_site.requested("/bfs/guide/intro")
    assert intro[0].headers.get("If-None-Match") == known[docs_site.url("/bfs/guide/intro")].etag
    unchanged = [f for f in files if f.unchanged]
    assert len(unchanged) >= 5 and again.stats.unchanged == len(unchanged)
    assert docs_site.url("/bfs/guide/intro") in {f.source for f in unchanged}
    # the intro answered 304 without a body; its stored links still led the crawl on
    assert docs_site.requested("/bfs/deep/level2")[0].headers.get("If-None-Match")
    # the start page is always fetched in full: discovery reads it
    assert not docs_site.requested("/bfs/")[0].headers.get("If-None-Match")


def test_a_passing_failure_keeps_a_known_page(docs_site: Site) -> None:
    docs_site.add("/bfs/guide/intro", Page("down", status=503))
    known = {docs_site.url("/bfs/guide/intro"): KnownPage()}
    crawler = Crawler(
        docs_site.url("/bfs/"), fast_options(max_depth=1), known=known, sleep=Sleeps()
    )
    files = {f.source: f for f in crawler.files()}
    kept = files[docs_site.url("/bfs/guide/intro")]
    assert kept.unchanged and kept.data == b""
    assert len(docs_site.requested("/bfs/guide/intro")) == 4  # first try and three retries


def test_an_unreachable_start_page_is_an_error(docs_site: Site) -> None:
    with pytest.raises(SourceError, match="HTTP 404"):
        list(Crawler(docs_site.url("/nothing/here"), fast_options()).files())
    with pytest.raises(SourceError, match="not text"):
        list(Crawler(docs_site.url("/bfs/download"), fast_options()).files())


def test_robots_crawl_delay_paces_requests(docs_site: Site, sleeps: Sleeps) -> None:
    docs_site.add("/robots.txt", Page("User-agent: *\nCrawl-delay: 1\n", content_type="text/plain"))
    crawl(docs_site, "/bfs/", sleeps, max_depth=1)
    paced = [s for s in sleeps.waits if s > 0.5]
    assert len(paced) >= 5
    assert max(sleeps.waits) >= 5.0  # requests queue up one second apart


def test_stopping_the_iteration_stops_the_crawl(docs_site: Site) -> None:
    crawler = Crawler(docs_site.url("/bfs/"), fast_options())
    files = crawler.files()
    next(files)
    files.close()
    assert crawler.stopping() and not crawler.stats.complete
