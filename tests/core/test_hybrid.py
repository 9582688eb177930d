from __future__ import annotations

from contextbase.search.hybrid import SearchResult, _merge_adjacent, fit_budget


def _result(index: int, path: str, text: str, document: int = 1) -> SearchResult:
    return SearchResult(
        index, document, "lib", "", "a.md", "A", path, text, 1.0 / (index + 1), [index], [path]
    )


def test_adjacent_chunks_merge_in_document_order_with_headings() -> None:
    merged = _merge_adjacent(
        [
            _result(2, "A > Install", "second"),
            _result(1, "A > Intro", "first"),
            _result(3, "A > Install", "third"),
            _result(9, "A > Far", "far away"),
            _result(2, "B > X", "other document", document=2),
        ]
    )
    assert len(merged) == 3
    assert merged[0].chunk_indexes == [1, 2, 3]
    assert merged[0].text == "first\n\n## Install\n\nsecond\n\nthird"
    assert merged[0].heading_path == "A"
    assert merged[0].score == 1.0 / 3


def test_budget_keeps_best_results_and_truncates_the_first() -> None:
    results = [_result(i, "A", "word " * 400, document=i) for i in range(5)]
    kept = fit_budget(results, 250)
    assert len(kept) == 1 and kept[0].tokens <= 250
    small = [_result(i, "A", "word " * 40, document=i) for i in range(5)]
    assert len(fit_budget(small, 120)) == 2
