"""Tables of the documentation store (component ``docs``)."""

from __future__ import annotations

from contextbase.search.fts import TOKENIZER

MIGRATIONS: list[str] = [
    """
    CREATE TABLE libraries (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        context7_id TEXT NOT NULL UNIQUE,
        language TEXT NOT NULL DEFAULT '',
        ecosystem TEXT NOT NULL DEFAULT '',
        category TEXT NOT NULL DEFAULT '',
        short_description TEXT NOT NULL DEFAULT '',
        description TEXT NOT NULL DEFAULT '',
        homepage_url TEXT,
        repository_url TEXT,
        logo_url TEXT,
        author TEXT,
        license TEXT,
        status TEXT NOT NULL DEFAULT 'active'
            CHECK (status IN ('active', 'deprecated', 'archived')),
        popularity_score INTEGER NOT NULL DEFAULT 0
            CHECK (popularity_score BETWEEN 0 AND 100),
        github_stars INTEGER,
        npm_downloads_weekly INTEGER,
        pypi_downloads_monthly INTEGER,
        doc_version TEXT,
        doc_source_type TEXT,
        doc_completeness REAL NOT NULL DEFAULT 0.0,
        last_indexed_at TEXT,
        first_release_date TEXT,
        last_release_date TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        document_count INTEGER NOT NULL DEFAULT 0
    )
    """,
    "CREATE INDEX libraries_name ON libraries(lower(name))",
    """
    CREATE TABLE library_terms (
        library_id TEXT NOT NULL REFERENCES libraries(id) ON DELETE CASCADE,
        kind TEXT NOT NULL CHECK (kind IN ('alias', 'keyword')),
        term TEXT NOT NULL,
        norm TEXT NOT NULL,
        PRIMARY KEY (library_id, kind, term)
    )
    """,
    "CREATE INDEX library_terms_norm ON library_terms(norm, kind)",
    """
    CREATE TABLE library_relations (
        library_id TEXT NOT NULL REFERENCES libraries(id) ON DELETE CASCADE,
        kind TEXT NOT NULL
            CHECK (kind IN ('related', 'alternative_to', 'supersedes', 'requires')),
        target TEXT NOT NULL,
        PRIMARY KEY (library_id, kind, target)
    )
    """,
    "CREATE INDEX library_relations_target ON library_relations(target)",
    """
    CREATE TABLE documents (
        id INTEGER PRIMARY KEY,
        library_id TEXT NOT NULL REFERENCES libraries(id) ON DELETE CASCADE,
        version TEXT NOT NULL DEFAULT '',
        source TEXT NOT NULL,
        source_type TEXT NOT NULL,
        format TEXT NOT NULL DEFAULT '',
        title TEXT NOT NULL DEFAULT '',
        checksum TEXT NOT NULL,
        metadata TEXT NOT NULL DEFAULT '{}',
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        UNIQUE (library_id, version, source)
    )
    """,
    """
    CREATE TABLE chunks (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
        library_id TEXT NOT NULL,
        version TEXT NOT NULL DEFAULT '',
        title TEXT NOT NULL DEFAULT '',
        heading_path TEXT NOT NULL DEFAULT '',
        text TEXT NOT NULL,
        identifiers TEXT NOT NULL DEFAULT '',
        chunk_index INTEGER NOT NULL,
        chunk_total INTEGER NOT NULL,
        token_count INTEGER NOT NULL,
        content_hash TEXT NOT NULL,
        metadata TEXT NOT NULL DEFAULT '{}',
        created_at TEXT NOT NULL,
        library_name TEXT NOT NULL DEFAULT '',
        language TEXT NOT NULL DEFAULT '',
        ecosystem TEXT NOT NULL DEFAULT ''
    )
    """,
    "CREATE INDEX chunks_document ON chunks(document_id, chunk_index)",
    "CREATE INDEX chunks_library ON chunks(library_id, version)",
    "CREATE INDEX chunks_content_hash ON chunks(content_hash)",
    f"""
    CREATE VIRTUAL TABLE chunks_fts USING fts5(
        text, title, heading_path, identifiers,
        content='chunks', content_rowid='id', tokenize='{TOKENIZER}'
    )
    """,
    """
    CREATE TRIGGER chunks_fts_insert AFTER INSERT ON chunks BEGIN
        INSERT INTO chunks_fts(rowid, text, title, heading_path, identifiers)
        VALUES (new.id, new.text, new.title, new.heading_path, new.identifiers);
    END
    """,
    """
    CREATE TRIGGER chunks_fts_delete AFTER DELETE ON chunks BEGIN
        INSERT INTO chunks_fts(chunks_fts, rowid, text, title, heading_path, identifiers)
        VALUES ('delete', old.id, old.text, old.title, old.heading_path, old.identifiers);
    END
    """,
]
