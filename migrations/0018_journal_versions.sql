-- A version per user of everything the insights read (entries, their activities, metric
-- values, songs, weather and places, and the names of activities and metrics), raised by the
-- triggers below in the same transaction as the write. The insights are computed once per
-- version and kept in memory, so a repeat visit is instant and any change shows at once.
-- An import lifts the insert triggers for its batch and raises the version once instead
-- (journal.day_counts.INSERT_TRIGGERS). A user's own deletion raises nothing: the rows that
-- cascade from it find no user (hence every bump is an INSERT ... SELECT that can be empty).
CREATE TABLE journal_versions (
    user_id INTEGER PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    version INTEGER NOT NULL
);

CREATE TRIGGER journal_version_entries_insert AFTER INSERT ON entries BEGIN
    INSERT INTO journal_versions (user_id, version)
    SELECT id, 1 FROM users WHERE id = new.user_id
    ON CONFLICT (user_id) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER journal_version_entries_update AFTER UPDATE ON entries BEGIN
    INSERT INTO journal_versions (user_id, version)
    SELECT id, 1 FROM users WHERE id = new.user_id
    ON CONFLICT (user_id) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER journal_version_entries_delete AFTER DELETE ON entries BEGIN
    INSERT INTO journal_versions (user_id, version)
    SELECT id, 1 FROM users WHERE id = old.user_id
    ON CONFLICT (user_id) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER journal_version_entry_activities_insert AFTER INSERT ON entry_activities BEGIN
    INSERT INTO journal_versions (user_id, version)
    SELECT user_id, 1 FROM entries WHERE id = new.entry_id
    ON CONFLICT (user_id) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER journal_version_entry_activities_update AFTER UPDATE ON entry_activities BEGIN
    INSERT INTO journal_versions (user_id, version)
    SELECT user_id, 1 FROM entries WHERE id = new.entry_id
    ON CONFLICT (user_id) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER journal_version_entry_activities_delete AFTER DELETE ON entry_activities BEGIN
    INSERT INTO journal_versions (user_id, version)
    SELECT user_id, 1 FROM entries WHERE id = old.entry_id
    ON CONFLICT (user_id) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER journal_version_entry_metrics_insert AFTER INSERT ON entry_metrics BEGIN
    INSERT INTO journal_versions (user_id, version)
    SELECT user_id, 1 FROM entries WHERE id = new.entry_id
    ON CONFLICT (user_id) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER journal_version_entry_metrics_update AFTER UPDATE ON entry_metrics BEGIN
    INSERT INTO journal_versions (user_id, version)
    SELECT user_id, 1 FROM entries WHERE id = new.entry_id
    ON CONFLICT (user_id) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER journal_version_entry_metrics_delete AFTER DELETE ON entry_metrics BEGIN
    INSERT INTO journal_versions (user_id, version)
    SELECT user_id, 1 FROM entries WHERE id = old.entry_id
    ON CONFLICT (user_id) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER journal_version_songs_insert AFTER INSERT ON songs BEGIN
    INSERT INTO journal_versions (user_id, version)
    SELECT user_id, 1 FROM entries WHERE id = new.entry_id
    ON CONFLICT (user_id) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER journal_version_songs_update AFTER UPDATE ON songs BEGIN
    INSERT INTO journal_versions (user_id, version)
    SELECT user_id, 1 FROM entries WHERE id = new.entry_id
    ON CONFLICT (user_id) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER journal_version_songs_delete AFTER DELETE ON songs BEGIN
    INSERT INTO journal_versions (user_id, version)
    SELECT user_id, 1 FROM entries WHERE id = old.entry_id
    ON CONFLICT (user_id) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER journal_version_weather_insert AFTER INSERT ON weather BEGIN
    INSERT INTO journal_versions (user_id, version)
    SELECT user_id, 1 FROM entries WHERE id = new.entry_id
    ON CONFLICT (user_id) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER journal_version_weather_update AFTER UPDATE ON weather BEGIN
    INSERT INTO journal_versions (user_id, version)
    SELECT user_id, 1 FROM entries WHERE id = new.entry_id
    ON CONFLICT (user_id) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER journal_version_weather_delete AFTER DELETE ON weather BEGIN
    INSERT INTO journal_versions (user_id, version)
    SELECT user_id, 1 FROM entries WHERE id = old.entry_id
    ON CONFLICT (user_id) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER journal_version_entry_places_insert AFTER INSERT ON entry_places BEGIN
    INSERT INTO journal_versions (user_id, version)
    SELECT user_id, 1 FROM entries WHERE id = new.entry_id
    ON CONFLICT (user_id) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER journal_version_entry_places_update AFTER UPDATE ON entry_places BEGIN
    INSERT INTO journal_versions (user_id, version)
    SELECT user_id, 1 FROM entries WHERE id = new.entry_id
    ON CONFLICT (user_id) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER journal_version_entry_places_delete AFTER DELETE ON entry_places BEGIN
    INSERT INTO journal_versions (user_id, version)
    SELECT user_id, 1 FROM entries WHERE id = old.entry_id
    ON CONFLICT (user_id) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER journal_version_activities_update AFTER UPDATE ON activities BEGIN
    INSERT INTO journal_versions (user_id, version)
    SELECT id, 1 FROM users WHERE id = new.user_id
    ON CONFLICT (user_id) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER journal_version_activities_delete AFTER DELETE ON activities BEGIN
    INSERT INTO journal_versions (user_id, version)
    SELECT id, 1 FROM users WHERE id = old.user_id
    ON CONFLICT (user_id) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER journal_version_metrics_update AFTER UPDATE ON metrics BEGIN
    INSERT INTO journal_versions (user_id, version)
    SELECT id, 1 FROM users WHERE id = new.user_id
    ON CONFLICT (user_id) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER journal_version_metrics_delete AFTER DELETE ON metrics BEGIN
    INSERT INTO journal_versions (user_id, version)
    SELECT id, 1 FROM users WHERE id = old.user_id
    ON CONFLICT (user_id) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER journal_version_places_update AFTER UPDATE ON places BEGIN
    INSERT INTO journal_versions (user_id, version)
    SELECT DISTINCT e.user_id, 1 FROM entry_places ep JOIN entries e ON e.id = ep.entry_id
    WHERE ep.cell = new.cell
    ON CONFLICT (user_id) DO UPDATE SET version = version + 1;
END;
