"""Reports of a script check, as JSON (for agents and ``--json``) and Markdown (for people).

The hallucination rate is hallucinations over references the graph could
decide (valid + not_found + invalid_arguments); uncertain references and
references to modules outside the graph are counted apart.
"""

from __future__ import annotations

from typing import Any

from contextbase.codegraph.findings import Analysis, Finding

_FIELDS = ("line", "column", "kind", "name", "message", "suggestion", "confidence")


def summary(analysis: Analysis) -> dict[str, Any]:
    counts = {status: 0 for status in ("valid", "not_found", "invalid_arguments", "uncertain")}
    for finding in analysis.findings:
        counts[finding.status] += 1
    hallucinations = counts["not_found"] + counts["invalid_arguments"]
    decided = counts["valid"] + hallucinations
    return {
        "references_checked": decided,
        **counts,
        "hallucinations": hallucinations,
        "hallucination_rate": round(hallucinations / decided, 4) if decided else 0.0,
        "not_checked_modules": sorted(analysis.external_modules),
        "unchecked_references": analysis.unchecked_references,
    }


def _entry(finding: Finding) -> dict[str, Any]:
    entry = {name: getattr(finding, name) for name in _FIELDS}
    entry["status"] = finding.status
    return entry


def recommendations(analysis: Analysis) -> list[str]:
    advice: list[str] = []
    for finding in analysis.hallucinations:
        if finding.suggestion:
            wrong = finding.name.rpartition(".")[2]
            if finding.status == "invalid_arguments":
                advice.append(
                    f"Line {finding.line}: use '{finding.suggestion}' ({finding.message})."
                )
            else:
                advice.append(
                    f"Line {finding.line}: replace '{wrong}' with '{finding.suggestion}'."
                )
        else:
            advice.append(f"Line {finding.line}: {finding.message}.")
    if analysis.uncertain:
        advice.append(
            f"Review {len(analysis.uncertain)} uncertain reference(s) by hand: the graph cannot "
            "decide them (dynamic attributes, bases outside the graph, unknown types)."
        )
    if analysis.external_modules:
        names = ", ".join(sorted(analysis.external_modules))
        advice.append(
            f"Not checked: {names}. Parse them (`contextbase graph parse --package NAME`) to check "
            "those references too."
        )
    if not analysis.hallucinations:
        decided = len(analysis.valid)
        advice.insert(0, f"No hallucinated APIs found among {decided} checked reference(s).")
    return advice


def to_json(analysis: Analysis, *, include_valid: bool = False) -> dict[str, Any]:
    """The report as a JSON-ready dict."""
    report: dict[str, Any] = {
        "script": analysis.script,
        "summary": summary(analysis),
        "hallucinations": [_entry(f) for f in analysis.hallucinations],
        "uncertain": [_entry(f) for f in analysis.uncertain],
        "not_checked": sorted(analysis.external_modules),
        "recommendations": recommendations(analysis),
    }
    if include_valid:
        report["valid"] = [_entry(f) for f in analysis.valid]
    return report


def _cell(text: object) -> str:
    return str(text if text is not None else "").replace("|", "\\|").replace("\n", " ")


def to_markdown(analysis: Analysis) -> str:
    counts = summary(analysis)
    lines = [
        f"# Hallucination check: {analysis.script}",
        "",
        f"- references checked: {counts['references_checked']}",
        f"- valid: {counts['valid']}",
        f"- hallucinations: {counts['hallucinations']} (not found: {counts['not_found']}, "
        f"invalid arguments: {counts['invalid_arguments']})",
        f"- hallucination rate: {counts['hallucination_rate']:.1%}",
        f"- uncertain: {counts['uncertain']}",
        f"- not checked (outside the graph): {', '.join(counts['not_checked_modules']) or 'none'}",
    ]
    sections = (("Hallucinations", analysis.hallucinations), ("Uncertain", analysis.uncertain))
    for title, findings in sections:
        if not findings:
            continue
        lines += [
            "",
            f"## {title}",
            "",
            "| line | column | kind | name | message | suggestion | confidence |",
            "| --- | --- | --- | --- | --- | --- | --- |",
        ]
        lines += [
            "| " + " | ".join(_cell(getattr(f, name)) for name in _FIELDS) + " |" for f in findings
        ]
    lines += ["", "## Recommendations", ""] + [f"- {r}" for r in recommendations(analysis)]
    return "\n".join(lines) + "\n"
