-- Users (accounts) and the lossy job queue (SPEC §3). Timestamps are INTEGER Unix ms, UTC.

CREATE TABLE users (
    id INTEGER PRIMARY KEY,
    username TEXT NOT NULL COLLATE NOCASE UNIQUE,
    password_hash TEXT NOT NULL,
    timezone TEXT NOT NULL DEFAULT 'UTC',
    is_admin INTEGER NOT NULL DEFAULT 0 CHECK (is_admin IN (0, 1)),
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);

-- No CHECK on status or types: a row this build cannot read must stay visible so the worker
-- can mark it exhausted, rather than being impossible to store or silently ignored.
CREATE TABLE jobs (
    id INTEGER PRIMARY KEY,
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

-- At most one live job per (kind, key): enqueue is INSERT ... ON CONFLICT DO NOTHING.
CREATE UNIQUE INDEX jobs_live_kind_key ON jobs (kind, key)
    WHERE status IN ('queued', 'running', 'retrying');

CREATE INDEX jobs_claimable ON jobs (run_after) WHERE status IN ('queued', 'retrying');

CREATE INDEX jobs_running_lease ON jobs (lease_until) WHERE status = 'running';

CREATE INDEX jobs_kind_status ON jobs (kind, status, updated_at);

CREATE INDEX jobs_finished ON jobs (finished_at) WHERE finished_at IS NOT NULL;
