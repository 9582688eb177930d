"""Data for bench_memory.py: mypy's error-code docs as solutions, and synthetic solutions.

``mypy_solutions`` turns each ``.. _code-NAME:`` section of mypy's
``error_code_list*.rst`` into one solution: the ``# Error:`` lines of its
examples are the error message, the text before the first example the root
cause, the rest (and the ``# OK`` lines) the fix. ``synthetic_solutions``
writes realistic solutions of many ecosystems with varying names, paths,
numbers and codes, for latency and concurrency runs.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

_LABEL = re.compile(r"^\.\. _code-([a-z0-9-]+):\s*$")
_ROLE = re.compile(r":[a-z:]+:`([^`<]*?)(?:\s*<[^>]*>)?`")
_LITERAL = re.compile(r"``([^`]+)``")


def _clean(text: str) -> str:
    return " ".join(_LITERAL.sub(r"\1", _ROLE.sub(r"\1", text)).split())


def _sections(path: Path) -> Iterator[tuple[str, list[str]]]:
    code, lines = None, []
    for line in path.read_text(encoding="utf-8").splitlines():
        match = _LABEL.match(line)
        if match:
            if code:
                yield code, lines
            code, lines = match.group(1), []
        elif line.startswith(".. _") and code:
            yield code, lines
            code, lines = None, []
        elif code:
            lines.append(line)
    if code:
        yield code, lines


_ERROR_LINE = re.compile(r"(?:#\s*(?:[Ee]rror|E)\s*:|^\S+\.py:\d+: error:)\s*(.+)")


def _parse(code: str, lines: list[str]) -> dict[str, Any]:
    """One section: title, explanation before/after the first example, example errors."""
    start = next(i for i, line in enumerate(lines) if line.strip())
    title = lines[start].strip()
    errors: list[str] = []
    fixed: list[str] = []
    before: list[str] = []
    after: list[str] = []
    in_code = seen_code = False
    for line in lines[start + 2 :]:
        if line.startswith(".. code-block::"):
            in_code = seen_code = True
            continue
        if in_code and (not line.strip() or line.startswith((" ", "\t"))):
            text = line.strip()
            match = _ERROR_LINE.search(text)
            if match:
                errors.append(match.group(1).strip())
            elif text.startswith("#") and errors and not errors[-1].endswith("]"):
                errors[-1] += " " + text.lstrip("# ")
            elif "# OK" in text:
                fixed.append(text)
            continue
        in_code = False
        if line.strip() and not line.startswith(".."):
            (after if seen_code else before).append(line)
    root_cause = _clean(" ".join(x for x in before if x.strip() != "Example:"))
    solution = _clean(" ".join(x for x in after if not x.rstrip().endswith(":")))
    if fixed:
        solution = (solution + "\nFixed code: " + " | ".join(fixed)).strip()
    unique = list(dict.fromkeys(errors))
    return {
        "code": code,
        "title": title,
        "errorMessage": "\n".join(f"error: {e}" for e in unique) or title,
        "rootCause": root_cause,
        "solution": solution or root_cause or title,
        "errorType": "compile",
        "tags": ["mypy", "python"],
        "environment": {"mypy": "1.15"},
    }


def mypy_solutions(folder: Path) -> list[dict[str, Any]]:
    """One solution per documented mypy error code (``code`` holds the truth)."""
    found: dict[str, dict[str, Any]] = {}
    for name in ("error_code_list.rst", "error_code_list2.rst"):
        for code, lines in _sections(folder / name):
            found.setdefault(code, _parse(code, lines))
    return list(found.values())


def mypy_queries(folder: Path) -> list[tuple[str, str]]:
    """The real mypy messages and their codes."""
    rows = [json.loads(line) for line in (folder / "messages.jsonl").read_text().splitlines()]
    return [(row["message"], row["code"]) for row in rows if row.get("message")]


# -- synthetic solutions ---------------------------------------------------------

# Word lists as one string each, for a compact file.
_SYLLABLES = "ka lo mi ne ru ta shi po an ver el ix or un da be co fu ga he ja ke".split()  # noqa: SIM905
_DIRS = "src app lib core api services utils components models handlers jobs tests".split()  # noqa: SIM905
_PACKAGES = (  # noqa: SIM905
    "requests numpy pandas django flask fastapi sqlalchemy pydantic celery redis boto3 "
    "react next vue express axios lodash webpack vite jest prisma tokio serde reqwest"
).split()

# (error, root cause, fix, type, tags). Slots: {n} name, {m} module, {p} path, {l} line,
# {k} port, {h} hex, {v} version, {c} count, {ip} address.
_TEMPLATES = [
    (
        "Traceback (most recent call last):\n  File \"{p}.py\", line {l}, in {n}\nKeyError: '{n}'",
        "The dict has no key '{n}' for this input.",
        "Use .get('{n}', default) or validate input.",
        "runtime",
        ["python"],
    ),
    (
        "AttributeError: 'NoneType' object has no attribute '{n}'",
        "A call returned None where an object was expected.",
        "Check for None before using .{n}.",
        "runtime",
        ["python"],
    ),
    (
        "ModuleNotFoundError: No module named '{m}'",
        "{m} is not installed in the active env.",
        "pip install {m} in the project's virtualenv.",
        "dependency",
        ["python", "pip"],
    ),
    (
        "ImportError: cannot import name '{n}' from '{m}' ({p}/__init__.py)",
        "{n} was removed from {m} {v}.",
        "Pin {m} below {v} or import the new name.",
        "dependency",
        ["python"],
    ),
    (
        "TypeError: {n}() got an unexpected keyword argument '{n}x'",
        "The signature of {n} changed.",
        "Drop the argument or upgrade the caller.",
        "runtime",
        ["python"],
    ),
    (
        "ValueError: invalid literal for int() with base 10: '{n}'",
        "A non-numeric string reached int().",
        "Validate or strip the value before int().",
        "runtime",
        ["python"],
    ),
    (
        "sqlalchemy.exc.OperationalError: (psycopg2.OperationalError) connection to server at "
        '"db" ({ip}), port {k} failed: Connection refused',
        "The database container was not up yet.",
        "Wait for the DB health check before starting.",
        "network",
        ["postgres", "sqlalchemy"],
    ),
    (
        "Error: connect ECONNREFUSED 127.0.0.1:{k}\n    at TCPConnectWrap.afterConnect",
        "Nothing listens on port {k}.",
        "Start the service on {k} or fix the port.",
        "network",
        ["node"],
    ),
    (
        "Error: listen EADDRINUSE: address already in use :::{k}",
        "Another process already listens on {k}.",
        "Stop it (lsof -i :{k}) or use another port.",
        "network",
        ["node"],
    ),
    (
        "Error: ENOENT: no such file or directory, open '{p}.json'",
        "The file is read relative to the wrong working directory.",
        "Resolve the path from __dirname.",
        "runtime",
        ["node"],
    ),
    (
        "TypeError: Cannot read properties of undefined (reading '{n}')",
        "The object is undefined before the data loads.",
        "Guard with optional chaining ?.{n}.",
        "runtime",
        ["javascript", "react"],
    ),
    (
        "{p}.ts({l},{c}): error TS2339: Property '{n}' does not exist on type '{N}'.",
        "The type {N} does not declare {n}.",
        "Add {n} to the interface or narrow the type.",
        "compile",
        ["typescript"],
    ),
    (
        "{p}.ts({l},{c}): error TS2345: Argument of type 'string' is not assignable to "
        "parameter of type 'number'.",
        "A string is passed where a number is expected.",
        "Convert with Number() or fix the parameter type.",
        "compile",
        ["typescript"],
    ),
    (
        "{p}.ts({l},{c}): error TS2307: Cannot find module '{m}' or its corresponding type "
        "declarations.",
        "The types for {m} are missing.",
        "npm i -D @types/{m}.",
        "compile",
        ["typescript"],
    ),
    (
        "Error [ERR_REQUIRE_ESM]: require() of ES Module {p}/node_modules/{m}/index.js not "
        "supported.",
        "{m} {v} is ESM-only.",
        "Use dynamic import() or pin {m} to the CJS major.",
        "dependency",
        ["node"],
    ),
    (
        "npm ERR! code ERESOLVE\nnpm ERR! ERESOLVE unable to resolve dependency tree\n"
        'npm ERR! peer {m}@"^{v}" from {n}@{v}',
        "Peer dependency ranges conflict.",
        "Align versions or install with --legacy-peer-deps.",
        "dependency",
        ["npm"],
    ),
    (
        "error[E0382]: borrow of moved value: `{n}`\n --> {p}.rs:{l}:{c}",
        "{n} was moved into a closure and used again.",
        "Clone it or borrow with &{n}.",
        "compile",
        ["rust"],
    ),
    (
        "error[E0308]: mismatched types\n --> {p}.rs:{l}:{c}\nexpected `u32`, found `i64`",
        "Integer types differ.",
        "Convert with try_into() or change the declaration.",
        "compile",
        ["rust"],
    ),
    (
        "error[E0599]: no method named `{n}` found for struct `{N}` in the current scope",
        "The trait providing {n} is not in scope.",
        "use the trait that defines {n}.",
        "compile",
        ["rust"],
    ),
    (
        "panic: runtime error: invalid memory address or nil pointer dereference\n[signal "
        "SIGSEGV: segmentation violation code=0x1 addr=0x{h} pc=0x{h}]",
        "A nil pointer {n} was dereferenced.",
        "Check {n} != nil before use.",
        "runtime",
        ["go"],
    ),
    (
        'java.lang.NullPointerException: Cannot invoke "String.length()" because "{n}" is '
        "null\n\tat com.example.{N}.run({N}.java:{l})",
        "{n} is never initialised.",
        "Initialise {n} or use Optional.",
        "runtime",
        ["java"],
    ),
    (
        "django.db.utils.IntegrityError: duplicate key value violates unique constraint "
        '"{n}_key" DETAIL: Key ({n})=({c}) already exists.',
        "The same {n} is inserted twice.",
        "Use get_or_create or catch IntegrityError.",
        "runtime",
        ["django", "postgres"],
    ),
    (
        "requests.exceptions.HTTPError: 404 Client Error: Not Found for url: "
        "https://api.example.com/{n}/{c}",
        "The endpoint path changed in API {v}.",
        "Update the URL to the new route.",
        "network",
        ["python", "http"],
    ),
    (
        "requests.exceptions.HTTPError: 401 Client Error: Unauthorized for url: "
        "https://api.example.com/{n}",
        "The token expired.",
        "Refresh the token before calls.",
        "security",
        ["python", "http"],
    ),
    (
        "docker: Error response from daemon: driver failed programming external connectivity: "
        "Bind for 0.0.0.0:{k} failed: port is already allocated.",
        "Another container publishes {k}.",
        "Stop it or map another host port.",
        "configuration",
        ["docker"],
    ),
    (
        "fatal: unable to access 'https://github.com/{n}/{m}.git/': SSL certificate problem: "
        "unable to get local issuer certificate",
        "A proxy re-signs TLS.",
        "Add the proxy CA to git's http.sslCAInfo.",
        "configuration",
        ["git"],
    ),
    (
        '{p}.py:{l}: error: Incompatible return value type (got "{N} | None", expected '
        '"{N}")  [return-value]',
        "The function may return None.",
        "Return a value on every path or widen the annotation.",
        "compile",
        ["mypy", "python"],
    ),
    (
        '{p}.py:{l}: error: Item "None" of "{N} | None" has no attribute "{n}"  [union-attr]',
        "The value may be None.",
        "Narrow with an assert or if check.",
        "compile",
        ["mypy", "python"],
    ),
    (
        "RuntimeError: CUDA out of memory. Tried to allocate {c} MiB (GPU 0; {c} MiB total)",
        "The batch is too large for the GPU.",
        "Lower the batch size or use gradient accumulation.",
        "performance",
        ["pytorch"],
    ),
    (
        "OSError: [Errno 24] Too many open files: '{p}.log'",
        "File handles leak in a loop.",
        "Close files with a with-statement; raise ulimit -n.",
        "runtime",
        ["python"],
    ),
    (
        "SSL: CERTIFICATE_VERIFY_FAILED certificate verify failed: unable to get local issuer "
        "certificate (_ssl.c:{c})",
        "Python lacks the system CA bundle.",
        "Install certifi and point SSL_CERT_FILE at it.",
        "configuration",
        ["python", "ssl"],
    ),
    (
        'Warning: Each child in a list should have a unique "key" prop. Check the render '
        "method of `{N}`.",
        "List items lack stable keys.",
        "Add key={{item.id}} to each child.",
        "logic",
        ["react"],
    ),
]


def _word(rng: random.Random) -> str:
    return "".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 4)))


def _slots(rng: random.Random) -> dict[str, str]:
    name = _word(rng) + rng.choice(["", "_id", "_name", "Count", "Data"])
    home = rng.choice(["/home/" + _word(rng), "/srv", "/Users/" + _word(rng), "/opt/app"])
    path = "/".join([home, *rng.sample(_DIRS, rng.randint(1, 3)), _word(rng)])
    return {
        "n": name,
        "N": _word(rng).capitalize() + rng.choice(["Service", "Model", "Props", "Client"]),
        "m": rng.choice(_PACKAGES),
        "p": path,
        "l": str(rng.randint(1, 2000)),
        "c": str(rng.randint(1, 900)),
        "k": str(rng.choice([3000, 5432, 6379, 8000, 8080, 27017, rng.randint(1024, 65535)])),
        "h": f"{rng.getrandbits(40):x}",
        "v": f"{rng.randint(0, 20)}.{rng.randint(0, 30)}",
        "ip": f"172.{rng.randint(16, 31)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}",
    }


def synthetic_solution(rng: random.Random) -> dict[str, Any]:
    error, cause, fix, kind, tags = rng.choice(_TEMPLATES)
    slots = _slots(rng)
    extra = " ".join(_word(rng) for _ in range(rng.randint(3, 12)))
    return {
        "errorMessage": error.format(**slots),
        "rootCause": cause.format(**slots) + f" Seen while working on {extra}.",
        "solution": fix.format(**slots),
        "context": f"While running the {_word(rng)} {rng.choice(['tests', 'build', 'server'])}.",
        "errorType": kind,
        "tags": tags,
        "environment": {rng.choice(_PACKAGES): slots["v"], "os": rng.choice(["linux", "macos"])},
    }


def synthetic_solutions(count: int, seed: int) -> Iterator[dict[str, Any]]:
    rng = random.Random(seed)
    for _ in range(count):
        yield synthetic_solution(rng)


def synthetic_queries(count: int, seed: int) -> list[str]:
    """Fresh occurrences of the same kinds of errors (other names, paths and numbers)."""
    return [s["errorMessage"] for s in synthetic_solutions(count, seed)]
