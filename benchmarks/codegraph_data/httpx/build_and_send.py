"""Build a request explicitly, then send it."""

import os

import httpx

BASE_URL = os.environ.get("BENCH_BASE_URL", "http://127.0.0.1:8000")


def main() -> None:
    with httpx.Client() as client:
        request = client.build_request("PATCH", f"{BASE_URL}/items/7", json={"stock": 3})
        request.headers["X-Request-Id"] = "42"
        response = client.send(request)
        print(response.status_code, response.request.method, response.elapsed.total_seconds() >= 0)


if __name__ == "__main__":
    main()
