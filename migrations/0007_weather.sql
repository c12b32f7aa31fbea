-- Weather per entry, filled by the worker's `weather` kind: the temperature and WMO code of
-- the UTC hour nearest the entry, or `unavailable` when the upstream has no data for it (a
-- result, recorded so the sweep does not ask again). No row means "not known yet".
CREATE TABLE weather (
    entry_id INTEGER PRIMARY KEY REFERENCES entries (id) ON DELETE CASCADE,
    temperature_c REAL,
    code INTEGER,
    unavailable INTEGER NOT NULL DEFAULT 0 CHECK (unavailable IN (0, 1)),
    fetched_at INTEGER NOT NULL,
    CHECK (unavailable = 1 OR (temperature_c IS NOT NULL AND code IS NOT NULL))
);

-- The weather sweep reads only entries with a location.
CREATE INDEX entries_located ON entries (occurred_at) WHERE lat IS NOT NULL;
