import hashlib
import sqlite3

import pytest

from kmood_lib.core import db, migrate
from kmood_lib.core.migrate import MigrationError


def test_connection_uses_the_configured_busy_timeout_and_pragmas(tmp_path):
    conn = db.connect(str(tmp_path / "a.db"), 4321)
    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] == 4321
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL: a commit is on disk
    assert conn.execute("PRAGMA temp_store").fetchone()[0] == 2  # MEMORY: statement journals
    assert conn.isolation_level is None
    conn.execute("CREATE TABLE t (x)")
    conn.execute("INSERT INTO t VALUES (1)")
    assert not conn.in_transaction  # no implicit transaction was opened
    assert conn.execute("SELECT x FROM t").fetchone()["x"] == 1


def test_services_connections_carry_the_busy_timeout_and_synchronous_from_config(services,
                                                                                 config):
    from kmood_lib.bootstrap import bootstrap

    conn = services.connect()
    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] == services.config.busy_timeout_ms
    assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2
    with services.writer() as writer:
        assert writer.execute("PRAGMA busy_timeout").fetchone()[0] == 10000
        assert writer.execute("PRAGMA synchronous").fetchone()[0] == 2
    faster = bootstrap(config.with_overrides(synchronous="NORMAL"))
    assert faster.connect().execute("PRAGMA synchronous").fetchone()[0] == 1
    with faster.writer() as writer:
        assert writer.execute("PRAGMA synchronous").fetchone()[0] == 1


def test_transaction_rolls_back_on_error(tmp_path):
    conn = db.connect(str(tmp_path / "a.db"), 1000)
    conn.execute("CREATE TABLE t (x)")
    with pytest.raises(RuntimeError):
        with db.transaction(conn):
            conn.execute("INSERT INTO t VALUES (1)")
            raise RuntimeError("boom")
    assert conn.execute("SELECT count(*) FROM t").fetchone()[0] == 0


def write_migrations(directory, files: dict[str, str]):
    directory.mkdir(exist_ok=True)
    for name, text in files.items():
        (directory / name).write_text(text)
    return migrate.load_migrations(directory)


def tables(conn):
    return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def now():
    return 1


def test_a_failing_statement_in_the_middle_leaves_no_trace(tmp_path):
    conn = db.connect(str(tmp_path / "a.db"), 1000)
    migrations = write_migrations(tmp_path / "m", {
        "0001_first.sql": "CREATE TABLE one (x);\n",
        "0002_broken.sql": "CREATE TABLE two (x);\nINSERT INTO nowhere VALUES (1);\n"
                           "CREATE TABLE three (x);\n",
    })
    with pytest.raises(MigrationError, match="0002_broken.sql"):
        migrate.run(conn, migrations, now)
    assert tables(conn) == set()  # not even one, nor schema_migrations: the whole run rolled back
    assert not conn.in_transaction


def test_migrations_apply_once_and_record_checksums(tmp_path):
    conn = db.connect(str(tmp_path / "a.db"), 1000)
    migrations = write_migrations(tmp_path / "m", {
        "0001_first.sql": "-- a comment\nCREATE TABLE one (x);\n\nCREATE TRIGGER t AFTER INSERT ON"
                          " one BEGIN\n  UPDATE one SET x = 2;\nEND;\n",
    })
    assert migrate.run(conn, migrations, now) == [1]
    assert migrate.run(conn, migrations, now) == []
    row = conn.execute("SELECT version, name, checksum FROM schema_migrations").fetchone()
    expected = hashlib.sha256((tmp_path / "m" / "0001_first.sql").read_bytes()).hexdigest()
    assert tuple(row) == (1, "first", expected)


def test_an_edited_landed_migration_is_refused_and_nothing_changes(tmp_path):
    conn = db.connect(str(tmp_path / "a.db"), 1000)
    directory = tmp_path / "m"
    migrate.run(conn, write_migrations(directory, {"0001_a.sql": "CREATE TABLE a (x);"}), now)
    edited = write_migrations(directory, {"0001_a.sql": "CREATE TABLE a (x, y);",
                                          "0002_b.sql": "CREATE TABLE b (x);"})
    with pytest.raises(MigrationError, match="0001_a.sql was edited"):
        migrate.run(conn, edited, now)
    assert tables(conn) == {"a", "schema_migrations"}


def test_a_database_newer_than_the_build_is_refused(tmp_path):
    conn = db.connect(str(tmp_path / "a.db"), 1000)
    directory = tmp_path / "m"
    migrate.run(conn, write_migrations(directory, {"0001_a.sql": "CREATE TABLE a (x);",
                                                   "0002_b.sql": "CREATE TABLE b (x);"}), now)
    (directory / "0002_b.sql").unlink()
    with pytest.raises(MigrationError, match="0002.*does not know"):
        migrate.run(conn, migrate.load_migrations(directory), now)


@pytest.mark.parametrize("text", ["BEGIN;\nCREATE TABLE a (x);\nCOMMIT;",
                                  "PRAGMA foreign_keys = OFF;", "CREATE TABLE a (x)"])
def test_migration_files_hold_complete_plain_statements_only(tmp_path, text):
    migrations = write_migrations(tmp_path / "m", {"0001_a.sql": text})
    conn = db.connect(str(tmp_path / "a.db"), 1000)
    with pytest.raises(MigrationError):
        migrate.run(conn, migrations, now)
    assert tables(conn) == set()


def test_stray_migration_file_names_are_refused(tmp_path):
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "1_a.sql").write_text("CREATE TABLE a (x);")
    with pytest.raises(MigrationError, match="NNNN_name.sql"):
        migrate.load_migrations(tmp_path / "m")


def test_the_shipped_migrations_apply_to_a_fresh_database(conn):
    assert {"users", "jobs", "schema_migrations"} <= tables(conn)
    versions = [r[0] for r in conn.execute("SELECT version FROM schema_migrations ORDER BY 1")]
    assert versions == [m.version for m in migrate.load_migrations()]


def test_per_thread_pool_gives_each_thread_its_own_connection(tmp_path):
    import threading

    pool = db.ConnectionPerThread(lambda: db.connect(str(tmp_path / "a.db"), 1000))
    seen = []
    threads = [threading.Thread(target=lambda: seen.append(id(pool.get()))) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(seen)) == 3
    assert pool.get() is pool.get()
    pool.close_all()
    with pytest.raises(sqlite3.ProgrammingError):
        pool.get().execute("SELECT 1")


def test_connections_of_one_process_share_a_writer_lock_held_for_the_transaction(services):
    first, second = services.connect(), services.connect()
    assert first.write_lock is second.write_lock is not None
    with db.transaction(first):
        assert first.write_lock.locked()
    assert not first.write_lock.locked()
    with db.transaction(first, immediate=False):  # read transactions never queue on it
        assert not first.write_lock.locked()


def test_saves_leave_the_wal_to_the_worker_which_checkpoints_it(services, conn):
    """The server's connections do not copy the WAL back on commit (that fsync would stall a
    save while it holds the write lock); the worker's checkpoint step does."""
    import sqlite3

    from kmood_lib.accounts.users import create_user
    from tests.helpers import one_worker_iteration

    assert conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 10000
    for i in range(20):
        create_user(conn, f"user{i}", "long enough", now_ms=0, hasher=services.hasher)

    def users_in_main_file() -> int:  # immutable=1 reads the database file alone, not the WAL
        raw = sqlite3.connect(f"file:{services.config.db_path}?immutable=1", uri=True)
        try:
            return raw.execute("SELECT count(*) FROM users").fetchone()[0]
        finally:
            raw.close()

    assert users_in_main_file() == 0
    one_worker_iteration(services)
    assert users_in_main_file() == 20


def test_the_idle_worker_cuts_the_wal_back_and_every_connection_limits_it(services, conn):
    """10 000 creates once grew a 41 MB WAL that stayed 41 MB while idle (issue #9, defect 11)."""
    import os

    from kmood_lib.worker.context import close_worker, open_worker
    from kmood_lib.worker.loop import run_once

    wal = services.config.db_path + "-wal"
    assert conn.execute("PRAGMA journal_size_limit").fetchone()[0] == 4194304
    conn.execute("CREATE TABLE filler (x BLOB)")
    for _ in range(200):
        conn.execute("INSERT INTO filler VALUES (randomblob(50000))")
    assert os.path.getsize(wal) > 8_000_000
    worker = open_worker(services)
    try:
        run_once(worker, services.clock.now_ms())  # the checkpoint, its last step, copies
        # even the iteration's own heartbeats
        assert os.path.getsize(wal) == 0
    finally:
        close_worker(worker)
    assert conn.execute("SELECT count(*) FROM filler").fetchone()[0] == 200


@pytest.mark.parametrize("mode, copied, truncated", [
    ("truncate", True, True),  # copied back, and the idle WAL cut to zero
    ("passive", True, False),  # copied back; the WAL file keeps its frames
    ("off", False, False),  # untouched: Litestream owns the checkpoints while it replicates
])
def test_the_checkpoint_mode_decides_what_the_worker_does_with_the_wal(config, clock, mode,
                                                                       copied, truncated):
    import os

    from kmood_lib.bootstrap import bootstrap
    from kmood_lib.worker.context import close_worker, open_worker
    from kmood_lib.worker.loop import run_once

    services = bootstrap(config.with_overrides(checkpoint_mode=mode), clock=clock)
    conn = services.connect()
    wal = services.config.db_path + "-wal"

    def filler_in_main_file() -> bool:  # immutable=1 reads the database file alone, not the WAL
        raw = sqlite3.connect(f"file:{services.config.db_path}?immutable=1", uri=True)
        try:
            return raw.execute("SELECT count(*) FROM sqlite_schema WHERE name = 'filler'"
                               ).fetchone()[0] == 1
        finally:
            raw.close()

    try:
        conn.execute("CREATE TABLE filler (x BLOB)")
        for _ in range(20):
            conn.execute("INSERT INTO filler VALUES (randomblob(50000))")
        assert not filler_in_main_file() and os.path.getsize(wal) > 1_000_000
        worker = open_worker(services)
        try:
            run_once(worker, clock.now_ms())  # the checkpoint is its last step
            assert filler_in_main_file() is copied
            assert (os.path.getsize(wal) == 0) is truncated
        finally:
            close_worker(worker)
        assert conn.execute("SELECT count(*) FROM filler").fetchone()[0] == 20
    finally:
        conn.close()
        services.hasher.close()


def test_the_shared_write_connection_refuses_any_use_without_the_write_lock(services):
    """One write connection per process, for every thread, but only inside services.writer():
    a thread that kept it, or reached it otherwise, fails loudly instead of racing."""
    import threading

    import pytest

    with services.writer() as writer:
        writer.execute("CREATE TABLE IF NOT EXISTS t (x)")
        with db.transaction(writer):  # its transactions take no second lock (no deadlock)
            writer.execute("INSERT INTO t VALUES (1)")
        assert writer.execute("SELECT count(*) FROM t").fetchone()[0] == 1
        kept = writer
        errors = []

        def elsewhere():  # another thread while this one holds the lock
            try:
                kept.execute("SELECT 1")
            except db.WriteLockNotHeld as exc:
                errors.append(exc)

        thread = threading.Thread(target=elsewhere)
        thread.start()
        thread.join(30)
        assert len(errors) == 1
    with pytest.raises(db.WriteLockNotHeld, match="without holding the process write lock"):
        kept.execute("INSERT INTO t VALUES (2)")
    with pytest.raises(db.WriteLockNotHeld):
        kept.cursor()

    def other_thread_writer():
        with services.writer() as same:
            assert same is kept  # the same connection, from any thread
            same.execute("INSERT INTO t VALUES (3)")

    thread = threading.Thread(target=other_thread_writer)
    thread.start()
    thread.join(30)
    with services.writer() as writer:
        assert [r[0] for r in writer.execute("SELECT x FROM t ORDER BY x")] == [1, 3]
    services.close_writer()


def test_the_page_cache_is_set_explicitly_from_the_configuration(env, tmp_path):
    from kmood_lib.bootstrap import bootstrap
    from kmood_lib.core.config import Config

    services = bootstrap(Config.from_env({**env, "KMOOD_SQLITE_CACHE_BYTES": "1048576"}))
    conn = services.connect()
    try:
        assert conn.execute("PRAGMA cache_size").fetchone()[0] == -1024  # KiB
        with services.writer() as writer:
            assert writer.execute("PRAGMA cache_size").fetchone()[0] == -1024
    finally:
        conn.close()
        services.close_writer()
        services.hasher.close()
