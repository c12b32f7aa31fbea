-- Song metadata, looked up once per distinct (artist, title) compared by their name keys, and
-- release covers, fetched once per release and served by k-mood itself.
-- `lookup_key` is the JSON array [name_key(artist), name_key(title)]: readable in a job key,
-- and unambiguous whatever the names contain.
ALTER TABLE songs ADD COLUMN lookup_key TEXT;

UPDATE songs SET lookup_key = json_array(kmood_name_key(artist), kmood_name_key(title));

CREATE INDEX songs_lookup_key ON songs (lookup_key);

-- `found` 0 records "no recording scored high enough", so the sweep does not ask again.
CREATE TABLE song_lookups (
    lookup_key TEXT PRIMARY KEY,
    found INTEGER NOT NULL CHECK (found IN (0, 1)),
    recording_mbid TEXT,
    release_mbid TEXT,
    release_title TEXT,
    release_date TEXT,
    length_ms INTEGER,
    score INTEGER,
    fetched_at INTEGER NOT NULL
) WITHOUT ROWID;

CREATE INDEX song_lookups_release ON song_lookups (release_mbid) WHERE release_mbid IS NOT NULL;

-- One row per release asked for; `content_type` and `image` are NULL when it has no cover.
CREATE TABLE covers (
    release_mbid TEXT PRIMARY KEY,
    content_type TEXT,
    image BLOB,
    fetched_at INTEGER NOT NULL
);

-- Open-Meteo's fair-use limits count weighted calls per minute, hour and day; every worker
-- process books its requests here, inside one BEGIN IMMEDIATE, before sending.
CREATE TABLE upstream_budgets (
    upstream TEXT NOT NULL,
    span_ms INTEGER NOT NULL,
    capacity REAL NOT NULL,
    window_start INTEGER NOT NULL DEFAULT 0,
    used REAL NOT NULL DEFAULT 0,
    PRIMARY KEY (upstream, span_ms)
) WITHOUT ROWID;

INSERT INTO upstream_budgets (upstream, span_ms, capacity) VALUES
    ('open-meteo', 60000, 600), ('open-meteo', 3600000, 5000), ('open-meteo', 86400000, 10000);
