"""Seeded journals with known truths, for the insights tests and the benchmark: daily mood with
AR(1) autocorrelation, one activity that lifts its day, cold days that lower theirs, a metric
that moves with mood, and noise activities that do nothing at all."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from datetime import date, timedelta

RUNNING_LIFT = 0.6
COLD_DROP = 0.4
COLD_BELOW_C = 5.0


@dataclass(frozen=True)
class Plan:
    days: int = 3 * 365
    rho: float = 0.4  # day-to-day autocorrelation of the mood's wander
    sd: float = 0.8
    noise: int = 40  # activities with no effect, at frequencies from 3 % to 60 % of days
    running_share: float = 0.3
    entries_per_day: tuple[int, ...] = (1,)  # drawn from for each day
    weather: bool = True
    sleep: bool = False  # a metric: hours of sleep, +0.25 mood per hour above 7
    skip_share: float = 0.0  # days left unlogged
    places: int = 0  # named places a day's entries were logged in (one per day)
    artists: int = 0  # artists heard, a song on about half the entries


def _activity(conn, user_id: int, name: str) -> int:
    return conn.execute("INSERT INTO activities (user_id, name, name_key, created_at)"
                        " VALUES (?, ?, ?, 0) RETURNING id", (user_id, name, name)).fetchone()[0]


def plant(conn, user_id: int, seed: int, plan: Plan = Plan(), last: date = date(2026, 11, 30)
          ) -> dict:
    """Write `plan.days` days of entries straight into the tables (the triggers keep the
    per-day counts); returns the truths: activity names and ids."""
    rng = random.Random(seed)
    running = _activity(conn, user_id, "running")
    noise = [(_activity(conn, user_id, f"noise {i:02d}"), 0.03 + 0.57 * i / max(1, plan.noise))
             for i in range(plan.noise)]
    sleep_id = None
    if plan.sleep:
        sleep_id = conn.execute("INSERT INTO metrics (user_id, name, name_key, unit,"
                                " created_at) VALUES (?, 'sleep', 'sleep', 'h', 0) RETURNING id",
                                (user_id,)).fetchone()[0]
    cells = [f"{52 + i / 10:.2f}:{13 + i / 10:.2f}" for i in range(plan.places)]
    conn.executemany("INSERT OR IGNORE INTO places (cell, display_name, locality, country_code,"
                     " fetched_at) VALUES (?, ?, ?, 'DE', 0)",
                     [(cell, f"Place {i}", f"Town {i}") for i, cell in enumerate(cells)])
    first = last - timedelta(days=plan.days - 1)
    wander = 0.0
    conn.commit()
    conn.execute("BEGIN")
    known = conn.execute("SELECT coalesce(max(id), 0) FROM entries").fetchone()[0]
    for offset in range(plan.days):
        day = first + timedelta(days=offset)
        wander = plan.rho * wander + math.sqrt(1 - plan.rho ** 2) * rng.gauss(0, plan.sd)
        ran = rng.random() < plan.running_share
        season = math.cos(2 * math.pi * (day.timetuple().tm_yday - 200) / 365)
        temperature = 10 + 11 * season + rng.gauss(0, 4)
        sleep = min(11.0, max(3.0, rng.gauss(7, 1.2)))
        noisy = [aid for aid, share in noise if rng.random() < share]
        cell = rng.choice(cells) if cells else None
        if rng.random() < plan.skip_share:
            continue
        level = 3.2 + wander + (RUNNING_LIFT if ran else 0.0)
        if plan.weather and temperature < COLD_BELOW_C:
            level -= COLD_DROP
        if plan.sleep:
            level += 0.25 * (sleep - 7)
        for slot in range(rng.choice(plan.entries_per_day)):
            mood = min(5, max(1, round(level + rng.gauss(0, 0.3))))
            minute = 9 * 60 + slot * 300 + rng.randrange(60)
            at_ms = int((day.toordinal() - date(1970, 1, 1).toordinal()) * 86_400_000
                        + minute * 60_000)
            entry = conn.execute(
                "INSERT INTO entries (user_id, occurred_at, utc_offset_s, local_date,"
                " local_minute, mood, source, created_at, updated_at, lat, lon)"
                " VALUES (?, ?, 0, ?, ?, ?, 'test', 0, 0, ?, ?) RETURNING id",
                (user_id, at_ms, day.isoformat(), minute, mood,
                 52.5 if plan.weather else None, 13.4 if plan.weather else None)).fetchone()[0]
            links = ([running] if ran else []) + noisy
            conn.executemany("INSERT INTO entry_activities (entry_id, activity_id) VALUES (?, ?)",
                             [(entry, aid) for aid in links])
            if plan.weather:
                conn.execute("INSERT INTO weather (entry_id, temperature_c, code, fetched_at)"
                             " VALUES (?, ?, ?, 0)",
                             (entry, round(temperature, 1), rng.choice((0, 2, 3, 61))))
            if cell:
                conn.execute("INSERT INTO entry_places (entry_id, cell) VALUES (?, ?)",
                             (entry, cell))
            if plan.artists and rng.random() < 0.5:
                artist = f"Artist {rng.randrange(plan.artists)}"
                conn.execute("INSERT INTO songs (entry_id, artist, title, source, created_at,"
                             " lookup_key) VALUES (?, ?, 'A song', 'test', 0, json_array(?, ?))",
                             (entry, artist, artist.lower(), "a song"))
            if sleep_id:
                conn.execute("INSERT INTO entry_metrics (entry_id, metric_id, value)"
                             " VALUES (?, ?, ?)", (entry, sleep_id, round(sleep, 1)))
    index_notes(conn, known)
    conn.commit()
    return {"first": first, "last": last, "running": running,
            "noise": [f"noise {i:02d}" for i in range(plan.noise)]}


def index_notes(conn, after_id: int) -> None:
    """Index the notes of the entries written straight into the table, as the app does."""
    conn.execute("INSERT INTO entries_fts (rowid, note_title, note) SELECT id, note_title, note"
                 " FROM entries WHERE id > ?", (after_id,))
