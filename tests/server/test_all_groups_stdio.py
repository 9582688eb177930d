"""Every tool group together in one real stdio server, as a client would see it."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters

pytestmark = pytest.mark.anyio

TOOLS = {
    "docs": {"resolve-library-id", "query-docs", "get-library-docs", "list-libraries"},
    "rag": {
        "crawl_single_page",
        "smart_crawl_url",
        "get_available_sources",
        "perform_rag_query",
        "search_code_examples",
        "list_jobs",
        "get_job",
        "cancel_job",
    },
    "kb": {"search_knowledgebase"},
    "memory": {
        "save-error-solution",
        "search-solutions",
        "get-solution-detail",
        "batch-get-solutions",
        "delete-solution",
    },
    "project": {
        "get-project-context",
        "save-discovery",
        "search-project-memory",
        "get-file-context",
        "end-session",
        "list-sessions",
    },
    "graph": {
        "parse_repository",
        "parse_github_repository",
        "check_ai_script_hallucinations",
        "query_knowledge_graph",
    },
}
WRITERS = {
    "crawl_single_page",
    "smart_crawl_url",
    "cancel_job",
    "save-error-solution",
    "delete-solution",
    "save-discovery",
    "end-session",
    "parse_repository",
    "parse_github_repository",
}


def _params(db: Path, project: Path, *extra: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=[
            "-m",
            "contextbase",
            "serve",
            "--db",
            str(db),
            "--embedder",
            "fake",
            "--project",
            str(project),
            *extra,
        ],
        env={**os.environ},
    )


async def test_every_group_is_served(tmp_path: Path) -> None:
    async with Client(_params(tmp_path / "db.sqlite", tmp_path)) as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        for group, tools in TOOLS.items():
            assert tools <= names, (group, tools - names)
        saved = await client.call_tool(
            "save-error-solution",
            {
                "errorMessage": "ModuleNotFoundError: No module named 'yaml'",
                "solution": "pip install pyyaml",
            },
        )
        assert not saved.is_error
        found = await client.call_tool("search-solutions", {"query": "No module named yaml"})
        assert "pyyaml" in found.content[0].text


async def test_read_only_hides_writers(tmp_path: Path) -> None:
    async with Client(_params(tmp_path / "db.sqlite", tmp_path, "--read-only")) as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        assert not names & WRITERS
        assert {"query-docs", "search-solutions", "search_knowledgebase"} <= names


async def test_tool_groups_can_be_chosen(tmp_path: Path) -> None:
    async with Client(_params(tmp_path / "db.sqlite", tmp_path, "--tools", "memory")) as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        assert names == TOOLS["memory"]
