-- Identity and names. Ids are never reused after a delete (AUTOINCREMENT): a client or an
-- export holding an old id must never address a different object. Names are compared by one
-- normalised key (NFC, then casefold) kept in its own column under a plain unique index.
--
-- Tables are rebuilt with SQLite's documented procedure (create new, copy, drop old, rename);
-- the runner turns foreign keys off for the run and checks them before COMMIT, so dropping a
-- parent deletes no child rows. kmood_name_key() is the application's key function, registered
-- on every connection; it only fills the new columns here and appears nowhere in the schema,
-- so any SQLite tool can still open the file. Names that already differed only in a way the
-- key folds ('Ärger' / 'ärger') are merged into the oldest of them, entries keeping their links.

CREATE TABLE users_new (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    username TEXT NOT NULL,
    username_key TEXT NOT NULL UNIQUE,
    password_hash TEXT NOT NULL,
    timezone TEXT NOT NULL DEFAULT 'UTC',
    is_admin INTEGER NOT NULL DEFAULT 0 CHECK (is_admin IN (0, 1)),
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    listenbrainz_user TEXT,
    lastfm_user TEXT
);

INSERT INTO users_new (id, username, username_key, password_hash, timezone, is_admin,
                       created_at, updated_at, listenbrainz_user, lastfm_user)
    SELECT id, username, kmood_name_key(username), password_hash, timezone, is_admin,
           created_at, updated_at, listenbrainz_user, lastfm_user
    FROM users;

DROP TABLE users;

ALTER TABLE users_new RENAME TO users;

CREATE TRIGGER users_default_mood_labels AFTER INSERT ON users
BEGIN
    INSERT INTO mood_labels (user_id, level, label) VALUES
        (NEW.id, 5, 'rad'), (NEW.id, 4, 'good'), (NEW.id, 3, 'meh'),
        (NEW.id, 2, 'bad'), (NEW.id, 1, 'awful');
END;

CREATE TABLE activity_groups_new (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    name_key TEXT NOT NULL,
    UNIQUE (user_id, name_key)
);

INSERT INTO activity_groups_new (id, user_id, name, name_key)
    SELECT min(id), user_id, name, kmood_name_key(name) FROM activity_groups
    GROUP BY user_id, kmood_name_key(name);

CREATE TABLE activities_new (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    name_key TEXT NOT NULL,
    group_id INTEGER REFERENCES activity_groups (id) ON DELETE SET NULL,
    created_at INTEGER NOT NULL,
    UNIQUE (user_id, name_key)
);

INSERT INTO activities_new (id, user_id, name, name_key, group_id, created_at)
    SELECT min(a.id), a.user_id, a.name, kmood_name_key(a.name),
           (SELECT n.id FROM activity_groups g JOIN activity_groups_new n
              ON n.user_id = g.user_id AND n.name_key = kmood_name_key(g.name)
            WHERE g.id = a.group_id),
           a.created_at
    FROM activities a GROUP BY a.user_id, kmood_name_key(a.name);

UPDATE OR IGNORE entry_activities SET activity_id = (
    SELECT n.id FROM activities o JOIN activities_new n
      ON n.user_id = o.user_id AND n.name_key = kmood_name_key(o.name)
    WHERE o.id = entry_activities.activity_id)
WHERE activity_id NOT IN (SELECT id FROM activities_new);

DELETE FROM entry_activities WHERE activity_id NOT IN (SELECT id FROM activities_new);

DROP TABLE activities;

DROP TABLE activity_groups;

ALTER TABLE activity_groups_new RENAME TO activity_groups;

ALTER TABLE activities_new RENAME TO activities;

CREATE INDEX activities_group ON activities (group_id);

CREATE TABLE metrics_new (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    name_key TEXT NOT NULL,
    unit TEXT NOT NULL DEFAULT '',
    min_value REAL,
    max_value REAL,
    created_at INTEGER NOT NULL,
    UNIQUE (user_id, name_key)
);

INSERT INTO metrics_new (id, user_id, name, name_key, unit, min_value, max_value, created_at)
    SELECT min(id), user_id, name, kmood_name_key(name), unit, min_value, max_value, created_at
    FROM metrics GROUP BY user_id, kmood_name_key(name);

UPDATE OR IGNORE entry_metrics SET metric_id = (
    SELECT n.id FROM metrics o JOIN metrics_new n
      ON n.user_id = o.user_id AND n.name_key = kmood_name_key(o.name)
    WHERE o.id = entry_metrics.metric_id)
WHERE metric_id NOT IN (SELECT id FROM metrics_new);

DELETE FROM entry_metrics WHERE metric_id NOT IN (SELECT id FROM metrics_new);

DROP TABLE metrics;

ALTER TABLE metrics_new RENAME TO metrics;

CREATE TABLE entries_new (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
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

INSERT INTO entries_new (id, user_id, client_id, occurred_at, utc_offset_s, local_date,
                         local_minute, mood, mood_label, note_title, note, lat, lon, source,
                         created_at, updated_at)
    SELECT id, user_id, client_id, occurred_at, utc_offset_s, local_date, local_minute, mood,
           mood_label, note_title, note, lat, lon, source, created_at, updated_at
    FROM entries;

DROP TABLE entries;

ALTER TABLE entries_new RENAME TO entries;

CREATE INDEX entries_user_time ON entries (user_id, occurred_at DESC, id DESC);

CREATE INDEX entries_user_day ON entries (user_id, local_date, mood);

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

CREATE TABLE api_tokens_new (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    token_hash TEXT NOT NULL UNIQUE,
    created_at INTEGER NOT NULL,
    last_used_at INTEGER,
    revoked_at INTEGER
);

INSERT INTO api_tokens_new (id, user_id, name, token_hash, created_at, last_used_at, revoked_at)
    SELECT id, user_id, name, token_hash, created_at, last_used_at, revoked_at FROM api_tokens;

DROP TABLE api_tokens;

ALTER TABLE api_tokens_new RENAME TO api_tokens;

CREATE INDEX api_tokens_user ON api_tokens (user_id, id);

CREATE TABLE jobs_new (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL,
    key TEXT NOT NULL,
    payload TEXT NOT NULL DEFAULT '{}',
    status TEXT NOT NULL DEFAULT 'queued',
    attempts INTEGER NOT NULL DEFAULT 0,
    max_attempts INTEGER NOT NULL,
    run_after INTEGER NOT NULL,
    claimed_by TEXT,
    lease_until INTEGER,
    last_error TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    finished_at INTEGER
);

INSERT INTO jobs_new (id, kind, key, payload, status, attempts, max_attempts, run_after,
                      claimed_by, lease_until, last_error, created_at, updated_at, finished_at)
    SELECT id, kind, key, payload, status, attempts, max_attempts, run_after, claimed_by,
           lease_until, last_error, created_at, updated_at, finished_at
    FROM jobs;

DROP TABLE jobs;

ALTER TABLE jobs_new RENAME TO jobs;

CREATE UNIQUE INDEX jobs_live_kind_key ON jobs (kind, key)
    WHERE status IN ('queued', 'running', 'retrying');

CREATE INDEX jobs_claimable ON jobs (run_after) WHERE status IN ('queued', 'retrying');

CREATE INDEX jobs_running_lease ON jobs (lease_until) WHERE status = 'running';

CREATE INDEX jobs_unclaimable ON jobs (id) WHERE status NOT IN ('queued', 'running', 'retrying', 'done', 'exhausted') OR (status IN ('queued', 'retrying') AND typeof(run_after) != 'integer') OR (status = 'running' AND typeof(lease_until) != 'integer');

CREATE INDEX jobs_subject ON jobs (kind, key);
