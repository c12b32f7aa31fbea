-- Reminders: a local time and weekdays in an IANA zone, sent through a channel. The schedule is
-- state: `next_fire_at` (UTC ms) and the local date it belongs to are computed in Python with
-- zoneinfo whenever the reminder is saved or an occurrence is settled (SQLite cannot convert
-- IANA zones). `weekdays` is a bit mask, Monday = bit 0. The token is write-only.
CREATE TABLE reminders (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    local_minute INTEGER NOT NULL CHECK (local_minute BETWEEN 0 AND 1439),
    weekdays INTEGER NOT NULL CHECK (weekdays BETWEEN 1 AND 127),
    timezone TEXT NOT NULL,
    channel TEXT NOT NULL CHECK (channel IN ('ntfy', 'gotify', 'webhook')),
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

CREATE INDEX reminders_user ON reminders (user_id);
CREATE INDEX reminders_due ON reminders (next_fire_at) WHERE enabled = 1;

-- At most one delivery per reminder and local date, whatever crashes or clock changes happen.
CREATE TABLE reminder_deliveries (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    reminder_id INTEGER NOT NULL REFERENCES reminders (id) ON DELETE CASCADE,
    local_date TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('sent', 'skipped', 'missed', 'failed')),
    attempts INTEGER NOT NULL DEFAULT 0,
    last_error TEXT,
    at INTEGER NOT NULL,
    UNIQUE (reminder_id, local_date)
);
