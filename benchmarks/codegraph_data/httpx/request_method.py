"""The generic request function and response text handling."""

import os

import httpx

BASE_URL = os.environ.get("BENCH_BASE_URL", "http://127.0.0.1:8000")


def main() -> None:
    response = httpx.request("OPTIONS", f"{BASE_URL}/items", headers={"Origin": "x"})
    response.encoding = "utf-8"
    print(response.encoding, response.charset_encoding, len(response.text))
    for line in response.iter_lines():
        print(line[:20])
    response.close()
    print(response.is_closed, response.is_stream_consumed)


if __name__ == "__main__":
    main()
