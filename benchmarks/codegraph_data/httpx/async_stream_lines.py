"""Read a streamed response line by line, asynchronously."""

import asyncio
import os

import httpx

BASE_URL = os.environ.get("BENCH_BASE_URL", "http://127.0.0.1:8000")


async def run() -> None:
    timeout = httpx.Timeout(5.0, read=10.0)
    async with (
        httpx.AsyncClient(timeout=timeout) as client,
        client.stream("GET", f"{BASE_URL}/lines") as response,
    ):
        count = 0
        async for line in response.aiter_lines():
            if line:
                count += 1
        print(count, response.status_code)


def main() -> None:
    asyncio.run(run())


if __name__ == "__main__":
    main()
