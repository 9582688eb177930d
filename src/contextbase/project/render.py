"""Markdown renderings of the project memory, for the agent (tools) and people (CLI)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from contextbase.project.profile import ModuleContext, ProjectContext
from contextbase.tokens import estimate_tokens, truncate_to_tokens

if TYPE_CHECKING:
    from contextbase.project.context import ContextItem
    from contextbase.project.sessions import Session


def profile_summary(profile: ProjectContext, budget: int) -> str:
    """Name, stack, architecture and one line per module, cut to ``budget`` tokens."""
    p, tech, arch = profile.project, profile.tech, profile.architecture
    lines = [
        f"# Project {p.name} ({p.type})",
        f"Stack: {', '.join(tech.stack) or 'none detected'}. Runtime: {tech.runtime or '?'}."
        f" Package manager: {tech.package_manager}.",
        f"Architecture: {arch.pattern}. {arch.description}".rstrip(),
    ]
    if profile.modules:
        lines += ["", f"## Modules ({len(profile.modules)})"]
        for key, module in profile.modules.items():
            lines.append(module_line(key, module))
    lines += _knowledge(profile)
    text = "\n".join(lines)
    if estimate_tokens(text) > budget:
        text = truncate_to_tokens(text, budget) + "\n…"
    return text


def module_line(key: str, module: ModuleContext) -> str:
    where = f" (`{module.path}`)" if module.path else ""
    deps = f" Depends on: {', '.join(module.dependencies)}." if module.dependencies else ""
    return f"- **{key}**{where}: {module.description}{deps}"


def _knowledge(profile: ProjectContext) -> list[str]:
    lines: list[str] = []
    for key, module in profile.modules.items():
        notes = [f"  - pattern: {p}" for p in module.patterns]
        notes += [f"  - rule: {r}" for r in module.business_rules]
        notes += [
            f"  - known issue: {i.description}" + (f" → {i.solution}" if i.solution else "")
            for i in module.common_issues
        ]
        if notes:
            lines += [f"- {key}:", *notes]
    return ["", "## Patterns, rules and known issues", *lines] if lines else []


def module_text(key: str, module: ModuleContext) -> str:
    """The text of a module's context item."""
    lines = [module_line(key, module)]
    if module.key_files:
        lines.append(
            "Key files: " + ", ".join(f"{kf.path} ({kf.role})" for kf in module.key_files) + "."
        )
    lines += [f"Pattern: {p}" for p in module.patterns]
    lines += [f"Rule: {r}" for r in module.business_rules]
    lines += [
        f"Known issue: {i.description}" + (f" Solution: {i.solution}" if i.solution else "")
        for i in module.common_issues
    ]
    return "\n".join(lines)


def item_block(item: ContextItem) -> str:
    label = item.type
    if item.type == "discovery":
        label = f"{item.metadata.get('discoveryType', 'discovery')}"
        if item.metadata.get("module"):
            label += f" · {item.metadata['module']}"
    else:
        label += f" · {item.source}"
    status = " (archived)" if item.status == "archived" else ""
    return f"### {label}{status}\n{item.content}"


def session_line(session: Session) -> str:
    meta = session.metadata
    summary = meta.get("summary", "")
    files = len(session.files_accessed)
    text = (
        f"- {session.id[:8]} {session.status}, started {session.to_dict()['startedAt']},"
        f" {meta.get('toolCallsCount', 0)} tool calls, {files} files,"
        f" {meta.get('discoveryCount', 0)} discoveries"
    )
    return text + (f": {summary[:160]}" if summary else "")


def session_text(session: Session) -> str:
    meta = session.metadata
    parts = [f"Session {session.to_dict()['startedAt']} ({session.status})."]
    if meta.get("summary"):
        parts.append(str(meta["summary"]))
    if session.topics:
        parts.append("Topics: " + "; ".join(session.topics[:10]) + ".")
    if session.files_accessed:
        files = sorted(session.files_accessed, key=lambda f: -f.access_count)[:10]
        parts.append("Files: " + ", ".join(f.path for f in files) + ".")
    return "\n".join(parts)
