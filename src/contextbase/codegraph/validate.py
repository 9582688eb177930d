"""Binding a call's arguments to a signature the way Python does, and naming what fails.

Only what Python itself would reject is reported: too many positional
arguments, an unknown keyword when there is no ``**kwargs``, a positional-only
parameter passed by keyword, the same parameter given twice, and missing
required parameters. Calls that splat ``*args`` or ``**kwargs`` are not
checked for arity, since their lengths are unknown.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from contextbase.codegraph.model import Param

POSITIONAL = ("positional_only", "positional_or_keyword")


@dataclass(frozen=True)
class CallShape:
    """The arguments of one call site."""

    positional: int
    keywords: tuple[str, ...]
    star_args: bool = False
    star_kwargs: bool = False


@dataclass(frozen=True)
class ArgumentProblem:
    code: str
    """too_many_positional, unknown_keyword, positional_only, duplicate or missing."""
    message: str
    keyword: str | None = None
    """The offending keyword, so a report can point at it."""
    suggestion: str | None = None


def close_matches(name: str, candidates: list[str] | tuple[str, ...], n: int = 3) -> list[str]:
    """The closest real names to a wrong one, best first."""
    pool = [c for c in dict.fromkeys(candidates) if c != name]
    if not name.startswith("_"):
        pool = [c for c in pool if not c.startswith("_")]
    found = difflib.get_close_matches(name, pool, n=n, cutoff=0.6)
    if not found:
        lowered = {c.lower(): c for c in pool}
        found = [lowered[m] for m in difflib.get_close_matches(name.lower(), list(lowered), n, 0.6)]
    if not found:
        found = [c for c in pool if name.lower() in c.lower() or c.lower() in name.lower()][:n]
    return found


def bind(params: list[Param], call: CallShape) -> list[ArgumentProblem]:
    """Everything Python would refuse when binding ``call`` to ``params``."""
    problems: list[ArgumentProblem] = []
    positional = [p for p in params if p.kind in POSITIONAL]
    var_positional = any(p.kind == "var_positional" for p in params)
    var_keyword = any(p.kind == "var_keyword" for p in params)
    if not call.star_args and call.positional > len(positional) and not var_positional:
        problems.append(
            ArgumentProblem(
                "too_many_positional", _too_many(params, len(positional), call.positional)
            )
        )
    filled = {p.name for p in positional[: call.positional]}
    by_name = {p.name: p for p in params}
    accepted = [p.name for p in params if p.kind in ("positional_or_keyword", "keyword_only")]
    for keyword in call.keywords:
        param = by_name.get(keyword)
        if param is None or param.kind in ("var_positional", "var_keyword"):
            if not var_keyword:
                best = close_matches(keyword, accepted)
                problems.append(
                    ArgumentProblem(
                        "unknown_keyword",
                        f"unexpected keyword argument '{keyword}'",
                        keyword,
                        best[0] if best else None,
                    )
                )
            continue
        if param.kind == "positional_only":
            if not var_keyword:
                problems.append(
                    ArgumentProblem(
                        "positional_only",
                        f"'{keyword}' is positional-only and cannot be passed by keyword",
                        keyword,
                    )
                )
            continue  # with **kwargs it lands there, and the parameter stays unfilled
        if keyword in filled and not call.star_args:
            problems.append(
                ArgumentProblem(
                    "duplicate", f"got multiple values for argument '{keyword}'", keyword
                )
            )
        filled.add(keyword)
    if not (call.star_args or call.star_kwargs):
        missing = [
            p.name
            for p in params
            if p.kind in (*POSITIONAL, "keyword_only")
            and not p.has_default
            and p.name not in filled
        ]
        if missing:
            names = ", ".join(f"'{m}'" for m in missing)
            plural = "s" if len(missing) > 1 else ""
            problems.append(
                ArgumentProblem("missing", f"missing required argument{plural} {names}")
            )
    return problems


def _too_many(params: list[Param], allowed: int, given: int) -> str:
    plural = "s" if allowed != 1 else ""
    verb = "was" if given == 1 else "were"
    message = f"takes {allowed} positional argument{plural} but {given} {verb} given"
    keyword_only = [p.name for p in params if p.kind == "keyword_only"]
    if keyword_only:
        shown = ", ".join(f"'{n}'" for n in keyword_only[:4])
        message += f" ({shown} {'is' if len(keyword_only) == 1 else 'are'} keyword-only)"
    return message


def bind_any(variants: list[list[Param]], call: CallShape) -> list[ArgumentProblem]:
    """Problems of the best-fitting variant; none when any variant accepts the call."""
    best: list[ArgumentProblem] | None = None
    for params in variants:
        problems = bind(params, call)
        if not problems:
            return []
        if best is None or len(problems) < len(best):
            best = problems
    return best or []
