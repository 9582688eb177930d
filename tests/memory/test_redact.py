"""Secrets and home folders are removed; ordinary error text is not touched."""

from __future__ import annotations

from pathlib import Path

import pytest

from contextbase.memory.redact import describe, redact

HOME = Path("/home/tester")

SECRETS = [
    (
        "openai_api_key",
        "OPENAI_API_KEY=sk-proj-Ab3dEfGhIjKlMnOpQrStUvWxYz0123456789",
        "sk-proj-Ab3d",
    ),
    (
        "openai_api_key",
        "Incorrect API key provided: sk-abcdefghij1234567890ABCDEFGH.",
        "sk-abcdefghij",
    ),
    ("anthropic_api_key", "x-api-key: sk-ant-api03-AbCdEfGhIjKlMnOpQrStUv0123", "sk-ant-api03"),
    ("github_token", "remote: ghp_abcdefghijklmnopqrstuvwxyz0123456789 denied", "ghp_abc"),
    ("github_token", "token github_pat_11ABCDEFG0123456789_abcdefghijklmnop", "github_pat_11"),
    ("gitlab_token", "PRIVATE-TOKEN: glpat-AbCdEfGhIjKlMnOpQrSt", "glpat-AbCd"),
    ("slack_token", "SLACK_BOT_TOKEN=xoxb-1234567890-0987654321-AbCdEfGh", "xoxb-1234"),
    (
        "aws_access_key_id",
        "InvalidAccessKeyId: AKIAIOSFODNN7EXAMPLE does not exist",
        "AKIAIOSFODNN7",
    ),
    (
        "aws_secret_access_key",
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "wJalrXUtnFEMI",
    ),
    ("google_api_key", "key=AIzaSyA1234567890abcdefghijklmnopqrstuv failed", "AIzaSyA123"),
    ("stripe_key", "stripe.api_key = 'sk_live_4eC39HqLyjWDarjtT1zdp7dc'", "4eC39HqLyj"),
    ("huggingface_token", "HF_TOKEN hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567", "hf_AbCd"),
    (
        "npm_token",
        "//registry.npmjs.org/:_authToken=npm_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
        "npm_AbCd",
    ),
    ("bearer_token", "Authorization: Bearer abc123def456ghi789jkl", "abc123def456"),
    ("bearer_token", "Authorization: Basic dXNlcjpwYXNzd29yZA==", "dXNlcjpwYXNz"),
    ("url_password", "postgresql://admin:S3cretPass@db.internal:5432/app refused", "S3cretPass"),
    ("password", 'DB_PASSWORD="hunter2-dev"', "hunter2-dev"),
    ("password", "password: correcthorsebattery", "correcthorsebattery"),
    ("password", 'PGPASSWORD="correct horse battery"', "horse battery"),
    ("secret", 'client_secret: "9f8e7d6c5b4a"', "9f8e7d6c5b4a"),
    ("secret", "SECRET_KEY = 'django-insecure-4#v8x!k2'", "django-insecure"),
    ("secret", 'token = "a1b2c3d4e5f6g7h8i9j0k1"', "a1b2c3d4e5f6g7h8i9j0"),
    (
        "jwt",
        "Invalid token eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
        "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        "eyJzdWIiOiIx",
    ),
    (
        "private_key",
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA0Z3VS5JJcds3xfn\n"
        "bWqQUV6zvBpTn5XXKH3kB2c1\n-----END RSA PRIVATE KEY-----",
        "MIIEowIBAAKCAQEA",
    ),
    ("home_path", "File /home/alice/project/app.py, line 3", "alice"),
    ("home_path", "at /Users/bob/src/index.js:1:1", "bob"),
    ("home_path", r"C:\Users\carol\AppData\Local\pip", "carol"),
    ("home_path", "cannot open /home/tester/notes.txt", "/home/tester"),
]


@pytest.mark.parametrize(("kind", "text", "secret"), SECRETS)
def test_each_secret_kind_is_redacted(kind: str, text: str, secret: str) -> None:
    result = redact(text, home=HOME)
    assert secret not in result.text
    assert kind in result.kinds
    marker = "~" if kind == "home_path" else f"<redacted:{kind}>"
    assert marker in result.text


def test_context_around_a_secret_survives() -> None:
    result = redact("postgresql://admin:S3cretPass@db:5432/app refused", home=HOME)
    assert result.text == "postgresql://admin:<redacted:url_password>@db:5432/app refused"
    home = redact("File /home/alice/project/app.py, line 3", home=HOME)
    assert home.text == "File ~/project/app.py, line 3"


ORDINARY = [
    'FATAL: password authentication failed for user "postgres"',
    "SyntaxError: Unexpected token: 'import'",
    "TypeError: Cannot read properties of undefined (reading 'token')",
    "pip install scikit-learn==1.4.2 numpy>=1.26",
    "error TS2339: Property 'secret' does not exist on type 'Config'.",
    "KeyError: 'password'",
    "Use a task-manager-like queue; see https://example.com/docs/tokens",
    "The API key is missing: set OPENAI_API_KEY in the environment.",
    "password: str = Field(min_length=8)",
    "token = os.environ['GITHUB_TOKEN']",
    "Expected secret: ${API_SECRET} to be set",
    "ModuleNotFoundError: No module named 'jwt'",
    "skip-worktree flag set; sk-learn is not a package",
    "/usr/local/lib/python3.12/site-packages/requests/adapters.py:519",
    "Caused by: java.lang.NullPointerException at com.example.Main.main(Main.java:14)",
    "Token introspection failed for client; Basic authentication is required",
    "Bearer authentication failed: invalid_token",
    "SECRET_KEY = settings.SECRET_KEY",
    "def check_password(password: str) -> bool:",
]


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_text_survives_untouched(text: str) -> None:
    result = redact(text, home=HOME)
    assert result.text == text
    assert result.counts == {}


def test_counts_and_description() -> None:
    text = "a=/home/x/1 b=/home/y/2 key sk-proj-Ab3dEfGhIjKlMnOpQrStUvWxYz0123"
    result = redact(text, home=HOME)
    assert result.counts == {"home_path": 2, "openai_api_key": 1}
    assert describe(result.counts) == "home_path ×2, openai_api_key ×1"
