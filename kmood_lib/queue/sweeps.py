"""Job kinds (each a sweeper query plus a handler, registered together), the sweeps that
enqueue what domain state still owes, and the prompt path after an entry is saved.

The sweeps are the truth: a kind's sweeper finds the work in domain state. The server's
prompt enqueue in a save only makes that work start sooner; if it fails, the save goes on
without it, and the next sweep finds the same work.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass

from kmood_lib.queue import jobs
from kmood_lib.queue.jobs import Policy, QueueError

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Prompt:
    """A kind's work for one saved entry: `sql` selects its (key, payload) rows — the sweep's
    query narrowed to the entry — with `params(user_id, entry_id, now_ms)`. Its parameters
    are plain `?`s: it is put beside the other kinds' in one statement."""

    sql: str
    params: Callable[[int, int, int], tuple]


@dataclass(frozen=True)
class JobKind:
    """A kind of work: its sweeper is the truth, the queue only makes it prompt.

    `sweep_sql` selects the candidate work as rows of (key, payload) — a query over domain
    state; live-job and cool-down exclusion are wrapped around it in the same statement.
    `handler(ctx)` does the work; raising fails the attempt.
    """

    name: str
    sweep_sql: str
    handler: Callable
    sweep_params: Callable[[int], tuple] | tuple = ()
    # Optional: the server's prompt enqueue after an entry is saved; it must produce the same
    # keys the sweep would.
    prompt: Prompt | None = None
    # True when `sweep_sql` also selects `run_after` (work due at a set time, not at once).
    timed: bool = False
    # The prompt path queues the work this much later, so that a burst of saves (an outbox
    # sending fifty entries) is one job, not one after each save.
    prompt_delay_ms: int = 0

    def params(self, now_ms: int) -> tuple:
        return self.sweep_params(now_ms) if callable(self.sweep_params) else self.sweep_params


class JobKinds:
    """The registry of kinds: a kind exists only together with its sweeper."""

    def __init__(self, kinds=()):
        self._kinds: dict[str, JobKind] = {}
        for kind in kinds:
            self.register(kind)

    def register(self, kind: JobKind) -> None:
        if not kind.sweep_sql or not kind.sweep_sql.strip():
            raise QueueError(f"job kind {kind.name!r} has no sweeper: work that no query over "
                             f"domain state can rediscover may not be queued")
        if kind.name in self._kinds:
            raise QueueError(f"job kind {kind.name!r} is registered twice")
        self._kinds[kind.name] = kind

    def get(self, name: str) -> JobKind | None:
        return self._kinds.get(name)

    def require(self, name: str) -> JobKind:
        kind = self._kinds.get(name)
        if kind is None:
            raise QueueError(f"no job kind {name!r} with a sweeper is registered; refusing to "
                             f"enqueue work the sweeps could never rediscover")
        return kind

    def __iter__(self):
        return iter(self._kinds.values())

    def names(self) -> list[str]:
        return sorted(self._kinds)


def enqueue(conn: sqlite3.Connection, kinds: JobKinds, kind: str, key: str, payload: dict,
            now_ms: int, policy: Policy, run_after_ms: int | None = None) -> int | None:
    """Queue work (due now, or at `run_after_ms`) unless a live job of the same (kind, key)
    exists; return the new id or None."""
    kinds.require(kind)
    rows = conn.execute(
        "INSERT INTO jobs (kind, key, payload, status, attempts, max_attempts, run_after,"
        " created_at, updated_at) VALUES (?, ?, ?, 'queued', 0, ?, ?, ?, ?)"
        f" ON CONFLICT (kind, key) WHERE {jobs.LIVE_SQL} DO NOTHING"
        " RETURNING id",
        (kind, key, json.dumps(payload), policy.max_attempts,
         now_ms if run_after_ms is None else run_after_ms, now_ms, now_ms),
    ).fetchall()
    return rows[0][0] if rows else None


def sweep(conn: sqlite3.Connection, kind: JobKind, now_ms: int, limit: int, policy: Policy
          ) -> int:
    """Enqueue up to `limit` pieces of work the domain still owes; return how many were inserted.

    One statement: the kind's candidate query, minus subjects with a live job or an exhausted
    job still cooling down, so cooling subjects cannot starve the rest.
    """
    if limit <= 0:
        return 0
    return conn.execute(*sweep_statement(kind, now_ms, limit, policy)).rowcount


def sweep_statement(kind: JobKind, now_ms: int, limit: int, policy: Policy) -> tuple[str, tuple]:
    """The sweep's INSERT ... SELECT and its parameters. It holds the write lock while it runs,
    so the per-candidate exclusion must be an index search on jobs (kind, key)."""
    sql = (
        "INSERT INTO jobs (kind, key, payload, status, attempts, max_attempts, run_after,"
        " created_at, updated_at)"
        " SELECT ?, c.key, c.payload, 'queued', 0, ?, " + ("c.run_after" if kind.timed else "?")
        + ", ?, ?"
        f" FROM ({kind.sweep_sql}) AS c"  # the kind's own SQL, registered in code
        " WHERE NOT EXISTS (SELECT 1 FROM jobs j WHERE j.kind = ? AND j.key = c.key AND"
        f"   ({jobs.status_in(jobs.LIVE, 'j.status')}"
        "    OR (j.status = 'exhausted' AND coalesce(j.finished_at, j.updated_at) > ?)))"
        " LIMIT ?"
        f" ON CONFLICT (kind, key) WHERE {jobs.LIVE_SQL} DO NOTHING")
    times = (now_ms, now_ms) if kind.timed else (now_ms, now_ms, now_ms)
    return sql, (kind.name, policy.max_attempts, *times, *kind.params(now_ms),
                 kind.name, now_ms - policy.cooldown_ms, limit)


def sweep_all(conn: sqlite3.Connection, kinds: JobKinds, now_ms: int, limit: int,
              policy: Policy) -> dict[str, int]:
    """Every kind's sweep, sharing one limit of inserted jobs."""
    inserted = {}
    for kind in kinds:
        n = sweep(conn, kind, now_ms, limit - sum(inserted.values()), policy)
        inserted[kind.name] = n
        if n:
            log.info("sweep enqueued %d %s job(s)", n, kind.name)
    return inserted


def prompt_enqueue(services):
    """The prompt path: enqueue every kind's work for a saved entry, inside the caller's
    transaction (the save's own, behind a SAVEPOINT: journal.saving.prompt). Two statements
    whatever the kinds: one reads every kind's (key, payload) rows for the entry, one inserts
    those that have no live job yet."""
    policy = jobs.Policy.from_config(services.config)
    prompt_kinds = [kind for kind in services.job_kinds if kind.prompt is not None]
    if not prompt_kinds:
        return lambda conn, user_id, entry_id, now_ms: []
    work_sql = " UNION ALL ".join(
        f"SELECT ? AS kind, w.key, w.payload FROM ({kind.prompt.sql}) AS w"
        " WHERE w.key IS NOT NULL" for kind in prompt_kinds)
    delays = {kind.name: kind.prompt_delay_ms for kind in prompt_kinds}

    def enqueue_for_entry(conn, user_id: int, entry_id: int, now_ms: int) -> list[str]:
        """Returns the kinds that have work for the entry (queued now, or already live)."""
        params = [value for kind in prompt_kinds
                  for value in (kind.name, *kind.prompt.params(user_id, entry_id, now_ms))]
        work = [(row[0], row[1], row[2], now_ms + delays[row[0]])
                for row in conn.execute(work_sql, params).fetchall()]
        if work:
            conn.execute(_ENQUEUE_MANY, (json.dumps(work), policy.max_attempts, now_ms, now_ms))
        return list(dict.fromkeys(kind for kind, *_ in work))

    return enqueue_for_entry


# (kind, key, payload, run_after) rows from one JSON array, each queued unless live already
_ENQUEUE_MANY = (
    "INSERT INTO jobs (kind, key, payload, status, attempts, max_attempts, run_after,"
    " created_at, updated_at)"
    " SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'),"
    " json_extract(value, '$[2]'), 'queued', 0, ?2, json_extract(value, '$[3]'), ?3, ?4"
    " FROM json_each(?1) WHERE true"  # `WHERE`: the parser would read ON CONFLICT as a join's
    f" ON CONFLICT (kind, key) WHERE {jobs.LIVE_SQL} DO NOTHING")
