"""Keyword, vector and hybrid retrieval."""
