"""A page built by JavaScript, rendered by real headless Chromium (skipped without it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from contextbase.config import load_settings
from contextbase.ingest.sources import SourceSpec, WebIO, add_source
from contextbase.ingest.web.render import CHROMIUM
from contextbase.store.db import Database
from tests.sources.site import Page, Site, Sleeps, fast_options

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason=f"no Chromium at {CHROMIUM}")

SPA = """<!doctype html><html><head><title>SPA docs</title></head><body><div id="root"></div>
<script>
const root = document.getElementById("root");
root.innerHTML = "<main><h1>Rendered guide</h1><p>This paragraph is written by " +
  "JavaScript in the browser, after the page loaded.</p>" +
  "<a href='/spa/second'>second page</a></main>";
</script></body></html>"""


def test_render_builds_the_page_in_chromium(docs_site: Site, tmp_path: Path) -> None:
    docs_site.html("/spa/second", "Second", "<p>The second page, plain HTML.</p>")
    docs_site.add("/spa/", Page(SPA))
    db = Database(tmp_path / "spa.db")
    settings = load_settings(db=db.path)

    plain = add_source(
        db,
        settings,
        SourceSpec(docs_site.url("/spa/"), library="plain", crawl=fast_options()),
        web=WebIO(sleep=Sleeps()),
    )
    assert plain.report.indexed == 0  # without scripts the page is empty and has no links

    rendered = add_source(
        db,
        settings,
        SourceSpec(docs_site.url("/spa/"), library="rendered", crawl=fast_options(render=True)),
        web=WebIO(sleep=Sleeps()),
    )
    assert rendered.report.indexed == 2  # the rendered page and the page its script links to
    text = db.scalar(
        "SELECT group_concat(c.text, ' ') FROM chunks c JOIN documents d ON d.id = c.document_id"
        " WHERE d.source = ? AND d.library_id = ?",
        (docs_site.url("/spa/"), rendered.library.id),
    )
    assert "written by JavaScript in the browser" in text
    assert len(docs_site.requested("/spa/")) >= 2  # fetched over HTTP, then by the browser
