"""Knowledgebase answers as Markdown text for an agent."""

from __future__ import annotations

from contextbase.kb.search import KbAnswer, KbHit, Product

SEPARATOR = "--------------------------------"
"""Between results: passages hold Markdown headings of their own, so a heading alone
would not show where one result ends."""


def format_products(products: list[Product], notes: list[str]) -> str:
    """The projects and versions present, for ``list_products``."""
    if not products:
        lines = ["The knowledgebase holds no products."]
    else:
        several = len({p.knowledgebase for p in products}) > 1
        lines = [
            "Products in the knowledgebase (use these names in project_names and "
            "project_versions):",
            "",
        ]
        for product in products:
            versions = ", ".join(v.version or "(unversioned)" for v in product.versions)
            label = "version" if len(product.versions) == 1 else "versions"
            where = f" [{product.knowledgebase}]" if several else ""
            lines.append(f"- {product.name}: {label} {versions}{where}")
    return "\n".join([*lines, *_notes(notes)])


def format_answer(answer: KbAnswer) -> str:
    """Search results: project, version, title, section path, source and text."""
    methods = "; ".join(answer.methods)
    if not answer.hits:
        lines = [
            f'No knowledgebase passage matches "{answer.query}" (search: {methods}).',
            "Try other words, fewer filters, or list_products=true to see what is there.",
        ]
        return "\n".join([*lines, *_notes(answer.notes)])
    lines = [f'Knowledgebase results for "{answer.query}" (search: {methods}).']
    for rank, hit in enumerate(answer.hits, start=1):
        lines += ["", SEPARATOR, *_hit(rank, hit)]
    return "\n".join([*lines, *_notes(answer.notes)])


def _hit(rank: int, hit: KbHit) -> list[str]:
    title = hit.title or hit.heading_path.split(" > ")[0] or hit.source
    lines = [f"### {rank}. {hit.project} {hit.version}: {title}"]
    if hit.heading_path and hit.heading_path != title:
        lines.append(f"Section: {hit.heading_path}")
    if len(hit.versions) > 1:
        lines.append(f"Same text in versions: {', '.join(hit.versions)}")
    lines.append(f"Source: {hit.url or hit.source}")
    lines += ["", hit.text.strip()]
    return lines


def _notes(notes: list[str]) -> list[str]:
    return ["", *(f"Note: {note}" for note in notes)] if notes else []
