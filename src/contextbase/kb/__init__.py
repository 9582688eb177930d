"""Knowledgebases: files built ahead of time by ``kb-builder`` and searched read-only.

``config`` reads the builder's YAML file, ``build`` turns its sources into an
ordinary contextbase database (one library per project, one version per
project version, one embedding space per provider), and ``search`` answers
``search_knowledgebase`` from one or more such files.
"""
