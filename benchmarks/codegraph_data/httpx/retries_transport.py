"""Retry failed connections with a configured transport."""

import os

import httpx

BASE_URL = os.environ.get("BENCH_BASE_URL", "http://127.0.0.1:8000")


def main() -> None:
    transport = httpx.HTTPTransport(retries=3)
    with httpx.Client(transport=transport, timeout=httpx.Timeout(5.0)) as client:
        response = client.get(f"{BASE_URL}/flaky")
        print(response.status_code, response.http_version)


if __name__ == "__main__":
    main()
