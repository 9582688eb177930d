"""HTML: the DevDocs dumps (Python 3.9, NumPy 1.22, pandas 1.x) and hand-written pages."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from contextbase.parse import parse_document
from contextbase.parse.base import ParsedDocument
from tests.parse.conftest import fences, headings, prose

DEVDOCS = "devdocs-html"
RESIDUE = [
    (r"¶", "permalink"),
    (r"&(?:[a-z]+|#\d+|#x[0-9a-f]+);", "entity"),
    (r"\[source\]", "source link"),
    # Real leftover markup carries attributes; docs that talk about tags mention bare ones.
    (r"<(?:div|span|p|a|code|pre|dl|dt|dd|table|td|li)\s+(?:class|id|href)=\"", "tag"),
]


def html(source: str, path: str = "page.html") -> ParsedDocument:
    doc = parse_document(source, path)
    assert doc is not None
    assert doc.format == "html"
    return doc


def devdocs(corpora: Path, relative: str) -> ParsedDocument:
    path = corpora / DEVDOCS / relative
    return html(path.read_text(encoding="utf-8"), str(path))


def test_whole_devdocs_corpus_converts_cleanly(corpora: Path) -> None:
    files = sorted((corpora / DEVDOCS).rglob("*.html"))
    assert len(files) > 4800
    problems: list[str] = []
    empty = 0
    for path in files:
        doc = parse_document(path.read_bytes(), str(path))
        if doc is None:
            empty += 1
            continue
        assert doc.title, path
        text = prose(doc.markdown)
        for pattern, what in RESIDUE:
            match = re.search(pattern, text)
            if match:
                problems.append(f"{path.relative_to(corpora)}: {what}: {match.group(0)!r}")
    assert problems == []
    assert empty < 10


def test_numpy_reference_page(corpora: Path) -> None:
    doc = devdocs(corpora, "numpy~1.22/reference/generated/numpy.mean.html")
    assert doc.title == "numpy.mean"
    assert headings(doc.markdown)[:2] == [
        "# numpy.mean",
        "## `numpy.mean(a, axis=None, dtype=None, out=None, keepdims=<no value>, *, "
        "where=<no value>)`",
    ]
    assert "**a** : array_like\n\nArray containing numbers whose mean is desired." in doc.markdown
    examples = [code for lang, code in fences(doc.markdown) if lang == "python"]
    assert examples[0].startswith(">>> a = np.array([[1, 2], [3, 4]])\n>>> np.mean(a)\n2.5")


def test_python_library_page_api_entries(corpora: Path) -> None:
    doc = devdocs(corpora, "python~3.9/library/os.path.html")
    assert doc.title == "os.path — Common pathname manipulations"
    assert "## `os.path.join(path, *paths)`" in headings(doc.markdown)
    assert "**Note:** All of these functions accept either only bytes" in doc.markdown
    queue = devdocs(corpora, "python~3.9/library/asyncio-queue.html")
    assert "### class `asyncio.Queue(maxsize=0, *, loop=None)`" in headings(queue.markdown)
    assert "#### coroutine `asyncio.Queue.get()`" in headings(queue.markdown)


def test_pandas_user_guide_code_and_tables(corpora: Path) -> None:
    doc = devdocs(corpora, "pandas~1/user_guide/text.html")
    codes = [code for lang, code in fences(doc.markdown) if lang == "python"]
    assert any(code.startswith('In [1]: pd.Series(["a", "b", "c"])') for code in codes)
    frame = devdocs(corpora, "pandas~1/reference/frame.html")
    assert "`DataFrame.index` | The index (row labels) of the DataFrame." in frame.markdown


FULL_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Widgets — Acme 2.0 documentation</title>
<style>body{color:red}</style><script>var tracking = 1;</script></head>
<body>
<header><a href="/">Acme</a><nav><a href="/docs">Docs</a></nav></header>
<div class="sphinxsidebar"><h3>Navigation</h3><ul><li>Sidebar link</li></ul></div>
<nav class="breadcrumbs">Home / Widgets</nav>
<main>
<h1>Widgets<a class="headerlink" href="#widgets">¶</a></h1>
<p>Widgets &amp; gadgets cost &lt;5&nbsp;&euro; &mdash;
see <a href="/pricing">the <em>pricing</em> page</a>.
Use <code>widget.spin(n=2)</code>.<br>New line.</p>
<img src="w.png" alt="A widget">
<div class="admonition warning"><p class="admonition-title">Warning</p><p>Hot surface.</p></div>
<h2 id="install">Install</h2>
<div class="highlight-python notranslate"><div class="highlight">
<pre><span class="n">pip</span> install acme &gt;= 2</pre></div></div>
<pre class="language-rust"><code>fn main() {}</code></pre>
<pre><code class="lang-go">package main</code></pre>
<pre class="sourceCode haskell">main = print 1</pre>
<pre data-language="pycon3">&gt;&gt;&gt; 1</pre>
<ol start="3"><li>Third<ul><li>Nested <strong>bold</strong></li></ul></li>
<li>Fourth</li></ol>
<table><caption>Sizes</caption><thead><tr><th>Name</th><th>Size</th></tr></thead>
<tbody><tr><td><code>S</code></td><td>1 cm</td></tr>
<tr><td>L</td><td><p>9 cm</p></td></tr></tbody></table>
<dl class="py function"><dt class="sig sig-object py" id="acme.spin">
<em class="property">async </em><span class="sig-prename">acme.</span>
<span class="sig-name">spin</span>(<em>n</em>)<a class="headerlink">¶</a></dt>
<dd><p>Spin the widget.</p></dd></dl>
<dl><dt>Term</dt><dd><p>Plain definition.</p></dd></dl>
<form><input name="q"><button>Search</button></form>
</main>
<footer>© Acme</footer>
</body></html>"""


def test_full_page_keeps_only_the_main_content() -> None:
    doc = html(FULL_PAGE)
    md = doc.markdown
    assert doc.title == "Widgets"
    assert headings(md) == ["# Widgets", "## Install", "### async `acme.spin(n)`"]
    assert (
        "Widgets & gadgets cost <5 € — see the *pricing* page. Use `widget.spin(n=2)`.\nNew line."
        in md
    )
    assert "**Warning:** Hot surface." in md
    for gone in (
        "tracking",
        "color:red",
        "Sidebar link",
        "Home / Widgets",
        "Docs",
        "©",
        "Search",
        "¶",
        "A widget",
    ):
        assert gone not in md, gone


def test_code_block_languages_from_every_convention() -> None:
    blocks = fences(html(FULL_PAGE).markdown)
    assert blocks == [
        ("python", "pip install acme >= 2"),
        ("rust", "fn main() {}"),
        ("go", "package main"),
        ("haskell", "main = print 1"),
        ("pycon", ">>> 1"),
    ]


def test_lists_tables_and_definitions() -> None:
    md = html(FULL_PAGE).markdown
    assert "3. Third\n\n   - Nested **bold**\n4. Fourth" in md
    assert "**Sizes**\n\nName | Size\n`S` | 1 cm\nL | 9 cm" in md
    assert "Term\n\nPlain definition." in md


def test_fragment_without_wrapper_and_title_fallbacks() -> None:
    doc = html("<h2>Only a section</h2><p>Text</p>", "docs/some-page.html")
    assert doc.title == "Only a section"
    titled = html(
        "<html><head><title>Page title</title></head><body><p>Body text</p></body></html>"
    )
    assert titled.title == "Page title"
    untitled = html("<p>No heading at all</p>", "docs/getting-started.html")
    assert untitled.title == "getting started"


@pytest.mark.parametrize("selector", ["<article>", '<div role="main">', '<div id="content">'])
def test_main_content_containers(selector: str) -> None:
    tag = selector[1:].split()[0].rstrip(">")
    page = (
        "<body><div class='menu'><p>Menu entry one two three four five six seven</p></div>"
        f"{selector}<h1>Real</h1><p>The real content of this page is here, long enough.</p></{tag}>"
        "</body>"
    )
    md = html(page).markdown
    assert md.startswith("# Real")
    assert "Menu entry" not in md


def test_a_small_content_box_does_not_hide_the_rest_of_a_fragment() -> None:
    words = "The rest of the page is long and matters a great deal to the reader. " * 10
    fragment = (
        f"<h1>Page</h1><p>{words}</p>"
        "<div class='content'><p>A small boxed aside with more than fifty characters in it.</p>"
        "</div>"
        f"<p>{words}</p>"
    )
    md = html(fragment).markdown
    assert md.startswith("# Page\n\nThe rest of the page")
    assert "A small boxed aside" in md
