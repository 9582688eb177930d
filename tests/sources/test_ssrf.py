"""Refusing private addresses: literals, names that resolve to them, and redirects to them."""

from __future__ import annotations

import anyio
import httpx
import pytest

from contextbase.ingest.web.crawler import Crawler
from contextbase.ingest.web.fetch import Fetcher, FetchOptions
from contextbase.ingest.web.ssrf import BlockedAddressError, UrlGuard
from tests.sources.site import Page, Site, Sleeps, fast_options

PRIVATE = [
    "http://127.0.0.1/",
    "http://127.1.2.3:8080/x",
    "http://10.0.0.8/",
    "http://172.16.5.4/",
    "http://192.168.1.1/",
    "http://169.254.169.254/latest/meta-data/",
    "http://[::1]/",
    "http://[::ffff:127.0.0.1]/",
    "http://[fe80::1]/",
    "http://0.0.0.0/",
    "http://224.0.0.1/",
    "http://100.64.0.1/",
    "http://2130706433/",  # 127.0.0.1 written as one number
    "http://localhost:8000/",
]


@pytest.mark.parametrize("url", PRIVATE)
def test_private_loopback_link_local_and_reserved_addresses_are_refused(url: str) -> None:
    with pytest.raises(BlockedAddressError, match="allow_private_urls"):
        anyio.run(UrlGuard(allow_private=False).check, url)


def test_every_resolved_address_is_checked_and_public_ones_are_pinned() -> None:
    answers = {"docs.example": ["93.184.216.34", "10.1.1.1"], "ok.example": ["93.184.216.34"]}

    async def resolver(host: str, port: int) -> list[str]:
        return answers[host]

    guard = UrlGuard(allow_private=False, resolver=resolver)
    with pytest.raises(BlockedAddressError, match=r"10\.1\.1\.1"):
        anyio.run(guard.check, "https://docs.example/guide")
    target = anyio.run(guard.check, "https://ok.example:8443/guide?q=1")
    assert target.address == "93.184.216.34"
    assert target.connect_url() == "https://93.184.216.34:8443/guide?q=1"
    assert anyio.run(UrlGuard(allow_private=True).check, "http://127.0.0.1/").address is None


def test_a_crawl_of_a_private_address_is_refused_before_any_request(docs_site: Site) -> None:
    options = fast_options(allow_private=False)
    with pytest.raises(BlockedAddressError):
        list(Crawler(docs_site.url("/bfs/"), options).files())
    assert docs_site.log == []


class _HostsFile(httpx.AsyncBaseTransport):
    """Like an /etc/hosts entry: connections to the fake public address reach 127.0.0.1."""

    def __init__(self, public: str) -> None:
        self.public = public
        self.inner = httpx.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.host == self.public:
            request.url = request.url.copy_with(host="127.0.0.1")
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


def test_a_redirect_to_a_private_address_is_refused(docs_site: Site) -> None:
    port = docs_site.base.rsplit(":", 1)[1]
    docs_site.add(
        "/jump",
        Page(status=302, headers={"Location": f"http://127.0.0.1:{port}/bfs/private/secret"}),
    )
    public = "93.184.216.34"

    async def resolver(host: str, port: int) -> list[str]:
        return [public] if host == "docs.example" else ["127.0.0.1"]

    async def fetch() -> tuple[object, ...]:
        guard = UrlGuard(allow_private=False, resolver=resolver)
        async with Fetcher(
            FetchOptions(per_host_rate=0), guard, transport=_HostsFile(public), sleep=Sleeps()
        ) as fetcher:
            result = await fetcher.fetch(f"http://docs.example:{port}/jump")
        return result.blocked, result.error

    blocked, error = anyio.run(fetch)
    assert blocked and "private" in str(error)
    assert docs_site.requested("/jump")[0].headers["Host"] == f"docs.example:{port}"
    assert not docs_site.requested("/bfs/private/secret")
