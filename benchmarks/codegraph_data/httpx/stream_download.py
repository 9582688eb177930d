"""Stream a large download to disk in chunks."""

import os
import tempfile

import httpx

BASE_URL = os.environ.get("BENCH_BASE_URL", "http://127.0.0.1:8000")


def main() -> None:
    target = os.path.join(tempfile.mkdtemp(), "download.bin")
    with httpx.Client() as client, client.stream("GET", f"{BASE_URL}/bytes/4096") as response:
        response.raise_for_status()
        total = int(response.headers.get("content-length", 0))
        with open(target, "wb") as handle:
            for chunk in response.iter_bytes(chunk_size=1024):
                handle.write(chunk)
        print(total, response.num_bytes_downloaded)


if __name__ == "__main__":
    main()
