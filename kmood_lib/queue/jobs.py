"""The lossy job queue: promptness and observability, never correctness (SPEC §3).

Every state change is one statement: enqueue is INSERT ... ON CONFLICT DO NOTHING against the
partial unique index on live (kind, key); a claim is one UPDATE ... RETURNING that takes the
write lock up front and never upgrades; completion and failure are guarded by
`status = 'running' AND claimed_by = ?`, so a job reclaimed from a slow worker cannot be
finished twice. Timestamps are INTEGER Unix milliseconds.
"""

from __future__ import annotations

import json
import logging
import random
import sqlite3
from dataclasses import dataclass

log = logging.getLogger(__name__)

STATUSES = ("queued", "running", "retrying", "done", "exhausted")
LIVE = ("queued", "running", "retrying")  # at most one live job per (kind, key)


def status_in(statuses: tuple[str, ...], column: str = "status", negate: bool = False) -> str:
    """`status IN ('queued', 'running', 'retrying')`: the SQL for a set of statuses, spelt one
    way, so it repeats word for word the partial indexes' WHERE (an ON CONFLICT target and a
    planner's index match both need that)."""
    return f"{column} {'NOT IN' if negate else 'IN'} ({', '.join(repr(s) for s in statuses)})"


LIVE_SQL = status_in(LIVE)  # the WHERE of the unique index jobs_live_kind_key
MAX_ERROR_CHARS = 500
# What a deliberate retry's outcome (jobs.retry) means, for the CLI, the API and the jobs page.
RETRY_MESSAGES = {
    "retried": "job {id} re-queued to run now",
    "not_found": "no job {id}",
    "running": "job {id} is running; it cannot be retried now",
    "queued": "job {id} is already queued; it runs as soon as a worker is free",
    "conflict": "job {id} not retried: a live job with the same kind and key exists",
}


class QueueError(Exception):
    """A request the queue refuses (for example a job kind with no sweeper)."""


class Defer(Exception):
    """Raised by a handler that may not run yet (an upstream's allowance is taken): the job
    goes back to the queue unattempted, due at `not_before_ms` — later by `spacing_ms` for
    each job of its kind already waiting for that moment, so they come due one by one."""

    def __init__(self, message: str, not_before_ms: int, spacing_ms: int = 0):
        super().__init__(message)
        self.not_before_ms = not_before_ms
        self.spacing_ms = spacing_ms


@dataclass(frozen=True)
class Policy:
    """The queue's tunables, from configuration."""

    max_attempts: int
    lease_ms: int
    backoff_base_s: float
    backoff_cap_s: float
    cooldown_ms: int
    retention_ms: int

    @classmethod
    def from_config(cls, config) -> Policy:
        return cls(config.job_max_attempts, config.job_lease_s * 1000, config.job_backoff_base_s,
                   config.job_backoff_cap_s, config.job_cooldown_s * 1000,
                   config.job_retention_s * 1000)


def one_line(error: object) -> str:
    text = " ".join(str(error).split()) or type(error).__name__
    return text[:MAX_ERROR_CHARS]


# --- claim and finish ---------------------------------------------------------------------

@dataclass
class ClaimedJob:
    id: int
    kind: str
    key: str
    payload: str
    attempts: int
    max_attempts: int


def has_due_jobs(conn: sqlite3.Connection, now_ms: int) -> bool:
    """A read-only probe: an UPDATE that matches nothing would still take the write lock."""
    return _exists(conn, "status IN ('queued', 'retrying') AND run_after <= ?", (now_ms,))


def claim(conn: sqlite3.Connection, worker_id: str, now_ms: int, batch: int, lease_ms: int
          ) -> list[ClaimedJob]:
    """Claim up to `batch` due jobs in one statement; the claim itself counts the attempt."""
    rows = conn.execute(
        "UPDATE jobs SET status = 'running', claimed_by = ?, lease_until = ?,"
        " attempts = attempts + 1, updated_at = ?"
        " WHERE id IN (SELECT id FROM jobs WHERE status IN ('queued', 'retrying')"
        "   AND run_after <= ? ORDER BY run_after, id LIMIT ?)"
        " RETURNING id, kind, key, payload, attempts, max_attempts",
        (worker_id, now_ms + lease_ms, now_ms, now_ms, batch),
    ).fetchall()  # read to the end: a half-read RETURNING keeps its lock
    return sorted((ClaimedJob(*row) for row in rows), key=lambda j: j.id)


def complete(conn: sqlite3.Connection, job_id: int, worker_id: str, now_ms: int) -> bool:
    """Mark done, only if this worker still holds the job."""
    return bool(complete_many(conn, [job_id], worker_id, now_ms))


def complete_many(conn: sqlite3.Connection, job_ids: list[int], worker_id: str, now_ms: int
                  ) -> set[int]:
    """Mark several jobs done in one statement, each only if this worker still holds it;
    return the ids that were still ours."""
    return _update_held(conn, "status = 'done', lease_until = NULL, finished_at = ?,"
                        " updated_at = ?", (now_ms, now_ms), job_ids, worker_id)


def _update_held(conn: sqlite3.Connection, assignments: str, params: tuple,
                 job_ids: list[int], worker_id: str) -> set[int]:
    """One UPDATE of the jobs among `job_ids` that this worker still holds (running, claimed
    by it); returns their ids. `assignments` is SQL written in this module, never input."""
    if not job_ids:
        return set()
    rows = conn.execute(
        f"UPDATE jobs SET {assignments}"
        " WHERE id IN (SELECT value FROM json_each(?)) AND status = 'running'"
        " AND claimed_by = ? RETURNING id",
        (*params, json.dumps(job_ids), worker_id)).fetchall()  # read to the end
    return {row[0] for row in rows}


def backoff_ms(attempts: int, policy: Policy, rng: random.Random) -> int:
    """min(cap, base * 2**(attempts-1)) * U(0.5, 1.0), in milliseconds."""
    delay = min(policy.backoff_cap_s, policy.backoff_base_s * 2 ** max(0, attempts - 1))
    return int(delay * rng.uniform(0.5, 1.0) * 1000)


def fail(conn: sqlite3.Connection, job: ClaimedJob, worker_id: str, error: object, now_ms: int,
         policy: Policy, rng: random.Random, permanent: bool = False,
         not_before_ms: int = 0) -> str | None:
    """Record a failed attempt: `retrying` after a backoff (at least `not_before_ms`, e.g. an
    upstream's Retry-After), or `exhausted` when out of attempts (or `permanent`). Returns
    the new status, or None if the job was no longer ours."""
    exhausted = permanent or job.attempts >= job.max_attempts
    status = "exhausted" if exhausted else "retrying"
    run_after = now_ms if exhausted else now_ms + max(backoff_ms(job.attempts, policy, rng),
                                                      not_before_ms)
    changed = conn.execute(
        "UPDATE jobs SET status = ?, run_after = ?, lease_until = NULL, last_error = ?,"
        " updated_at = ?, finished_at = CASE WHEN ? = 'exhausted' THEN ? END"
        " WHERE id = ? AND status = 'running' AND claimed_by = ?",
        (status, run_after, one_line(error), now_ms, status, now_ms, job.id, worker_id)).rowcount
    return status if changed else None


def extend_lease(conn: sqlite3.Connection, job_id: int, worker_id: str, now_ms: int,
                 lease_ms: int) -> bool:
    """A long handler keeps its claim; False means it was already reclaimed."""
    return bool(extend_leases(conn, [job_id], worker_id, now_ms, lease_ms))


def extend_leases(conn: sqlite3.Connection, job_ids: list[int], worker_id: str, now_ms: int,
                  lease_ms: int) -> set[int]:
    """Renew the leases of jobs this worker still holds, in one statement; return those ids."""
    return _update_held(conn, "lease_until = ?, updated_at = ?", (now_ms + lease_ms, now_ms),
                        job_ids, worker_id)


def release(conn: sqlite3.Connection, job_ids: list[int], worker_id: str, now_ms: int) -> int:
    """Give back claimed jobs that were never started (shutdown): queued, the claim uncounted."""
    return len(_update_held(conn, "status = 'queued', claimed_by = NULL, lease_until = NULL,"
                            " attempts = attempts - 1, updated_at = ?", (now_ms,), job_ids,
                            worker_id))


def defer(conn: sqlite3.Connection, job: ClaimedJob, worker_id: str, why: str, now_ms: int,
          not_before_ms: int, spacing_ms: int) -> bool:
    """Hand a claimed job back unattempted (see Defer), with `why` as its visible note."""
    return bool(_update_held(
        conn, "status = 'queued', claimed_by = NULL, lease_until = NULL,"
        " attempts = attempts - 1, last_error = ?, updated_at = ?, run_after = ? + ? *"
        " (SELECT count(*) FROM jobs w WHERE w.kind = jobs.kind"
        "  AND w.status IN ('queued', 'retrying') AND w.run_after >= ?)",
        (why, now_ms, not_before_ms, spacing_ms, not_before_ms), [job.id], worker_id))


STALLED = "status = 'running' AND lease_until < ?"


def reclaim_stalled(conn: sqlite3.Connection, now_ms: int) -> int:
    """Running jobs whose lease expired go back to `retrying` (or `exhausted` when out of
    attempts); the WHERE re-checks status and lease, so a live claim is never taken.

    A read-only probe comes first: an UPDATE that matches nothing still takes the write lock,
    and the worker runs this every iteration.
    """
    if not _exists(conn, STALLED, (now_ms,)):
        return 0
    rows = conn.execute(
        "UPDATE jobs SET"
        " status = CASE WHEN attempts >= max_attempts THEN 'exhausted' ELSE 'retrying' END,"
        " finished_at = CASE WHEN attempts >= max_attempts THEN ? END,"
        " last_error = 'lease expired: worker ' || coalesce(claimed_by, '?') ||"
        "   ' stopped responding during attempt ' || attempts,"
        " claimed_by = NULL, lease_until = NULL, run_after = ?, updated_at = ?"
        f" WHERE {STALLED}"
        " RETURNING id, kind, status", (now_ms, now_ms, now_ms, now_ms)).fetchall()
    for row in rows:
        log.warning("job %d (%s) lease expired: now %s", row["id"], row["kind"], row["status"])
    return len(rows)


# Word for word the WHERE of the partial index jobs_unclaimable (migration 0004_jobs_indexes), so that
# the probe reads only the bad rows. status is NOT NULL in the schema.
UNCLAIMABLE = (
    status_in(STATUSES, negate=True)
    + " OR (status IN ('queued', 'retrying') AND typeof(run_after) != 'integer')"
    " OR (status = 'running' AND typeof(lease_until) != 'integer')"
)


def quarantine_unclaimable(conn: sqlite3.Connection, now_ms: int) -> int:
    """Rows a claim can never match (unknown status, non-integer run_after or lease_until) are
    marked exhausted with last_error naming the field — visible, not forgotten. The probe
    before the UPDATE reads the partial index only, and takes no write lock."""
    if not _exists(conn, UNCLAIMABLE):
        return 0
    rows = conn.execute(
        "UPDATE jobs SET last_error = CASE"
        f"   WHEN {status_in(STATUSES, negate=True)}"
        "     THEN 'unreadable status: ' || quote(status)"
        "   WHEN typeof(run_after) != 'integer'"
        "     THEN 'unreadable run_after: ' || quote(run_after)"
        "   ELSE 'unreadable lease_until: ' || quote(lease_until) END,"
        " status = 'exhausted', finished_at = ?, updated_at = ?, claimed_by = NULL,"
        " run_after = CASE WHEN typeof(run_after) = 'integer' THEN run_after ELSE ? END,"
        " lease_until = NULL"
        f" WHERE {UNCLAIMABLE}"
        " RETURNING id, last_error", (now_ms, now_ms, now_ms)).fetchall()
    for row in rows:
        log.warning("job %d marked exhausted: %s", row["id"], row["last_error"])
    return len(rows)


def _exists(conn: sqlite3.Connection, where: str, params: tuple = ()) -> bool:
    return conn.execute(f"SELECT EXISTS (SELECT 1 FROM jobs WHERE {where})", params
                        ).fetchone()[0] == 1


# --- operator actions ---------------------------------------------------------------------

def retry(conn: sqlite3.Connection, job_id: int, now_ms: int) -> str:
    """Deliberately re-run a job now: 'retried'; 'not_found'; 'running' or 'queued' when it is
    already under way or waiting (nothing to do); 'conflict' when a live twin with the same
    (kind, key) exists (then nothing changes)."""
    try:
        changed = conn.execute(
            "UPDATE jobs SET status = 'queued', attempts = 0, run_after = ?, claimed_by = NULL,"
            " lease_until = NULL, finished_at = NULL, updated_at = ?"
            " WHERE id = ? AND status IN ('exhausted', 'retrying', 'done')",
            (now_ms, now_ms, job_id)).rowcount
    except sqlite3.IntegrityError:
        return "conflict"
    if changed:
        return "retried"
    row = conn.execute("SELECT status FROM jobs WHERE id = ?", (job_id,)).fetchone()
    return "not_found" if row is None else row["status"]


def retry_exhausted(conn: sqlite3.Connection, kind: str, now_ms: int) -> int:
    """Re-run every exhausted job of a kind; ones with a live twin are left as they are."""
    return conn.execute(
        "UPDATE OR IGNORE jobs SET status = 'queued', attempts = 0, run_after = ?,"
        " claimed_by = NULL, lease_until = NULL, finished_at = NULL, updated_at = ?"
        " WHERE kind = ? AND status = 'exhausted'", (now_ms, now_ms, kind)).rowcount


def prune(conn: sqlite3.Connection, now_ms: int, retention_ms: int) -> int:
    return conn.execute(
        "DELETE FROM jobs WHERE status IN ('done', 'exhausted') AND finished_at < ?",
        (now_ms - retention_ms,)).rowcount


def earliest_run_after(conn: sqlite3.Connection) -> int | None:
    return conn.execute("SELECT min(run_after) FROM jobs WHERE status IN ('queued', 'retrying')"
                        " AND typeof(run_after) = 'integer'").fetchone()[0]


# --- observability ------------------------------------------------------------------------

def summary(conn: sqlite3.Connection, now_ms: int) -> dict:
    """Counts by kind and status, and the age of the oldest waiting job."""
    counts: dict[str, dict[str, int]] = {}
    for row in conn.execute("SELECT kind, status, count(*) AS n FROM jobs GROUP BY kind, status"
                            " ORDER BY kind, status"):
        counts.setdefault(row["kind"], {})[row["status"]] = row["n"]
    oldest = conn.execute("SELECT min(created_at) FROM jobs WHERE status IN"
                          " ('queued', 'retrying')").fetchone()[0]
    return {"counts": counts,
            "oldest_waiting_age_s": None if oldest is None else max(0, now_ms - oldest) / 1000}


def list_jobs(conn: sqlite3.Connection, status: str | None = None, kind: str | None = None,
              limit: int = 100, before_id: int | None = None) -> list[dict]:
    sql = ("SELECT id, kind, key, payload, status, attempts, max_attempts, run_after,"
           " claimed_by, lease_until, last_error, created_at, updated_at, finished_at"
           " FROM jobs WHERE 1 = 1")
    params: list = []
    if status:
        sql += " AND status = ?"
        params.append(status)
    if kind:
        sql += " AND kind = ?"
        params.append(kind)
    if before_id:
        sql += " AND id < ?"
        params.append(before_id)
    sql += " ORDER BY id DESC LIMIT ?"
    params.append(limit)
    return [dict(row) for row in conn.execute(sql, params)]
