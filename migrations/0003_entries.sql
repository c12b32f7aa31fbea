-- Mood entries and their vocabularies: mood labels, activities (grouped), metrics, songs, FTS.

CREATE TABLE mood_labels (
    user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    level INTEGER NOT NULL CHECK (level BETWEEN 1 AND 5),
    label TEXT NOT NULL,
    PRIMARY KEY (user_id, level)
) WITHOUT ROWID;

INSERT INTO mood_labels (user_id, level, label)
    SELECT users.id, d.level, d.label FROM users,
        (SELECT 5 AS level, 'rad' AS label UNION ALL SELECT 4, 'good' UNION ALL SELECT 3, 'meh'
         UNION ALL SELECT 2, 'bad' UNION ALL SELECT 1, 'awful') AS d;

CREATE TRIGGER users_default_mood_labels AFTER INSERT ON users
BEGIN
    INSERT INTO mood_labels (user_id, level, label) VALUES
        (NEW.id, 5, 'rad'), (NEW.id, 4, 'good'), (NEW.id, 3, 'meh'),
        (NEW.id, 2, 'bad'), (NEW.id, 1, 'awful');
END;

CREATE TABLE activity_groups (
    id INTEGER PRIMARY KEY,
    user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name TEXT NOT NULL COLLATE NOCASE,
    UNIQUE (user_id, name)
);

CREATE TABLE activities (
    id INTEGER PRIMARY KEY,
    user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name TEXT NOT NULL COLLATE NOCASE,
    group_id INTEGER REFERENCES activity_groups (id) ON DELETE SET NULL,
    created_at INTEGER NOT NULL,
    UNIQUE (user_id, name)
);

CREATE INDEX activities_group ON activities (group_id);

-- occurred_at is UTC ms; utc_offset_s is the offset the moment was lived in, and local_date
-- (YYYY-MM-DD) / local_minute are that moment on its own wall clock: streaks and calendars
-- count an entry for its own local day.
CREATE TABLE entries (
    id INTEGER PRIMARY KEY,
    user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    client_id TEXT,
    occurred_at INTEGER NOT NULL,
    utc_offset_s INTEGER NOT NULL,
    local_date TEXT NOT NULL,
    local_minute INTEGER NOT NULL,
    mood INTEGER NOT NULL CHECK (mood BETWEEN 1 AND 5),
    mood_label TEXT,
    note_title TEXT NOT NULL DEFAULT '',
    note TEXT NOT NULL DEFAULT '',
    lat REAL,
    lon REAL,
    source TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    CHECK ((lat IS NULL) = (lon IS NULL)),
    UNIQUE (user_id, client_id)
);

CREATE INDEX entries_user_time ON entries (user_id, occurred_at DESC, id DESC);

CREATE INDEX entries_user_day ON entries (user_id, local_date, mood);

CREATE TABLE entry_activities (
    entry_id INTEGER NOT NULL REFERENCES entries (id) ON DELETE CASCADE,
    activity_id INTEGER NOT NULL REFERENCES activities (id) ON DELETE CASCADE,
    PRIMARY KEY (entry_id, activity_id)
) WITHOUT ROWID;

CREATE INDEX entry_activities_activity ON entry_activities (activity_id, entry_id);

CREATE TABLE metrics (
    id INTEGER PRIMARY KEY,
    user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name TEXT NOT NULL COLLATE NOCASE,
    unit TEXT NOT NULL DEFAULT '',
    min_value REAL,
    max_value REAL,
    created_at INTEGER NOT NULL,
    UNIQUE (user_id, name)
);

-- No type constraint on value: a value this build cannot read is skipped with a warning
-- when the entry is loaded, never a failure.
CREATE TABLE entry_metrics (
    entry_id INTEGER NOT NULL REFERENCES entries (id) ON DELETE CASCADE,
    metric_id INTEGER NOT NULL REFERENCES metrics (id) ON DELETE CASCADE,
    value,
    PRIMARY KEY (entry_id, metric_id)
) WITHOUT ROWID;

CREATE INDEX entry_metrics_metric ON entry_metrics (metric_id);

-- A song is attached when the entry is created, never afterwards (it may be removed).
CREATE TABLE songs (
    entry_id INTEGER PRIMARY KEY REFERENCES entries (id) ON DELETE CASCADE,
    artist TEXT NOT NULL,
    title TEXT NOT NULL,
    album TEXT,
    source TEXT NOT NULL,
    created_at INTEGER NOT NULL
);

CREATE VIRTUAL TABLE entries_fts USING fts5 (
    note_title, note, content = 'entries', content_rowid = 'id', tokenize = 'unicode61 remove_diacritics 2'
);

CREATE TRIGGER entries_fts_insert AFTER INSERT ON entries
BEGIN
    INSERT INTO entries_fts (rowid, note_title, note) VALUES (NEW.id, NEW.note_title, NEW.note);
END;

CREATE TRIGGER entries_fts_delete AFTER DELETE ON entries
BEGIN
    INSERT INTO entries_fts (entries_fts, rowid, note_title, note)
        VALUES ('delete', OLD.id, OLD.note_title, OLD.note);
END;

CREATE TRIGGER entries_fts_update AFTER UPDATE OF note_title, note ON entries
BEGIN
    INSERT INTO entries_fts (entries_fts, rowid, note_title, note)
        VALUES ('delete', OLD.id, OLD.note_title, OLD.note);
    INSERT INTO entries_fts (rowid, note_title, note) VALUES (NEW.id, NEW.note_title, NEW.note);
END;
