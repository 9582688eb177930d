"""Normalising error text: varying details go, exact codes are extracted."""

from __future__ import annotations

import pytest

from contextbase.memory.normalize import embedding_text, extract_codes, normalize_error


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("Error: connect ECONNREFUSED 127.0.0.1:5432", "errno:ECONNREFUSED"),
        ("OSError: [Errno 98] Address already in use", "errno:EADDRINUSE"),
        ("src/a.ts(3,7): error TS2339: Property 'x' does not exist", "ts:TS2339"),
        ("error[E0382]: borrow of moved value: `v`", "rust:E0382"),
        ('main.py:3: error: "A" has no attribute "b"  [attr-defined]', "mypy:attr-defined"),
        ("main.py:9: error: Missing return statement  [return]", "mypy:return"),
        ("requests.exceptions.HTTPError: 404 Client Error: Not Found", "http:404"),
        ("HTTP/1.1 503 Service Unavailable", "http:503"),
        ("Error [ERR_REQUIRE_ESM]: require() of ES Module not supported", "node:ERR_REQUIRE_ESM"),
        ("npm ERR! code ERESOLVE", "npm:ERESOLVE"),
        ("KeyError: 'user_id'", "exception:KeyError"),
        ("ModuleNotFoundError: No module named 'numpy'", "exception:ModuleNotFoundError"),
        (
            "Exception in thread main java.lang.NullPointerException",
            "exception:NullPointerException",
        ),
        ("error CS0246: The type or namespace name could not be found", "csharp:CS0246"),
        ("ORA-00942: table or view does not exist", "oracle:ORA-00942"),
        ("ERROR: duplicate key value (SQLSTATE 23505)", "sqlstate:23505"),
    ],
)
def test_exact_codes_are_extracted(text: str, code: str) -> None:
    assert code in extract_codes(text)


def test_ordinary_words_are_not_codes() -> None:
    assert extract_codes("ERROR: EMPTY ENTRY in the Error log; Exception handling [x] done") == ()


def test_same_error_elsewhere_normalises_equal() -> None:
    one = normalize_error(
        'Traceback (most recent call last):\n  File "/home/a/proj/app.py", line 12, in main\n'
        "KeyError: 'user_id' at 0x7f3a2b1c and 2024-05-01T12:00:01Z"
    )
    two = normalize_error(
        'Traceback (most recent call last):\n  File "/srv/other/run.py", line 873, in main\n'
        "KeyError: 'order' at 0x55d1e0 and 2025-11-30T08:15:00Z"
    )
    assert one.text == two.text
    assert one.key == two.key
    assert one.identifiers == ("user_id",)
    assert "<path>" in one.text and "<hex>" in one.text and "<time>" in one.text


def test_ports_uuids_and_windows_paths() -> None:
    n = normalize_error(
        r"connect to localhost:8080 failed for job 3f2b6c1e-0d4a-4c5b-9a7e-2f1d8c9b0a11 "
        r"reading C:\work\app\main.py"
    )
    assert "localhost:<port>" in n.text and "<uuid>" in n.text and "<path>" in n.text
    assert "8080" not in n.text


def test_codes_keep_their_numbers_and_change_the_key() -> None:
    a = normalize_error("HTTP 404 from the registry")
    b = normalize_error("HTTP 500 from the registry")
    assert "404" in a.text
    assert a.key != b.key


def test_embedding_text_puts_error_lines_first() -> None:
    text = embedding_text("  File \"/x/y.py\", line 3, in f\n    return d['k']\nKeyError: 'k'")
    assert text.splitlines()[0] == "KeyError: 'k'"
