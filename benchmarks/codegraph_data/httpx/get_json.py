"""Fetch a JSON document and print a field."""

import os

import httpx

BASE_URL = os.environ.get("BENCH_BASE_URL", "http://127.0.0.1:8000")


def main() -> None:
    response = httpx.get(f"{BASE_URL}/users/1", params={"expand": "roles"}, timeout=10.0)
    response.raise_for_status()
    data = response.json()
    print(response.status_code, response.headers.get("content-type"), data["path"])


if __name__ == "__main__":
    main()
