"""Which staged rows are already in the journal, decided batch by batch as publishing goes,
and the dry run that only counts them."""

from __future__ import annotations

import json
import sqlite3
from collections import Counter

from kmood_lib.core.db import transaction
from kmood_lib.portability.runs import Run
from kmood_lib.portability.staging import FIRST, next_batch, position_of


class Deduplicator:
    """Which staged rows are already in the journal: the same import key, or the same local
    minute, mood and note — counted as multisets, so two identical rows stay two entries and
    importing them again adds neither. Batches come oldest first; a minute cut in two by a
    batch boundary keeps its counts (`carried`, kept with the run so that a run finished by
    another process counts the same), so the rows this import published there do not count."""

    def __init__(self, conn, user_id: int, carried: str | None = None):
        self.conn, self.user_id = conn, user_id
        self.carried: tuple[tuple[str, int], Counter] | None = None
        if carried:
            minute, counts = json.loads(carried)
            self.carried = (tuple(minute), Counter({tuple(s): n for s, n in counts}))

    def carried_json(self) -> str | None:
        if self.carried is None:
            return None
        minute, counts = self.carried
        return json.dumps([minute, [[list(s), n] for s, n in counts.items() if n]])

    def new_rows(self, rows: list[sqlite3.Row]) -> list[bool]:
        keys = [r["import_key"] for r in rows]
        present = {r[0] for r in self.conn.execute(
            "SELECT import_key FROM entries WHERE user_id = ? AND import_key IN"
            " (SELECT value FROM json_each(?))", (self.user_id, json.dumps(keys)))}
        minutes = {(r["local_date"], r["local_minute"]) for r in rows}
        existing: Counter = Counter()
        for r in self.conn.execute(
                "SELECT local_date, local_minute, mood, note, count(*) AS n FROM entries"
                " WHERE user_id = ? AND local_date BETWEEN ? AND ?"
                " GROUP BY local_date, local_minute, mood, note",
                (self.user_id, rows[0]["local_date"], rows[-1]["local_date"])):
            if (r["local_date"], r["local_minute"]) in minutes:
                existing[(r["local_date"], r["local_minute"], r["mood"], r["note"])] = r["n"]
        if self.carried is not None:
            minute, counts = self.carried
            for signature in [s for s in existing if s[:2] == minute]:
                del existing[signature]
            existing.update({s: n for s, n in counts.items() if s[:2] == minute})
        fresh = []
        for r in rows:
            signature = (r["local_date"], r["local_minute"], r["mood"], r["note"])
            if r["import_key"] in present or existing[signature] > 0:
                fresh.append(False)
                if r["import_key"] not in present:
                    existing[signature] -= 1
            else:
                fresh.append(True)
        last = (rows[-1]["local_date"], rows[-1]["local_minute"])
        self.carried = (last, Counter({s: n for s, n in existing.items() if s[:2] == last}))
        return fresh


def count_new(conn, run: Run) -> tuple[int, int]:
    """What publishing would import and skip, reading only (a dry run)."""
    dedup = Deduplicator(conn, run.user_id)
    imported = duplicates = 0
    after = FIRST
    while True:
        with transaction(conn, immediate=False):  # a read holds nobody up: no pause
            rows = next_batch(conn, run.id, after)
            if not rows:
                return imported, duplicates
            fresh = dedup.new_rows(rows)
        after = position_of(rows)
        imported += sum(fresh)
        duplicates += len(fresh) - sum(fresh)

