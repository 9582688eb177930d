"""Tables of the Crawl4AI-style RAG data (component ``sources``).

``sources`` has one row per crawled site or repository; ``code_examples``
one row per extracted code block, linked to its document so that replacing
or removing a document removes its examples (and, through triggers, their
full-text rows and vectors). ``document_stats`` holds each document's word
count, summed into ``sources.total_word_count``.
"""

from __future__ import annotations

from contextbase.search.fts import TOKENIZER

MIGRATIONS: list[str] = [
    """
    CREATE TABLE sources (
        source_id TEXT PRIMARY KEY,
        kind TEXT NOT NULL CHECK (kind IN ('web', 'git')),
        url TEXT NOT NULL,
        library_id TEXT NOT NULL REFERENCES libraries(id) ON DELETE CASCADE,
        version TEXT NOT NULL DEFAULT '',
        summary TEXT NOT NULL DEFAULT '',
        total_word_count INTEGER NOT NULL DEFAULT 0,
        document_count INTEGER NOT NULL DEFAULT 0,
        code_example_count INTEGER NOT NULL DEFAULT 0,
        metadata TEXT NOT NULL DEFAULT '{}',
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
    )
    """,
    "CREATE INDEX sources_library ON sources(library_id, version)",
    """
    CREATE TABLE document_stats (
        document_id INTEGER PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE,
        word_count INTEGER NOT NULL
    )
    """,
    """
    CREATE TABLE code_examples (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
        library_id TEXT NOT NULL,
        version TEXT NOT NULL DEFAULT '',
        url TEXT NOT NULL,
        chunk_number INTEGER NOT NULL,
        language TEXT NOT NULL DEFAULT '',
        content TEXT NOT NULL,
        summary TEXT NOT NULL DEFAULT '',
        context_before TEXT NOT NULL DEFAULT '',
        context_after TEXT NOT NULL DEFAULT '',
        heading_path TEXT NOT NULL DEFAULT '',
        identifiers TEXT NOT NULL DEFAULT '',
        content_hash TEXT NOT NULL,
        created_at TEXT NOT NULL
    )
    """,
    "CREATE INDEX code_examples_document ON code_examples(document_id)",
    "CREATE INDEX code_examples_library ON code_examples(library_id, version)",
    "CREATE INDEX code_examples_hash ON code_examples(content_hash)",
    f"""
    CREATE VIRTUAL TABLE code_examples_fts USING fts5(
        content, summary, heading_path, identifiers,
        content='code_examples', content_rowid='id', tokenize='{TOKENIZER}'
    )
    """,
    """
    CREATE TRIGGER code_examples_fts_insert AFTER INSERT ON code_examples BEGIN
        INSERT INTO code_examples_fts(rowid, content, summary, heading_path, identifiers)
        VALUES (new.id, new.content, new.summary, new.heading_path, new.identifiers);
    END
    """,
    """
    CREATE TRIGGER code_examples_fts_delete AFTER DELETE ON code_examples BEGIN
        INSERT INTO code_examples_fts(code_examples_fts, rowid, content, summary, heading_path,
            identifiers)
        VALUES ('delete', old.id, old.content, old.summary, old.heading_path, old.identifiers);
    END
    """,
]
