"""Plain-text replies of the memory tools and CLI: previews with scores and ids, details."""

from __future__ import annotations

from contextbase.memory.models import SearchHit, Solution
from contextbase.memory.normalize import code_value
from contextbase.memory.redact import describe


def format_saved(solution: Solution, created: bool, redacted: dict[str, int], total: int) -> str:
    if created:
        head = f'Saved new solution {solution.id} "{solution.title}".'
    else:
        head = (
            f'Updated existing solution {solution.id} "{solution.title}": same error and fix '
            f"(saved {solution.save_count} times), so no copy was added."
        )
    codes = ", ".join(code_value(c) for c in solution.error_codes) or "none"
    lines = [
        head,
        f"Type: {solution.error_type} | Tags: {', '.join(solution.tags) or '-'} | "
        f"Exact error codes: {codes}",
        f"Redacted before storing: {describe(redacted)}."
        if redacted
        else "Redacted before storing: nothing (no secrets or home paths found).",
        f"The memory holds {total} solution(s); search-solutions will find this one.",
    ]
    return "\n".join(lines)


def format_search(
    query: str, hits: list[SearchHit], mode: str, total: int, min_score: float
) -> str:
    shown = query if len(query) <= 80 else query[:79] + "…"
    if not hits:
        return (
            f'No saved solution scored {min_score:g} or more for "{shown}" ({mode} search over '
            f"{total} solution(s)). Debug the error; once the fix is verified, save it with "
            "save-error-solution."
        )
    lines = [
        f'Found {len(hits)} solution(s) for "{shown}" ({mode} search over {total}; scores 0-1):'
    ]
    for rank, hit in enumerate(hits, start=1):
        s = hit.solution
        parts = []
        if hit.semantic is not None:
            parts.append(f"semantic {hit.semantic:.2f}")
        if hit.keyword is not None:
            parts.append(f"keyword {hit.keyword:.2f}")
        if hit.code_match == "match":
            parts.append("same error code " + ", ".join(code_value(c) for c in hit.matched_codes))
        elif hit.code_match == "conflict":
            parts.append("different error code")
        if hit.environment_match is not None:
            parts.append(f"environment match {hit.environment_match:.2f}")
        lines += [
            "",
            f"{rank}. [{s.id}] {s.title} — score {hit.score:.2f}",
            f"   Type: {s.error_type} | Tags: {', '.join(s.tags) or '-'} | {'; '.join(parts)}",
            f"   Preview: {s.preview()}",
        ]
    lines += [
        "",
        "Read the most relevant with batch-get-solutions (or get-solution-detail) before "
        "applying a fix.",
    ]
    return "\n".join(lines)


def format_detail(s: Solution) -> str:
    lines = [
        f"# {s.title}",
        "",
        f"- ID: {s.id}",
        f"- Type: {s.error_type}",
        f"- Tags: {', '.join(s.tags) or '-'}",
    ]
    if s.labels:
        lines.append(f"- Labels: {', '.join(s.labels)}")
    if s.error_codes:
        lines.append(f"- Error codes: {', '.join(code_value(c) for c in s.error_codes)}")
    if s.environment:
        env = ", ".join(f"{k}: {v}" for k, v in s.environment.items())
        lines.append(f"- Environment: {env}")
    if s.project_path:
        lines.append(f"- Project: {s.project_path}")
    if s.cli_library_id:
        lines.append(f"- Library: {s.cli_library_id}")
    lines.append(
        f"- Saved: {s.created_at} (updated {s.updated_at}, saved {s.save_count}×, "
        f"read {s.hit_count}×)"
    )
    lines += ["", "## Error message", "```", s.error_message, "```"]
    if s.context:
        lines += ["", "## Context", s.context]
    if s.root_cause:
        lines += ["", "## Root cause", s.root_cause]
    lines += ["", "## Solution", s.solution]
    if s.code_changes:
        lines += ["", "## Code changes", "```", s.code_changes, "```"]
    return "\n".join(lines)


def format_recent(solutions: list[Solution]) -> str:
    if not solutions:
        return "No error solutions saved yet."
    return "\n".join(
        f"{i}. {s.title} | {s.error_type} | {', '.join(s.tags) or '-'} | {s.updated_at} | {s.id}"
        for i, s in enumerate(solutions, start=1)
    )
