"""Reuse one client for several requests, with a base URL and default headers."""

import os

import httpx

BASE_URL = os.environ.get("BENCH_BASE_URL", "http://127.0.0.1:8000")


def main() -> None:
    headers = {"User-Agent": "bench/1.0", "Accept": "application/json"}
    with httpx.Client(base_url=BASE_URL, headers=headers, timeout=5.0) as client:
        users = client.get("/users", params={"page": 1})
        users.raise_for_status()
        created = client.post("/users", json={"name": "Ada"})
        print(created.status_code, created.json()["method"])
        updated = client.put("/users/1", json={"name": "Ada L."})
        print(updated.is_success)
        deleted = client.delete("/users/1")
        print(deleted.status_code, client.base_url)


if __name__ == "__main__":
    main()
