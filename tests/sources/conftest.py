"""The fixture documentation site, served for real on 127.0.0.1."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import pytest

from tests.sources.site import Page, Request, Site, Sleeps, fail_then, gzipped, serve

CODE = """from fastapi import FastAPI

app = FastAPI()


@app.get("/items/{item_id}")
async def read_item(item_id: int, q: str | None = None):
    # The type annotation makes FastAPI validate and convert the path parameter.
    return {"item_id": item_id, "q": q}
"""


def build_site(site: Site) -> None:
    base = site.base
    site.add(
        "/robots.txt",
        Page(
            f"User-agent: *\nDisallow: /bfs/private/\nSitemap: {base}/sitemap_index.xml\n",
            content_type="text/plain",
        ),
    )
    # -- a site crawled link by link -----------------------------------------------
    links = [
        "guide/intro",
        "guide/intro#install",
        "guide/intro?utm_source=newsletter&fbclid=x",
        "private/secret",
        "loop-a",
        "missing",
        "flaky",
        "busy",
        "huge",
        "download",
        "latin",
        "sjis",
        "redirect-in",
        "redirect-out",
        "code",
        "https://example.org/elsewhere",
        "/outside/page",
        "logo.png",
    ]
    anchors = "".join(f'<li><a href="{link}">{link}</a></li>' for link in links)
    site.html(
        "/bfs/",
        "Fixture Docs",
        f"<p>Fixture documentation for the crawler tests.</p><ul>{anchors}</ul>",
    )
    site.html(
        "/bfs/guide/intro",
        "Introduction",
        '<p>Install the fixture package.</p><a href="../deep/level2">next</a>',
    )
    site.html("/bfs/deep/level2", "Level two", '<p>Second level.</p><a href="level3">next</a>')
    site.html("/bfs/deep/level3", "Level three", '<p>Third level.</p><a href="level4">next</a>')
    site.html("/bfs/deep/level4", "Level four", "<p>Too deep to reach.</p>")
    site.html("/bfs/private/secret", "Secret", "<p>robots.txt forbids this page.</p>")
    site.add("/bfs/loop-a", Page(status=302, headers={"Location": "/bfs/loop-b"}))
    site.add("/bfs/loop-b", Page(status=302, headers={"Location": "/bfs/loop-a"}))
    flaky = Page("<html><body><h1>Flaky</h1><p>Answered after a server error.</p></body></html>")
    site.add("/bfs/flaky", fail_then(flaky, [Page("oops", status=500)]))
    busy = Page("<html><body><h1>Busy</h1><p>Answered after a 429.</p></body></html>")
    site.add(
        "/bfs/busy", fail_then(busy, [Page("slow down", status=429, headers={"Retry-After": "2"})])
    )
    site.html("/bfs/huge", "Huge", "<p>" + "lorem ipsum " * 20_000 + "</p>")
    site.add(
        "/bfs/download", Page(b"\x00\x01binary\x02" * 100, content_type="application/octet-stream")
    )
    site.add(
        "/bfs/latin",
        Page(
            "<html><body><h1>Café</h1><p>Crème brûlée et Grüße aus Köln.</p></body></html>".encode(
                "iso-8859-1"
            ),
            content_type="text/html; charset=iso-8859-1",
        ),
    )
    site.add(
        "/bfs/sjis",
        Page(
            '<html><head><meta charset="shift_jis"><title>日本語</title></head>'
            "<body><h1>日本語</h1>"
            "<p>日本語のドキュメントです。</p></body></html>".encode("shift_jis"),
            content_type="text/html",
        ),
    )
    site.add("/bfs/redirect-in", Page(status=301, headers={"Location": "/bfs/guide/target"}))
    site.html("/bfs/guide/target", "Redirect target", "<p>Reached through a redirect.</p>")
    site.add(
        "/bfs/redirect-out", Page(status=302, headers={"Location": "http://127.0.0.2:9/elsewhere"})
    )
    site.html(
        "/bfs/code",
        "Path parameters",
        "<p>Declare a path parameter with a Python type annotation:</p>"
        f'<pre><code class="language-python">{CODE}</code></pre>'
        "<p>FastAPI converts the value and validates it.</p>",
    )
    site.html("/outside/page", "Outside", "<p>Outside the start folder.</p>")
    # -- a site with llms.txt ---------------------------------------------------------
    site.html(
        "/llms/",
        "LLMs Docs",
        '<p>Start page of the llms.txt site.</p><a href="never-linked-page">not followed</a>',
    )
    site.add(
        "/llms/llms.txt",
        Page(
            "# Fixture Docs\n\n> A fixture documentation set for the crawler tests.\n\n"
            f"## Docs\n\n- [Alpha](/llms/alpha.md): first page\n- [Beta]({base}/llms/beta.md)\n"
            "- [External](https://example.org/x.md)\n",
            content_type="text/plain; charset=utf-8",
        ),
    )
    site.add(
        "/llms/alpha.md",
        Page("# Alpha\n\nThe alpha page explains configuration.\n", content_type="text/markdown"),
    )
    site.add(
        "/llms/beta.md",
        Page("# Beta\n\nThe beta page explains deployment.\n", content_type="text/plain"),
    )
    site.html("/llms/never-linked-page", "Not linked", "<p>Only linked from HTML.</p>")
    # -- a site with a sitemap index (named in robots.txt) ---------------------------
    site.add(
        "/sitemap_index.xml",
        Page(
            '<?xml version="1.0" encoding="UTF-8"?>'
            '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
            f"<sitemap><loc>{base}/maps/sitemap-pages.xml</loc></sitemap>"
            f"<sitemap><loc>{base}/maps/sitemap-more.xml.gz</loc></sitemap>"
            "</sitemapindex>",
            content_type="application/xml",
        ),
    )
    site.add(
        "/maps/sitemap-pages.xml",
        Page(
            '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
            f"<url><loc>{base}/maps/one</loc></url><url><loc>{base}/maps/two?a=1&amp;b=2</loc></url>"
            f"<url><loc>{base}/other/x</loc></url></urlset>",
            content_type="application/xml",
        ),
    )
    site.add(
        "/maps/sitemap-more.xml.gz",
        Page(
            gzipped(
                '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
                f"<url><loc>{base}/maps/three</loc></url></urlset>"
            ),
            content_type="application/gzip",
        ),
    )
    site.html("/maps/", "Maps", '<p>Sitemap site.</p><a href="not-in-sitemap">x</a>')
    for name in ("one", "two", "three", "not-in-sitemap"):
        site.html(f"/maps/{name}", f"Map page {name}", f"<p>Page {name} of the sitemap.</p>")
    site.routes["/maps/two?a=1&b=2"] = site.routes.pop("/maps/two")


@pytest.fixture
def docs_site() -> Iterator[Site]:
    site = Site()
    with serve(site):
        build_site(site)
        yield site


@pytest.fixture
def sleeps() -> Sleeps:
    return Sleeps()


SLOW_PAGES = 40


@pytest.fixture
def slow_site() -> Iterator[Site]:
    """Forty pages that take 0.1 s each: a crawl long enough to watch, cancel or kill."""
    site = Site()

    def slow(number: int) -> Callable[[Request], Page]:
        def route(request: Request) -> Page:
            time.sleep(0.1)
            return Page(
                f"<html><body><main><h1>Slow page {number}</h1><p>Page {number} of a "
                f"slow site about retry policies.</p></main></body></html>"
            )

        return route

    with serve(site):
        links = "".join(f'<a href="p{n}">page {n}</a>' for n in range(SLOW_PAGES))
        site.html("/slow/", "Slow site", f"<p>A slow site.</p>{links}")
        for number in range(SLOW_PAGES):
            site.add(f"/slow/p{number}", slow(number))
        yield site
