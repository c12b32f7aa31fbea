"""Two processes migrating one file at the same instant must both come up: a fresh file, and an
existing database with a pending migration, where both would read schema_migrations before
either writes unless the runner takes the write lock before it reads."""

import hashlib
import multiprocessing
import shutil
import sqlite3
import time
from pathlib import Path

import pytest

from kmood_lib.core import db, migrate
from kmood_lib.core.db import transaction

FRESH_ROUNDS = 20
PENDING_ROUNDS = 5
PENDING_SQL = ("CREATE TABLE race_marks (id INTEGER PRIMARY KEY, note TEXT NOT NULL);\n"
               "INSERT INTO race_marks (note) VALUES ('applied once');\n")
FIRST_WRITE = "CREATE TABLE race_marks"
COLLISION = ("database is locked", "UNIQUE constraint failed", "already exists")


def pending_migration(landed: list[migrate.Migration]) -> migrate.Migration:
    """One more migration than this build ships, as a test migrations list holds it."""
    return migrate.Migration(landed[-1].version + 1, "race_marks", PENDING_SQL,
                             hashlib.sha256(PENDING_SQL.encode()).hexdigest())


def migrate_with_the_runner(conn, migrations):
    return migrate.run(conn, migrations, lambda: 1)


def migrate_under_a_deferred_begin(conn, migrations):
    """The control: the runner's own steps under a plain BEGIN, which takes the write lock only
    at the first write, after schema_migrations was read."""
    with transaction(conn, immediate=False):
        return migrate.apply_pending(conn, migrations, lambda: 1)


def write_lock_taken(probe: sqlite3.Connection) -> bool:
    try:
        probe.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError:
        return True
    probe.execute("ROLLBACK")
    return False


def hold_at_first_write(path: str, me: int, deadline_s: float = 30):
    """A trace callback holding this process at the pending migration's first write until the
    other process has read schema_migrations too (it got that far), or until the write lock is
    taken: with both past their reads, only a runner that took it before reading can hold it
    while the other has not got there, and then the other waits for it, so going on is safe."""
    mine, theirs = Path(f"{path}.read-{me}"), Path(f"{path}.read-{1 - me}")

    def on_statement(sql: str) -> None:
        if not sql.startswith(FIRST_WRITE):
            return
        mine.touch()
        probe = sqlite3.connect(path, timeout=0, isolation_level=None)
        deadline = time.monotonic() + deadline_s  # generous: never reached in a sound race
        while not theirs.exists() and not write_lock_taken(probe) \
                and time.monotonic() < deadline:
            time.sleep(0.002)
        probe.close()

    return on_statement


def race_rounds(paths, me, barrier, results, runner, migrations):
    """One racing process: each round, wait for the other, open the file, migrate, report."""
    for path in paths:
        barrier.wait(60)
        try:
            conn = db.connect(path, 10_000)  # on a fresh file the WAL switch races here too
            conn.set_trace_callback(hold_at_first_write(path, me))
            try:
                outcome = runner(conn, migrations)
            finally:
                conn.close()
        except Exception as exc:  # reported to the parent, which judges the round
            outcome = f"{type(exc).__name__}: {exc}"
        results.put((path, outcome))


def race(paths: list[str], runner, migrations) -> list[list]:
    """Two spawned processes race on each path in turn; each round's two outcomes: lists of
    versions applied, shortest first, then errors."""
    ctx = multiprocessing.get_context("spawn")
    barrier, results = ctx.Barrier(2), ctx.Queue()
    procs = [ctx.Process(target=race_rounds,
                         args=(paths, me, barrier, results, runner, migrations))
             for me in (0, 1)]
    for proc in procs:
        proc.start()
    reported = [results.get(timeout=120) for _ in range(2 * len(paths))]
    for proc in procs:
        proc.join(60)
        assert proc.exitcode == 0, "a racing process died instead of reporting"
    return [sorted((o for p, o in reported if p == path),
                   key=lambda o: (isinstance(o, str), len(repr(o)))) for path in paths]


@pytest.fixture
def existing_copies(tmp_path) -> list[str]:
    """Databases at this build's schema, copies of one migrated once."""
    template = tmp_path / "template.db"
    conn = db.connect(str(template), 10_000)
    migrate.run(conn, migrate.load_migrations(), lambda: 1)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    paths = [str(tmp_path / f"race{i}.db") for i in range(PENDING_ROUNDS)]
    for path in paths:
        shutil.copyfile(template, path)
    return paths


def test_two_processes_migrating_a_fresh_file_at_once_both_succeed(tmp_path):
    migrations = migrate.load_migrations()
    paths = [str(tmp_path / f"fresh{i}.db") for i in range(FRESH_ROUNDS)]
    versions = [m.version for m in migrations]
    outcomes = race(paths, migrate_with_the_runner, migrations)
    assert outcomes == [[[], versions]] * FRESH_ROUNDS
    conn = db.connect(paths[0], 1000)
    count = conn.execute("SELECT count(*) FROM schema_migrations").fetchone()[0]
    assert count == len(migrations)


def test_two_processes_applying_a_pending_migration_to_an_existing_database_both_come_up(
        existing_copies):
    landed = migrate.load_migrations()
    pending = pending_migration(landed)
    outcomes = race(existing_copies, migrate_with_the_runner, [*landed, pending])
    assert outcomes == [[[], [pending.version]]] * PENDING_ROUNDS
    for path in existing_copies:
        conn = db.connect(path, 1000)
        assert conn.execute("SELECT count(*) FROM race_marks").fetchone()[0] == 1
        versions = [r[0] for r in conn.execute("SELECT version FROM schema_migrations")]
        assert versions == [m.version for m in landed] + [pending.version]
        conn.close()


def test_control_the_same_steps_under_a_deferred_begin_collide_every_time(existing_copies):
    """Both read that the migration is pending before either writes; the second to write
    fails (SQLITE_BUSY_SNAPSHOT, or SQLITE_BUSY while the first holds the lock)."""
    landed = migrate.load_migrations()
    pending = pending_migration(landed)
    outcomes = race(existing_copies, migrate_under_a_deferred_begin, [*landed, pending])
    for applied, refused in outcomes:
        assert applied == [pending.version], outcomes
        assert isinstance(refused, str) and any(c in refused for c in COLLISION), outcomes
