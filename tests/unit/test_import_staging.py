"""An import in short steps (issue #22.2): rows are staged while the file is read, published
in short transactions, at most one import per user at a time, and a run that stopped half-way
is finished (publishing) or dropped (still staging) — the journal ends up with every row of
the file exactly once, or none."""

from __future__ import annotations

import json
import random
import sqlite3
from zoneinfo import ZoneInfo

import pytest

from kmood_lib.portability import importer, publishing, runs, staging
from kmood_lib.portability.daylio.plan import DaylioFormatError, Limits
from kmood_lib.portability.json_stream import Document
from kmood_lib.worker import maintenance
from tests.fakes import NOW_MS, FakeClock
from tests.unit.test_daylio_csv import NEWEST, csv_bytes, journal, run

BERLIN = ZoneInfo("Europe/Berlin")


@pytest.fixture
def ann(make_user, conn):
    make_user("ann", timezone="Europe/Berlin")
    return conn.execute("SELECT id FROM users WHERE username = 'ann'").fetchone()[0]


def history(rows: int, seed: int = 1) -> bytes:
    """`rows` entries, several in some minutes, identical twins among them."""
    rng = random.Random(seed)
    lines = []
    for i in range(rows):
        day = f"2023-{1 + i // 600 % 12:02d}-{1 + i // 20 % 28:02d}"
        minute = f"{8 + i % 12}:{(i // 3) % 60:02d}" if i % 7 else "9:00"
        lines.append(f"{day},,,{minute},{rng.choice(['good', 'meh', 'bad'])},walk | tea,,,"
                     f"{'same' if i % 5 == 0 else f'note {i}'}")
    return csv_bytes(NEWEST, *lines)


def staged(conn) -> tuple[int, int]:
    return (conn.execute("SELECT count(*) FROM import_runs").fetchone()[0],
            conn.execute("SELECT count(*) FROM import_rows").fetchone()[0])


class Stop(Exception):
    pass


def stop_after(batches: int):
    seen = []

    def progress(done: int, total: int) -> None:
        seen.append(done)
        if len(seen) == batches:
            raise Stop  # the process dies here, half-way through publishing

    return progress


def test_a_file_is_published_in_batches_and_leaves_no_staging(conn, ann, clock):
    done = []
    report = importer.import_file(conn, ann, BERLIN, history(1200), {}, clock,
                                  progress=lambda d, t: done.append((d, t)))
    assert report["imported"] + report["duplicates"] == 1200
    assert len(done) >= 1200 // staging.PUBLISH_BATCH and done[-1] == (1200, 1200)
    assert staged(conn) == (0, 0)
    assert len(journal(conn, ann)) == report["imported"]


def test_batches_cut_through_a_minute_still_count_twins_once(conn, ann):
    """300 twins in one minute already there (another export's: other keys), 400 in the file
    (more than a batch): the first 300 of the file are they, 100 are new — also when a batch
    boundary cuts the minute in two and the first batch's rows are already published."""
    assert run(conn, ann, csv_bytes(NEWEST, *["2024-01-01,,,9:00 AM,good,,,,twin"] * 300)
               )["imported"] == 300
    rows = ["2024-01-01,,,9:00,good,,,,twin"] * 400
    dry = run(conn, ann, csv_bytes(NEWEST, *rows), dry_run=True)
    report = run(conn, ann, csv_bytes(NEWEST, *rows))
    assert (dry["imported"], dry["duplicates"]) == (report["imported"], report["duplicates"]) \
        == (100, 300)
    assert len(journal(conn, ann)) == 400
    again = run(conn, ann, csv_bytes(NEWEST, *rows))
    assert (again["imported"], again["duplicates"]) == (0, 400)


def test_a_dry_run_counts_like_the_import_and_leaves_nothing_staged(conn, ann, clock):
    data = history(900)
    dry = importer.import_file(conn, ann, BERLIN, data, {}, clock, dry_run=True)
    assert staged(conn) == (0, 0) and journal(conn, ann) == []
    real = importer.import_file(conn, ann, BERLIN, data, {}, clock)
    assert (dry["imported"], dry["duplicates"]) == (real["imported"], real["duplicates"])


def test_a_file_refused_half_way_through_leaves_nothing(conn, ann, clock):
    rows = [f"2024-01-{1 + i % 28:02d},,,9:{i % 60:02d},good,,,,n{i}" for i in range(2500)]
    with pytest.raises(DaylioFormatError, match="more than 2000 entries"):
        importer.import_file(conn, ann, BERLIN, csv_bytes(NEWEST, *rows), {}, clock,
                             limits=Limits(max_rows=2000))
    rows[2400] = "2024-01-01,,,9:00,no such mood,,,,x"
    with pytest.raises(importer.ImportRefused):
        importer.import_file(conn, ann, BERLIN, csv_bytes(NEWEST, *rows), {}, clock)
    assert staged(conn) == (0, 0) and journal(conn, ann) == []


def test_one_import_per_user_at_a_time(conn, ann, make_user, client_for, clock):
    bob = client_for("bob")
    run_ = runs.begin(conn, ann, clock, lambda run: None)
    with pytest.raises(runs.ImportRunning):
        importer.import_file(conn, ann, BERLIN, history(10), {}, clock)
    assert journal(conn, ann) == []
    from tests.helpers import multipart
    body, content_type = multipart({}, {"file": history(10)})
    assert bob.request("POST", "/api/import/daylio", body=body,
                       content_type=content_type).status == 200  # others are not held up
    runs.drop(conn, run_.id, clock)
    assert importer.import_file(conn, ann, BERLIN, history(10), {}, clock)["imported"] > 0


def test_the_api_answers_409_while_an_import_of_yours_runs(conn, client_for, clock):
    alice = client_for("alice")
    user_id = conn.execute("SELECT id FROM users WHERE username = 'alice'").fetchone()[0]
    runs.begin(conn, user_id, clock, lambda run: None)
    from tests.helpers import multipart
    body, content_type = multipart({}, {"file": history(10)})
    response = alice.request("POST", "/api/import/daylio", body=body, content_type=content_type)
    assert response.status == 409 and "already running" in response.json["error"]["message"]


def test_a_run_that_stopped_while_publishing_is_finished_by_the_worker(conn, ann, services,
                                                                      clock):
    data = history(1500)
    expected = importer.import_file(conn, ann, BERLIN, data, {}, clock, dry_run=True)
    with pytest.raises(Stop):
        importer.import_file(conn, ann, BERLIN, data, {}, clock, progress=stop_after(2))
    part = len(journal(conn, ann))
    assert 0 < part < expected["imported"] and staged(conn)[0] == 1
    assert not maintenance.recover_imports(services, conn, clock.now_ms())  # lease still runs
    clock.advance(services.config.import_lease_s + 1)
    assert maintenance.recover_imports(services, conn, clock.now_ms())
    assert len(journal(conn, ann)) == expected["imported"] and staged(conn) == (0, 0)
    again = importer.import_file(conn, ann, BERLIN, data, {}, clock)
    assert again["imported"] == 0


def test_a_run_that_stopped_while_publishing_is_finished_by_the_next_import(conn, ann, clock,
                                                                           services):
    data = history(1500)
    with pytest.raises(Stop):
        importer.import_file(conn, ann, BERLIN, data, {}, clock, progress=stop_after(1))
    with pytest.raises(runs.ImportRunning):
        importer.import_file(conn, ann, BERLIN, data, {}, clock)
    clock.advance(services.config.import_lease_s + 1)
    report = importer.import_file(conn, ann, BERLIN, data, {}, clock)
    assert report["imported"] == 0  # the first run was finished first: all of it is there
    assert staged(conn) == (0, 0)
    assert importer.import_file(conn, ann, BERLIN, data, {}, clock, dry_run=True
                                )["duplicates"] == 1500  # every row of the file is there


def test_a_run_that_stopped_while_reading_is_dropped(conn, ann, clock, services):
    run_ = runs.begin(conn, ann, clock, lambda run: None)
    staging.stage(conn, run_, [(f"k{i}", "2024-01-01", 540, 0, 4, "", "{}") for i in range(3000)])
    assert staged(conn) == (1, 3000)
    clock.advance(services.config.import_lease_s + 1)
    assert maintenance.recover_imports(services, conn, clock.now_ms())
    assert staged(conn) == (0, 0) and journal(conn, ann) == []


def random_json(rng: random.Random, depth: int = 0):
    kind = rng.randrange(8 if depth < 4 else 4)
    if kind == 0:
        return rng.choice([None, True, False])
    if kind == 1:
        return rng.choice([0, -3, 12.5, 1e300, -0.0, 10 ** 20])
    if kind in (2, 3):
        return "".join(rng.choice('ab"\\/[]{},: \n\té😀\u2028') for _ in range(rng.randrange(6)))
    if kind in (4, 5):
        return [random_json(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {random_json(rng, 9) if rng.random() < 0.9 else "k": random_json(rng, depth + 1)
            for _ in range(rng.randrange(4))}


def test_the_streamed_document_reads_what_json_loads_reads():
    rng = random.Random(5)
    for _ in range(400):
        document = {str(k): random_json(rng) for k in range(rng.randrange(4))}
        document["items"] = [random_json(rng) for _ in range(rng.randrange(6))]
        text = json.dumps(document, ensure_ascii=rng.random() < 0.5,
                          indent=rng.choice([None, 1, "\t"]))
        streamed = Document(text.encode(), "the file", "items")
        items = [item for _, item in streamed.items()]
        whole = json.loads(text)
        assert (streamed.values, items) == ({k: v for k, v in whole.items() if k != "items"},
                                            whole["items"]), text


@pytest.mark.parametrize("text, message", [
    (b"", "valid JSON"), (b"[1]", "not an object"), (b'{"items": [1, 2', "valid JSON"),
    (b'{"items": [1 2]}', "not followed by"), (b'{"a": 1} x', "extra data"),
    (b'{"a": [1,]}', "valid JSON"), (b'{"a" 1}', "no :"), (b'{"a": "\xff"}', "UTF-8"),
    (b'{"items": [' + b"[" * 300 + b"]" * 300 + b"]}", "nested too deeply"),
    (b'{"a": ' + b"[" * 100_000 + b"}", "nested too deeply"),
    (b'{"items": [{"a": 1}, {"b": }]}', "valid JSON"),
])
def test_a_streamed_document_refuses_what_json_refuses(text, message):
    with pytest.raises(DaylioFormatError, match=message):
        document = Document(text, "the file", "items")
        list(document.items())


def export_with_labels(entries: int) -> bytes:
    return json.dumps({"format": "k-mood", "version": 1, "moods": {"4": "great"},
                       "entries": [{"id": i, "occurred_at": f"2024-0{1 + i % 9}-{1 + i % 28:02d}"
                                    f"T{i % 24:02d}:{i % 60:02d}:00+01:00", "mood": 4,
                                    "note": f"n{i}", "activities": ["walk"]}
                                   for i in range(entries)]}).encode()


def test_a_stalled_export_import_is_finished_with_its_mood_labels(conn, ann, services, clock):
    """The labels an export carries come back also when another process finishes the run
    (they were keyed by level as text after the run's plan went through JSON)."""
    with pytest.raises(Stop):
        importer.import_file(conn, ann, BERLIN, export_with_labels(600), {}, clock,
                             progress=stop_after(1))
    clock.advance(services.config.import_lease_s + 1)
    assert maintenance.recover_imports(services, conn, clock.now_ms())
    assert len(journal(conn, ann)) == 600 and staged(conn) == (0, 0)
    assert conn.execute("SELECT label FROM mood_labels WHERE user_id = ? AND level = 4",
                        (ann,)).fetchone()[0] == "great"


def test_a_minute_cut_by_a_batch_counts_the_same_when_another_process_finishes(conn, ann,
                                                                              services, clock):
    rows = ["2024-01-01,,,9:00,good,,,,"] * 400
    with pytest.raises(Stop):
        importer.import_file(conn, ann, BERLIN, csv_bytes(NEWEST, *rows), {}, clock,
                             progress=stop_after(1))
    assert len(journal(conn, ann)) == staging.PUBLISH_BATCH
    clock.advance(services.config.import_lease_s + 1)
    assert maintenance.recover_imports(services, conn, clock.now_ms())
    assert len(journal(conn, ann)) == 400


def test_a_publisher_whose_run_was_taken_over_stops_without_writing(conn, ann, clock):
    run_ = runs.begin(conn, ann, clock, lambda run: None)
    staging.stage(conn, run_, [(f"k{i}", "2024-01-01", 540 + i, 0, 4, "", json.dumps({
        "where": f"line {i}", "at": 0, "offset": 0, "label": None, "activities": [],
        "title": "", "time_known": True, "location": None, "song": None, "metrics": [],
        "source": "daylio", "weather": None})) for i in range(300)])
    conn.execute("UPDATE import_runs SET owner = 'someone else'")
    with pytest.raises(runs.RunLost):
        publishing.publish(conn, run_, {"metrics": {}}, [])
    assert journal(conn, ann) == [] and staged(conn) == (1, 300)


def test_the_streamed_document_bounds_every_other_piece():
    big = b'{"tags": [' + b",".join([b"[]"] * 400_000) + b'], "items": []}'
    with pytest.raises(DaylioFormatError, match="'tags' holds more than 1024 KiB"):
        Document(big, "the file", "items")
    with pytest.raises(DaylioFormatError, match="not an object"):
        Document(b"[" + b"[]," * 400_000 + b"[]]", "the file", "items")
    with pytest.raises(DaylioFormatError, match="names 'items' twice"):
        Document(b'{"items": [1, }, "items": [2]}', "the file", "items")
    counted = []

    def enough(n: int) -> None:
        counted.append(n)
        if n > 5000:
            raise DaylioFormatError("too many")

    with pytest.raises(DaylioFormatError, match="too many"):
        Document(b'{"items": [' + b",".join([b'{"a": 1}'] * 100_000) + b"]}", "the file",
                 "items", check_items=enough)
    assert max(counted) < 10_000  # refused while counting, not after


class Stopwatch:
    """A monotonic clock that moves only when told to (or when the pacer sleeps)."""

    def __init__(self):
        self.now, self.slept = 100.0, []

    def sleep(self, seconds: float) -> None:
        self.slept.append(round(seconds, 6))
        self.now += seconds


def test_between_its_transactions_an_import_leaves_the_database_alone_as_long_as_it_held_it():
    """Other writers get a turn as long as the last batch took (at most MAX_PAUSE_S); work the
    import did outside its transactions in between (reading, decoding) counts towards it."""
    watch = Stopwatch()
    pacer = runs.Pacer(lambda: watch.now, watch.sleep)
    with pacer.turn():
        watch.now += 0.040  # a batch held the database for 40 ms
    with pacer.turn():  # nothing done outside it since: the whole 40 ms is slept
        watch.now += 0.030
    watch.now += 0.010  # 10 ms decoding the next batch: 20 ms of the 30 are still owed
    with pacer.turn():
        watch.now += 0.5  # a long one (the disk was busy)
    watch.now += 0.2  # reading the file took longer than the turn owed
    with pacer.turn():
        watch.now += 0.001
    with pacer.turn():
        pass
    assert watch.slept == [0.04, 0.02, runs.MIN_PAUSE_S]
    pacer = runs.Pacer(lambda: watch.now, watch.sleep)
    with pacer.turn():
        watch.now += 0.5
    with pacer.turn():
        pass
    assert watch.slept[-1] == runs.MAX_PAUSE_S


def test_a_run_leaves_its_lease_and_its_pauses_on_the_clock_it_was_given(conn, ann, clock):
    """No real time leaks into a run: the turns it leaves other writers between batches are
    waited on its clock (a test waits none of them), and the lease it last renewed ends
    exactly the lease after that clock's now, so moving the clock past it expires it."""
    with pytest.raises(Stop):
        importer.import_file(conn, ann, BERLIN, history(1500), {}, clock, progress=stop_after(2))
    assert clock.now_ms() > NOW_MS  # the turns it left other writers moved the clock
    assert conn.execute("SELECT lease_until FROM import_runs").fetchone()[0] \
        == clock.now_ms() + runs.LEASE_MS


class BusyUntil(FakeClock):
    """A fake clock on which another writer holding the database lets go after `waits`."""

    def __init__(self, other: sqlite3.Connection, waits: int):
        super().__init__()
        self.other, self.waits, self.waited = other, waits, []

    def sleep(self, seconds: float) -> None:
        super().sleep(seconds)
        self.waited.append(seconds)
        if len(self.waited) == self.waits:
            self.other.execute("ROLLBACK")


def test_a_batch_that_waited_out_the_busy_timeout_is_tried_again_after_pauses_on_the_clock(
        conn, ann, db_path):
    """Another writer (a backup, a burst of saves) holding the database past the busy timeout
    does not end an import: the batch is tried again after pauses its run's clock waits
    (0.25 s, then 0.5 s), so a test moves the clock instead of waiting them."""
    other = sqlite3.connect(db_path, isolation_level=None)
    clock = BusyUntil(other, waits=2)
    run_ = runs.begin(conn, ann, clock, lambda run: None)
    other.execute("BEGIN IMMEDIATE")
    conn.execute("PRAGMA busy_timeout = 20")
    assert staging.stage(conn, run_, [("k1", "2024-01-01", 540, 0, 4, "", "{}")]) == (1, 0)
    other.close()
    assert clock.waited == [runs.BUSY_PAUSE_S, 2 * runs.BUSY_PAUSE_S]
    assert clock.now_ms() == NOW_MS + 750 and staged(conn) == (1, 1)
