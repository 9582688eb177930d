"""Authenticate with HTTP basic auth, per client and per request."""

import os

import httpx

BASE_URL = os.environ.get("BENCH_BASE_URL", "http://127.0.0.1:8000")


def main() -> None:
    auth = httpx.BasicAuth(username="alice", password="secret")
    with httpx.Client(auth=auth, base_url=BASE_URL) as client:
        me = client.get("/me")
        print(me.json()["headers"].get("authorization", "")[:5])
    other = httpx.get(f"{BASE_URL}/me", auth=("bob", "hunter2"))
    print(other.request.headers["Authorization"][:5])


if __name__ == "__main__":
    main()
