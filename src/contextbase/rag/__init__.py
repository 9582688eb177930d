"""The Crawl4AI-RAG feature: sources, code examples, RAG queries."""
