from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from contextbase.chunk import ChunkOptions, chunk_markdown

FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})", re.M)

DOC = """# Guide

Intro paragraph that explains the guide in a few words so it is not tiny at all, really.

## Install

Run the installer. It takes a while on slow machines, so be patient and read on.

```python
import demo
demo.install(target="/opt/demo", verbose=True)
```

### Options

Options are flags. Each flag changes one thing.

## Usage

Call `demo.run()` and read the result carefully before doing anything else with it.
"""


def _balanced(text: str) -> bool:
    return len(FENCE.findall(text)) % 2 == 0


def test_heading_paths_and_code_kept_whole() -> None:
    chunks = chunk_markdown(DOC, "Guide", ChunkOptions(target_tokens=40, min_tokens=10))
    paths = [c.heading_path for c in chunks]
    assert "Guide > Install" in paths
    assert any(p.startswith("Guide > Usage") for p in paths)
    code = [c for c in chunks if "demo.install" in c.text]
    assert len(code) == 1 and "```python" in code[0].text and code[0].has_code
    assert all(_balanced(c.text) for c in chunks)
    assert [c.index for c in chunks] == list(range(len(chunks)))
    assert all(c.total == len(chunks) for c in chunks)


def test_title_not_repeated_when_it_is_the_first_heading() -> None:
    chunks = chunk_markdown(DOC, "Guide", ChunkOptions(target_tokens=40, min_tokens=10))
    assert not any(c.heading_path.startswith("Guide > Guide") for c in chunks)


def test_long_prose_split_with_overlap() -> None:
    sentences = [f"Sentence number {i} talks about topic {i % 7} in detail." for i in range(200)]
    chunks = chunk_markdown(
        "# Long\n\n" + " ".join(sentences),
        "Long",
        ChunkOptions(target_tokens=100, overlap_tokens=20),
    )
    assert len(chunks) > 5
    assert all(c.token_count <= 150 for c in chunks)
    # consecutive chunks share a sentence of overlap
    first_tail = chunks[0].text.rsplit(". ", 1)[-1]
    assert first_tail.strip(".") in chunks[1].text


def test_tiny_sections_are_merged_with_their_heading() -> None:
    md = "# T\n\n## A\n\nshort.\n\n## B\n\n" + "words here. " * 60
    chunks = chunk_markdown(md, "T", ChunkOptions(target_tokens=300, min_tokens=30))
    assert len(chunks) == 1
    assert "## B" in chunks[0].text and "short." in chunks[0].text


def test_unclosed_fence_is_closed() -> None:
    chunks = chunk_markdown("# X\n\ntext\n\n```python\nprint(1)\n", "X")
    assert all(_balanced(c.text) for c in chunks)


blocks = st.one_of(
    st.text(
        alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="`~#"),
        min_size=1,
        max_size=400,
    ).map(lambda s: s.strip() or "x"),
    st.builds(
        lambda code, lang: f"```{lang}\n{code}\n```",
        st.text(alphabet="abc def()\n=+", min_size=1, max_size=2000),
        st.sampled_from(["", "python", "js"]),
    ),
    st.builds(
        lambda level, title: "#" * level + " " + title,
        st.integers(1, 4),
        st.text(alphabet="abcdef XYZ", min_size=1, max_size=30).map(lambda s: s.strip() or "h"),
    ),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(blocks, min_size=1, max_size=40), st.integers(40, 400))
def test_chunker_properties(parts: list[str], target: int) -> None:
    markdown = "\n\n".join(parts)
    options = ChunkOptions(target_tokens=target, overlap_tokens=min(20, target // 4))
    chunks = chunk_markdown(markdown, "Doc", options)
    for chunk in chunks:
        assert chunk.text.strip()
        assert _balanced(chunk.text)
        assert chunk.heading_path.startswith("Doc")
        if "```" not in chunk.text:
            assert chunk.token_count <= options.max_tokens + options.overlap_tokens + 10
    # every code block of the input survives whole in some chunk
    for part in parts:
        if part.startswith("```"):
            assert any(part in c.text for c in chunks)
