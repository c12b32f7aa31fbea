-- Photos of an import in progress (a Daylio backup's assets), already checked, turned upright
-- and re-encoded like any upload, staged beside the rows they belong to (by import key). Once
-- a row's entry is published they are moved onto it, a few at a time, so no transaction holds
-- many images; a run finished by the worker after a crash still has them here.
CREATE TABLE import_photos (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES import_runs (id) ON DELETE CASCADE,
    import_key TEXT NOT NULL,
    position INTEGER NOT NULL,
    sha256 TEXT NOT NULL,
    width INTEGER NOT NULL,
    height INTEGER NOT NULL,
    content_type TEXT NOT NULL,
    data BLOB NOT NULL,
    thumb_type TEXT NOT NULL,
    thumb BLOB NOT NULL
);

CREATE INDEX import_photos_run ON import_photos (run_id, import_key);
