"""Websites as documentation sources.

``urls`` (normalisation, scope), ``ssrf`` (address checks), ``robots``,
``fetch`` (polite HTTP), ``discover`` (llms.txt, sitemaps or links),
``render`` (headless Chromium) and ``crawler`` (pages as SourceFiles).
"""
