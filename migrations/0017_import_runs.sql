-- An import in progress (at most one per user). Its rows are read from the file, checked and
-- staged here first, invisible to every read, in short batches; nothing reaches the journal
-- unless the whole file was read and found fit. Then they are published in short
-- transactions, oldest first, each batch deleted from the staging as it lands, so a run that
-- died half-way (its lease ran out) is finished from what is left: by the next import of that
-- user, or by the worker.
CREATE TABLE import_runs (
    id INTEGER PRIMARY KEY,
    user_id INTEGER NOT NULL UNIQUE REFERENCES users (id) ON DELETE CASCADE,
    state TEXT NOT NULL CHECK (state IN ('staging', 'publishing')),
    plan TEXT NOT NULL DEFAULT '{}',  -- what publishing needs beyond the rows (JSON)
    owner TEXT NOT NULL,  -- who holds the lease: a publisher that lost it stops
    carried TEXT,  -- the counts of a minute cut in two by the last batch (JSON)
    staged INTEGER NOT NULL DEFAULT 0,
    published INTEGER NOT NULL DEFAULT 0,
    lease_until INTEGER NOT NULL,
    created_at INTEGER NOT NULL
);

CREATE TABLE import_rows (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES import_runs (id) ON DELETE CASCADE,
    import_key TEXT NOT NULL,
    -- the entry's local minute and what makes two entries the same (mood, note): published
    -- in this order, and compared with the journal in batches of whole minutes
    local_date TEXT NOT NULL,
    local_minute INTEGER NOT NULL,
    second INTEGER NOT NULL,
    mood INTEGER NOT NULL,
    note TEXT NOT NULL,
    entry TEXT NOT NULL  -- the rest of the entry (JSON)
);

CREATE UNIQUE INDEX import_rows_key ON import_rows (run_id, import_key);
CREATE INDEX import_rows_order ON import_rows (run_id, local_date, local_minute, second, id);
