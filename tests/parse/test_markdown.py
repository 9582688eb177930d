"""Markdown and MDX: FastAPI (MkDocs), the Rust book (mdBook) and react.dev (MDX)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from contextbase.parse import parse_document
from contextbase.parse.base import ParsedDocument
from tests.parse.conftest import fences, headings, prose

RESIDUE = [
    (r"\{\*", "FastAPI include"),
    (r"\{\{#", "mdBook directive"),
    (r"\{!", "mdx_include directive"),
    (r"^\s*(?::::|!!!|\?\?\?|/{3,}|===)", "admonition, tab or mkdocstrings syntax"),
    (r"(?<!\\)<[A-Z][A-Za-z]+", "JSX component"),
    (r"(?<!\\)</?(?:div|span|img|br|abbr|p|a)\b[^>]*>", "HTML tag"),
    (r"\]\(", "Markdown link"),
    (r"<!--", "HTML comment"),
    (r"\{/\*", "MDX comment"),
    (r"^(?:import|export) ", "MDX import/export"),
    (r"\{ ?#[\w-]+ ?\}", "heading id"),
]


def parse(corpora: Path, relative: str) -> ParsedDocument:
    path = corpora / relative
    doc = parse_document(path.read_bytes(), str(path))
    assert doc is not None, relative
    return doc


@pytest.mark.parametrize("corpus", ["fastapi-md", "rust-book-md", "react-mdx"])
def test_whole_corpus_converts_without_markup_residue(corpora: Path, corpus: str) -> None:
    files = sorted((corpora / corpus).rglob("*.md"))
    assert len(files) > 100
    problems: list[str] = []
    for path in files:
        doc = parse_document(path.read_bytes(), str(path))
        if doc is None:
            continue
        assert doc.title, path
        text = prose(doc.markdown)
        for pattern, what in RESIDUE:
            match = re.search(pattern, text, re.M)
            if match:
                problems.append(f"{path.relative_to(corpora)}: {what}: {match.group(0)!r}")
    assert problems == []


def test_fastapi_page_structure(corpora: Path) -> None:
    doc = parse(corpora, "fastapi-md/tutorial/body.md")
    assert doc.format == "markdown"
    assert doc.title == "Request Body"
    assert "## Import Pydantic's `BaseModel`" in headings(doc.markdown)
    assert "(code from docs_src/body/tutorial001_py310.py)" in doc.markdown
    assert ("json", '{\n    "name": "Foo",\n    "price": 45.2\n}') in fences(doc.markdown)
    # "/// note" becomes a labelled paragraph; link targets are gone, their text stays.
    assert "**Note**\n\nTo send data, you should use one of:" in doc.markdown
    assert "you use Pydantic models with all their power" in doc.markdown


def test_fastapi_tabs_admonitions_and_mkdocstrings(corpora: Path) -> None:
    doc = parse(corpora, "fastapi-md/tutorial/dependencies/sub-dependencies.md")
    assert "**Python 3.10+ non-Annotated**\n\n**Tip**\n\nPrefer to use the `Annotated`" in (
        doc.markdown
    )
    assert any("use_cache=False" in code for lang, code in fences(doc.markdown) if lang == "python")
    reference = parse(corpora, "fastapi-md/reference/fastapi.md")
    assert "(API reference for `fastapi.FastAPI`)" in reference.markdown
    assert "openapi_version" not in prose(reference.markdown)


def test_rust_book_includes_and_inline_html(corpora: Path) -> None:
    doc = parse(corpora, "rust-book-md/ch03-04-comments.md")
    assert doc.title == "Comments"
    assert ("rust", "// hello, world") in fences(doc.markdown)
    note = (
        "(code from listings/ch03-common-programming-concepts/"
        "no-listing-24-comments-end-of-line/src/main.rs)"
    )
    assert note in doc.markdown
    assert "Filename: src/main.rs\n" in doc.markdown
    assert "“Publishing a Crate to Crates.io”" in doc.markdown
    assert "ch14-02-publishing-to-crates-io.html" not in doc.markdown


def test_react_mdx_components_front_matter_and_sandpack_code(corpora: Path) -> None:
    doc = parse(corpora, "react-mdx/reference/react/useState.md")
    assert doc.format == "mdx"
    assert doc.title == "useState"
    assert doc.metadata["title"] == "useState"
    assert "### `useState(initialState)`" in headings(doc.markdown)
    assert "`useState` is a React Hook that lets you add a state variable to your component." in (
        doc.markdown
    )
    codes = [code for lang, code in fences(doc.markdown) if lang == "js"]
    assert any("export default function Counter()" in code for code in codes)
    assert "**Basic useState examples**" in doc.markdown
    assert "1. The current state of this state variable" in doc.markdown


def test_react_inline_components_keep_their_text(corpora: Path) -> None:
    doc = parse(corpora, "react-mdx/learn/keeping-components-pure.md")
    assert "Consider this math formula: y = 2x." in doc.markdown


def test_front_matter_yaml_and_toml() -> None:
    yaml_doc = parse_document(
        "---\ntitle: Setup\ntags: [a, b]\ndate: 2024-05-01\n---\nBody\n", "s.md"
    )
    assert yaml_doc is not None
    assert yaml_doc.title == "Setup"
    assert yaml_doc.metadata == {"title": "Setup", "tags": ["a", "b"], "date": "2024-05-01"}
    assert yaml_doc.markdown == "Body\n"
    toml_doc = parse_document('+++\ntitle = "Install"\nweight = 3\n+++\n# Other\n', "i.md")
    assert toml_doc is not None
    assert toml_doc.title == "Install"
    assert toml_doc.metadata["weight"] == 3
    broken = parse_document("---\n: [unbalanced\n---\n# Heading\n", "b.md")
    assert broken is not None
    assert broken.title == "Heading"


def test_mkdocs_admonitions_and_content_tabs() -> None:
    source = (
        "# Guide\n\n"
        '!!! warning "Mind the gap"\n'
        "    Keep **clear** of the doors.\n\n"
        "    ```python\n    x = 1\n    ```\n\n"
        "After.\n\n"
        '=== "Python 3.10+"\n\n'
        "    ```python\n    def f(a: int | None): ...\n    ```\n\n"
        '=== "Python 3.8+"\n\n'
        "    Older syntax.\n"
    )
    doc = parse_document(source, "guide.md")
    assert doc is not None
    md = doc.markdown
    assert "**Warning: Mind the gap**\n\nKeep **clear** of the doors." in md
    assert "```python\nx = 1\n```" in md
    assert "**Python 3.10+**\n\n```python\ndef f(a: int | None): ...\n```" in md
    assert "**Python 3.8+**\n\nOlder syntax." in md
    assert "!!!" not in md and "===" not in md


def test_include_directives_become_notes() -> None:
    source = (
        "Intro\n\n{* ../../docs_src/first/tutorial001.py hl[3] *}\n\n"
        "{!../../docs_src/app/main.py!}\n\n"
        "```rust\n{{#rustdoc_include ../listings/ch01/listing-01-01/src/main.rs:here}}\n```\n\n"
        "```console\n$ cargo run\n{{#include ../listings/ch01/output.txt}}\n```\n"
    )
    doc = parse_document(source, "page.md")
    assert doc is not None
    md = doc.markdown
    assert "(code from docs_src/first/tutorial001.py)" in md
    assert "(code from docs_src/app/main.py)" in md
    assert "(code from listings/ch01/listing-01-01/src/main.rs)" in md
    assert "```console\n$ cargo run\n(code from listings/ch01/output.txt)\n```" in md
    assert "{{#" not in md and "{*" not in md and "{!" not in md


def test_links_images_comments_and_tables() -> None:
    source = (
        "# Links\n\n"
        'See [the guide](https://example.com/guide "Guide") and [ref][r].\n\n'
        "![diagram](img/d.png)\n\n"
        "<!-- hidden\nnote -->\n"
        "<img src='x.png'> <abbr title='Application Programming Interface'>API</abbr> docs.\n\n"
        "| Name | Value |\n|:-----|------:|\n| `a|b` | 1 |\n| c | 2 |\n\n"
        "[r]: https://example.com/ref\n"
    )
    doc = parse_document(source, "links.md")
    assert doc is not None
    md = doc.markdown
    assert "See the guide and ref." in md
    assert "diagram" not in md and "img/d.png" not in md
    assert "hidden" not in md
    assert "API docs." in md
    assert "Name | Value\n`a|b` | 1\nc | 2" in md
    assert ":-----" not in md and "example.com" not in md


def test_code_fences_are_kept_exactly() -> None:
    code = "def f():\n\n\n\n    return '<div>[x](y)</div>'   \n"
    source = f"# T\n\n~~~~python {{3}}\n{code}~~~~\n\n```\n<Sandpack />\n```\n"
    doc = parse_document(source, "code.md")
    assert doc is not None
    assert ("python", code.rstrip("\n")) in fences(doc.markdown)
    assert ("", "<Sandpack />") in fences(doc.markdown)


def test_mdx_imports_exports_and_components() -> None:
    source = (
        "import { Foo } from './foo';\n"
        "export const meta = {\n  title: 'x',\n};\n\n"
        "# Hooks\n\n"
        "<Intro>\n\nHooks let you use state.\n\n</Intro>\n\n"
        '<YouTubeIframe src="https://youtube.com/x" title="Talk" />\n\n'
        "<Sandpack>\n\n```js src/App.js active\nexport default function App() {}\n```\n\n"
        "</Sandpack>\n\n"
        "Use <CodeStep step={1}>the state</CodeStep> wisely{' '}now. Vec<T> stays.\n"
    )
    doc = parse_document(source, "hooks.mdx")
    assert doc is not None
    md = doc.markdown
    assert doc.format == "mdx"
    assert md.startswith("# Hooks\n\nHooks let you use state.")
    assert ("js", "export default function App() {}") in fences(md)
    assert "Use the state wisely now. Vec<T> stays." in md
    assert "import" not in prose(md) and "meta" not in md and "Talk" not in md


def test_setext_headings_and_title_fallbacks() -> None:
    doc = parse_document("Overview\n========\n\nText.\n\nDetails\n-------\n\nMore.\n", "o.md")
    assert doc is not None
    assert headings(doc.markdown) == ["# Overview", "## Details"]
    assert doc.title == "Overview"
    untitled = parse_document("Just text, no heading.\n", "docs/quick-start.md")
    assert untitled is not None
    assert untitled.title == "quick start"
