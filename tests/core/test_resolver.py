from __future__ import annotations

from pathlib import Path

import pytest

from contextbase.docs.resolver import LibraryResolver
from contextbase.errors import InvalidInputError
from contextbase.store.db import Database
from contextbase.store.models import Library
from contextbase.store.sqlite import SQLiteStore


@pytest.fixture()
def resolver(tmp_path: Path) -> LibraryResolver:
    store = SQLiteStore(Database(tmp_path / "r.db"))
    for lib in [
        Library.new(
            "requests",
            "pypi",
            language="Python",
            popularity_score=95,
            short_description="HTTP for humans",
            keywords=["http", "client"],
        ),
        Library.new(
            "requests",
            "npm",
            language="JavaScript",
            popularity_score=5,
            short_description="Simple HTTP requests for node",
        ),
        Library.new(
            "moment", "npm", language="JavaScript", status="deprecated", popularity_score=90
        ),
        Library.new("moment", "pypi", language="Python", popularity_score=10),
        Library.new(
            "React",
            "npm",
            language="JavaScript",
            aliases=["ReactJS", "react.js"],
            popularity_score=99,
            keywords=["ui", "components"],
        ),
        Library.new("FastAPI", "pypi", language="Python", keywords=["api", "web"]),
        Library.new("numpy", "pypi", language="Python"),
        Library.new("pandas", "pypi", language="Python"),
    ]:
        store.upsert_library(lib)
    return LibraryResolver(store)


def test_exact_alias_and_variants(resolver: LibraryResolver) -> None:
    assert resolver.resolve("fastapi")[0].library.context7_id == "/pypi/fastapi"
    assert resolver.resolve("FastAPI")[0].matched_by == "exact"
    for name in ("reactjs", "react.js", "React", "REACT", "react-js"):
        assert resolver.resolve(name)[0].library.context7_id == "/npm/react", name


def test_typos(resolver: LibraryResolver) -> None:
    assert resolver.resolve("fastpi")[0].library.context7_id == "/pypi/fastapi"
    assert resolver.resolve("nunpy")[0].library.context7_id == "/pypi/numpy"
    assert resolver.resolve("pnadas")[0].library.context7_id == "/pypi/pandas"


def test_ambiguous_name_decided_by_query(resolver: LibraryResolver) -> None:
    python = resolver.resolve("requests", "python http client with sessions")
    assert python[0].library.context7_id == "/pypi/requests"
    node = resolver.resolve("requests", "make an http call from node with npm")
    assert node[0].library.context7_id == "/npm/requests"
    assert {m.library.context7_id for m in python} == {"/pypi/requests", "/npm/requests"}


def test_deprecated_library_ranks_below_an_active_one(resolver: LibraryResolver) -> None:
    matches = resolver.resolve("moment", "parse dates")
    assert [m.library.context7_id for m in matches] == ["/pypi/moment", "/npm/moment"]


def test_context7_id_passes_through(resolver: LibraryResolver) -> None:
    assert resolver.resolve("/npm/react")[0].matched_by == "id"


@pytest.mark.parametrize(
    "hostile",
    ["x' OR 1=1 --", "'; DROP TABLE libraries; --", "%", "_", '" OR ""="', "react\x00"],
)
def test_hostile_names_match_nothing_and_break_nothing(
    resolver: LibraryResolver, hostile: str
) -> None:
    matches = resolver.resolve(hostile)
    assert all(m.matched_by != "exact" for m in matches)
    assert len(resolver.store.all_libraries()) == 8


def test_bad_names(resolver: LibraryResolver) -> None:
    with pytest.raises(InvalidInputError):
        resolver.resolve("   ")
    with pytest.raises(InvalidInputError):
        resolver.resolve("x" * 500)
    assert resolver.resolve("zzzzqqqq") == []
    assert "/pypi/numpy" in resolver.suggestions("numpyy")
