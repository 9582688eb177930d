"""Post form data and upload a file."""

import io
import os

import httpx

BASE_URL = os.environ.get("BENCH_BASE_URL", "http://127.0.0.1:8000")


def main() -> None:
    form = httpx.post(f"{BASE_URL}/login", data={"user": "ada", "password": "x"})
    print(form.status_code)
    files = {"upload": ("report.csv", io.BytesIO(b"a,b\n1,2\n"), "text/csv")}
    uploaded = httpx.post(f"{BASE_URL}/upload", files=files, data={"kind": "csv"})
    print(uploaded.json()["method"], uploaded.request.headers["content-type"][:19])


if __name__ == "__main__":
    main()
