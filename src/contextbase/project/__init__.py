"""Project memory (the Context Tool MVP): what an agent should know about the project it
works in, and what it learnt there.

* ``profile`` — ``.context/project.yaml``: name, type, stack, runtime, package manager,
  architecture, modules with key files, dependencies, patterns, rules and known issues;
* ``scan`` — builds the profile from the files (Python, JavaScript/TypeScript, Go, Rust,
  Java/Kotlin); ``merge`` — a re-scan keeps what people and the agent wrote;
* ``sessions`` — ``.context/sessions.db`` and coding sessions (active → completed →
  archived); ``discoveries`` — patterns, rules, decisions and issues, saved or extracted;
* ``context`` — scored context items pruned to a token budget;
* ``service`` — ``ProjectService``, the operations the MCP tools and the CLI call.
"""

from __future__ import annotations

from contextbase.project.profile import ProjectContext, load_profile, save_profile
from contextbase.project.scan import scan_project
from contextbase.project.service import ProjectMemory, ProjectService
from contextbase.project.settings import ProjectSettings

__all__ = [
    "ProjectContext",
    "ProjectMemory",
    "ProjectService",
    "ProjectSettings",
    "load_profile",
    "save_profile",
    "scan_project",
]
