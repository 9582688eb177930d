"""The Indexer hook that extracts code examples and word counts from each document."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from contextbase.embed import Embedder
from contextbase.ingest.pipeline import IndexedDocument
from contextbase.rag.code_examples import DEFAULT_MIN_CHARS, CodeExample, extract_code_examples
from contextbase.rag.store import RagStore
from contextbase.store.vectors import Space, ensure_space


class CodeExampleObserver:
    """Extracts, embeds and stores the code examples of every document indexed.

    Pass it to ``Indexer(observers=[...])``. Vectors of examples whose code
    and language did not change are reused, so re-indexing an edited page
    embeds only its new examples.
    """

    def __init__(
        self,
        rag: RagStore,
        embedders: Sequence[Embedder] = (),
        min_chars: int = DEFAULT_MIN_CHARS,
    ) -> None:
        self.rag = rag
        self.embedders = list(embedders)
        self.min_chars = min_chars
        self.examples = 0
        """Examples written so far."""
        self._spaces: dict[int, Space] = {}

    def _space(self, embedder: Embedder) -> Space:
        key = id(embedder)
        if key not in self._spaces:
            self._spaces[key] = ensure_space(
                self.rag.db, embedder.provider, embedder.model, embedder.dimension
            )
        return self._spaces[key]

    def prepare(self, documents: Sequence[IndexedDocument]) -> list[Callable[[int], None]]:
        extracted = [
            extract_code_examples(d.parsed.markdown, d.parsed.title, self.min_chars)
            for d in documents
        ]
        flat = [example for examples in extracted for example in examples]
        vectors = {self._space(e): self._embed(e, flat) for e in self.embedders}
        writers: list[Callable[[int], None]] = []
        offset = 0
        for document, examples in zip(documents, extracted, strict=True):
            end = offset + len(examples)
            mine = {space: vecs[offset:end] for space, vecs in vectors.items()}
            writers.append(self._writer(document, examples, mine))
            offset = end
        return writers

    def _writer(
        self,
        document: IndexedDocument,
        examples: list[CodeExample],
        vectors: dict[Space, list[list[float] | bytes]],
    ) -> Callable[[int], None]:
        record = document.record

        def write(document_id: int) -> None:
            self.rag.record_document(
                document_id,
                record.library_id,
                record.version,
                record.source,
                len(document.parsed.markdown.split()),
                examples,
                vectors,
            )
            self.examples += len(examples)

        return write

    def _embed(self, embedder: Embedder, examples: list[CodeExample]) -> list[list[float] | bytes]:
        if not examples:
            return []
        space = self._space(embedder)
        reusable = self.rag.vectors_by_hash(space, [e.content_hash for e in examples])
        todo = list(
            {e.content_hash: e for e in examples if e.content_hash not in reusable}.values()
        )
        fresh: dict[str, list[float]] = {}
        if todo:
            vecs = embedder.embed_documents([e.embedding_text() for e in todo])
            fresh = {e.content_hash: v for e, v in zip(todo, vecs, strict=True)}
        return [reusable.get(e.content_hash) or fresh[e.content_hash] for e in examples]
