"""Code examples: the fenced code blocks of a document, with the prose around them.

After the Crawl4AI RAG ``code_examples`` table. Each fenced block of at least
``min_chars`` characters becomes an example carrying its language, the text
before and after it, its heading path and a summary built without a model:
the heading path, the sentences that introduce the block and the sentence
that follows it. Documentation prose says what the code does right there
("To declare a path parameter, use ...:"), which is what a search for a
code example needs.

The default minimum is 200 characters. Crawl4AI's 1000 drops most real
documentation examples (in the FastAPI docs 11 of 400 blocks reach 1000
characters, in the Rust book 1 of 950); below ~200 characters blocks are
mostly shell one-liners and output, which the chunk search already finds.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from contextbase.chunk import PATH_SEPARATOR

DEFAULT_MIN_CHARS = 200
CONTEXT_CHARS = 500
SUMMARY_CHARS = 400

_FENCE = re.compile(r"^(\s{0,3})(`{3,}|~{3,})\s*([^`\n]*)$")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_INCLUDE_ONLY = re.compile(r"^\s*(\{\{#\w+[^}]*\}\}|\{\*[^*]*\*\}|--8<--.*)\s*$")
_SENTENCE = re.compile(r"(?<=[.!?:])\s+(?=[A-Z0-9`(\"'])")
_MD_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_TAG = re.compile(r"</?[A-Za-z][^>]*>")
_COMMENT = re.compile(r"<!--.*?-->")
_MD_NOISE = re.compile(r"[*`>#|]+")


@dataclass
class CodeExample:
    index: int
    """Position of the block among the document's examples (Crawl4AI's chunk_number)."""
    language: str
    code: str
    context_before: str
    context_after: str
    heading_path: str
    summary: str

    @property
    def content_hash(self) -> str:
        """Covers what is embedded, so a stored vector is reused only for the same text."""
        text = f"{self.language}\n{self.summary}\n{self.code}"
        return hashlib.sha256(text.encode()).hexdigest()

    def embedding_text(self) -> str:
        """Summary first: a small model reads the first few hundred tokens only."""
        return f"{self.summary}\n\n{self.code}"


@dataclass
class _Block:
    kind: str  # "prose" or "code"
    text: str
    path: list[str]
    language: str = ""


def extract_code_examples(
    markdown: str, title: str = "", min_chars: int = DEFAULT_MIN_CHARS
) -> list[CodeExample]:
    """The code examples of a Markdown document, in document order."""
    blocks = _blocks(markdown, title)
    examples: list[CodeExample] = []
    for position, block in enumerate(blocks):
        code = block.text.strip("\n")
        if block.kind != "code" or len(code.strip()) < min_chars or _INCLUDE_ONLY.match(code):
            continue
        before = _prose(blocks[:position][::-1], block.path, reverse=True)
        after = _prose(blocks[position + 1 :], block.path)
        path = PATH_SEPARATOR.join(block.path)
        examples.append(
            CodeExample(
                index=len(examples),
                language=block.language,
                code=code,
                context_before=before,
                context_after=after,
                heading_path=path,
                summary=summarise(path, before, after, block.language),
            )
        )
    return examples


def summarise(heading_path: str, before: str, after: str, language: str = "") -> str:
    """Heading path, the last two sentences before the block and the first one after."""
    lead = _sentences(before)[-2:]
    follow = _sentences(after)[:1]
    parts = [heading_path] if heading_path else []
    text = " ".join(lead + follow)
    if text:
        parts.append(text)
    elif language:
        parts.append(f"{language} example")
    return _clip(" — ".join(parts), SUMMARY_CHARS)


def _blocks(markdown: str, title: str) -> list[_Block]:
    """Prose paragraphs and code blocks, each with the heading path it sits under."""
    stack: list[tuple[int, str]] = []
    blocks: list[_Block] = []
    paragraph: list[str] = []
    fence: str | None = None
    language = ""
    code: list[str] = []

    def path() -> list[str]:
        names = [text for _, text in stack]
        if title and not (names and names[0].strip().lower() == title.strip().lower()):
            names.insert(0, title)
        return names

    def flush() -> None:
        text = "\n".join(paragraph).strip()
        if text:
            blocks.append(_Block("prose", text, path()))
        paragraph.clear()

    in_comment = False
    for line in markdown.splitlines():
        marker = _FENCE.match(line)
        if fence is None:
            # HTML comments are notes to the authors, not prose around the code.
            if in_comment:
                if "-->" not in line:
                    continue
                line, in_comment = line.split("-->", 1)[1], False
            line = _COMMENT.sub("", line)
            if "<!--" in line:
                line, in_comment = line.split("<!--", 1)[0], True
        if fence is not None:
            if (
                marker
                and marker.group(2)[0] == fence[0]
                and len(marker.group(2)) >= len(fence)
                and not marker.group(3).strip()
            ):
                blocks.append(_Block("code", "\n".join(code), path(), language))
                fence, code = None, []
            else:
                code.append(line)
            continue
        if marker:
            flush()
            fence = marker.group(2)
            language = _language(marker.group(3))
            continue
        heading = _HEADING.match(line)
        if heading:
            flush()
            level = len(heading.group(1))
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, heading.group(2).strip()))
        elif line.strip():
            paragraph.append(line)
        else:
            flush()
    if fence is not None:
        blocks.append(_Block("code", "\n".join(code), path(), language))
    flush()
    return blocks


def _language(info: str) -> str:
    """``python title="x.py"``, ``{.python}``, ``rust,ignore`` → python, python, rust."""
    word = info.strip().split(maxsplit=1)[0] if info.strip() else ""
    word = word.strip("{}.").split(",", 1)[0]
    return re.sub(r"[^A-Za-z0-9_+#-]", "", word).lower()


def _prose(blocks: list[_Block], path: list[str], *, reverse: bool = False) -> str:
    """Up to CONTEXT_CHARS of prose next to a block, within its section, up to other code."""
    taken: list[str] = []
    size = 0
    for block in blocks:
        if block.kind == "code" or block.path != path:
            break
        taken.append(block.text)
        size += len(block.text)
        if size >= CONTEXT_CHARS:
            break
    if reverse:
        taken.reverse()
        text = "\n\n".join(taken)
        if len(text) > CONTEXT_CHARS:
            # Start at a word (a sentence where one is near), not inside one.
            clipped = text[-CONTEXT_CHARS:]
            sentence = _SENTENCE.search(clipped)
            start = sentence.end() if sentence and sentence.end() < CONTEXT_CHARS // 2 else None
            text = clipped[start:] if start else clipped.split(maxsplit=1)[-1]
        return text
    return "\n\n".join(taken)[:CONTEXT_CHARS]


def _plain(text: str) -> str:
    text = _TAG.sub(" ", _MD_LINK.sub(r"\1", text))
    return " ".join(_MD_NOISE.sub("", text).split())


def _sentences(text: str) -> list[str]:
    plain = _plain(text)
    return [s for s in _SENTENCE.split(plain) if s] if plain else []


def _clip(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0]
    return f"{cut}…"
