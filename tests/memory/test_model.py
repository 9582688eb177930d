"""The memory with the real local model (all-MiniLM-L6-v2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from contextbase.memory import SolutionMemory
from contextbase.store.db import Database

pytestmark = pytest.mark.model

SOLUTIONS = {
    "hooks": {
        "errorMessage": 'React Hook "useState" is called conditionally. React Hooks must be '
        "called in the exact same order in every component render.",
        "rootCause": "A hook was called inside an if statement.",
        "solution": "Move every hook call to the top level of the component, before any return.",
    },
    "cors": {
        "errorMessage": "Access to fetch at 'https://api.example.com/items' from origin "
        "'http://localhost:3000' has been blocked by CORS policy: No "
        "'Access-Control-Allow-Origin' header is present on the requested resource.",
        "rootCause": "The API server does not send CORS headers for the dev origin.",
        "solution": "Allow the origin on the server (e.g. CORSMiddleware) or proxy in dev.",
    },
    "refused": {
        "errorMessage": "Error: connect ECONNREFUSED 127.0.0.1:5432",
        "rootCause": "PostgreSQL was not running.",
        "solution": "Start the database service.",
    },
    "reset": {
        "errorMessage": "Error: read ECONNRESET",
        "rootCause": "The server dropped the connection to the database.",
        "solution": "Retry with backoff; check the server's idle timeout.",
    },
}


def test_paraphrase_and_codes_with_the_real_model(tmp_path: Path, local_embedder) -> None:  # type: ignore[no-untyped-def]
    db = Database(tmp_path / "model.db")
    memory = SolutionMemory(db, local_embedder)
    ids = {name: memory.save(fields).solution.id for name, fields in SOLUTIONS.items()}

    paraphrase = "my hook runs only inside an if branch and React complains about hook order"
    hit = memory.search(paraphrase, mode="semantic").hits[0]
    assert hit.solution.id == ids["hooks"] and hit.semantic is not None and hit.semantic > 0.4

    blocked = memory.search("request blocked: missing Access-Control-Allow-Origin header").hits
    assert blocked[0].solution.id == ids["cors"]

    coded = memory.search("ECONNREFUSED: the database server dropped the connection").hits
    assert coded[0].solution.id == ids["refused"] and coded[0].code_match == "match"

    assert memory.search("how do I bake sourdough bread", mode="semantic").hits == []
    db.close()
