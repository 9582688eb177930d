"""A custom token auth flow."""

import os
from collections.abc import Generator

import httpx

BASE_URL = os.environ.get("BENCH_BASE_URL", "http://127.0.0.1:8000")


class TokenAuth(httpx.Auth):
    def __init__(self, token: str) -> None:
        self.token = token

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        request.headers["Authorization"] = f"Bearer {self.token}"
        response = yield request
        if response.status_code == 401:
            request.headers["Authorization"] = "Bearer refreshed"
            yield request


def main() -> None:
    with httpx.Client(auth=TokenAuth("abc")) as client:
        response = client.get(f"{BASE_URL}/secure")
        print(response.status_code, response.request.headers["authorization"])


if __name__ == "__main__":
    main()
