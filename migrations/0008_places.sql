-- Place names per cell (coordinates rounded to KMOOD_PLACE_CELL_DEG, named like the job key
-- `52.50:13.40`), shared by every entry in that cell, from reverse geocoding. `unavailable`
-- records "no result" so the sweep does not ask again. An entry is linked to its cell once the
-- cell is known; a changed location drops the link and the sweep links it again.
CREATE TABLE places (
    cell TEXT PRIMARY KEY,
    display_name TEXT,
    locality TEXT,
    country_code TEXT,
    unavailable INTEGER NOT NULL DEFAULT 0 CHECK (unavailable IN (0, 1)),
    fetched_at INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE entry_places (
    entry_id INTEGER PRIMARY KEY REFERENCES entries (id) ON DELETE CASCADE,
    cell TEXT NOT NULL REFERENCES places (cell)
);

-- Politeness across worker processes: the earliest moment the next request to an upstream may
-- be sent, claimed with one UPDATE ... RETURNING (never a read then a write).
CREATE TABLE upstream_slots (
    upstream TEXT PRIMARY KEY,
    next_at INTEGER NOT NULL
) WITHOUT ROWID;

INSERT INTO upstream_slots (upstream, next_at) VALUES ('nominatim', 0), ('musicbrainz', 0);
