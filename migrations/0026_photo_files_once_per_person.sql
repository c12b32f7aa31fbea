-- A photo's bytes kept once per person (issue #36): the same photo on three entries was stored
-- three times. photo_files now holds each upload's cleaned copy and its thumbnail once per
-- person, keyed by the upload's SHA-256 (photos.sha256, as before); a photo finds its files by
-- its entry's user and its sha256. The files no photo of their person shows any more go with
-- the last such photo (the trigger below), so what a person stores shrinks at once when they
-- delete (the storage quota counts photo_files). `id` is the rowid, read with blob I/O.
ALTER TABLE photo_files RENAME TO photo_files_0019;

CREATE TABLE photo_files (
    id INTEGER PRIMARY KEY,
    user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    sha256 TEXT NOT NULL,
    size TEXT NOT NULL CHECK (size IN ('full', 'thumb')),
    content_type TEXT NOT NULL,
    data BLOB NOT NULL,
    UNIQUE (user_id, sha256, size)
);

INSERT OR IGNORE INTO photo_files (user_id, sha256, size, content_type, data)
SELECT e.user_id, p.sha256, f.size, f.content_type, f.data
FROM photo_files_0019 f JOIN photos p ON p.id = f.photo_id JOIN entries e ON e.id = p.entry_id
ORDER BY f.photo_id, f.size;

DROP TABLE photo_files_0019;

CREATE INDEX photos_sha256 ON photos (sha256);

-- An entry's photos go with it by its cascade, when the entry row is already gone: the check
-- is by each file's own user, not by the deleted photo's entry.
CREATE TRIGGER photo_files_unshown AFTER DELETE ON photos BEGIN
    DELETE FROM photo_files WHERE sha256 = old.sha256 AND NOT EXISTS (
        SELECT 1 FROM photos p JOIN entries e ON e.id = p.entry_id
        WHERE p.sha256 = old.sha256 AND e.user_id = photo_files.user_id);
END;
