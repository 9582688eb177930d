"""Module descriptions from what the code already says about itself.

A folder is described by its README, else by the documentation comment of its
package file (``__init__.py`` docstring, Go ``// Package x``, Rust ``//!``,
Java ``package-info.java``, the leading comment of ``index.ts``); a file by its
own docstring or leading comment. Licence headers are not descriptions.
"""

from __future__ import annotations

import posixpath
import re

from contextbase.project.scan.files import FileTree
from contextbase.project.scan.model import readme_summary, short_text

READMES = ("README.md", "README.rst", "README.txt", "README", "readme.md")
PACKAGE_FILES = (
    "__init__.py",
    "doc.go",
    "mod.rs",
    "lib.rs",
    "main.rs",
    "package-info.java",
    "index.ts",
    "index.tsx",
    "index.js",
    "index.jsx",
    "index.mjs",
)

_PY_DOCSTRING = re.compile(r"\A(?:[ \t]*(?:#[^\n]*)?\n)*[ \t]*[rRuU]?(\"\"\"|''')(.*?)\1", re.S)
_GO_DOC = re.compile(r"((?:^//[^\n]*\n)+)package\s+\w+", re.M)
_RUST_DOC = re.compile(r"\A(?:\s*#!?\[[^\]]*\]\s*|\s*\n)*((?:[ \t]*//![^\n]*\n?)+)")
_BLOCK_COMMENT = re.compile(r"/\*\*?(.*?)\*/", re.S)
_LINE_COMMENTS = re.compile(r"\A(?:\s*\n)*((?:[ \t]*//[^\n]*\n)+)")
_HTML_TAG = re.compile(r"<[^>]+>")
_NOT_DESCRIPTION = re.compile(
    r"copyright|licen[cs]e|spdx|eslint|@ts-|prettier-ignore|use (client|strict)|generated", re.I
)


def describe(tree: FileTree, path: str) -> str | None:
    """A one- or two-sentence description of a module folder or file, if the code has one."""
    if tree.has(path):
        return describe_file(path, tree.read(path, 32 * 1024))
    for name in READMES:
        rel = f"{path}/{name}" if path else name
        if tree.has(rel):
            summary = readme_summary(tree.read(rel, 32 * 1024))
            if summary:
                return summary
    for name in PACKAGE_FILES:
        rel = f"{path}/{name}" if path else name
        if tree.has(rel):
            summary = describe_file(rel, tree.read(rel, 32 * 1024))
            if summary:
                return summary
    for rel in tree.child_files(path):
        if rel.endswith(".go"):
            summary = describe_file(rel, tree.read(rel, 32 * 1024))
            if summary:
                return summary
    return None


def describe_file(rel: str, text: str) -> str | None:
    extension = posixpath.splitext(rel)[1]
    if extension in (".py", ".pyi"):
        match = _PY_DOCSTRING.match(text)
        raw = match.group(2) if match else None
    elif extension == ".go":
        match = _GO_DOC.search(text)
        raw = re.sub(r"^//\s?", "", match.group(1), flags=re.M) if match else None
    elif extension == ".rs":
        match = _RUST_DOC.match(text)
        raw = re.sub(r"^[ \t]*//!\s?", "", match.group(1), flags=re.M) if match else None
    else:
        raw = _leading_comment(text)
    if not raw:
        return None
    paragraph = raw.strip().split("\n\n", 1)[0]
    if not paragraph.strip() or _NOT_DESCRIPTION.search(paragraph):
        return None
    return short_text(_HTML_TAG.sub("", paragraph))


def _leading_comment(text: str) -> str | None:
    stripped = text.lstrip()
    if stripped.startswith("/*"):
        match = _BLOCK_COMMENT.match(stripped)
        if match:
            lines = [re.sub(r"^\s*\*\s?", "", line) for line in match.group(1).splitlines()]
            return "\n".join(line for line in lines if not line.startswith("@"))
    if text.lstrip("\n").startswith("package ") and "/**" in text:
        match = _BLOCK_COMMENT.search(text)  # package-info.java: the javadoc before the clause
        if match:
            return re.sub(r"^\s*\*\s?", "", match.group(1), flags=re.M)
    match = _LINE_COMMENTS.match(text)
    if match:
        return re.sub(r"^[ \t]*//\s?", "", match.group(1), flags=re.M)
    return None
