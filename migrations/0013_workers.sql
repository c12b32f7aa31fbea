-- Worker heartbeats: one row per running worker process, upserted from its loop before each
-- step and at least every KMOOD_WORKER_HEARTBEAT_S while idle, removed on a clean stop. A row
-- whose last beat is older than KMOOD_WORKER_STALE_S belongs to a worker that died or is stuck
-- in `step` (since `step_since`). Times are Unix milliseconds (UTC).
CREATE TABLE workers (
    id TEXT PRIMARY KEY,
    host TEXT NOT NULL,
    pid INTEGER NOT NULL,
    version TEXT NOT NULL,
    started_at INTEGER NOT NULL,
    last_beat INTEGER NOT NULL,
    step TEXT NOT NULL,
    step_since INTEGER NOT NULL,
    jobs_done INTEGER NOT NULL DEFAULT 0,
    jobs_failed INTEGER NOT NULL DEFAULT 0
);

CREATE INDEX workers_last_beat ON workers (last_beat);
