"""Heading-aware chunking of Markdown.

Every chunk carries its heading path (``Page > Section > Subsection``). Code
fences are never split; prose that is too long is split at paragraph, then
sentence boundaries with a small overlap; sections too small to stand alone
are merged into their neighbour, keeping their heading lines in the text.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field

from contextbase.tokens import estimate_tokens

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9`(\"'])")

PATH_SEPARATOR = " > "


@dataclass(frozen=True)
class ChunkOptions:
    target_tokens: int = 350
    overlap_tokens: int = 40
    min_tokens: int = 60

    @property
    def max_tokens(self) -> int:
        return int(self.target_tokens * 1.5)


@dataclass
class Chunk:
    text: str
    heading_path: str
    token_count: int
    index: int = 0
    total: int = 0
    has_code: bool = False

    @property
    def content_hash(self) -> str:
        return hashlib.sha256(f"{self.heading_path}\n{self.text}".encode()).hexdigest()

    def embedding_text(self) -> str:
        """What is embedded: the heading path gives the chunk its context."""
        return f"{self.heading_path}\n\n{self.text}" if self.heading_path else self.text


@dataclass
class _Block:
    text: str
    is_code: bool = False
    is_heading: bool = False

    @property
    def tokens(self) -> int:
        return estimate_tokens(self.text)


@dataclass
class _Section:
    path: list[str]
    blocks: list[_Block] = field(default_factory=list)

    @property
    def tokens(self) -> int:
        return sum(b.tokens for b in self.blocks)


def chunk_markdown(
    markdown: str, title: str = "", options: ChunkOptions | None = None
) -> list[Chunk]:
    """Cut Markdown into chunks; ``title`` heads every heading path."""
    options = options or ChunkOptions()
    sections = _merge_small(_sections(markdown, title), options)
    chunks: list[Chunk] = []
    for section in sections:
        chunks += _split_section(section, options)
    chunks = [c for c in chunks if c.text.strip()]
    for index, chunk in enumerate(chunks):
        chunk.index, chunk.total = index, len(chunks)
    return chunks


def _blocks(lines: list[str]) -> list[_Block]:
    """Paragraph-level blocks; a fenced code block is one block however long."""
    blocks: list[_Block] = []
    paragraph: list[str] = []
    fence: str | None = None
    code: list[str] = []

    def flush() -> None:
        if paragraph and any(line.strip() for line in paragraph):
            blocks.append(_Block("\n".join(paragraph).strip("\n")))
        paragraph.clear()

    for line in lines:
        marker = _FENCE.match(line)
        if fence is not None:
            code.append(line)
            closes = marker and len(marker.group(1)) >= len(fence)
            if closes and line.strip().strip(fence[0]) == "":
                blocks.append(_Block("\n".join(code), is_code=True))
                code, fence = [], None
            continue
        if marker:
            flush()
            fence = marker.group(1)
            code = [line]
        elif not line.strip():
            flush()
        else:
            paragraph.append(line)
    if fence is not None:
        # An unclosed fence still ends at the end of the document; close it so
        # the chunk stays valid Markdown.
        blocks.append(_Block("\n".join([*code, fence]), is_code=True))
    flush()
    return blocks


def _sections(markdown: str, title: str) -> list[_Section]:
    sections: list[_Section] = []
    stack: list[tuple[int, str]] = []
    current: list[str] = []
    in_fence: str | None = None
    root = [title] if title else []

    def close() -> None:
        path = root + [text for _, text in stack]
        if path and root and len(path) > 1 and path[1].strip().lower() == root[0].strip().lower():
            path = path[1:]
        sections.append(_Section(path, _blocks(current)))

    for line in markdown.splitlines():
        fence = _FENCE.match(line)
        if fence:
            marker = fence.group(1)
            if in_fence is None:
                in_fence = marker
            elif marker[0] == in_fence[0] and len(marker) >= len(in_fence):
                in_fence = None
        heading = None if in_fence else _HEADING.match(line)
        if heading:
            close()
            current = []
            level = len(heading.group(1))
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, heading.group(2).strip()))
        else:
            current.append(line)
    close()
    return [s for s in sections if s.blocks or s is sections[-1]]


def _merge_small(sections: list[_Section], options: ChunkOptions) -> list[_Section]:
    """Fold sections under ``min_tokens`` into the following one (or the previous)."""
    merged: list[_Section] = []
    pending: _Section | None = None
    for section in sections:
        if pending is not None:
            heading = (
                _Block("#" * min(len(section.path), 6) + " " + section.path[-1], is_heading=True)
                if section.path
                else None
            )
            section = _Section(
                pending.path,
                pending.blocks + ([heading] if heading else []) + section.blocks,
            )
            pending = None
        if section.tokens < options.min_tokens:
            pending = section
            continue
        merged.append(section)
    if pending is not None and pending.blocks:
        if merged and merged[-1].tokens + pending.tokens <= options.max_tokens:
            last = merged[-1]
            heading = (
                _Block("#" * min(len(pending.path), 6) + " " + pending.path[-1], is_heading=True)
                if pending.path
                else None
            )
            last.blocks += (
                [heading] if heading and pending.path != last.path else []
            ) + pending.blocks
        else:
            merged.append(pending)
    return merged


def _split_section(section: _Section, options: ChunkOptions) -> list[Chunk]:
    path = PATH_SEPARATOR.join(p for p in section.path if p)
    pieces: list[_Block] = []
    for block in section.blocks:
        if block.is_code or block.tokens <= options.max_tokens:
            pieces.append(block)
        else:
            pieces += [_Block(s) for s in _split_prose(block.text, options.target_tokens)]

    chunks: list[Chunk] = []
    current: list[_Block] = []
    size = 0
    for piece in pieces:
        if current and size + piece.tokens > options.target_tokens:
            chunks.append(_make_chunk(current, path))
            current = _overlap(current, options.overlap_tokens)
            size = sum(b.tokens for b in current)
        current.append(piece)
        size += piece.tokens
    if current and any(not b.is_heading for b in current):
        if (
            chunks
            and size < options.min_tokens
            and chunks[-1].token_count + size <= options.max_tokens
        ):
            last = chunks.pop()
            tail = [b for b in current if b.text not in last.text]
            chunks.append(_make_chunk([_Block(last.text, last.has_code), *tail], path))
        else:
            chunks.append(_make_chunk(current, path))
    return chunks


def _overlap(blocks: list[_Block], tokens: int) -> list[_Block]:
    """The tail of the previous chunk's prose carried into the next, for context."""
    if tokens <= 0 or not blocks or blocks[-1].is_code or blocks[-1].is_heading:
        return []
    sentences = _SENTENCE_END.split(blocks[-1].text)
    carried: list[str] = []
    for sentence in reversed(sentences):
        if estimate_tokens(" ".join([sentence, *carried])) > tokens:
            break
        carried.insert(0, sentence)
    if not carried or len(carried) == len(sentences):
        return []
    return [_Block(" ".join(carried))]


def _split_prose(text: str, target: int) -> list[str]:
    """Split one long paragraph at sentence boundaries (words as a last resort)."""
    parts: list[str] = []
    current = ""
    for sentence in _SENTENCE_END.split(text):
        if estimate_tokens(sentence) > target:
            words = sentence.split(" ")
            for word in words:
                if current and estimate_tokens(current + " " + word) > target:
                    parts.append(current)
                    current = word
                else:
                    current = f"{current} {word}" if current else word
            continue
        if current and estimate_tokens(current + " " + sentence) > target:
            parts.append(current)
            current = sentence
        else:
            current = f"{current} {sentence}" if current else sentence
    if current:
        parts.append(current)
    return parts


def _make_chunk(blocks: list[_Block], path: str) -> Chunk:
    text = "\n\n".join(b.text for b in blocks).strip()
    return Chunk(
        text=text,
        heading_path=path,
        token_count=estimate_tokens(text),
        has_code=any(b.is_code for b in blocks) or "```" in text,
    )
