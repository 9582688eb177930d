"""Error text normalisation: what varies between occurrences goes, codes stay.

The same error seen twice differs in file paths, line and column numbers,
memory addresses, quoted names, timestamps, ports and ids. ``normalize_error``
replaces those with placeholders (``<path>``, ``<n>``, ``<hex>``, ``<id>``,
``<time>``, ``<port>``, ``<uuid>``, ...) so two occurrences compare equal, and
extracts the exact error codes, which decide a match on their own:

========== ============================================ ======================
family     examples                                     code
========== ============================================ ======================
errno      ``ECONNREFUSED``, ``[Errno 111]``             ``errno:ECONNREFUSED``
node       ``ERR_REQUIRE_ESM``                          ``node:ERR_REQUIRE_ESM``
npm        ``npm ERR! code ERESOLVE``                   ``npm:ERESOLVE``
ts         ``error TS2339``                             ``ts:TS2339``
rust       ``error[E0382]``                             ``rust:E0382``
mypy       ``[attr-defined]``                           ``mypy:attr-defined``
http       ``HTTP 404``, ``status code 503``            ``http:404``
csharp     ``CS0246``                                   ``csharp:CS0246``
oracle     ``ORA-00942``                                ``oracle:ORA-00942``
sqlstate   ``SQLSTATE 23505``                           ``sqlstate:23505``
exception  ``KeyError``, ``java.lang.NullPointer…``     ``exception:KeyError``
========== ============================================ ======================
"""

from __future__ import annotations

import errno
import hashlib
import re
from dataclasses import dataclass

PLACEHOLDER = re.compile(r"<(?:redacted:[a-z_]+|path|n|id|hex|uuid|time|ip|port|version)>")


@dataclass(frozen=True)
class NormalizedError:
    text: str
    """The error with varying details replaced by placeholders."""
    codes: tuple[str, ...]
    """Exact error codes as ``family:CODE``, in order of appearance."""
    identifiers: tuple[str, ...]
    """The quoted names the placeholders ``<id>`` replaced (a weaker matching signal)."""

    @property
    def key(self) -> str:
        """A short hash equal for two occurrences of the same error (the dedup key)."""
        folded = " ".join(self.text.lower().split())
        material = folded + "\x00" + " ".join(sorted(self.codes))
        return hashlib.sha256(material.encode()).hexdigest()[:32]

    @property
    def searchable(self) -> str:
        """The normalised text without placeholders: the words worth matching."""
        return " ".join(PLACEHOLDER.sub(" ", self.text).split())


# -- exact codes -------------------------------------------------------------

_ERRNO_NAMES = frozenset(errno.errorcode.values()) | {
    "ENOTFOUND",
    "EAI_AGAIN",
    "EAI_NONAME",
    "ECONNABORTED",
    "EPROTO",
}
_NPM_CODES = frozenset({"ERESOLVE", "EINTEGRITY", "ELIFECYCLE", "EBADENGINE", "EJSONPARSE"})

_CODE_RULES: list[tuple[str, re.Pattern[str]]] = [
    ("npm", re.compile(r"\bnpm (?:ERR!|error) code (E\d{3})\b")),
    ("errno", re.compile(r"\b(E[A-Z][A-Z0-9_]{2,})\b")),
    ("node", re.compile(r"\b(ERR_[A-Z0-9_]{3,})\b")),
    ("ts", re.compile(r"\b(TS\d{4,5})\b")),
    ("rust", re.compile(r"\b(E\d{4})\b")),
    ("csharp", re.compile(r"\b(CS\d{4})\b")),
    ("oracle", re.compile(r"\b(ORA-\d{5})\b")),
    ("sqlstate", re.compile(r"\bSQLSTATE\s*[\[:=]?\s*([0-9A-Z]{5})\b")),
    # mypy prints the code in brackets at the end of the line; codes named inside
    # a message ("Unused 'type: ignore[x]' comment") are not the error's own.
    ("mypy", re.compile(r"\[([a-z][a-z0-9]*(?:-[a-z0-9]+)*)\][ \t]*$", re.M)),
    (
        "http",
        re.compile(
            r"\bHTTP(?:/\d(?:\.\d)?)?[\s:]+([1-5]\d\d)\b"
            r"|\bstatus(?:[ _]?code)?[\s:=]+([1-5]\d\d)\b"
            r"|\b([45]\d\d) (?:Client|Server) Error\b"
            r"|\b([45]\d\d)[ :]+(?:Not Found|Bad Request|Unauthorized|Forbidden|Conflict"
            r"|Internal Server Error|Bad Gateway|Service Unavailable|Gateway Time-?out"
            r"|Too Many Requests|Method Not Allowed|Unprocessable (?:Entity|Content))\b",
            re.I,
        ),
    ),
    ("errnum", re.compile(r"\[(?:Errno|WinError) (-?\d+)\]|\berrno[:= ]+(-?\d+)\b", re.I)),
    (
        "exception",
        re.compile(
            r"\b(?:[a-z_][\w]*\.)*([A-Z][A-Za-z0-9]*(?:Error|Exception|Warning|Exit|Interrupt|Fault))\b"
        ),
    ),
]
_GENERIC_EXCEPTIONS = frozenset({"Error", "Exception", "Warning", "Fault"})


def extract_codes(text: str) -> tuple[str, ...]:
    """The exact error codes in ``text`` as ``family:CODE``, without repeats."""
    found: dict[str, None] = {}
    for family, pattern in _CODE_RULES:
        for match in pattern.finditer(text):
            value = next((g for g in match.groups() if g), None)
            code = _canonical(family, value) if value else None
            if code:
                found.setdefault(code, None)
    return tuple(found)


def _canonical(family: str, value: str) -> str | None:
    if family == "errno":
        if value in _ERRNO_NAMES:
            return f"errno:{value}"
        return f"npm:{value}" if value in _NPM_CODES else None
    if family == "errnum":
        number = int(value)
        name = errno.errorcode.get(abs(number))
        return f"errno:{name}" if name else f"errnum:{number}"
    if family == "exception" and value in _GENERIC_EXCEPTIONS:
        return None
    if family == "http":
        return f"http:{value}"
    return f"{family}:{value}"


def code_family(code: str) -> str:
    return code.partition(":")[0]


def code_value(code: str) -> str:
    return code.partition(":")[2]


# -- varying details -----------------------------------------------------------

_QUOTED = re.compile(
    r"(?<![\w\\])'([^'\n]{1,80})'(?!\w)|(?<![\w\\])\"([^\"\n]{1,80})\"(?!\w)|`([^`\n]{1,80})`"
)
_SUBSTITUTIONS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\b([a-zA-Z][a-zA-Z0-9+.-]*://[^\s/'\"<>]+)[^\s'\"<>]*"), r"\1"),
    (
        re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.I),
        "<uuid>",
    ),
    (
        re.compile(
            r"\b\d{4}-\d{2}-\d{2}"
            r"(?:[T ]\d{2}:\d{2}(?::\d{2})?(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?)?\b"
            r"|\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b"
        ),
        "<time>",
    ),
    (re.compile(r"\b0x[0-9a-fA-F]+\b"), "<hex>"),
    (re.compile(r"\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{12,}\b"), "<hex>"),
    (re.compile(r"\b\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?\b"), "<ip>"),
    (re.compile(r"\[[0-9a-fA-F:]*::[0-9a-fA-F:]*\](?::\d{1,5})?"), "<ip>"),
    (re.compile(r"\b(localhost|<ip>):\d{2,5}\b"), r"\1:<port>"),
    (re.compile(r"\bport\s+\d{2,5}\b", re.I), "port <port>"),
    # Windows paths, then POSIX paths (absolute, ~/ or ./), then relative paths with an extension.
    (re.compile(r"\b[A-Za-z]:\\(?:[^\\\s\"'<>|:*?]+\\)*[^\\\s\"'<>|:*?,)]*"), "<path>"),
    (re.compile(r"(?<![\w.<>:/-])(?:~|\.{1,2})?(?:/[\w.@+~-]+)+/?"), "<path>"),
    (re.compile(r"(?<![\w./<-])(?:[\w@.+-]+/)+[\w@+-]+\.[A-Za-z][A-Za-z0-9]{0,5}\b"), "<path>"),
    (re.compile(r"(<path>)(?::\d+){1,2}\b"), r"\1:<n>"),
    (re.compile(r"(<path>)\(\d+(?:,\d+)?\)"), r"\1(<n>)"),
    (re.compile(r"\b(line|lines|column|col|row|position|pos|offset)\s+\d+", re.I), r"\1 <n>"),
    (re.compile(r"\bv\d+(?:\.\d+)+(?:[-+][\w.]+)?\b"), "<version>"),
]
_NUMBER = re.compile(r"(?<![\w<-])[-+]?\d+(?:\.\d+)*(?![\w>])")
_NUMERIC_FAMILIES = frozenset({"http", "sqlstate", "errnum"})


def _code_numbers(codes: tuple[str, ...]) -> set[str]:
    """Numbers that are themselves codes (``HTTP 404``, ``SQLSTATE 23505``) stay."""
    return {code_value(c).lstrip("-") for c in codes if code_family(c) in _NUMERIC_FAMILIES}


def normalize_error(text: str) -> NormalizedError:
    """Normalise one error text; see the module docstring for what changes."""
    codes = extract_codes(text)
    out = text
    for pattern, replacement in _SUBSTITUTIONS:
        out = pattern.sub(replacement, out)

    identifiers: dict[str, None] = {}

    def quoted(match: re.Match[str]) -> str:
        value = next(g for g in match.groups() if g is not None)
        if PLACEHOLDER.fullmatch(value.strip()):
            return value.strip()
        if value.strip():
            identifiers.setdefault(value.strip(), None)
        return "<id>"

    out = _QUOTED.sub(quoted, out)
    keep = _code_numbers(codes)
    out = _NUMBER.sub(lambda m: m.group(0) if m.group(0).lstrip("+-") in keep else "<n>", out)
    out = "\n".join(" ".join(line.split()) for line in out.splitlines() if line.strip())
    return NormalizedError(text=out, codes=codes, identifiers=tuple(identifiers))


_ERROR_LINE = re.compile(
    r"error|exception|fail|fatal|panic|cannot|can't|unable|denied|refused|not found|invalid"
    r"|undefined|missing|unexpected|traceback|warning",
    re.I,
)


def embedding_text(text: str, *, max_chars: int = 1200) -> str:
    """The part of an error worth embedding: its error lines first, details lightly normalised.

    Stack frames and paths say little about what went wrong and would crowd the
    model's short input window, so lines that name an error come first.
    """
    light = text
    for pattern, replacement in _SUBSTITUTIONS:
        light = pattern.sub(replacement, light)
    lines = [" ".join(line.split()) for line in light.splitlines() if line.strip()]
    key = [line for line in lines if _ERROR_LINE.search(line) or extract_codes(line)]
    rest = [line for line in lines if line not in key]
    return "\n".join([*key, *rest])[:max_chars]
