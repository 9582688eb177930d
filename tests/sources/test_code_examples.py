"""Code example extraction on real documentation, and its rows kept in step with documents."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from contextbase.config import load_settings
from contextbase.embed import get_embedder
from contextbase.ingest.sources import SourceSpec, add_source
from contextbase.rag.code_examples import extract_code_examples, summarise
from contextbase.rag.service import RagService
from contextbase.rag.store import RagStore
from contextbase.store.db import Database
from contextbase.store.sqlite import SQLiteStore


def test_rust_book_examples_carry_language_context_and_summary(shared: Path) -> None:
    text = (shared / "corpora/rust-book-md/ch16-01-threads.md").read_text()
    examples = extract_code_examples(text, "Threads")
    assert len(examples) == 4
    assert [e.index for e in examples] == [0, 1, 2, 3]
    first = examples[0]
    assert first.language == "text" and "hi number 1 from the main thread!" in first.code
    assert first.heading_path == (
        "Threads > Using Threads to Run Code Simultaneously > Creating a New Thread with `spawn`"
    )
    assert first.summary.startswith(first.heading_path)
    assert "<" not in first.summary  # the book's <Listing> tags are not prose
    assert all(len(e.code) >= 200 and e.context_before for e in examples)
    assert not examples[1].context_before[0].islower()  # context starts at a sentence


def test_include_directives_are_not_examples(shared: Path) -> None:
    text = (shared / "corpora/rust-book-md/ch10-01-syntax.md").read_text()
    examples = extract_code_examples(text, "Generic Data Types", min_chars=1)
    assert not any("rustdoc_include" in e.code for e in examples)
    option = next(e for e in examples if "enum Option_i32" in e.code)
    assert option.language == "rust"
    assert "Option_f64" in option.code
    assert extract_code_examples(text, "Generic Data Types") == []  # all under 200 characters


def test_fastapi_examples_and_minimum_length(shared: Path) -> None:
    text = (shared / "corpora/fastapi-md/tutorial/path-params.md").read_text()
    default = extract_code_examples(text, "Path Parameters")
    everything = extract_code_examples(text, "Path Parameters", min_chars=1)
    assert 0 < len(default) < len(everything)
    error = next(e for e in default if '"int_parsing"' in e.code)
    assert error.language == "json"
    assert "item_id" in error.context_after
    assert "Data validation" in error.heading_path


def test_summary_is_heading_path_and_surrounding_sentences() -> None:
    summary = summarise(
        "Guide > Retries",
        "Some background. Retry a request with **exponential backoff** when busy:",
        "The delay doubles after each failure. More text follows.",
    )
    assert summary == (
        "Guide > Retries — Some background. Retry a request with exponential backoff when "
        "busy: The delay doubles after each failure."
    )
    assert summarise("", "", "", "rust") == "rust example"


def test_examples_follow_their_documents(shared: Path, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    shutil.copytree(shared / "corpora/fastapi-md/tutorial", docs)
    db = Database(tmp_path / "examples.db")
    settings = load_settings(db=db.path)
    fake = get_embedder("fake")
    first = add_source(db, settings, SourceSpec(str(docs), library="fastapi"), embedders=[fake])
    rag = RagStore(SQLiteStore(db))
    space = rag.spaces()[0]
    vectors = rag.code_vectors(space)
    assert first.code_examples == rag.count_examples() > 10
    assert vectors.count() == rag.count_examples()

    before = rag.count_examples()
    page = docs / "path-params.md"
    lost = len(extract_code_examples(page.read_text(), "Path Parameters"))
    page.write_text("# Path Parameters\n\nRewritten without code.\n")
    again = add_source(db, settings, SourceSpec(str(docs), library="fastapi"), embedders=[fake])
    assert again.report.indexed == 1
    assert rag.count_examples() == before - lost
    assert vectors.count() == rag.count_examples()  # deleted with their rows, by trigger
    fts = db.scalar(
        "SELECT count(*) FROM code_examples_fts WHERE code_examples_fts MATCH 'int_parsing'"
    )
    assert fts == 0

    SQLiteStore(db).remove_library("/local/fastapi")
    assert rag.count_examples() == 0 and vectors.count() == 0
    assert db.scalar("SELECT count(*) FROM document_stats") == 0


@pytest.mark.model
def test_code_search_with_the_local_model(shared: Path, tmp_path: Path, local_embedder) -> None:  # type: ignore[no-untyped-def]
    docs = tmp_path / "book"
    docs.mkdir()
    for name in (
        "ch09-01-unrecoverable-errors-with-panic.md",
        "ch14-03-cargo-workspaces.md",
        "ch16-01-threads.md",
    ):
        shutil.copy(shared / "corpora/rust-book-md" / name, docs / name)
    db = Database(tmp_path / "model.db")
    add_source(
        db,
        load_settings(db=db.path),
        SourceSpec(str(docs), library="rust-book"),
        embedders=[local_embedder],
    )
    service = RagService(SQLiteStore(db), local_embedder)
    answer = service.search_code_examples("running tests in a cargo workspace", None, 3)
    assert answer["search_mode"] == "hybrid"
    top = answer["results"][0]
    assert top["url"] == "ch14-03-cargo-workspaces.md"
    assert "cargo test" in top["code"]
    assert 0.5 < top["similarity"] <= 1.0
    threads = service.search_code_examples("output of two threads printing numbers", None, 1)
    assert threads["results"][0]["url"] == "ch16-01-threads.md"
