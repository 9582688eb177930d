"""Context7-compatible text layouts for tool answers."""

from __future__ import annotations

from contextbase.docs.resolver import LibraryMatch
from contextbase.docs.service import DocsAnswer
from contextbase.store.models import Library, LibrarySummary

SEPARATOR = "----------"

RESOLVE_GUIDE = """Available libraries (best match first):

Each result includes:
- Title: library or package name
- Context7-compatible library ID: pass it to query-docs (format /ecosystem/name)
- Description: short summary
- Code Snippets: indexed sections that contain code
- Source Reputation: High, Medium, Low or Unknown (from popularity and status)
- Versions: indexed versions; pass one as /ecosystem/name/version when the user names a version

Choose by name match first, then by relevance to the question, snippet count and reputation.
If several libraries fit equally, say so and ask which one is meant."""


def reputation(library: Library) -> str:
    if library.status != "active":
        return f"Low ({library.status})"
    if library.popularity_score >= 70:
        return "High"
    if library.popularity_score >= 40:
        return "Medium"
    if library.popularity_score > 0:
        return "Low"
    return "Unknown"


def library_block(summary: LibrarySummary, code_snippets: int) -> str:
    lib = summary.library
    versions = ", ".join(v.version for v in summary.versions if v.version) or "(unversioned)"
    return "\n".join(
        [
            f"- Title: {lib.name}",
            f"- Context7-compatible library ID: {lib.context7_id}",
            f"- Description: {lib.short_description or lib.description or 'No description.'}",
            f"- Code Snippets: {code_snippets}",
            f"- Source Reputation: {reputation(lib)}",
            f"- Versions: {versions}",
        ]
    )


def format_resolve(
    name: str,
    matches: list[LibraryMatch],
    summaries: dict[str, LibrarySummary],
    snippets: dict[str, int],
    suggestions: list[str],
) -> str:
    if not matches:
        hint = (
            f" The closest indexed libraries are: {', '.join(suggestions)}."
            if suggestions
            else " No libraries are indexed yet; add one with 'contextbase add'."
        )
        return f"No indexed library matches {name!r}.{hint}"
    blocks = [
        library_block(summaries[m.library.id], snippets.get(m.library.id, 0)) for m in matches
    ]
    return RESOLVE_GUIDE + "\n\n" + SEPARATOR + "\n" + f"\n{SEPARATOR}\n".join(blocks)


def format_docs(answer: DocsAnswer) -> str:
    lib = answer.library
    label = f"{lib.name} {answer.version}" if answer.version else lib.name
    if not answer.results:
        return (
            f"No documentation of {label} ({lib.context7_id}) matches {answer.query!r}. "
            "Try other words, or a broader question."
        )
    sections = []
    for result in answer.results:
        heading = result.heading_path or result.title or result.source
        lines = [f"### {heading}", f"Source: {result.source}"]
        if result.version:
            lines[-1] += f" (version {result.version})"
        lines += ["", result.text.strip()]
        sections.append("\n".join(lines))
    header = f"Documentation of {label} ({lib.context7_id}) for: {answer.query}"
    if answer.mode == "keyword":
        header += "\n(keyword search only: no embedding model is configured for this database)"
    return header + "\n\n" + "\n\n--------------------------------\n\n".join(sections)


def format_libraries(summaries: list[LibrarySummary]) -> str:
    if not summaries:
        return "No libraries are indexed yet; add one with 'contextbase add PATH --library NAME'."
    lines = ["Indexed libraries:"]
    for summary in summaries:
        lib = summary.library
        versions = ", ".join(
            f"{v.version or '(unversioned)'}: {v.chunks} chunks" for v in summary.versions
        )
        lines.append(f"- {lib.name} ({lib.context7_id}): {versions or 'no documents'}")
    return "\n".join(lines)
