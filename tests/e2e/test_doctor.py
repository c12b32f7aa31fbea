"""`kmood.py doctor` as a real process: a healthy deployment passes; an edited migration, a
missing worker and a read-only data directory each fail naming the check; nothing changes."""

import hashlib
import os
import shutil
import socket
import sqlite3
import threading

import pytest

from kmood_lib.core.migrate import load_migrations
from tests.fakes import FakeUpstream, Reply
from tests.helpers import base_env, run


def doctor(env, *args):
    done = run(["kmood.py", "doctor", *args], env, timeout=120)
    lines = done.stdout.splitlines()
    levels = {}
    for line in lines[:-1]:
        level, name = line.split()[:2]
        levels.setdefault(name, set()).add(level)
    return done.returncode, levels, done.stdout


def failing(levels):
    return sorted(name for name, seen in levels.items() if "fail" in seen)


@pytest.fixture
def migrate(migrated_database):
    """Puts the database as `kmood.py migrate` leaves it at an environment's KMOOD_DB: a copy
    of the one made once per test process (tests/conftest.py), not another command's run."""

    def put(env):
        shutil.copyfile(migrated_database, env["KMOOD_DB"])

    return put


def snapshot(directory):
    """Every file's name, size, mtime and content hash."""
    out = {}
    for path in sorted(directory.iterdir()):
        data = path.read_bytes()
        out[path.name] = (len(data), path.stat().st_mtime_ns, hashlib.sha256(data).hexdigest())
    return out


def test_a_healthy_deployment_passes(stack_factory, tmp_path):
    stack = stack_factory(KMOOD_BACKUP_DIR=str(tmp_path / "backups")).start()
    code, levels, out = doctor(stack.env)
    assert code == 0, out
    for name in ("config", "directory", "disk", "open", "wal", "integrity", "migrations",
                 "worker", "queue", "backups"):
        assert name in levels, (name, out)
    assert levels["worker"] == {"ok"} and levels["migrations"] == {"ok"}
    assert levels["integrity"] == {"ok"} and levels["wal"] == {"ok"}
    assert "doctor: no failures" in out
    assert stack.stop() == {"server": 0, "worker": 0}


def test_a_missing_worker_fails_the_worker_check(tmp_path, migrate):
    env = base_env(tmp_path / "kmood.db")
    migrate(env)
    code, levels, out = doctor(env)
    assert code == 1 and failing(levels) == ["worker"], out
    assert "start `python kmood_worker.py`" in out
    assert "doctor: 1 failed (worker)" in out


def test_an_edited_migration_fails_the_migrations_check_and_nothing_changes(tmp_path, migrate):
    env = base_env(tmp_path / "kmood.db")
    migrate(env)
    raw = sqlite3.connect(tmp_path / "kmood.db", isolation_level=None)
    raw.execute("UPDATE schema_migrations SET checksum = 'edited' WHERE version = 3")
    raw.close()
    before = snapshot(tmp_path)
    code, levels, out = doctor(env)
    assert code == 1 and "migrations" in failing(levels), out
    assert "0003_entries.sql changed after it was applied" in out
    after = snapshot(tmp_path)
    assert after["kmood.db"] == before["kmood.db"]  # the database file itself is untouched
    assert set(after) - set(before) <= {"kmood.db-wal", "kmood.db-shm"}  # SQLite's companions
    assert all(after[name][0] <= 32768 for name in set(after) - set(before))


def test_pending_migrations_are_reported_never_applied_and_the_journal_mode_is_kept(tmp_path, migrate):
    """An older database in rollback-journal mode: doctor reads, it neither migrates nor
    switches to WAL."""
    path = tmp_path / "kmood.db"
    env = base_env(path)
    migrate(env)
    raw = sqlite3.connect(path, isolation_level=None)
    raw.execute("PRAGMA journal_mode = DELETE")
    raw.execute("DROP TABLE workers")  # as a database from before 0013 and 0014
    raw.execute("DROP INDEX entries_user_hour")
    raw.execute("DELETE FROM schema_migrations WHERE version >= 13")
    raw.close()
    known = len(load_migrations())
    before = snapshot(tmp_path)
    code, levels, out = doctor(env)
    assert levels["migrations"] == {"warn"}, out
    assert f"12 of {known} applied; {known - 12} pending" in out, out
    assert levels["wal"] == {"warn"} and "journal mode is delete" in out
    assert snapshot(tmp_path) == before  # not even a companion file: no WAL here
    raw = sqlite3.connect(path, isolation_level=None)
    assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    assert raw.execute("SELECT max(version) FROM schema_migrations").fetchone()[0] == 12
    raw.close()


def test_a_missing_database_is_not_created(tmp_path):
    env = base_env(tmp_path / "nowhere" / "kmood.db")
    code, levels, out = doctor(env)
    assert code == 1 and "database" in failing(levels), out
    assert not (tmp_path / "nowhere").exists()


def test_a_read_only_data_directory_fails_the_directory_check(tmp_path, migrate):
    data = tmp_path / "data"
    data.mkdir()
    env = base_env(data / "kmood.db")
    migrate(env)
    data.chmod(0o555)
    try:
        code, levels, out = doctor(env)
    finally:
        data.chmod(0o755)
    assert code == 1 and "directory" in failing(levels), out
    assert "-wal and -shm" in out


def nats_greeter():
    """A TCP server that greets like NATS (an INFO line), for the --network check."""
    server = socket.create_server(("127.0.0.1", 0))

    def serve():
        while True:
            try:
                client, _ = server.accept()
            except OSError:
                return
            with client:
                client.sendall(b'INFO {"server_id":"fake"}\r\n')

    threading.Thread(target=serve, daemon=True).start()
    return server


def test_network_checks_send_one_request_to_each_upstream_and_name_the_unreachable(tmp_path, migrate):
    closed = socket.create_server(("127.0.0.1", 0))
    closed_port = closed.getsockname()[1]
    closed.close()  # nothing listens here now
    greeter = nats_greeter()
    with FakeUpstream() as up:
        up.route("*", Reply({"ok": True}))
        env = base_env(tmp_path / "kmood.db",
                       KMOOD_OPEN_METEO_FORECAST_URL=up.url, KMOOD_OPEN_METEO_ARCHIVE_URL=up.url,
                       KMOOD_NOMINATIM_URL=up.url, KMOOD_COVERART_URL=up.url,
                       KMOOD_LISTENBRAINZ_URL=up.url,
                       KMOOD_MUSICBRAINZ_URL=f"http://127.0.0.1:{closed_port}",
                       KMOOD_NATS_URL=f"nats://127.0.0.1:{greeter.getsockname()[1]}")
        migrate(env)
        code, levels, out = doctor(env, "--network")
        requests = list(up.requests)
    greeter.close()
    assert code == 1
    assert "musicbrainz" in failing(levels) and levels["nominatim"] == {"ok"}, out
    assert levels["nats"] == {"ok"} and "is a NATS server" in out
    assert sorted(r["path"] for r in requests) == ["/", "/1/search/users", "/status",
                                                   "/v1/archive", "/v1/forecast"]
    assert all(r["headers"]["User-Agent"].startswith("k-mood/") for r in requests)
    assert "lastfm" not in levels  # no API key: not asked
    # Without --network nothing is asked at all.
    with FakeUpstream() as up:
        env["KMOOD_NOMINATIM_URL"] = up.url
        doctor(env)
        assert up.requests == []
    assert os.path.exists(tmp_path / "kmood.db")
