-- Photos (and later voice memos) of an entry, in the database like everything else, so the one
-- file you own and its backups carry them. `photos` is what lists and pages read (small rows);
-- the bytes live in `photo_files`, one row per size, so listing an entry's photos never pages
-- through images. What is stored is a re-encoded copy without EXIF, GPS or other metadata
-- (turned upright first) and a thumbnail; `sha256` is of the bytes as uploaded, so the same
-- photo given to the same entry twice (a re-import, a double tap) is one photo.
CREATE TABLE photos (
    id INTEGER PRIMARY KEY,
    entry_id INTEGER NOT NULL REFERENCES entries (id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    sha256 TEXT NOT NULL,
    width INTEGER NOT NULL,
    height INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    UNIQUE (entry_id, sha256)
);

CREATE INDEX photos_entry ON photos (entry_id, position);

CREATE TABLE photo_files (
    photo_id INTEGER NOT NULL REFERENCES photos (id) ON DELETE CASCADE,
    size TEXT NOT NULL CHECK (size IN ('full', 'thumb')),
    content_type TEXT NOT NULL,
    data BLOB NOT NULL,
    PRIMARY KEY (photo_id, size)
);  -- a rowid table: images are large rows, which WITHOUT ROWID tables store badly
