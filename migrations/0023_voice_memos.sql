-- Voice memos of an entry (a Daylio backup's audio assets), kept as they came and played in
-- the browser. The bytes are the row's last column, so listing memos reads no audio.
CREATE TABLE voice_memos (
    id INTEGER PRIMARY KEY,
    entry_id INTEGER NOT NULL REFERENCES entries (id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    sha256 TEXT NOT NULL,
    content_type TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    data BLOB NOT NULL,
    UNIQUE (entry_id, sha256)
);

CREATE INDEX voice_memos_entry ON voice_memos (entry_id, position);

-- Staged beside an import's rows like its photos (import_photos), moved onto the published
-- entries a few at a time.
CREATE TABLE import_memos (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES import_runs (id) ON DELETE CASCADE,
    import_key TEXT NOT NULL,
    position INTEGER NOT NULL,
    sha256 TEXT NOT NULL,
    content_type TEXT NOT NULL,
    data BLOB NOT NULL
);

CREATE INDEX import_memos_run ON import_memos (run_id, import_key);
