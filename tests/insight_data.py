"""Seeded journals with known truths, for the insights tests and the benchmark: daily mood with
AR(1) autocorrelation, one activity that lifts its day, cold days that lower theirs, a metric
that moves with mood, and noise activities that do nothing at all."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from datetime import date, timedelta

from kmood_lib.journal.day_counts import count_new_entries, insert_triggers_off

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
    """Write `plan.days` days of entries straight into the tables, their per-day counts and
    journal version raised once, as an import does; returns the truths: activity names and
    ids."""
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
    conn.commit()
    conn.execute("BEGIN")
    known = conn.execute("SELECT coalesce(max(id), 0) FROM entries").fetchone()[0]
    with insert_triggers_off(conn):  # counted once at the end, as an import counts its rows
        written = _plant_days(conn, user_id, rng, plan, first, running, noise, sleep_id, cells)
        count_new_entries(conn, written)
    index_notes(conn, known)
    conn.commit()
    return {"first": first, "last": last, "running": running,
            "noise": [f"noise {i:02d}" for i in range(plan.noise)]}


def _plant_days(conn, user_id: int, rng: random.Random, plan: Plan, first: date, running: int,
                noise: list, sleep_id: int | None, cells: list[str]) -> list[int]:
    """plant()'s days, written straight into the tables; returns the new entries' ids."""
    written = []
    wander = 0.0
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
            written.append(entry)
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
    return written


def index_notes(conn, after_id: int) -> None:
    """Index the notes of the entries written straight into the table, as the app does."""
    conn.execute("INSERT INTO entries_fts (rowid, note_title, note) SELECT id, note_title, note"
                 " FROM entries WHERE id > ?", (after_id,))


# --- the shape of a real Daylio export (issue #39) ------------------------------------------

COMMON = ("work", "friends", "family", "good sleep", "good meal", "walk", "shopping",
          "cleaning", "reading", "gaming", "movies", "cooking", "exercise", "relax", "date",
          "music", "nap", "party", "travel", "sport")
# how often the activity of each rank is logged, as a share of the days: a handful on 30-60 %,
# most under 3 % (log-linear between these ranks)
RANK_SHARES = ((1, 0.6), (5, 0.3), (25, 0.03), (160, 0.005))
EPOCH = date(1970, 1, 1).toordinal()
ENTRIES_A_DAY = {1: 6, 2: 11, 3: 15, 4: 16, 5: 12, 6: 10, 7: 8, 8: 6, 9: 5, 10: 4, 11: 3,
                 12: 4}  # weights: median 4, mean ~5


@dataclass(frozen=True)
class Shape:
    """A real export's shape: 1 159 entries on 234 days, ~8 months of logging with gaps of
    several days and three isolated days years earlier, 160 activities."""

    span: int = 245  # calendar days of continuous logging, the last on `last`
    logged: int = 231  # of them logged (the rest are the gaps)
    entries: int = 1155  # on those days
    activities: int = 160
    early: tuple[tuple[str, int], ...] = (("2019-05-12", 1), ("2020-08-30", 2),
                                          ("2022-01-03", 1))  # isolated days, their entries
    level: float = 3.3
    rho: float = 0.4  # day-to-day autocorrelation of the mood's wander
    sd: float = 0.8


REAL = Shape()
THREE_YEARS = Shape(span=3 * 365, logged=round(3 * 365 * 231 / 245),
                    entries=round(3 * 365 * 1155 / 245))


@dataclass(frozen=True)
class Burst:
    """Activities all first logged within one week (the first on `at`, a share of the span
    in), each on its share of the days after; the mood's level moves by `shift` that day."""

    names: tuple[str, ...] = ("yoga", "journaling", "scared", "memory problems", "tea",
                              "reading notes", "walk outside", "podcast")
    shares: tuple[float, ...] = (0.45, 0.4, 0.3, 0.2, 0.1, 0.06, 0.04, 0.03)
    at: float = 0.55
    shift: float = 0.0


def _share(rank: int) -> float:
    for (r0, s0), (r1, s1) in zip(RANK_SHARES, RANK_SHARES[1:], strict=False):
        if rank <= r1:
            return s0 * (s1 / s0) ** ((rank - r0) / (r1 - r0))
    return RANK_SHARES[-1][1]


def _logged_days(rng: random.Random, shape: Shape, last: date) -> list[date]:
    """The continuous stretch's logged days: `span` days less gaps of 2-6 days."""
    unlogged, gaps = shape.span - shape.logged, []
    while sum(gaps) < unlogged:
        gaps.append(min(rng.randint(2, 6), unlogged - sum(gaps)))
    first = last - timedelta(days=shape.span - 1)
    skipped: set[int] = set()
    for gap in gaps:  # away from both ends and from each other
        while True:
            start = rng.randrange(10, shape.span - 10 - gap)
            if not any(d in skipped for d in range(start - 2, start + gap + 2)):
                break
        skipped.update(range(start, start + gap))
    return [first + timedelta(days=i) for i in range(shape.span) if i not in skipped]


def _entries_a_day(rng: random.Random, days: int, total: int) -> list[int]:
    """1-12 entries on each day, median ~4, adding up to `total` exactly."""
    counts = rng.choices(list(ENTRIES_A_DAY), list(ENTRIES_A_DAY.values()), k=days)
    while sum(counts) != total:
        i, step = rng.randrange(days), 1 if sum(counts) < total else -1
        if 1 <= counts[i] + step <= 12:
            counts[i] += step
    return counts


def real_shaped(conn, user_id: int, seed: int, shape: Shape = REAL,
                effects: dict[str, float] | None = None, burst: Burst | None = None,
                last: date = date(2026, 11, 30)) -> dict:
    """A seeded journal shaped like a real Daylio export (`Shape`): moods 1..5 around an AR(1)
    wander, activities with a long-tailed frequency, each day's activities on one or two of
    its entries. `effects` plants a lift (mood points, either way) on the days of the named
    activities; nothing else moves the mood but `burst`'s shift. Returns the truths."""
    rng, effects = random.Random(seed), effects or {}
    names = [COMMON[i] if i < len(COMMON) else f"thing {i + 1:03d}"
             for i in range(shape.activities)]
    shares = {name: _share(rank) for rank, name in enumerate(names, 1)}
    new_names = burst.names if burst else ()
    assert set(effects) <= set(names) | set(new_names), effects
    ids = {name: _activity(conn, user_id, name) for name in (*names, *new_names)}
    days = _logged_days(rng, shape, last)
    counts = _entries_a_day(rng, len(days), shape.entries)
    begins, shift_from = {}, None
    if burst:
        shift_from = days[0] + timedelta(days=round(burst.at * shape.span))
        begins = {name: shift_from + timedelta(days=0 if i == 0 else rng.randrange(7))
                  for i, name in enumerate(burst.names)}
    writer = _DayWriter(conn, user_id, rng)
    for day, n in shape.early:  # isolated days years before, one of the usual things
        writer.day(date.fromisoformat(day), n, float(rng.randint(2, 4)),
                   [ids[names[rng.randrange(3)]]])
    wander, previous = 0.0, None
    for day, n in zip(days, counts, strict=True):
        for _ in range((day - previous).days if previous else 1):  # it wanders on in gaps
            wander = shape.rho * wander + math.sqrt(1 - shape.rho ** 2) * rng.gauss(0, shape.sd)
        previous = day
        had = [name for name in names if rng.random() < shares[name]]
        if burst:
            had += [name for name, share in zip(burst.names, burst.shares, strict=True)
                    if day == begins[name] or (day > begins[name] and rng.random() < share)]
        level = shape.level + wander + sum(effects.get(name, 0.0) for name in had)
        if burst and day >= shift_from:
            level += burst.shift
        writer.day(day, n, level, [ids[name] for name in had])
    writer.write()
    return {"names": names, "shares": shares, "first": days[0], "last": days[-1],
            "days": len(days) + len(shape.early), "begins": begins, "shift_from": shift_from}


class _DayWriter:
    """Entries and their activities gathered in memory and written in two statements (the
    triggers keep the per-day counts); ids given here, after the table's largest."""

    def __init__(self, conn, user_id: int, rng: random.Random) -> None:
        self.conn, self.user_id, self.rng = conn, user_id, rng
        self.known = conn.execute("SELECT coalesce(max(id), 0) FROM entries").fetchone()[0]
        self.entries: list[tuple] = []
        self.links: list[tuple[int, int]] = []

    def day(self, day: date, n: int, level: float, activity_ids: list[int]) -> None:
        """`n` entries on `day` around `level`; each activity on one entry, now and then two."""
        rng, ids = self.rng, []
        for slot in range(n):
            mood = min(5, max(1, round(level + rng.gauss(0, 0.5))))
            minute = 7 * 60 + slot * (16 * 60 // n) + rng.randrange(30)
            at_ms = (day.toordinal() - EPOCH) * 86_400_000 + minute * 60_000
            ids.append(self.known + len(self.entries) + 1)
            self.entries.append((ids[-1], self.user_id, at_ms, day.isoformat(), minute, mood))
        for aid in activity_ids:
            self.links += [(entry, aid) for entry in rng.sample(ids, min(n, 1 + (
                rng.random() < 0.3)))]

    def write(self) -> None:
        self.conn.commit()
        self.conn.execute("BEGIN")
        self.conn.executemany(
            "INSERT INTO entries (id, user_id, occurred_at, utc_offset_s, local_date,"
            " local_minute, mood, source, created_at, updated_at)"
            " VALUES (?, ?, ?, 0, ?, ?, ?, 'test', 0, 0)", self.entries)
        self.conn.executemany("INSERT INTO entry_activities (entry_id, activity_id)"
                              " VALUES (?, ?)", self.links)
        index_notes(self.conn, self.known)
        self.conn.commit()
