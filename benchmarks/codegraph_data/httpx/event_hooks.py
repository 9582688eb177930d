"""Log every request and raise on error responses with event hooks."""

import os

import httpx

BASE_URL = os.environ.get("BENCH_BASE_URL", "http://127.0.0.1:8000")


def log_request(request: httpx.Request) -> None:
    print(f"> {request.method} {request.url}")


def raise_on_error(response: httpx.Response) -> None:
    response.read()
    print(f"< {response.status_code} {response.reason_phrase}")
    response.raise_for_status()


def main() -> None:
    hooks = {"request": [log_request], "response": [raise_on_error]}
    with httpx.Client(event_hooks=hooks, base_url=BASE_URL) as client:
        client.get("/health")
        try:
            client.get("/status/500")
        except httpx.HTTPStatusError as exc:
            print("caught", exc.response.status_code)


if __name__ == "__main__":
    main()
