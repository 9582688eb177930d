"""Discoveries: validation, deterministic extraction, module mapping and enrichment."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from contextbase.errors import InvalidInputError
from contextbase.project.discoveries import (
    classify,
    extract,
    infer_module,
    split_issue,
    validate,
)
from contextbase.project.profile import load_profile
from contextbase.project.service import ProjectService


@pytest.mark.parametrize(
    ("sentence", "kind"),
    [
        ("We decided to keep JWT tokens in httpOnly cookies.", "decision"),
        ("The team agreed on Postgres for the ledger.", "decision"),
        ("Decided to drop support for Python 3.9.", "decision"),
        ("The decision was to vendor the parser.", "decision"),
        ("Always validate the CSRF token before reading the body.", "rule"),
        ("Never call the payments API from the browser.", "rule"),
        ("Handlers must always return JSON.", "rule"),
        ("We should never log access tokens.", "rule"),
        ("The token refresh fails when two tabs refresh at once, fixed by a mutex.", "issue"),
        ("The import breaks if the CSV has a BOM.", "issue"),
        ("pytest hangs on Windows because of the file watcher.", "issue"),
        ("Loading raises KeyError on old configs, fixed by a default value.", "issue"),
        ("The fix for the flaky test was to freeze the clock.", "issue"),
        ("The convention is one router per resource.", "pattern"),
        ("By convention, services live next to their models.", "pattern"),
        ("We use the repository pattern for data access.", "pattern"),
        ("Decision: move background jobs to Celery.", "decision"),
        ("Gotcha: the cache key ignores the locale.", "issue"),
        ("Rule: migrations are reviewed by two people.", "rule"),
        ("Convention: tests mirror the src tree.", "pattern"),
    ],
)
def test_patterns_extract_discoveries(sentence: str, kind: str) -> None:
    found = classify(sentence)
    assert found is not None and found.type == kind


@pytest.mark.parametrize(
    "sentence",
    [
        "Fixed the login flow today.",
        "The build was slow yesterday.",
        "I updated the README and ran the tests.",
        "Users can log in with their email address.",
        "It always works on my machine.",
        "This function raises ValueError if the input is empty.",
        "The tests pass now.",
        "We talked about the roadmap for an hour.",
        "Refactored the checkout page and renamed two components.",
        "The decision tree model is in models/tree.py.",
    ],
)
def test_ordinary_sentences_do_not_match(sentence: str) -> None:
    assert classify(sentence) is None


def test_extract_splits_text_and_drops_repeats() -> None:
    text = (
        "Worked on auth.\n- We decided to use argon2 for passwords.\n"
        "* Never store plain passwords. Never store plain passwords.\n"
        "1. Login fails when the clock skews, fixed by a 30 s leeway. Done."
    )
    found = extract(text)
    assert [(f.type, f.content) for f in found] == [
        ("decision", "We decided to use argon2 for passwords."),
        ("rule", "Never store plain passwords."),
        ("issue", "Login fails when the clock skews, fixed by a 30 s leeway."),
    ]


def test_split_issue() -> None:
    assert split_issue("Login fails when the clock skews, fixed by a 30 s leeway.") == (
        "Login fails when the clock skews",
        "a 30 s leeway.",
    )
    assert split_issue("The upload breaks on files over 2 GB") == (
        "The upload breaks on files over 2 GB",
        "",
    )


def test_validate() -> None:
    assert validate("Rule", "  Always   run the linter  ") == ("rule", "Always run the linter")
    with pytest.raises(InvalidInputError, match="pattern, rule, decision, issue"):
        validate("idea", "Something long enough")
    with pytest.raises(InvalidInputError, match="10 to 1000 characters"):
        validate("rule", "too short")
    with pytest.raises(InvalidInputError, match="1001"):
        validate("rule", "x" * 1001)


def test_saved_and_extracted_discoveries_reach_project_yaml(
    shop: Path, make_service: Callable[..., ProjectService]
) -> None:
    service = make_service(shop)
    profile = service.profile()
    assert infer_module("The services layer must stay pure", profile) == "services"
    assert infer_module("Edit src/shop/models/order.py carefully", profile) == "models"
    assert infer_module("Nothing about this project", profile) is None

    saved = service.save_discovery("pattern", "Services return domain objects, never rows")
    assert saved.module == "services"
    again = service.save_discovery("pattern", "Services return domain objects, never rows")
    assert again.id == saved.id  # the same text is kept once
    explicit = service.save_discovery("rule", "Orders need one item at least", module="MODELS")
    assert explicit.module == "models"  # matched to the known module

    service.search_project_memory("we decided to paginate routes with cursors")  # a tool argument
    ended = service.end_session(
        "Reworked checkout. Never commit inside the services layer. "
        "The order import fails when the CSV has a BOM, fixed by utf-8-sig in the models loader."
    )
    kinds = {(d.type, d.context["extractedFrom"]) for d in ended.discoveries}
    assert kinds == {
        ("rule", "session summary"),
        ("issue", "session summary"),
        ("decision", "tool arguments"),
    }
    assert all(d.context["confidence"] == 1.0 for d in ended.discoveries)
    assert ended.session.metadata["discoveryCount"] == 5

    written = load_profile(service.profile_file)
    services, models = written.modules["services"], written.modules["models"]
    assert services.patterns == ["Services return domain objects, never rows"]
    assert services.business_rules == ["Never commit inside the services layer."]
    assert models.business_rules == ["Orders need one item at least"]
    issue = models.common_issues[0]
    assert issue.description == "The order import fails when the CSV has a BOM"
    assert issue.solution == "utf-8-sig in the models loader."
    assert issue.session_id == ended.session.id
    assert written.modules["routes"].patterns == [
        "we decided to paginate routes with cursors"
    ]  # decisions go with patterns
    assert all(d.embedding_id for d in service.list_discoveries())
