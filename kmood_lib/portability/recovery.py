"""Import runs whose process died (their lease ran out on the clock): finished from their
staged rows and kept plan when they were publishing, dropped when they were still staging —
by the next import of that user (`resume`, handed to runs.begin) or by the worker
(`recover`)."""

from __future__ import annotations

import json
import logging
import sqlite3

from kmood_lib.core.errors import Busy
from kmood_lib.portability import publishing, runs
from kmood_lib.portability.daylio.plan import Plan

log = logging.getLogger(__name__)


def resume(conn, run: runs.Run, allow_private_urls: bool) -> tuple[int, int]:
    """Finish a run that died while publishing, from its staged rows and kept plan; `run` is
    as this process claimed it (runs.claim)."""
    row = conn.execute("SELECT plan FROM import_runs WHERE id = ?", (run.id,)).fetchone()
    if row is None:
        return 0, 0
    stored = json.loads(row["plan"])
    extras = dict(stored.get("extras") or {})
    if isinstance(extras.get("moods"), dict):  # JSON made the levels text
        extras["moods"] = {int(k): v for k, v in extras["moods"].items() if str(k).isdigit()}
    plan = Plan(stored.get("format", ""), groups=stored.get("groups") or {}, extras=extras)
    counts = publishing.publish(conn, run, stored, plan.warnings)
    publishing.finish(conn, run, stored, plan, allow_private_urls)
    log.info("finished the import of user %d that stopped half-way: %d more entries, %d"
             " already there", run.user_id, *counts)
    return counts


def recover(conn, now_ms: int, clock, allow_private_urls: bool,
            lease_ms: int = runs.LEASE_MS) -> int:
    """The worker's step: every run whose lease ran out by `now_ms`, claimed on `clock` and
    finished (publishing) or dropped (staging); one that fails is logged and left for the
    next round. Returns how many runs it handled."""
    handled = 0
    for row in conn.execute("SELECT id, user_id, state FROM import_runs WHERE lease_until <= ?",
                            (now_ms,)).fetchall():
        run = runs.claim(conn, row["id"], row["user_id"], clock, lease_ms)
        if run is None:
            continue
        try:
            if row["state"] == "publishing":
                resume(conn, run, allow_private_urls)
            else:
                runs.drop(conn, run.id, clock)
                log.info("dropped the staged rows of an import of user %d that stopped before"
                         " it was checked", run.user_id)
            handled += 1
        except (sqlite3.Error, ValueError, KeyError, TypeError, Busy) as exc:
            log.error("could not finish the stalled import of user %d (run %d): %s; trying"
                      " again once its lease runs out", run.user_id, run.id, exc)
    return handled
