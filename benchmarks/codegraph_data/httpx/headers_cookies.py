"""Work with headers and cookies."""

import os

import httpx

BASE_URL = os.environ.get("BENCH_BASE_URL", "http://127.0.0.1:8000")


def main() -> None:
    headers = httpx.Headers({"X-Trace": "1"})
    headers["Accept"] = "application/json"
    cookies = httpx.Cookies()
    cookies.set("session", "abc", domain="127.0.0.1")
    with httpx.Client(headers=headers, cookies=cookies) as client:
        response = client.get(f"{BASE_URL}/cookies")
        print(response.json()["headers"].get("cookie"), headers.get("x-trace"))
        print(list(client.cookies.keys()), client.headers["accept"])


if __name__ == "__main__":
    main()
