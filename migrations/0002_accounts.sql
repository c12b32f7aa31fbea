-- Accounts: integration usernames, sessions, API tokens, login throttling.

ALTER TABLE users ADD COLUMN listenbrainz_user TEXT;

ALTER TABLE users ADD COLUMN lastfm_user TEXT;

-- Only the SHA-256 of a session token is stored; the token itself lives in the user's cookie.
CREATE TABLE sessions (
    id INTEGER PRIMARY KEY,
    user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    token_hash TEXT NOT NULL UNIQUE,
    csrf_token TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    last_seen_at INTEGER NOT NULL
);

CREATE INDEX sessions_user ON sessions (user_id);

CREATE INDEX sessions_expires ON sessions (expires_at);

CREATE TABLE api_tokens (
    id INTEGER PRIMARY KEY,
    user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    token_hash TEXT NOT NULL UNIQUE,
    created_at INTEGER NOT NULL,
    last_used_at INTEGER,
    revoked_at INTEGER
);

CREATE INDEX api_tokens_user ON api_tokens (user_id, id);

-- One row per failed (or in-flight) login, per scope: 'user' (lower-cased name) or 'addr'.
CREATE TABLE login_failures (
    id INTEGER PRIMARY KEY,
    scope TEXT NOT NULL,
    subject TEXT NOT NULL,
    at INTEGER NOT NULL
);

CREATE INDEX login_failures_subject ON login_failures (scope, subject, at);

CREATE INDEX login_failures_at ON login_failures (at);
