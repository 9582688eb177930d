"""Removing secrets and personal paths from text before it is stored.

Error messages and fixes are pasted from terminals, where API keys, tokens,
passwords and home folders sit next to the useful part. ``redact`` replaces
each secret with ``<redacted:KIND>`` and the user's home folder with ``~``, and
says which kinds it found, so the agent can tell the user what was removed.

Patterns are specific on purpose: ordinary prose and error text (``token``,
``password authentication failed``, ``scikit-learn``) must come through
unchanged, so a generic ``password=`` rule requires an assignment shape and a
value that looks like a secret.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

PLACEHOLDER = "<redacted:{kind}>"


@dataclass(frozen=True)
class Redaction:
    """Cleaned text and how many secrets of each kind were replaced."""

    text: str
    counts: dict[str, int] = field(default_factory=dict)

    @property
    def kinds(self) -> list[str]:
        return sorted(self.counts)


def _mask(kind: str) -> str:
    return PLACEHOLDER.format(kind=kind)


# (kind, pattern, group to replace or 0 for the whole match). Order matters:
# specific provider formats first, so ``sk-ant-`` is not reported as OpenAI.
_TOKEN_RULES: list[tuple[str, re.Pattern[str], int]] = [
    (
        "private_key",
        re.compile(
            r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY( BLOCK)?-----"
            r"(?:.*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY( BLOCK)?-----|(?:\s*[A-Za-z0-9+/=]{16,})*)",
            re.DOTALL,
        ),
        0,
    ),
    (
        "jwt",
        re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{0,}"),
        0,
    ),
    ("anthropic_api_key", re.compile(r"\bsk-ant-[A-Za-z0-9_-]{20,}"), 0),
    (
        "openai_api_key",
        re.compile(r"\bsk-(?:proj-|svcacct-|admin-)?(?=[A-Za-z0-9_-]*\d)[A-Za-z0-9_-]{20,}"),
        0,
    ),
    (
        "github_token",
        re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})"),
        0,
    ),
    ("gitlab_token", re.compile(r"\bglpat-[A-Za-z0-9_-]{20,}"), 0),
    ("slack_token", re.compile(r"\bxox[abprs]-[A-Za-z0-9-]{10,}"), 0),
    ("aws_access_key_id", re.compile(r"\b(?:AKIA|ASIA|AIDA|AROA)[0-9A-Z]{16}\b"), 0),
    (
        "aws_secret_access_key",
        re.compile(
            r"(?i:aws_?secret_?(?:access_?)?key|secretaccesskey)[\"']?\s*[:=]\s*[\"']?"
            r"([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])"
        ),
        1,
    ),
    ("google_api_key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}"), 0),
    ("stripe_key", re.compile(r"\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}"), 0),
    ("huggingface_token", re.compile(r"\bhf_[A-Za-z0-9]{30,}"), 0),
    ("npm_token", re.compile(r"\bnpm_[A-Za-z0-9]{36}\b"), 0),
    ("npm_token", re.compile(r"_authToken\s*=\s*([^\s\"']+)"), 1),
    (
        "bearer_token",
        # A credential has a digit or base64 padding; "Token introspection" is prose.
        re.compile(
            r"\b(?:Bearer|Basic|Token)\s+(?=[\w\-.~+/]*[\d=])([\w\-.~+/]{12,}=*)(?![\w.~+/=-])"
        ),
        1,
    ),
    (
        "url_password",
        re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s:/@<>\"']+:([^\s@/<>\"']+)@"),
        1,
    ),
]

# ``DB_PASSWORD=…``, ``secret: …``, ``"api_key": "…"``, ``token = "…"``.
_ASSIGNMENT = re.compile(
    r"(?P<key>\b[A-Za-z0-9_.-]*?(?P<name>password|passwd|pwd|passphrase|secret[_-]?key|secret|token"
    r"|api[_-]?key|apikey|access[_-]?key|private[_-]?key|client[_-]?secret|credentials?)\b)"
    r"(?P<sep>[\"']?\s*(?::|=|:=|=>)\s*)"
    r"(?:(?P<quote>[\"'])(?P<quoted>[^\"'\n]{1,200})(?P=quote)|(?P<bare>[^\s\"',;}{)]+))",
    re.IGNORECASE,
)
_NOT_A_SECRET = re.compile(
    r"^(?:<redacted:[a-z_]+>|\*+|x+|null|none|nil|true|false|undefined|required|optional"
    r"|str|string|int|bool|bytes|secretstr|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|%\(?\w+\)?s?"
    r"|os\.environ.*|process\.env.*|env\(.*|getenv.*|<[^>]*>|\{\{.*\}\}"
    r"|[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?:\(\))?)$",
    re.IGNORECASE,
)


def _looks_secret(name: str, key: str, value: str, sep: str) -> bool:
    if _NOT_A_SECRET.match(value) or len(value) < 4:
        return False
    name = name.lower()
    if name in {"password", "passwd", "pwd", "passphrase"}:
        return True
    # A bare "token:" or "secret:" is common in prose and parser errors
    # ("Unexpected token: import"); there the value must look machine-made.
    bare = name == "secret" and key.lower() == name and "=" not in sep
    if bare or (name == "token" and key.lower() == name):
        return (
            len(value) >= 16
            and bool(re.search(r"\d", value))
            and bool(re.search(r"[A-Za-z]", value))
        )
    return len(value) >= 6


def _home_rules(home: Path | None) -> list[re.Pattern[str]]:
    rules: list[re.Pattern[str]] = []
    if home is not None:
        text = str(home).rstrip("/\\")
        if len(text) > 1:
            rules.append(re.compile(re.escape(text) + r"(?=[/\\\s\"'`:;,)\]]|$)"))
    rules += [
        re.compile(r"(?<![\w.])/(?:home|Users)/[^/\\\s\"'`:;,)]+(?=[/\s\"'`:;,)\]]|$)"),
        re.compile(r"(?i)\b[A-Z]:[\\/]+Users[\\/]+[^\\/\s\"'`:;,)]+(?=[\\/\s\"'`:;,)\]]|$)"),
    ]
    return rules


def redact(text: str, *, home: Path | None = None) -> Redaction:
    """Replace secrets with ``<redacted:KIND>`` and home folders with ``~``.

    ``home`` is the current user's home folder (``Path.home()`` when omitted);
    ``/home/<name>``, ``/Users/<name>`` and ``C:\\Users\\<name>`` are abstracted too.
    """
    if not text:
        return Redaction(text)
    counts: Counter[str] = Counter()

    def replacer(kind: str, group: int) -> Callable[[re.Match[str]], str]:
        def replace(match: re.Match[str]) -> str:
            counts[kind] += 1
            if group == 0:
                return _mask(kind)
            start, end = match.span(group)
            base = match.start()
            whole = match.group(0)
            return whole[: start - base] + _mask(kind) + whole[end - base :]

        return replace

    for kind, pattern, group in _TOKEN_RULES:
        text = pattern.sub(replacer(kind, group), text)

    def assignment(match: re.Match[str]) -> str:
        value = match["quoted"] if match["quote"] else match["bare"]
        if not _looks_secret(match["name"], match["key"], value, match["sep"]):
            return match.group(0)
        kind = "password" if match["name"].lower().startswith(("pass", "pwd")) else "secret"
        counts[kind] += 1
        quote = match["quote"] or ""
        return f"{match['key']}{match['sep']}{quote}{_mask(kind)}{quote}"

    text = _ASSIGNMENT.sub(assignment, text)

    for pattern in _home_rules(Path.home() if home is None else home):

        def home_path(_: re.Match[str]) -> str:
            counts["home_path"] += 1
            return "~"

        text = pattern.sub(home_path, text)
    return Redaction(text, dict(counts))


def describe(counts: dict[str, int]) -> str:
    """``openai_api_key ×1, home_path ×2`` (empty when nothing was redacted)."""
    return ", ".join(f"{kind} ×{counts[kind]}" for kind in sorted(counts))
