"""Compare status codes with httpx.codes."""

import os

import httpx

BASE_URL = os.environ.get("BENCH_BASE_URL", "http://127.0.0.1:8000")


def main() -> None:
    response = httpx.head(f"{BASE_URL}/health")
    if response.status_code == httpx.codes.OK:
        print("healthy", httpx.codes.get_reason_phrase(response.status_code))
    print(httpx.codes.is_error(404), response.is_client_error, response.has_redirect_location)


if __name__ == "__main__":
    main()
