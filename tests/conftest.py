"""Shared fixtures: a fresh database per test, config from KMOOD_* variables, services."""

from __future__ import annotations

import os
import shutil
import sqlite3
from pathlib import Path

import pytest

from kmood_lib.bootstrap import bootstrap
from kmood_lib.core.config import Config
from tests.fakes import FakeClock
from tests.helpers import SPAWNED, base_env

# Every test in these folders starts a process, a browser or a NATS server: `slow`, so that
# `make test-fast` (-m "not slow") leaves them out. Elsewhere a test that does is marked itself.
SLOW_FOLDERS = {"concurrency", "e2e", "browser"}


# Test databases live in memory (tmpfs) where the machine has one: what the tests pin is the
# same on any file system, and a database that commits with synchronous=FULL on a real disk
# waits for the disk at every commit (3 000 saves: 15 s on this machine's disk, 2.6 s here).
# Durability against a crash is the soak's to prove (bench/soak.py, on a real disk).
IN_MEMORY = Path("/dev/shm")


def pytest_configure(config):
    """The whole run's temporary files under one fresh directory on tmpfs, unless a base was
    asked for or there is no tmpfs (xdist hands the base to its test processes)."""
    if config.option.basetemp or hasattr(config, "workerinput"):
        return
    if not (IN_MEMORY.is_dir() and os.access(IN_MEMORY, os.W_OK)):
        return
    runs = IN_MEMORY / f"kmood-tests-{os.getuid()}"
    runs.mkdir(exist_ok=True)
    for old in runs.iterdir():  # runs that ended without cleaning up: their process is gone
        if old.name.isdigit() and not Path(f"/proc/{old.name}").exists():
            shutil.rmtree(old, ignore_errors=True)
    config.option.basetemp = str(runs / str(os.getpid()))
    config.kmood_in_memory = True


def pytest_unconfigure(config):
    if getattr(config, "kmood_in_memory", False):
        shutil.rmtree(config.option.basetemp, ignore_errors=True)


# The longest files first (then any unit test marked slow): `make test` hands whole files to
# its two processes in this order (xdist --dist loadfile), so the last ones to finish are
# short and neither process waits long for the other at the end.
FIRST_TO_LAST = ("browser", "fuzz", "e2e", "concurrency")


def pytest_collection_modifyitems(config, items):
    for item in items:
        if Path(str(item.path)).parent.name in SLOW_FOLDERS:
            item.add_marker(pytest.mark.slow)
    folder = {name: rank for rank, name in enumerate(FIRST_TO_LAST)}
    items.sort(key=lambda item: (folder.get(Path(str(item.path)).parent.name, len(folder)),
                                 item.get_closest_marker("slow") is None))


@pytest.fixture(autouse=True)
def no_leftover_processes():
    """Kill whatever a test spawned and left running, pass or fail (processes of a wider-scoped
    fixture, started before this runs, are that fixture's to stop)."""
    already = len(SPAWNED)
    yield
    while len(SPAWNED) > already:
        proc = SPAWNED.pop()
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="session")
def migrated_database(tmp_path_factory) -> Path:
    """A database with every migration applied, made once per test process: migrating a fresh
    file takes ~90 ms, copying this one ~0.05 ms. Its WAL is checkpointed into the file and
    removed, so the file alone is the whole database."""
    path = tmp_path_factory.mktemp("migrated") / "kmood.db"
    services = bootstrap(Config.from_env(base_env(path)))
    services.hasher.close()
    services.close_writer()
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()  # the last connection: SQLite removes the -wal and -shm files
    return path


@pytest.fixture
def db_path(tmp_path, migrated_database):
    """Each test's own database, already migrated (bootstrap finds nothing left to apply)."""
    path = tmp_path / "kmood.db"
    shutil.copyfile(migrated_database, path)
    return path


@pytest.fixture
def env(db_path):
    return base_env(db_path)


@pytest.fixture
def config(env):
    return Config.from_env(env)


@pytest.fixture
def clock():
    return FakeClock()


@pytest.fixture
def services(config, clock):
    built = bootstrap(config, clock=clock)
    yield built
    built.hasher.close()


@pytest.fixture
def conn(services):
    connection = services.connect()
    yield connection
    connection.close()


PASSWORD = "correct horse battery"


@pytest.fixture
def wsgi(services):
    from kmood_lib.web.app import make_wsgi

    return make_wsgi(services)


@pytest.fixture
def make_user(conn, clock, services):
    from kmood_lib.accounts.users import create_user

    def make(name: str, admin: bool = False, timezone: str = "UTC"):
        return create_user(conn, name, PASSWORD, now_ms=clock.now_ms(), hasher=services.hasher,
                           admin=admin, timezone=timezone)

    return make


@pytest.fixture
def client_for(wsgi, make_user):
    """A logged-in client for a new user (the first one made is an admin)."""
    from tests.wsgi import Client

    def make(name: str, admin: bool = False, timezone: str = "UTC") -> Client:
        make_user(name, admin, timezone)
        client = Client(wsgi)
        assert client.login(name, PASSWORD).status == 201
        return client

    return make


@pytest.fixture
def alice_and_raw(client_for, db_path):
    """A logged-in client and a plain sqlite3 connection to the same file (another tool)."""
    import sqlite3

    client = client_for("alice")
    raw = sqlite3.connect(db_path, isolation_level=None)
    yield client, raw
    raw.close()
