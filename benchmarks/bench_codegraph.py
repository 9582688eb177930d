"""Hallucination detection benchmark on real libraries installed here.

httpx and pydantic have 20 and 10 example scripts; nine other libraries (rich, jinja2,
networkx, PyYAML, tqdm, anyio, jsonschema, starlette, typer) one short example each.

Negatives are realistic example scripts in ``codegraph_data/<library>/``; each is
*executed* first (httpx scripts against a local HTTP server on 127.0.0.1) so a
script that misuses the real API stops the benchmark. Positives are the same
scripts with ONE injected hallucination each — a non-existent imported name,
method, attribute or keyword — and the ground truth of every injection is
verified by introspecting the installed package (``hasattr``, ``inspect.signature``)
before it counts.

Reported: recall (injections flagged as not_found/invalid_arguments at the
injected line) and the share of negatives with any false alarm, per kind; parse
speed (files/s) on a large package; check time per script.

    python benchmarks/bench_codegraph.py
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import inspect
import io
import json
import os
import runpy
import statistics
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from contextbase.codegraph import CodeGraph
from contextbase.store.db import Database

HERE = Path(__file__).parent
DATA = HERE / "codegraph_data"
RESULTS = HERE / "results" / "codegraph.json"
LIBRARIES = ("httpx", "pydantic", "other")
PACKAGES = ("httpx", "pydantic", "rich", "jinja2", "networkx", "yaml", "tqdm", "anyio",
            "jsonschema", "starlette", "typer", "click")  # fmt: skip
LARGE = "networkx"


@dataclass(frozen=True)
class Injection:
    """Replace ``find`` (unique in the script) with ``replace``; ``target`` lacks ``name``."""

    script: str
    kind: str  # import | method | attribute | keyword
    find: str
    replace: str
    target: str  # dotted path to introspect; "$Name" is a name the script defines
    name: str


INJECTIONS = [
    # -- httpx --------------------------------------------------------------
    Injection("httpx/get_json.py", "method", "response.raise_for_status()",
              "response.raise_on_error()", "httpx.Response", "raise_on_error"),
    Injection("httpx/get_json.py", "keyword", "timeout=10.0", "timeout_seconds=10.0",
              "httpx.get", "timeout_seconds"),
    Injection("httpx/get_json.py", "method", "response.json()", "response.json_body()",
              "httpx.Response", "json_body"),
    Injection("httpx/client_session.py", "keyword", "headers=headers, timeout=5.0",
              "default_headers=headers, timeout=5.0", "httpx.Client", "default_headers"),
    Injection("httpx/client_session.py", "method", "client.put(", "client.update(",
              "httpx.Client", "update"),
    Injection("httpx/client_session.py", "keyword", 'json={"name": "Ada"})',
              'json_body={"name": "Ada"})', "httpx.Client.post", "json_body"),
    Injection("httpx/async_gather.py", "keyword", "max_connections=5", "max_conns=5",
              "httpx.Limits", "max_conns"),
    Injection("httpx/async_gather.py", "method", 'await client.get("/items"',
              'await client.fetch("/items"', "httpx.AsyncClient", "fetch"),
    Injection("httpx/stream_download.py", "method", "response.iter_bytes(",
              "response.iter_chunks(", "httpx.Response", "iter_chunks"),
    Injection("httpx/stream_download.py", "keyword", "iter_bytes(chunk_size=1024)",
              "iter_bytes(size=1024)", "httpx.Response.iter_bytes", "size"),
    Injection("httpx/stream_download.py", "attribute", "response.num_bytes_downloaded",
              "response.bytes_downloaded", "httpx.Response", "bytes_downloaded"),
    Injection("httpx/timeouts_and_errors.py", "attribute", "except httpx.TimeoutException:",
              "except httpx.TimeoutError:", "httpx", "TimeoutError"),
    Injection("httpx/timeouts_and_errors.py", "keyword", "connect=2.0", "connect_timeout=2.0",
              "httpx.Timeout", "connect_timeout"),
    Injection("httpx/basic_auth.py", "keyword", 'username="alice"', 'user="alice"',
              "httpx.BasicAuth", "user"),
    Injection("httpx/basic_auth.py", "keyword", 'auth=("bob", "hunter2")',
              'basic_auth=("bob", "hunter2")', "httpx.get", "basic_auth"),
    Injection("httpx/custom_auth.py", "method", "with httpx.Client(auth=TokenAuth",
              "with httpx.Client.create(auth=TokenAuth", "httpx.Client", "create"),
    Injection("httpx/event_hooks.py", "method", "response.read()", "response.read_all()",
              "httpx.Response", "read_all"),
    Injection("httpx/event_hooks.py", "keyword", "event_hooks=hooks", "hooks=hooks",
              "httpx.Client", "hooks"),
    Injection("httpx/retries_transport.py", "keyword", "HTTPTransport(retries=3)",
              "HTTPTransport(max_retries=3)", "httpx.HTTPTransport", "max_retries"),
    Injection("httpx/retries_transport.py", "attribute", "response.http_version",
              "response.protocol_version", "httpx.Response", "protocol_version"),
    Injection("httpx/mock_transport.py", "import",
              "from httpx import Client, MockTransport, Request, Response",
              "from httpx import Client, MockTransport, Request, HTTPResponse",
              "httpx", "HTTPResponse"),
    Injection("httpx/mock_transport.py", "method", "client.close()", "client.shutdown()",
              "httpx.Client", "shutdown"),
    Injection("httpx/url_building.py", "import", "from httpx import URL, QueryParams",
              "from httpx import URL, QueryDict", "httpx", "QueryDict"),
    Injection("httpx/url_building.py", "method", "url.copy_merge_params(",
              "url.merge_params(", "httpx.URL", "merge_params"),
    Injection("httpx/url_building.py", "keyword", 'url.join("../v2/orders")',
              'url.join("../v2/orders", strict=True)', "httpx.URL.join", "strict"),
    Injection("httpx/headers_cookies.py", "keyword", 'domain="127.0.0.1"',
              'host="127.0.0.1"', "httpx.Cookies.set", "host"),
    Injection("httpx/headers_cookies.py", "method", 'headers.get("x-trace")',
              'headers.get_header("x-trace")', "httpx.Headers", "get_header"),
    Injection("httpx/form_and_files.py", "keyword", "files=files,", "upload_files=files,",
              "httpx.post", "upload_files"),
    Injection("httpx/build_and_send.py", "method", "client.build_request(",
              "client.create_request(", "httpx.Client", "create_request"),
    Injection("httpx/build_and_send.py", "keyword", "client.send(request)",
              "client.send(request, retries=2)", "httpx.Client.send", "retries"),
    Injection("httpx/redirects.py", "keyword", "httpx.Client(follow_redirects=True)",
              "httpx.Client(allow_redirects=True)", "httpx.Client", "allow_redirects"),
    Injection("httpx/redirects.py", "attribute", "first.is_redirect,", "first.is_redirection,",
              "httpx.Response", "is_redirection"),
    Injection("httpx/async_stream_lines.py", "method", "response.aiter_lines()",
              "response.aiter_text_lines()", "httpx.Response", "aiter_text_lines"),
    Injection("httpx/async_stream_lines.py", "keyword", "read=10.0", "read_timeout=10.0",
              "httpx.Timeout", "read_timeout"),
    Injection("httpx/api_wrapper.py", "method", "self._client.close()",
              "self._client.disconnect()", "httpx.Client", "disconnect"),
    Injection("httpx/api_wrapper.py", "keyword", 'params={"page": page}',
              'query={"page": page}', "httpx.Client.get", "query"),
    Injection("httpx/status_codes.py", "method", "httpx.codes.get_reason_phrase(",
              "httpx.codes.reason_phrase(", "httpx.codes", "reason_phrase"),
    Injection("httpx/status_codes.py", "attribute", "response.is_client_error",
              "response.is_4xx", "httpx.Response", "is_4xx"),
    Injection("httpx/request_method.py", "attribute", "response.charset_encoding",
              "response.charset", "httpx.Response", "charset"),
    Injection("httpx/request_method.py", "method", "response.iter_lines()",
              "response.iter_text_lines()", "httpx.Response", "iter_text_lines"),
    Injection("httpx/async_client_errors.py", "method", "await client.aclose()",
              "await client.close_async()", "httpx.AsyncClient", "close_async"),
    Injection("httpx/async_client_errors.py", "keyword", "timeout=3.0)", "timeout_s=3.0)",
              "httpx.AsyncClient.post", "timeout_s"),
    # -- pydantic -----------------------------------------------------------
    Injection("pydantic/basic_model.py", "import",
              "from pydantic import BaseModel, Field, ValidationError",
              "from pydantic import BaseModel, Field, ValidationException",
              "pydantic", "ValidationException"),
    Injection("pydantic/basic_model.py", "method", "user.model_dump_json(",
              "user.model_to_json(", "pydantic.BaseModel", "model_to_json"),
    Injection("pydantic/basic_model.py", "method", "user.model_copy(", "user.model_clone(",
              "pydantic.BaseModel", "model_clone"),
    Injection("pydantic/basic_model.py", "keyword", "exclude_none=True", "skip_none=True",
              "pydantic.BaseModel.model_dump_json", "skip_none"),
    Injection("pydantic/validators.py", "import",
              "BaseModel, ValidationError, field_validator, model_validator",
              "BaseModel, ValidationError, fields_validator, model_validator",
              "pydantic", "fields_validator"),
    Injection("pydantic/validators.py", "method", "Signup.model_validate(",
              "Signup.model_validate_dict(", "$Signup", "model_validate_dict"),
    Injection("pydantic/validators.py", "keyword", '@model_validator(mode="after")',
              '@model_validator(when="after")', "pydantic.model_validator", "when"),
    Injection("pydantic/nested_json.py", "method", "Customer.model_validate_json(raw)",
              "Customer.parse_json(raw)", "$Customer", "parse_json"),
    Injection("pydantic/nested_json.py", "keyword", 'exclude={"addresses"}',
              'exclude_fields={"addresses"}', "pydantic.BaseModel.model_dump", "exclude_fields"),
    Injection("pydantic/type_adapter.py", "method", 'ints.validate_python(["1", 2, 3])',
              'ints.validate(["1", 2, 3])', "pydantic.TypeAdapter", "validate"),
    Injection("pydantic/type_adapter.py", "method", "ints.dump_json(", "ints.to_json(",
              "pydantic.TypeAdapter", "to_json"),
    Injection("pydantic/settings_like.py", "import",
              "from pydantic import AliasChoices,", "from pydantic import AliasOptions,",
              "pydantic", "AliasOptions"),
    Injection("pydantic/settings_like.py", "method", "config.password.get_secret_value()",
              "config.password.reveal()", "pydantic.SecretStr", "reveal"),
    Injection("pydantic/settings_like.py", "keyword", "port=6432)", "port_number=6432)",
              "$DatabaseConfig", "port_number"),
    Injection("pydantic/computed_and_enum.py", "method", "print(parcel.model_dump())",
              "print(parcel.dict_dump())", "pydantic.BaseModel", "dict_dump"),
    Injection("pydantic/computed_and_enum.py", "keyword", 'unit="lb")', 'units="lb")',
              "$Parcel", "units"),
    Injection("pydantic/dataclasses_pd.py", "import", "from pydantic import validate_call",
              "from pydantic import validate_function", "pydantic", "validate_function"),
    Injection("pydantic/dataclasses_pd.py", "keyword", 'print(Point(x="1.5"))',
              'print(Point(x="1.5", z=1.0))', "$Point", "z"),
    Injection("pydantic/generic_root.py", "import", "from pydantic import BaseModel, RootModel",
              "from pydantic import BaseModel, RootModelBase", "pydantic", "RootModelBase"),
    Injection("pydantic/generic_root.py", "method", "tags.model_dump()", "tags.root_dump()",
              "pydantic.RootModel", "root_dump"),
    Injection("pydantic/generic_root.py", "attribute", "page.total)", "page.count)",
              "$Page", "count"),
    Injection("pydantic/serialization.py", "method", "Invoice.model_construct(",
              "Invoice.construct_model(", "$Invoice", "construct_model"),
    Injection("pydantic/serialization.py", "keyword", "model_dump(by_alias=True)",
              "model_dump(use_alias=True)", "pydantic.BaseModel.model_dump", "use_alias"),
    Injection("pydantic/serialization.py", "keyword", "model_dump_json(indent=2)",
              "model_dump_json(indent=2, sort_keys=True)", "pydantic.BaseModel.model_dump_json",
              "sort_keys"),
    Injection("pydantic/update_models.py", "keyword", "model_dump(exclude_unset=True)",
              "model_dump(only_set=True)", "pydantic.BaseModel.model_dump", "only_set"),
    Injection("pydantic/update_models.py", "method", "item.model_copy(update=changes)",
              "item.copy_with(update=changes)", "pydantic.BaseModel", "copy_with"),
    # -- nine other libraries, one short example each ---------------------------
    Injection("other/rich_example.py", "method", "console.print(table)",
              "console.print_table(table)", "rich.console.Console", "print_table"),
    Injection("other/rich_example.py", "keyword", 'table.add_row("Ada", "36")',
              'table.add_row("Ada", "36", color="red")', "rich.table.Table.add_row", "color"),
    Injection("other/rich_example.py", "import", "from rich.progress import Progress, track",
              "from rich.progress import Progress, track_iter", "rich.progress", "track_iter"),
    Injection("other/rich_example.py", "keyword", "progress.advance(task, 5)",
              "progress.advance(task, steps=5)", "rich.progress.Progress.advance", "steps"),
    Injection("other/jinja_example.py", "method", 'template.render(name="Ada")',
              'template.render_string(name="Ada")', "jinja2.Template", "render_string"),
    Injection("other/jinja_example.py", "keyword", "env.list_templates()",
              "env.list_templates(recursive=True)", "jinja2.Environment.list_templates",
              "recursive"),
    Injection("other/nx_example.py", "method", 'G.add_node("e", color="red")',
              'G.add_vertex("e", color="red")', "networkx.Graph", "add_vertex"),
    Injection("other/nx_example.py", "attribute", "nx.topological_sort(D)",
              "nx.topo_sort(D)", "networkx", "topo_sort"),
    Injection("other/yaml_example.py", "attribute", "yaml.safe_dump(data,",
              "yaml.safe_dumps(data,", "yaml", "safe_dumps"),
    Injection("other/tqdm_example.py", "method", 'bar.set_description("half")',
              'bar.set_desc("half")', "tqdm.tqdm", "set_desc"),
    Injection("other/anyio_example.py", "method", "tg.start_soon(worker, i)",
              "tg.spawn(worker, i)", "anyio.abc.TaskGroup", "spawn"),
    Injection("other/anyio_example.py", "attribute", "anyio.create_task_group()",
              "anyio.create_task_pool()", "anyio", "create_task_pool"),
    Injection("other/js_example.py", "method", 'validator.is_valid({"a": 2})',
              'validator.is_valid_instance({"a": 2})', "jsonschema.Draft202012Validator",
              "is_valid_instance"),
    Injection("other/js_example.py", "keyword", "Draft202012Validator(schema)",
              "Draft202012Validator(schema, strict=True)", "jsonschema.Draft202012Validator",
              "strict"),
    Injection("other/starlette_example.py", "attribute", "request.query_params.get",
              "request.query_args.get", "starlette.requests.Request", "query_args"),
    Injection("other/starlette_example.py", "method", "await request.body()",
              "await request.read_body()", "starlette.requests.Request", "read_body"),
    Injection("other/typer_example.py", "keyword", 'typer.Typer(help="demo")',
              'typer.Typer(help_text="demo")', "typer.Typer", "help_text"),
    Injection("other/typer_example.py", "method", "@app.command()\ndef bye",
              "@app.cmd()\ndef bye", "typer.Typer", "cmd"),
]  # fmt: skip


# -- a local HTTP server for the httpx examples ---------------------------------------


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass

    def _reply(self) -> None:
        parts = urlsplit(self.path)
        length = int(self.headers.get("content-length") or 0)
        if length:
            self.rfile.read(length)
        if parts.path.startswith("/status/"):
            self._send(int(parts.path.rsplit("/", 1)[1]), b"{}")
        elif parts.path == "/redirect":
            self.send_response(302)
            self.send_header("Location", "/final")
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif parts.path.startswith("/bytes/"):
            self._send(200, b"x" * int(parts.path.rsplit("/", 1)[1]), "application/octet-stream")
        elif parts.path == "/lines":
            self._send(200, b"one\ntwo\nthree\n", "text/plain")
        else:
            body = {"path": parts.path, "method": self.command, "args": parse_qs(parts.query),
                    "headers": {k.lower(): v for k, v in self.headers.items()}}  # fmt: skip
            self._send(200, json.dumps(body).encode())

    def _send(self, status: int, body: bytes, kind: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = _reply


@contextlib.contextmanager
def local_server() -> Any:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


# -- ground truth --------------------------------------------------------------------


def run_script(path: Path) -> dict[str, Any]:
    """Execute a script as __main__ (output swallowed); its namespace for introspection."""
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return runpy.run_path(str(path), run_name="__main__")


def resolve_target(target: str, namespaces: dict[str, dict[str, Any]], script: str) -> Any:
    if target.startswith("$"):
        name, *rest = target[1:].split(".")
        value = namespaces[script][name]
    else:
        parts = target.split(".")
        value = importlib.import_module(parts[0])
        rest = parts[1:]
    for part in rest:
        value = getattr(value, part)
    return value


def verify(injection: Injection, target: Any) -> str | None:
    """Why the injection is not a real hallucination, or ``None`` when it is."""
    if injection.kind == "keyword":
        signature = inspect.signature(target)
        if injection.name in signature.parameters:
            return f"{injection.target} accepts {injection.name}"
        if any(p.kind is p.VAR_KEYWORD for p in signature.parameters.values()):
            return f"{injection.target} takes **kwargs"
        return None
    if hasattr(target, injection.name):
        return f"{injection.target} has {injection.name}"
    if inspect.ismodule(target):
        with contextlib.suppress(ImportError):
            importlib.import_module(f"{target.__name__}.{injection.name}")
            return f"{target.__name__}.{injection.name} is a submodule"
    return None


def inject(text: str, injection: Injection) -> tuple[str, int]:
    count = text.count(injection.find)
    if count != 1:
        raise SystemExit(f"{injection.script}: {injection.find!r} occurs {count} times")
    line = text[: text.index(injection.find)].count("\n") + 1
    return text.replace(injection.find, injection.replace), line


# -- measurements -----------------------------------------------------------------------


def measure_parse(graph: CodeGraph, package: str) -> dict[str, Any]:
    started = time.perf_counter()
    repo = graph.parse(package, kind="package")
    seconds = time.perf_counter() - started
    return {"package": package, "version": repo.version, "files": repo.file_count,
            "symbols": repo.node_count, "seconds": round(seconds, 2),
            "files_per_second": round(repo.file_count / seconds, 1),
            "extract_seconds": repo.parse_seconds}  # fmt: skip


def rate(hits: int, total: int) -> float:
    return round(hits / total, 3) if total else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.parse_args()

    scripts = sorted(p.relative_to(DATA).as_posix() for p in DATA.glob("*/*.py"))
    namespaces: dict[str, dict[str, Any]] = {}
    with local_server() as base_url:
        os.environ["BENCH_BASE_URL"] = base_url
        for script in scripts:
            try:
                namespaces[script] = run_script(DATA / script)
            except Exception as exc:
                message = f"negative {script} does not run: {type(exc).__name__}: {exc}"
                raise SystemExit(message) from exc
    for injection in INJECTIONS:
        target = resolve_target(injection.target, namespaces, injection.script)
        problem = verify(injection, target)
        if problem:
            raise SystemExit(f"injection in {injection.script} is not a hallucination: {problem}")

    work = Path(tempfile.mkdtemp())
    graph = CodeGraph(Database(work / "bench.db"), cache=work / "cache")
    parsing = [measure_parse(graph, name) for name in PACKAGES]

    negatives: dict[str, Any] = {}
    check_times: list[float] = []
    false_alarm_kinds: dict[str, int] = {}
    for script in scripts:
        started = time.perf_counter()
        analysis = graph.check((DATA / script).read_text(), filename=script)
        check_times.append(time.perf_counter() - started)
        alarms = analysis.hallucinations
        for finding in alarms:
            false_alarm_kinds[finding.kind] = false_alarm_kinds.get(finding.kind, 0) + 1
        negatives[script] = {
            "false_alarms": [f.as_dict() for f in alarms],
            "valid": len(analysis.valid),
            "uncertain": len(analysis.uncertain),
        }

    per_kind: dict[str, dict[str, int]] = {}
    outcomes = []
    for injection in INJECTIONS:
        text, line = inject((DATA / injection.script).read_text(), injection)
        started = time.perf_counter()
        analysis = graph.check(text, filename=injection.script)
        check_times.append(time.perf_counter() - started)
        at_line = [f for f in analysis.findings if f.line == line]
        flagged = any(f.is_hallucination for f in at_line)
        status = "flagged" if flagged else (at_line and at_line[0].status) or "missed"
        stats = per_kind.setdefault(injection.kind, {"injections": 0, "flagged": 0})
        stats["injections"] += 1
        stats["flagged"] += flagged
        outcomes.append({"script": injection.script, "kind": injection.kind, "line": line,
                         "name": injection.name, "outcome": status,
                         "library": injection.script.split("/")[0],
                         "other_alarms": sum(f.is_hallucination and f.line != line
                                             for f in analysis.findings)})  # fmt: skip

    by_library: dict[str, dict[str, Any]] = {}
    for library in LIBRARIES:
        mine = [o for o in outcomes if o["library"] == library]
        negs = [s for s in negatives if s.startswith(library)]
        by_library[library] = {
            "injections": len(mine),
            "recall": rate(sum(o["outcome"] == "flagged" for o in mine), len(mine)),
            "negatives": len(negs),
            "negatives_with_false_alarm": sum(bool(negatives[s]["false_alarms"]) for s in negs),
        }
    total_flagged = sum(s["flagged"] for s in per_kind.values())
    results = {
        "packages": {p["package"]: p["version"] for p in parsing},
        "negatives": len(scripts),
        "negative_false_alarm_rate": rate(
            sum(bool(n["false_alarms"]) for n in negatives.values()), len(scripts)
        ),
        "false_alarms_by_kind": false_alarm_kinds,
        "injections": len(INJECTIONS),
        "recall": rate(total_flagged, len(INJECTIONS)),
        "recall_by_kind": {
            k: {**v, "recall": rate(v["flagged"], v["injections"])}
            for k, v in sorted(per_kind.items())
        },
        "by_library": by_library,
        "injected_scripts_with_other_alarms": sum(o["other_alarms"] > 0 for o in outcomes),
        "parse": parsing,
        "parse_large": next(p for p in parsing if p["package"] == LARGE),
        "check_ms": {
            "mean": round(statistics.mean(check_times) * 1000, 1),
            "median": round(statistics.median(check_times) * 1000, 1),
            "max": round(max(check_times) * 1000, 1),
        },
        "outcomes": outcomes,
        "negative_details": negatives,
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    _print(results)


def _print(results: dict[str, Any]) -> None:
    print(f"\nhallucination detection — {results['packages']}")
    print(f"{'kind':<12}{'injections':>12}{'flagged':>10}{'recall':>9}")
    for kind, stats in results["recall_by_kind"].items():
        print(f"{kind:<12}{stats['injections']:>12}{stats['flagged']:>10}{stats['recall']:>9.2f}")
    print(f"{'all':<12}{results['injections']:>12}{'':>10}{results['recall']:>9.2f}")
    for library, stats in results["by_library"].items():
        alarms = f"{stats['negatives_with_false_alarm']}/{stats['negatives']}"
        print(f"  {library}: recall {stats['recall']:.2f} on {stats['injections']} injections; "
              f"{alarms} negatives with a false alarm")  # fmt: skip
    kinds = results["false_alarms_by_kind"] or "none"
    print(f"negatives with any false alarm: {results['negative_false_alarm_rate']:.2%} "
          f"of {results['negatives']} (by kind: {kinds})")  # fmt: skip
    missed = [o for o in results["outcomes"] if o["outcome"] != "flagged"]
    for outcome in missed:
        print(f"  not flagged: {outcome['script']}:{outcome['line']} {outcome['kind']} "
              f"{outcome['name']} → {outcome['outcome']}")  # fmt: skip
    print(f"\n{'package':<12}{'files':>7}{'symbols':>9}{'seconds':>9}{'files/s':>9}")
    for row in results["parse"]:
        print(f"{row['package']:<12}{row['files']:>7}{row['symbols']:>9}{row['seconds']:>9}"
              f"{row['files_per_second']:>9}")  # fmt: skip
    timing = results["check_ms"]
    print(f"check time per script: mean {timing['mean']} ms, median {timing['median']} ms, "
          f"max {timing['max']} ms")  # fmt: skip
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    sys.exit(main())
