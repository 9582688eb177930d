"""URL normalisation and crawl scope.

Two spellings of one page must become one URL, or a crawl fetches and
indexes it twice: fragments and tracking parameters are dropped, the scheme
and host lower-cased, default ports removed and an empty path made ``/``.
The scope of a crawl is the start URL's host and path prefix, narrowed or
widened by include/exclude patterns.
"""

from __future__ import annotations

import fnmatch
import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, quote, urlencode, urljoin, urlsplit, urlunsplit

from contextbase.errors import InvalidInputError

_TRACKING = re.compile(
    r"^(utm_.*|fbclid|gclid|dclid|gbraid|wbraid|msclkid|yclid|mc_cid|mc_eid|_ga|_gl|_hsenc|"
    r"_hsmi|ref|ref_src|igshid)$",
    re.I,
)
_DEFAULT_PORTS = {"http": 80, "https": 443}
# Keep what is legal in a path; percent-encode everything else once.
_PATH_SAFE = "/:@!$&'()*+,;=-._~%"
_ESCAPE = re.compile(r"%[0-9a-f]{2}", re.I)
_SKIPPED_SUFFIXES = frozenset(
    [
        ".png",
        ".jpg",
        ".jpeg",
        ".gif",
        ".webp",
        ".svg",
        ".ico",
        ".bmp",
        ".tif",
        ".tiff",
        ".avif",
        ".pdf",
        ".zip",
        ".gz",
        ".tgz",
        ".bz2",
        ".xz",
        ".7z",
        ".rar",
        ".tar",
        ".whl",
        ".egg",
        ".exe",
        ".dmg",
        ".msi",
        ".deb",
        ".rpm",
        ".apk",
        ".iso",
        ".bin",
        ".jar",
        ".mp3",
        ".mp4",
        ".m4a",
        ".wav",
        ".ogg",
        ".webm",
        ".mov",
        ".avi",
        ".woff",
        ".woff2",
        ".ttf",
        ".otf",
        ".eot",
        ".css",
        ".js",
        ".mjs",
        ".map",
        ".wasm",
        ".json",
        ".csv",
        ".xls",
        ".xlsx",
        ".doc",
        ".docx",
        ".ppt",
        ".pptx",
        ".epub",
    ]
)


def normalize_url(url: str, base: str | None = None) -> str | None:
    """The canonical form of ``url`` (resolved against ``base``), or None if not http(s).

    >>> normalize_url("HTTPS://Docs.Example.com:443/a/../b?utm_source=x&q=1#top")
    'https://docs.example.com/b?q=1'
    """
    url = url.strip()
    if not url:
        return None
    if base:
        url = urljoin(base, url)
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS or not parts.hostname:
        return None
    host = parts.hostname.lower().rstrip(".")
    if ":" in host:
        host = f"[{host}]"
    netloc = host if port in (None, _DEFAULT_PORTS[scheme]) else f"{host}:{port}"
    path = quote(parts.path, safe=_PATH_SAFE) if parts.path else "/"
    path = _ESCAPE.sub(lambda m: m.group(0).upper(), path)
    path = _remove_dot_segments(path)
    query = [
        (k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if not _TRACKING.match(k)
    ]
    return urlunsplit((scheme, netloc, path, urlencode(query, doseq=True), ""))


def _remove_dot_segments(path: str) -> str:
    if "/." not in path:
        return path
    trailing = path.endswith("/") or path.endswith("/.") or path.endswith("/..")
    cleaned = posixpath.normpath(path)
    cleaned = "/" + cleaned.lstrip("/")
    return cleaned + "/" if trailing and cleaned != "/" else cleaned


def require_url(url: str) -> str:
    """The normalised form of a start URL given by a person; one sentence if it is not one."""
    normal = normalize_url(url)
    if normal is None:
        raise InvalidInputError(f"{url!r} is not an http(s) URL.")
    return normal


def host_of(url: str) -> str:
    return urlsplit(url).netloc


def path_prefix(url: str) -> str:
    """The folder a start URL stands for: ``/docs/`` for ``/docs/``, ``/docs/index.html``
    and ``/docs`` alike (a last segment without a dot is taken as a folder)."""
    path = urlsplit(url).path or "/"
    if path.endswith("/"):
        return path
    head, _, last = path.rpartition("/")
    return f"{head}/" if "." in last else f"{path}/"


def looks_like_page(url: str) -> bool:
    """False for URLs whose suffix says they are images, archives, scripts, ..."""
    suffix = posixpath.splitext(urlsplit(url).path)[1].lower()
    return suffix not in _SKIPPED_SUFFIXES


def _matches(url: str, pattern: str) -> bool:
    """Glob when the pattern has wildcards, else a substring test."""
    if any(ch in pattern for ch in "*?["):
        return fnmatch.fnmatchcase(url, pattern)
    return pattern in url


@dataclass
class Scope:
    """Which URLs a crawl may fetch: same host (http or https) under ``prefix``.

    ``include`` patterns widen nothing; they narrow the scope to URLs matching
    one of them. ``exclude`` patterns remove URLs. Patterns are globs on the
    whole URL (``*/api/*``) or, without wildcards, substrings (``/blog/``).
    """

    host: str
    prefix: str = "/"
    include: Sequence[str] = field(default_factory=tuple)
    exclude: Sequence[str] = field(default_factory=tuple)

    @classmethod
    def from_start(
        cls, start_url: str, include: Sequence[str] = (), exclude: Sequence[str] = ()
    ) -> Scope:
        return cls(host_of(start_url), path_prefix(start_url), tuple(include), tuple(exclude))

    def contains(self, url: str) -> bool:
        parts = urlsplit(url)
        if parts.netloc != self.host or parts.scheme not in _DEFAULT_PORTS:
            return False
        path = parts.path or "/"
        if not (path.startswith(self.prefix) or f"{path}/" == self.prefix):
            return False
        if self.include and not any(_matches(url, p) for p in self.include):
            return False
        return not any(_matches(url, p) for p in self.exclude)

    def same_site(self, url: str) -> bool:
        """Same host, any path: robots.txt, sitemaps and llms.txt live at the root."""
        return urlsplit(url).netloc == self.host

    @property
    def label(self) -> str:
        """``docs.example.com`` or ``example.com/projects/x`` (the source id of a site)."""
        prefix = self.prefix.strip("/")
        return f"{self.host}/{prefix}" if prefix else self.host
