"""A real HTTP server on 127.0.0.1 serving a fixture documentation site.

Routes are plain data (``Page``) or functions of the request, so a test can
change the site between two crawls. Every request is logged with its
headers, which lets tests check what the crawler asked for (robots.txt
respected, conditional headers sent, retries made).
"""

from __future__ import annotations

import gzip
import hashlib
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

from contextbase.ingest.web.crawler import CrawlOptions
from contextbase.ingest.web.fetch import FetchOptions


@dataclass
class Page:
    body: bytes | str = b""
    status: int = 200
    content_type: str = "text/html; charset=utf-8"
    headers: dict[str, str] = field(default_factory=dict)
    etag: bool = True
    """Answer with an ETag and honour If-None-Match."""

    def data(self) -> bytes:
        return self.body.encode("utf-8") if isinstance(self.body, str) else self.body


@dataclass
class Request:
    path: str
    headers: dict[str, str]


Route = Page | Callable[[Request], Page]


class Site:
    def __init__(self) -> None:
        self.routes: dict[str, Route] = {}
        self.log: list[Request] = []
        self.lock = threading.Lock()
        self.base = ""

    def add(self, path: str, route: Route) -> None:
        self.routes[path] = route

    def html(self, path: str, title: str, body: str, **kwargs: object) -> None:
        page = (
            f"<html><head><title>{title}</title></head>"
            f"<body><main><h1>{title}</h1>{body}</main></body></html>"
        )
        self.add(path, Page(page, **kwargs))  # type: ignore[arg-type]

    def requested(self, path: str) -> list[Request]:
        with self.lock:
            return [r for r in self.log if r.path == path]

    def url(self, path: str) -> str:
        return f"{self.base}{path}"

    def answer(self, request: Request) -> Page:
        with self.lock:
            self.log.append(request)
        route = self.routes.get(request.path)
        if route is None:
            return Page("<html><body><h1>Not found</h1></body></html>", status=404)
        return route(request) if callable(route) else route


def _handler(site: Site) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            path = urlsplit(self.path).path
            query = urlsplit(self.path).query
            request = Request(path + (f"?{query}" if query else ""), dict(self.headers.items()))
            page = site.answer(request)
            data = page.data()
            status = page.status
            headers = {"Content-Type": page.content_type, **page.headers}
            if page.etag and status == 200:
                tag = '"' + hashlib.sha1(data).hexdigest()[:16] + '"'
                headers["ETag"] = tag
                if self.headers.get("If-None-Match") == tag:
                    status, data = 304, b""
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: object) -> None:
            return

    return Handler


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        """Clients closing kept-alive connections are normal here; stay quiet."""


@contextmanager
def serve(site: Site) -> Iterator[Site]:
    server = _Server(("127.0.0.1", 0), _handler(site))
    site.base = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    )
    thread.start()
    try:
        yield site
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def fail_then(page: Page, failures: list[Page]) -> Callable[[Request], Page]:
    """A route answering each page of ``failures`` once, then ``page`` for good."""
    pending = list(failures)

    def route(request: Request) -> Page:
        return pending.pop(0) if pending else page

    return route


def gzipped(text: str) -> bytes:
    return gzip.compress(text.encode("utf-8"))


class Sleeps:
    """An injected sleep: records each wait and returns at once, so tests stay fast."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


def fast_options(**overrides: object) -> CrawlOptions:
    fetch = FetchOptions(per_host_rate=0, backoff=0.01, max_bytes=100_000, timeout=10)
    options = CrawlOptions(allow_private=True, fetch=fetch)
    for key, value in overrides.items():
        setattr(options, key, value)
    return options
