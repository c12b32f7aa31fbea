-- The journal version (0018) raised also by what an entry's JSON shows beyond the insights'
-- tables: its photos and voice memos, the user's mood labels (each entry carries its level's
-- label), and a song's lookup and cover (shared by every song with the same lookup key, so
-- each of their owners' versions is raised). With these, an answer built from a user's entries
-- and kept by version (GET /api/entries) can never be served stale.

CREATE TRIGGER journal_version_photos_insert AFTER INSERT ON photos BEGIN
    INSERT INTO journal_versions (user_id, version)
    SELECT user_id, 1 FROM entries WHERE id = new.entry_id
    ON CONFLICT (user_id) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER journal_version_photos_update AFTER UPDATE ON photos BEGIN
    INSERT INTO journal_versions (user_id, version)
    SELECT user_id, 1 FROM entries WHERE id = new.entry_id
    ON CONFLICT (user_id) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER journal_version_photos_delete AFTER DELETE ON photos BEGIN
    INSERT INTO journal_versions (user_id, version)
    SELECT user_id, 1 FROM entries WHERE id = old.entry_id
    ON CONFLICT (user_id) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER journal_version_voice_memos_insert AFTER INSERT ON voice_memos BEGIN
    INSERT INTO journal_versions (user_id, version)
    SELECT user_id, 1 FROM entries WHERE id = new.entry_id
    ON CONFLICT (user_id) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER journal_version_voice_memos_update AFTER UPDATE ON voice_memos BEGIN
    INSERT INTO journal_versions (user_id, version)
    SELECT user_id, 1 FROM entries WHERE id = new.entry_id
    ON CONFLICT (user_id) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER journal_version_voice_memos_delete AFTER DELETE ON voice_memos BEGIN
    INSERT INTO journal_versions (user_id, version)
    SELECT user_id, 1 FROM entries WHERE id = old.entry_id
    ON CONFLICT (user_id) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER journal_version_mood_labels_insert AFTER INSERT ON mood_labels BEGIN
    INSERT INTO journal_versions (user_id, version)
    SELECT id, 1 FROM users WHERE id = new.user_id
    ON CONFLICT (user_id) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER journal_version_mood_labels_update AFTER UPDATE ON mood_labels BEGIN
    INSERT INTO journal_versions (user_id, version)
    SELECT id, 1 FROM users WHERE id = new.user_id
    ON CONFLICT (user_id) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER journal_version_mood_labels_delete AFTER DELETE ON mood_labels BEGIN
    INSERT INTO journal_versions (user_id, version)
    SELECT id, 1 FROM users WHERE id = old.user_id
    ON CONFLICT (user_id) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER journal_version_song_lookups_insert AFTER INSERT ON song_lookups BEGIN
    INSERT INTO journal_versions (user_id, version)
    SELECT DISTINCT e.user_id, 1 FROM songs s JOIN entries e ON e.id = s.entry_id
    WHERE s.lookup_key = new.lookup_key
    ON CONFLICT (user_id) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER journal_version_song_lookups_update AFTER UPDATE ON song_lookups BEGIN
    INSERT INTO journal_versions (user_id, version)
    SELECT DISTINCT e.user_id, 1 FROM songs s JOIN entries e ON e.id = s.entry_id
    WHERE s.lookup_key = new.lookup_key
    ON CONFLICT (user_id) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER journal_version_song_lookups_delete AFTER DELETE ON song_lookups BEGIN
    INSERT INTO journal_versions (user_id, version)
    SELECT DISTINCT e.user_id, 1 FROM songs s JOIN entries e ON e.id = s.entry_id
    WHERE s.lookup_key = old.lookup_key
    ON CONFLICT (user_id) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER journal_version_covers_insert AFTER INSERT ON covers BEGIN
    INSERT INTO journal_versions (user_id, version)
    SELECT DISTINCT e.user_id, 1 FROM song_lookups l JOIN songs s ON s.lookup_key = l.lookup_key
    JOIN entries e ON e.id = s.entry_id WHERE l.release_mbid = new.release_mbid
    ON CONFLICT (user_id) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER journal_version_covers_update AFTER UPDATE ON covers BEGIN
    INSERT INTO journal_versions (user_id, version)
    SELECT DISTINCT e.user_id, 1 FROM song_lookups l JOIN songs s ON s.lookup_key = l.lookup_key
    JOIN entries e ON e.id = s.entry_id WHERE l.release_mbid = new.release_mbid
    ON CONFLICT (user_id) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER journal_version_covers_delete AFTER DELETE ON covers BEGIN
    INSERT INTO journal_versions (user_id, version)
    SELECT DISTINCT e.user_id, 1 FROM song_lookups l JOIN songs s ON s.lookup_key = l.lookup_key
    JOIN entries e ON e.id = s.entry_id WHERE l.release_mbid = old.release_mbid
    ON CONFLICT (user_id) DO UPDATE SET version = version + 1;
END;
