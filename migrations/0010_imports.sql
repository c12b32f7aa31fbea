-- Imported history: an entry may be date-only (Daylio backups can record no time: stored at
-- 12:00 local, shown without a time, left out of hour-of-day statistics), and an imported
-- entry carries the stable key of the row it came from, so importing a file twice adds nothing.
ALTER TABLE entries ADD COLUMN time_known INTEGER NOT NULL DEFAULT 1 CHECK (time_known IN (0, 1));

ALTER TABLE entries ADD COLUMN import_key TEXT;

CREATE UNIQUE INDEX entries_import_key ON entries (user_id, import_key)
    WHERE import_key IS NOT NULL;

-- A file uploaded on the import page, kept between the dry-run report and the user's confirm
-- (so the file is not uploaded twice), then the result. Older than a day: removed by the next
-- upload.
CREATE TABLE pending_imports (
    token TEXT PRIMARY KEY,
    user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    data BLOB NOT NULL,
    mood_map TEXT NOT NULL DEFAULT '{}',
    report TEXT,  -- the result, once imported (the file itself is dropped then)
    created_at INTEGER NOT NULL
);
