"""Follow redirects and inspect the history."""

import os

import httpx

BASE_URL = os.environ.get("BENCH_BASE_URL", "http://127.0.0.1:8000")


def main() -> None:
    first = httpx.get(f"{BASE_URL}/redirect")
    print(first.status_code, first.is_redirect, first.next_request is not None)
    with httpx.Client(follow_redirects=True) as client:
        final = client.get(f"{BASE_URL}/redirect")
        print(final.status_code, [r.status_code for r in final.history], final.url.path)


if __name__ == "__main__":
    main()
