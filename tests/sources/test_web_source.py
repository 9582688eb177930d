"""Websites indexed end to end: pages stored, re-crawls incremental, vanished pages removed."""

from __future__ import annotations

from pathlib import Path

import pytest

from contextbase.config import load_settings
from contextbase.embed import get_embedder
from contextbase.ingest.sources import AddResult, SourceSpec, WebIO, add_source
from contextbase.rag.service import RagService
from contextbase.store.db import Database
from contextbase.store.sqlite import SQLiteStore
from tests.sources.site import Page, Site, Sleeps, fast_options


def add_site(db: Database, site: Site, path: str = "/bfs/", **options: object) -> AddResult:
    settings = load_settings(db=db.path)
    spec = SourceSpec(site.url(path), crawl=fast_options(**options))
    return add_source(
        db, settings, spec, embedders=[get_embedder("fake")], web=WebIO(sleep=Sleeps())
    )


@pytest.fixture
def db(tmp_path: Path) -> Database:
    return Database(tmp_path / "web.db")


def documents(db: Database) -> dict[str, str]:
    return {row["source"]: row["title"] for row in db.query("SELECT source, title FROM documents")}


def test_a_crawled_site_becomes_a_library_and_a_source(docs_site: Site, db: Database) -> None:
    result = add_site(db, docs_site)
    url = docs_site.url
    port = docs_site.base.rsplit(":", 1)[1]
    assert result.kind == "web"
    assert result.library.context7_id == f"/web/127.0.0.1-{port}-bfs"
    assert result.library.ecosystem == "web"
    docs = documents(db)
    assert set(docs) == {
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
    # declared charsets decoded: ISO-8859-1 in the header, Shift_JIS in a <meta>
    texts = " ".join(row["text"] for row in db.query("SELECT text FROM chunks"))
    assert "Crème brûlée et Grüße aus Köln" in texts
    assert "日本語のドキュメントです" in texts
    assert result.source is not None
    assert result.source.source_id == f"127.0.0.1:{port}/bfs"
    assert result.source.summary == "Fixture documentation for the crawler tests."
    library = SQLiteStore(db).get_library(result.library.id)
    assert library is not None and library.short_description == result.source.summary
    assert result.source.document_count == len(docs)
    assert result.source.total_word_count > 30
    assert result.source.metadata == {"strategy": "crawl"}
    assert result.code_examples == 1
    service = RagService(SQLiteStore(db), get_embedder("fake"))
    hits = service.search_code_examples("path parameter type annotation", result.source.source_id)
    assert hits["results"][0]["url"] == url("/bfs/code")
    assert hits["results"][0]["metadata"]["language"] == "python"
    assert "read_item" in hits["results"][0]["code"]


def test_recrawl_is_incremental_and_removes_vanished_pages(docs_site: Site, db: Database) -> None:
    url = docs_site.url
    first = add_site(db, docs_site)
    assert first.report.indexed == 10
    docs_site.log.clear()

    second = add_site(db, docs_site)
    assert second.report.indexed == 0
    assert second.report.unchanged == 10
    assert docs_site.requested("/bfs/deep/level2")[0].headers.get("If-None-Match")
    assert second.crawl is not None and second.crawl.unchanged >= 8

    docs_site.html(
        "/bfs/guide/intro",
        "Introduction, revised",
        '<p>Install it with pip.</p><a href="../deep/level2">next</a>',
    )
    docs_site.routes.pop("/bfs/guide/target")  # now a 404 behind its redirect
    docs_site.html("/bfs/deep/level2", "Level two", "<p>No link to level three any more.</p>")
    third = add_site(db, docs_site)
    assert third.report.indexed == 2  # intro and level2 changed
    docs = documents(db)
    assert docs[url("/bfs/guide/intro")] == "Introduction, revised"
    assert url("/bfs/deep/level3") not in docs  # no longer linked: gone from a complete crawl
    assert url("/bfs/guide/target") not in docs
    assert third.report.removed == 2
    assert third.source is not None and third.source.document_count == len(docs)


def test_a_truncated_crawl_keeps_pages_it_did_not_reach(docs_site: Site, db: Database) -> None:
    add_site(db, docs_site)
    before = documents(db)
    partial = add_site(db, docs_site, max_pages=2)
    assert partial.crawl is not None and not partial.crawl.complete
    assert partial.report.removed == 0
    assert documents(db) == before


def test_a_page_answering_404_is_removed_even_from_a_partial_crawl(
    docs_site: Site, db: Database
) -> None:
    add_site(db, docs_site, path="/llms/")
    assert docs_site.url("/llms/beta.md") in documents(db)
    docs_site.routes.pop("/llms/beta.md")
    result = add_site(db, docs_site, path="/llms/", max_pages=3)
    assert docs_site.url("/llms/beta.md") not in documents(db)
    assert result.report.removed == 1
    assert result.source is not None and result.source.summary.startswith("A fixture")


def test_a_server_error_does_not_delete_a_stored_page(docs_site: Site, db: Database) -> None:
    add_site(db, docs_site)
    docs_site.add("/bfs/guide/intro", Page("unavailable", status=503))
    result = add_site(db, docs_site)
    assert result.crawl is not None and result.crawl.complete
    assert docs_site.url("/bfs/guide/intro") in documents(db)
    assert result.report.removed == 0
