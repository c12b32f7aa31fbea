"""Worker heartbeats: each worker process keeps one row saying what it is doing and since when.

A worker that is not running, or is stuck in one step, stops beating; after KMOOD_WORKER_STALE_S
it counts as gone, and `/healthz`, the admin pages, the queue CLI and `/metrics` say so.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from kmood_lib.core.clock import ms_to_iso
from kmood_lib.queue import jobs

_BEAT = """
INSERT INTO workers (id, host, pid, version, started_at, last_beat, step, step_since,
                     jobs_done, jobs_failed)
VALUES (:id, :host, :pid, :version, :started_at, :now, :step, :step_since, :done, :failed)
ON CONFLICT (id) DO UPDATE SET last_beat = excluded.last_beat, step = excluded.step,
    step_since = excluded.step_since, jobs_done = excluded.jobs_done,
    jobs_failed = excluded.jobs_failed
"""

FORGET_AFTER_MS = 7 * 24 * 3600 * 1000  # a dead worker's row stays visible this long


@dataclass
class Beat:
    """What one worker process says about itself."""

    id: str
    host: str
    pid: int
    version: str
    started_at: int
    step: str = "starting"
    step_since: int = 0
    done: int = 0
    failed: int = 0


def beat(conn: sqlite3.Connection, state: Beat, now_ms: int) -> None:
    """One small statement: insert or refresh this worker's row."""
    conn.execute(_BEAT, {"id": state.id, "host": state.host, "pid": state.pid,
                         "version": state.version, "started_at": state.started_at,
                         "now": now_ms, "step": state.step, "step_since": state.step_since,
                         "done": state.done, "failed": state.failed})


def remove(conn: sqlite3.Connection, worker_id: str) -> None:
    conn.execute("DELETE FROM workers WHERE id = ?", (worker_id,))


def forget_dead(conn: sqlite3.Connection, now_ms: int) -> int:
    """Rows of workers that died without a clean stop, once nobody needs to see them."""
    return conn.execute("DELETE FROM workers WHERE last_beat < ?",
                        (now_ms - FORGET_AFTER_MS,)).rowcount


def health(conn: sqlite3.Connection, now_ms: int, stale_s: float) -> dict:
    """`{"alive": n, "last_beat_age_s": seconds or None}`: one cheap query for /healthz."""
    alive, newest = conn.execute(
        "SELECT count(*) FILTER (WHERE last_beat >= ?), max(last_beat) FROM workers",
        (now_ms - int(stale_s * 1000),)).fetchone()
    return {"alive": alive,
            "last_beat_age_s": None if newest is None else round(max(0, now_ms - newest) / 1000, 3)}


def workers(conn: sqlite3.Connection, now_ms: int, stale_s: float) -> list[dict]:
    """Every known worker, newest beat first, each marked alive or not."""
    rows = conn.execute("SELECT id, host, pid, version, started_at, last_beat, step, step_since,"
                        " jobs_done, jobs_failed FROM workers ORDER BY last_beat DESC, id")
    out = []
    for row in rows:
        item = dict(row)
        item["alive"] = now_ms - item["last_beat"] <= stale_s * 1000
        item["last_beat_age_s"] = round(max(0, now_ms - item["last_beat"]) / 1000, 3)
        item["step_age_s"] = round(max(0, now_ms - item["step_since"]) / 1000, 3)
        for name in ("started_at", "last_beat", "step_since"):
            item[name] = ms_to_iso(item[name])
        out.append(item)
    return out


def report(conn: sqlite3.Connection, now_ms: int, stale_s: float) -> dict:
    """The heartbeat figures the queue summary carries (API, CLI, admin page)."""
    return {**health(conn, now_ms, stale_s), "stale_after_s": stale_s,
            "workers": workers(conn, now_ms, stale_s)}


def queue_summary(conn: sqlite3.Connection, now_ms: int, stale_s: float) -> dict:
    """The queue's counts and oldest waiting job, with the workers that drain it."""
    return {**jobs.summary(conn, now_ms), "workers": report(conn, now_ms, stale_s)}
