"""A small API client class built on httpx."""

import os
from typing import Any

import httpx

BASE_URL = os.environ.get("BENCH_BASE_URL", "http://127.0.0.1:8000")


class ItemsAPI:
    def __init__(self, base_url: str, token: str) -> None:
        self._client = httpx.Client(
            base_url=base_url, headers={"Authorization": f"Bearer {token}"}, timeout=10.0
        )

    def list(self, page: int = 1) -> Any:
        response = self._client.get("/items", params={"page": page})
        response.raise_for_status()
        return response.json()

    def create(self, name: str) -> Any:
        response = self._client.post("/items", json={"name": name})
        response.raise_for_status()
        return response.json()

    def close(self) -> None:
        self._client.close()


def main() -> None:
    api = ItemsAPI(BASE_URL, "token")
    print(api.list()["method"], api.create("tea")["method"])
    api.close()


if __name__ == "__main__":
    main()
