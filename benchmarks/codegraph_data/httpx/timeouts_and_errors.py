"""Configure timeouts and handle the error hierarchy."""

import os

import httpx

BASE_URL = os.environ.get("BENCH_BASE_URL", "http://127.0.0.1:8000")


def fetch_status(path: str) -> int | None:
    timeout = httpx.Timeout(10.0, connect=2.0, read=5.0)
    try:
        response = httpx.get(f"{BASE_URL}{path}", timeout=timeout)
        response.raise_for_status()
    except httpx.HTTPStatusError as exc:
        print("server said", exc.response.status_code, exc.request.url)
        return exc.response.status_code
    except httpx.TimeoutException:
        print("too slow")
        return None
    except httpx.RequestError as exc:
        print("failed", exc.request.method)
        return None
    return response.status_code


def main() -> None:
    print(fetch_status("/ok"), fetch_status("/status/404"))


if __name__ == "__main__":
    main()
