-- Imported history: an entry may be date-only (Daylio backups can record no time: stored at
-- 12:00 local, shown without a time, left out of hour-of-day statistics), and an imported
-- entry carries the stable key of the row it came from, so importing a file twice adds nothing.
ALTER TABLE entries ADD COLUMN time_known INTEGER NOT NULL DEFAULT 1 CHECK (time_known IN (0, 1));

ALTER TABLE entries ADD COLUMN import_key TEXT;

CREATE UNIQUE INDEX entries_import_key ON entries (user_id, import_key)
    WHERE import_key IS NOT NULL;
