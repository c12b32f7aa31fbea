-- Shared reports (SPEC §15, issue #42): a link that shows one report of one person's journal,
-- and nothing else, to whoever holds it until it expires or is revoked. What it shows is fixed
-- when it is made (the days, whether the entries and their photos are in it, the language);
-- the link's secret is kept only as its SHA-256. Revoking deletes the row (404 at once); an
-- expired link stays, listed as expired, until its owner removes it (410 meanwhile).
-- AUTOINCREMENT: a revoked link's id is never given to a new one.
CREATE TABLE shared_reports (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    secret_hash TEXT NOT NULL,
    name TEXT NOT NULL,
    date_from TEXT NOT NULL,
    date_to TEXT NOT NULL,
    with_entries INTEGER NOT NULL CHECK (with_entries IN (0, 1)),
    with_photos INTEGER NOT NULL CHECK (with_photos IN (0, 1)),
    language TEXT,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    opened_count INTEGER NOT NULL DEFAULT 0,
    last_opened_at INTEGER
);
CREATE INDEX shared_reports_user ON shared_reports (user_id);
