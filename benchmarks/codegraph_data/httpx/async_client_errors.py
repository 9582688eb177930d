"""Async client with per-request timeouts and error handling."""

import asyncio
import os

import httpx

BASE_URL = os.environ.get("BENCH_BASE_URL", "http://127.0.0.1:8000")


async def run() -> None:
    client = httpx.AsyncClient(base_url=BASE_URL, follow_redirects=True)
    try:
        response = await client.post("/jobs", json={"task": "index"}, timeout=3.0)
        response.raise_for_status()
        job = response.json()
        status = await client.get("/jobs/1", headers={"X-Job": job["method"]})
        print(status.status_code, status.url)
    except httpx.HTTPError as exc:
        print("failed:", exc)
    finally:
        await client.aclose()


def main() -> None:
    asyncio.run(run())


if __name__ == "__main__":
    main()
