"""Error-solution memory: solved errors, their root cause and fix, found again by hybrid search."""

from contextbase.memory.models import ERROR_TYPES, SearchFilters, SearchHit, Solution, SolutionDraft
from contextbase.memory.service import ImportReport, SaveResult, SearchResult, SolutionMemory

__all__ = [
    "ERROR_TYPES",
    "ImportReport",
    "SaveResult",
    "SearchFilters",
    "SearchHit",
    "SearchResult",
    "Solution",
    "SolutionDraft",
    "SolutionMemory",
]
