-- Web Push (SPEC §16, issue #43): reminders sent to the installed app itself.
--
-- The installation's VAPID key pair, made once (unless KMOOD_VAPID_PRIVATE_KEY gives one): the
-- push services know k-mood's requests by its public key, which the app subscribes with.
CREATE TABLE push_keys (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    private_pem TEXT NOT NULL,
    created_at INTEGER NOT NULL
);

-- Each device a person turned notifications on for: the push service's endpoint, and the
-- browser's keys the payload is encrypted to. A push service that answers 404 or 410 has
-- forgotten it, and so does k-mood (the row is deleted).
CREATE TABLE push_subscriptions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    endpoint TEXT NOT NULL UNIQUE,
    p256dh TEXT NOT NULL,
    auth TEXT NOT NULL,
    label TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    last_success_at INTEGER,
    last_failure_at INTEGER,
    last_error TEXT
);
CREATE INDEX push_subscriptions_user ON push_subscriptions (user_id);

-- Which devices an occurrence reached: a retry sends only to those it has not reached yet.
CREATE TABLE push_sends (
    subscription_id INTEGER NOT NULL REFERENCES push_subscriptions (id) ON DELETE CASCADE,
    reminder_id INTEGER NOT NULL REFERENCES reminders (id) ON DELETE CASCADE,
    local_date TEXT NOT NULL,
    at INTEGER NOT NULL,
    PRIMARY KEY (subscription_id, reminder_id, local_date)
) WITHOUT ROWID;
CREATE INDEX push_sends_reminder ON push_sends (reminder_id, local_date);

-- Reminders gain the channel `webpush` (to every device of the person; no URL of its own).
-- SQLite cannot change a CHECK in place: the table is made again, its rows, ids and id
-- sequence kept (migrations run with foreign keys off, so the deliveries that point at it stay).
CREATE TABLE reminders_new (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    local_minute INTEGER NOT NULL CHECK (local_minute BETWEEN 0 AND 1439),
    weekdays INTEGER NOT NULL CHECK (weekdays BETWEEN 1 AND 127),
    timezone TEXT NOT NULL,
    channel TEXT NOT NULL CHECK (channel IN ('ntfy', 'gotify', 'webhook', 'webpush')),
    url TEXT NOT NULL,
    token TEXT,
    title TEXT,
    message TEXT,
    skip_if_logged INTEGER NOT NULL DEFAULT 1 CHECK (skip_if_logged IN (0, 1)),
    enabled INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
    next_fire_at INTEGER,
    next_local_date TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);
INSERT INTO reminders_new SELECT id, user_id, local_minute, weekdays, timezone, channel, url,
    token, title, message, skip_if_logged, enabled, next_fire_at, next_local_date, created_at,
    updated_at FROM reminders;
-- The ids go on from where they were (a deleted reminder's id is never given again: a job
-- key `reminder:<id>:<day>` keeps naming the reminder it was made for).
DELETE FROM sqlite_sequence WHERE name = 'reminders_new';
INSERT INTO sqlite_sequence (name, seq)
    SELECT 'reminders_new', seq FROM sqlite_sequence WHERE name = 'reminders';
DROP TABLE reminders;
ALTER TABLE reminders_new RENAME TO reminders;
CREATE INDEX reminders_user ON reminders (user_id);
CREATE INDEX reminders_due ON reminders (next_fire_at) WHERE enabled = 1;
