"""project.yaml: the seed's schema and Zod rules, with errors that name the field."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from contextbase.errors import ConfigError, NotFoundError
from contextbase.project.profile import (
    dump_profile,
    load_profile,
    parse_profile,
    save_profile,
)

SEED_EXAMPLE = """
version: "1.0"
project:
  name: "My SaaS App"
  type: "fullstack"
  path: "/Users/dev/projects/my-saas"
tech:
  stack: ["Next.js 14", "Express 4", "TypeScript 5"]
  runtime: "Node.js 20"
  packageManager: "pnpm"
architecture:
  pattern: "feature-based"
  description: "Feature modules with shared infrastructure"
modules:
  auth:
    name: "auth"
    description: "Authentication and authorization"
    keyFiles:
      - path: "src/server/auth/AuthService.ts"
        role: "core"
    patterns: ["Use JWT tokens in httpOnly cookies"]
    businessRules: ["Sessions expire after 7 days"]
    commonIssues:
      - description: "Token refresh race condition"
        solution: "Use mutex lock in TokenManager"
        sessionId: "session-123"
        discoveredAt: "2025-01-15T10:30:00Z"
    dependencies: ["users"]
  users:
    description: "User management and profiles"
metadata:
  createdAt: "2025-01-15T08:00:00Z"
  updatedAt: "2025-01-15T18:00:00Z"
  lastScanAt: "2025-01-15T08:00:00Z"
"""


def seed() -> dict[str, Any]:
    return yaml.safe_load(SEED_EXAMPLE)


def error_of(data: dict[str, Any]) -> str:
    with pytest.raises(ConfigError) as caught:
        parse_profile(data, "project.yaml")
    return str(caught.value)


def test_the_seed_example_loads_and_round_trips(tmp_path: Path) -> None:
    profile = parse_profile(seed())
    assert profile.modules["auth"].common_issues[0].session_id == "session-123"
    assert profile.modules["users"].name == "users"  # a hand-written module may omit its name
    path = tmp_path / ".context" / "project.yaml"
    save_profile(profile, path)
    again = load_profile(path)
    assert again == profile
    text = path.read_text()
    assert "packageManager: pnpm" in text and "discoveredAt: '2025-01-15T10:30:00Z'" in text
    assert not list(path.parent.glob(".project-*"))  # the temporary file was renamed


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (
            lambda d: d["modules"]["auth"]["keyFiles"][0].update(role="main"),
            "modules.auth.keyFiles[0].role: Input should be 'entry', 'config', 'core' or 'test'",
        ),
        (
            lambda d: d["project"].update(type="website"),
            "project.type: Input should be 'web-app', 'api', 'cli', 'library' or 'fullstack'",
        ),
        (lambda d: d["architecture"].update(pattern="hexagonal"), "architecture.pattern:"),
        (lambda d: d["tech"].update(packageManager="brew"), "tech.packageManager:"),
        (
            lambda d: d["modules"]["auth"]["patterns"].append("Use JWT tokens in httpOnly cookies"),
            "modules.auth.patterns: duplicate entry 'Use JWT tokens in httpOnly cookies'",
        ),
        (
            lambda d: d["modules"]["auth"]["businessRules"].append("Sessions expire after 7 days"),
            "modules.auth.businessRules: duplicate entry",
        ),
        (
            lambda d: d["metadata"].update(createdAt="yesterday"),
            "metadata.createdAt: must be an ISO 8601 date-time",
        ),
        (
            lambda d: d["metadata"].update(updatedAt="2025-01-15T18:00:00"),
            "metadata.updatedAt: must carry a timezone",
        ),
        (
            lambda d: d["metadata"].update(lastScanAt=1736928000),
            "metadata.lastScanAt: must be an ISO 8601 date-time",
        ),
        (
            lambda d: d["modules"]["auth"]["commonIssues"][0].update(discoveredAt="15/01/2025"),
            "modules.auth.commonIssues[0].discoveredAt: must be an ISO 8601 date-time",
        ),
        (lambda d: d["project"].update(name=""), "project.name: String should have at least 1"),
        (lambda d: d["project"].update(name="x" * 101), "project.name: String should have at most"),
        (
            lambda d: d["modules"]["auth"].update(patern=["typo"]),
            "modules.auth.patern: unknown field",
        ),
        (lambda d: d.pop("tech"), "tech: required field is missing"),
    ],
)
def test_schema_violations_name_the_field(change: Any, expected: str) -> None:
    data = seed()
    change(data)
    assert expected in error_of(data)


def test_several_problems_are_listed_together() -> None:
    data = seed()
    data["project"]["type"] = "website"
    data["modules"]["auth"]["keyFiles"][0]["role"] = "main"
    message = error_of(data)
    assert "project.type" in message and "modules.auth.keyFiles[0].role" in message


def test_the_extended_package_managers_are_accepted() -> None:
    for manager in ("uv", "poetry", "pip-tools", "go", "cargo", "maven", "gradle", "unknown"):
        data = seed()
        data["tech"]["packageManager"] = manager
        assert parse_profile(data).tech.package_manager == manager


def test_invalid_yaml_gives_the_line(tmp_path: Path) -> None:
    path = tmp_path / "project.yaml"
    path.write_text("version: '1.0'\nproject:\n  name: [unclosed\n  type: api\n")
    with pytest.raises(ConfigError, match=r"is not valid YAML at line \d+, column \d+"):
        load_profile(path)


def test_not_a_mapping_and_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "project.yaml"
    path.write_text("- just\n- a list\n")
    with pytest.raises(ConfigError, match="must hold a mapping"):
        load_profile(path)
    with pytest.raises(NotFoundError, match="project init"):
        load_profile(tmp_path / "missing.yaml")


def test_module_for_path() -> None:
    data = seed()
    data["modules"]["users"]["path"] = "src/server/users"
    data["modules"]["admin"] = {"path": "src/server/users/admin"}
    profile = parse_profile(data)
    assert profile.module_for_path("src/server/auth/AuthService.ts") == "auth"
    assert profile.module_for_path("src/server/users/repo.ts") == "users"
    assert profile.module_for_path("src/server/users/admin/panel.ts") == "admin"
    assert profile.module_for_path("README.md") is None
    assert "path: src/server/users" in dump_profile(profile)
