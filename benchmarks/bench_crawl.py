"""Crawl throughput against a local site of a few thousand real pages.

Serves ../shared/corpora/devdocs-html (NumPy, pandas and Python docs, ~4,900
HTML pages) from a separate process on 127.0.0.1 with a generated sitemap,
then measures:

* fetch only: the crawler alone (sitemap strategy, no indexing), pages/s;
* keyword-only indexing: crawl + convert + chunk + store, pages/s and the
  share of time in each stage;
* with the local model (all-MiniLM-L6-v2) on ``--model-pages`` pages.

Stage shares: ``fetch`` is the time the Indexer waited for the next page
(the crawl runs concurrently on its own thread, so only the wait counts);
``convert`` is HTML → Markdown, ``chunk``, ``embed`` the chunk vectors,
``code examples`` extraction and embedding, ``store`` the SQLite writes.

    .venv/bin/python benchmarks/bench_crawl.py [--max-pages N] [--model-pages N]
        [--max-concurrent 10]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import SHARED, print_table, write_results
from contextbase.chunk import ChunkOptions
from contextbase.embed import get_embedder
from contextbase.ingest.files import SourceFile
from contextbase.ingest.library import prepare_library
from contextbase.ingest.pipeline import Indexer
from contextbase.ingest.web.crawler import Crawler, CrawlOptions
from contextbase.ingest.web.fetch import FetchOptions
from contextbase.rag.observer import CodeExampleObserver
from contextbase.rag.store import RagStore
from contextbase.store.db import Database
from contextbase.store.sqlite import SQLiteStore

CORPUS = SHARED / "corpora" / "devdocs-html"

SERVER = r"""
import sys
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

root = Path(sys.argv[1])
pages = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.html"))


class Handler(SimpleHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        if self.path in ("/sitemap.xml", "/robots.txt"):
            base = f"http://{self.headers['Host']}"
            if self.path == "/robots.txt":
                body = f"User-agent: *\nSitemap: {base}/sitemap.xml\n".encode()
                kind = "text/plain"
            else:
                urls = "".join(f"<url><loc>{base}/{p}</loc></url>" for p in pages)
                body = ('<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/'
                        f'schemas/sitemap/0.9">{urls}</urlset>').encode()
                kind = "application/xml"
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        if self.path == "/":
            body = b"<html><body><h1>devdocs</h1><p>Local documentation mirror.</p></body></html>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        super().do_GET()

    def log_message(self, *args):
        pass


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128

    def handle_error(self, request, client_address):
        pass


server = Server(("127.0.0.1", 0), partial(Handler, directory=str(root)))
print(server.server_address[1], flush=True)
server.serve_forever()
"""


def start_server() -> tuple[subprocess.Popen[str], str]:
    process = subprocess.Popen(
        [sys.executable, "-c", SERVER, str(CORPUS)], stdout=subprocess.PIPE, text=True
    )
    assert process.stdout is not None
    port = process.stdout.readline().strip()
    return process, f"http://127.0.0.1:{port}/"


def options(max_pages: int, max_concurrent: int) -> CrawlOptions:
    fetch = FetchOptions(max_concurrent=max_concurrent, per_host_rate=0)
    return CrawlOptions(max_pages=max_pages, allow_private=True, fetch=fetch)


def fetch_only(url: str, max_pages: int, max_concurrent: int) -> dict[str, Any]:
    crawler = Crawler(url, options(max_pages, max_concurrent))
    started = time.perf_counter()
    size = sum(len(f.data) for f in crawler.files())
    seconds = time.perf_counter() - started
    pages = crawler.stats.fetched
    return {
        "run": "fetch only",
        "pages": pages,
        "seconds": round(seconds, 2),
        "pages_per_s": round(pages / seconds, 1),
        "MB": round(size / 1e6, 1),
        "strategy": crawler.stats.strategy,
    }


class _Waits:
    """Wraps the crawl's page iterator to time how long the Indexer waited for pages."""

    def __init__(self) -> None:
        self.seconds = 0.0

    def wrap(self, files: Iterator[SourceFile]) -> Iterator[SourceFile]:
        while True:
            started = time.perf_counter()
            try:
                file = next(files)
            except StopIteration:
                self.seconds += time.perf_counter() - started
                return
            self.seconds += time.perf_counter() - started
            yield file


def index_run(
    url: str, label: str, embedder: str, max_pages: int, max_concurrent: int, work: Path
) -> dict[str, Any]:
    """Crawl and index as ``add_source`` does, timing the wait for pages on the way."""
    db = Database(work / f"{label.replace(' ', '-')}.db")
    store = SQLiteStore(db)
    model = get_embedder(embedder)
    embedders = [model] if model else []
    observer = CodeExampleObserver(RagStore(store), embedders)
    indexer = Indexer(store, embedders, ChunkOptions(), observers=[observer])
    library = prepare_library(store, "devdocs", {}, ecosystem="web")
    crawler = Crawler(url, options(max_pages, max_concurrent))
    waits = _Waits()
    started = time.perf_counter()
    report = indexer.index(library, "", waits.wrap(crawler.files()), remove_missing=False)
    seconds = time.perf_counter() - started
    stages = {
        "fetch": waits.seconds,
        "convert": report.seconds["parse"],
        "chunk": report.seconds["chunk"],
        "embed": report.seconds["embed"],
        "code examples": report.seconds["observers"],
        "store": report.seconds["store"],
    }
    pages = crawler.stats.fetched
    row = {
        "run": label,
        "pages": pages,
        "seconds": round(seconds, 2),
        "pages_per_s": round(pages / seconds, 1),
        "chunks": report.chunks,
        "code_examples": observer.examples,
    }
    shares = {f"{name} %": round(100 * value / seconds, 1) for name, value in stages.items()}
    shares["other %"] = round(100 * max(0.0, seconds - sum(stages.values())) / seconds, 1)
    return {**row, **shares}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-pages", type=int, default=5000)
    parser.add_argument(
        "--model-pages",
        type=int,
        default=500,
        help="Pages for the run with the local model (0 to skip).",
    )
    parser.add_argument("--max-concurrent", type=int, default=10)
    args = parser.parse_args()
    server, url = start_server()
    rows: list[dict[str, Any]] = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            work = Path(tmp)
            rows.append(fetch_only(url, args.max_pages, args.max_concurrent))
            rows.append(
                index_run(url, "keyword-only", "none", args.max_pages, args.max_concurrent, work)
            )
            if args.model_pages:
                rows.append(
                    index_run(
                        url, "local model", "local", args.model_pages, args.max_concurrent, work
                    )
                )
    finally:
        server.terminate()
        server.wait(10)
    print_table(
        "Crawl throughput (devdocs-html served on 127.0.0.1, sitemap strategy)",
        [{k: v for k, v in r.items() if not k.endswith("%")} for r in rows],
    )
    print_table(
        "Share of wall time per stage",
        [
            {"run": r["run"], **{k: v for k, v in r.items() if k.endswith("%")}}
            for r in rows
            if "fetch %" in r
        ],
    )
    write_results(
        "crawl",
        {
            "corpus": str(CORPUS.relative_to(SHARED.parent)),
            "max_concurrent": args.max_concurrent,
            "runs": rows,
        },
    )


if __name__ == "__main__":
    main()
