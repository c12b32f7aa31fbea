"""Import benchmark: a synthetic 10-year Daylio CSV (about 11 000 rows, 3 a day, 20
activities, HTML notes, newest first) imported through the real importer into a fresh
database, beside the floor — the csv module parsing the same file plus one executemany of its
rows into a bare table in one transaction. Prints both (each the best of three fresh runs), the
ratio (target: at most 15x the floor), rows per second, and the export time of the same journal
as JSON and CSV."""

from __future__ import annotations

import csv
import io
import random
import sqlite3
import sys
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

sys.path[0] = str(Path(__file__).resolve().parent.parent)  # not bench/: bench/queue.py shadows stdlib queue

from kmood_lib.accounts import users  # noqa: E402
from kmood_lib.bootstrap import bootstrap  # noqa: E402
from kmood_lib.core.config import Config  # noqa: E402
from kmood_lib.portability import export, importer  # noqa: E402
from tests.helpers import base_env  # noqa: E402

YEARS, PER_DAY, ACTIVITIES = 10, 3, 20
TARGET_RATIO = 15
RUNS = 3  # each side's best of three fresh runs: this machine's timings vary by a third
HEADER = "full_date,date,weekday,time,mood,activities,scales,note_title,note"
MOODS = ["awful", "bad", "meh", "good", "rad"]


def synthetic_csv() -> bytes:
    rng = random.Random(7)
    names = [f"activity {i}" for i in range(ACTIVITIES)]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(HEADER.split(","))
    last = date(2026, 11, 30)
    for offset in range(YEARS * 365 + 2):
        day = last - timedelta(days=offset)
        for slot in range(PER_DAY):
            hour = 20 - slot * 6 + rng.randrange(3)
            time_text = (f"{hour}:{rng.randrange(60):02d}" if rng.random() < 0.5 else
                         f"{(hour - 1) % 12 + 1}:{rng.randrange(60):02d} {'PM' if hour >= 12 else 'AM'}")
            chosen = rng.sample(names, rng.randrange(0, 5))
            note = "" if rng.random() < 0.3 else (
                f"Day {offset} slot {slot}<br>with <b>some</b> words &amp; more")
            writer.writerow([day.isoformat(), day.strftime("%B %d"), day.strftime("%A"),
                             time_text, rng.choice(MOODS), " | ".join(chosen), "",
                             "" if rng.random() < 0.8 else "A title", note])
    return ("\ufeff" + out.getvalue()).encode("utf-8")


def floor(data: bytes, db: Path) -> float:
    started = time.perf_counter()
    rows = list(csv.reader(io.StringIO(data.decode("utf-8-sig"), newline="")))[1:]
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("CREATE TABLE bare (full_date, date, weekday, time, mood, activities, scales,"
                 " note_title, note)")
    conn.execute("BEGIN IMMEDIATE")
    conn.executemany("INSERT INTO bare VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
    conn.execute("COMMIT")
    conn.close()
    return time.perf_counter() - started


def real(data: bytes, db: Path) -> tuple[float, dict, float, float]:
    """The importer's wall time and report, then the export of the same journal (JSON, CSV)."""
    services = bootstrap(Config.from_env(base_env(db, KMOOD_LOG_LEVEL="WARNING")))
    conn = services.connect()
    user = users.create_user(conn, "bench", "bench-password", now_ms=0, hasher=services.hasher,
                             timezone="Europe/Berlin")
    started = time.perf_counter()
    report = importer.import_file(conn, user.id, ZoneInfo("Europe/Berlin"), data, {},
                                  services.clock)
    elapsed = time.perf_counter() - started
    started = time.perf_counter()
    export.export_json(conn, user.id, 0)
    as_json = time.perf_counter() - started
    started = time.perf_counter()
    export.export_csv(conn, user.id)
    as_csv = time.perf_counter() - started
    conn.close()
    services.hasher.close()
    return elapsed, report, as_json, as_csv


def main() -> list[str]:
    tmp = Path(tempfile.mkdtemp(prefix="kmood-import-"))
    data = synthetic_csv()
    base = min(floor(data, tmp / f"floor{i}.db") for i in range(RUNS))
    runs = [real(data, tmp / f"kmood{i}.db") for i in range(RUNS)]  # best of, like the floor
    ours, report, as_json, as_csv = min(runs, key=lambda r: r[0])
    rows = report["rows"]
    ratio = ours / base
    return [f"rows: {rows} ({len(data) / 1e6:.1f} MB), imported {report['imported']}",
            f"floor (csv + one executemany into a bare table): {base * 1000:.0f} ms",
            f"k-mood importer: {ours * 1000:.0f} ms, {rows / ours:,.0f} rows/s",
            f"ratio: {ratio:.1f}x the floor  ({'ok' if ratio <= TARGET_RATIO else 'OVER'}"
            f" the {TARGET_RATIO}x target)",
            f"export of the same {rows} entries: JSON {as_json * 1000:.0f} ms,"
            f" CSV {as_csv * 1000:.0f} ms"]


if __name__ == "__main__":
    print(f"Import benchmark: a {YEARS}-year Daylio CSV, {PER_DAY} entries a day,"
          f" {ACTIVITIES} activities")
    for line in main():
        print(line)
