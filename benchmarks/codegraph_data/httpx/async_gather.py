"""Fetch several pages concurrently with AsyncClient."""

import asyncio
import os

import httpx

BASE_URL = os.environ.get("BENCH_BASE_URL", "http://127.0.0.1:8000")


async def fetch(client: httpx.AsyncClient, page: int) -> int:
    response = await client.get("/items", params={"page": page})
    response.raise_for_status()
    return len(response.content)


async def run() -> None:
    limits = httpx.Limits(max_connections=5, max_keepalive_connections=2)
    async with httpx.AsyncClient(base_url=BASE_URL, limits=limits) as client:
        sizes = await asyncio.gather(*(fetch(client, page) for page in range(1, 4)))
        print(sum(sizes))


def main() -> None:
    asyncio.run(run())


if __name__ == "__main__":
    main()
