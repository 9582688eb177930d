"""Code knowledge graph: the real API of a repository or installed package, and a checker
that finds hallucinated imports, attributes, methods and arguments in AI-written Python.

>>> graph = CodeGraph(db, cache=settings.home / "doc-source")
>>> graph.parse("httpx")                       # an installed package, a folder, or a git URL
>>> analysis = graph.check(script_text)
>>> report.to_json(analysis)["hallucinations"]
"""

from contextbase.codegraph import report
from contextbase.codegraph.analyze import analyze_script
from contextbase.codegraph.findings import Analysis, Finding
from contextbase.codegraph.service import CodeGraph
from contextbase.codegraph.store import GraphStore, RepoInfo

__all__ = ["Analysis", "CodeGraph", "Finding", "GraphStore", "RepoInfo", "analyze_script", "report"]
