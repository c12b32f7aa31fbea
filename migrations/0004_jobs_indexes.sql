-- Rows a claim can never match, indexed so the worker's per-iteration probe for them reads
-- only those rows instead of scanning the whole queue (the expression must stay identical to
-- UNCLAIMABLE in kmood_lib/jobs.py, or SQLite will not use this index).
CREATE INDEX jobs_unclaimable ON jobs (id) WHERE status NOT IN ('queued', 'running', 'retrying', 'done', 'exhausted') OR (status IN ('queued', 'retrying') AND typeof(run_after) != 'integer') OR (status = 'running' AND typeof(lease_until) != 'integer');

-- The sweeps' exclusion (a live job, or an exhausted one still cooling down, for the same
-- subject) looks jobs up by (kind, key) whatever their status; without this index each
-- candidate scanned every job of its kind while the sweep held the write lock.
CREATE INDEX jobs_subject ON jobs (kind, key);

-- Every claim and acknowledgement rewrote these two for queries that run once an hour (prune)
-- or when an operator looks (summary, lists); those scan a pruned table instead. The hot path
-- keeps only the indexes it reads: live (kind, key), claimable, running lease, unclaimable.
DROP INDEX jobs_kind_status;

DROP INDEX jobs_finished;
