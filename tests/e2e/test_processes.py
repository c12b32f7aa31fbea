"""The two binaries as real processes: start together, answer, stop cleanly, refuse bad state."""

import shutil
import sqlite3

import pytest

from tests.helpers import base_env, http, run, wait_until


def test_server_and_worker_start_together_on_a_fresh_database_and_stop_on_sigterm(stack_factory):
    stack = stack_factory().start(worker=True)
    wait_until(lambda: http("GET", stack.url + "/healthz")[2]["status"] == "ok", 60,
               what="the worker's first heartbeat")
    status, headers, body = http("GET", stack.url + "/healthz")
    assert status == 200 and body["status"] == "ok" and body["database"] == "ok"
    assert body["worker"]["alive"] == 1
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert stack.server.poll() is None and stack.worker.poll() is None
    assert stack.stop() == {"server": 0, "worker": 0}
    server_log = stack.server_log.read_text()
    assert "kmood_worker.py" in server_log and "does none" in server_log
    assert "Traceback" not in server_log + stack.worker_log.read_text()


def test_worker_once_runs_one_iteration_and_exits(tmp_path):
    result = run(["kmood_worker.py", "--once"], base_env(tmp_path / "k.db"))
    assert result.returncode == 0, result.stderr


def test_migrate_command_reports_and_is_idempotent(tmp_path):
    env = base_env(tmp_path / "k.db")
    first = run(["kmood.py", "migrate"], env)
    assert first.returncode == 0 and "applied" in first.stdout
    second = run(["kmood.py", "migrate"], env)
    assert second.returncode == 0 and "up to date" in second.stdout


@pytest.mark.parametrize("entry", ["kmood.py", "kmood_worker.py"])
def test_a_bad_variable_exits_2_naming_it(tmp_path, entry):
    result = run([entry], base_env(tmp_path / "k.db", KMOOD_BUSY_TIMEOUT_MS="soon"))
    assert result.returncode == 2
    assert "KMOOD_BUSY_TIMEOUT_MS" in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "k.db").exists()


def _migrated(tmp_path, migrated_database):
    """A migrated database (a copy of the one made once per test process: `migrate` itself is
    pinned above) and a connection to it."""
    env = base_env(tmp_path / "k.db")
    shutil.copyfile(migrated_database, tmp_path / "k.db")
    return env, sqlite3.connect(tmp_path / "k.db", isolation_level=None)


def _snapshot(conn):
    return conn.execute("SELECT * FROM schema_migrations ORDER BY version").fetchall()


@pytest.mark.parametrize("entry", [["kmood.py"], ["kmood_worker.py"], ["kmood.py", "migrate"]])
def test_an_edited_landed_migration_stops_start_up_with_exit_3(tmp_path, migrated_database,
                                                              entry):
    env, conn = _migrated(tmp_path, migrated_database)
    conn.execute("UPDATE schema_migrations SET checksum = 'edited' WHERE version = 1")
    before = _snapshot(conn)
    result = run(entry, env)
    assert result.returncode == 3
    assert "0001_initial.sql was edited" in result.stderr and "Traceback" not in result.stderr
    assert _snapshot(conn) == before


@pytest.mark.parametrize("entry", [["kmood.py"], ["kmood_worker.py"]])
def test_a_database_from_a_newer_build_stops_start_up_with_exit_3(tmp_path, migrated_database,
                                                                 entry):
    env, conn = _migrated(tmp_path, migrated_database)
    conn.execute("INSERT INTO schema_migrations VALUES (9999, 'future', 'x', 0)")
    before = _snapshot(conn)
    result = run(entry, env)
    assert result.returncode == 3
    assert "9999" in result.stderr and "does not know" in result.stderr
    assert _snapshot(conn) == before


def test_create_user_makes_the_first_user_an_admin(tmp_path):
    env = base_env(tmp_path / "k.db")
    first = run(["kmood.py", "create-user", "alice", "--password-stdin"], env, "correct horse\n")
    assert first.returncode == 0 and "admin" in first.stdout, first.stderr
    second = run(["kmood.py", "create-user", "bob", "--password-stdin"], env, "battery staple\n")
    assert second.returncode == 0 and "admin" not in second.stdout
    taken = run(["kmood.py", "create-user", "ALICE", "--password-stdin"], env, "whatever12\n")
    assert taken.returncode == 2 and "taken" in taken.stderr
    short = run(["kmood.py", "create-user", "carol", "--password-stdin"], env, "short\n")
    assert short.returncode == 2 and "password" in short.stderr
    conn = sqlite3.connect(tmp_path / "k.db")
    rows = conn.execute("SELECT username, is_admin FROM users ORDER BY id").fetchall()
    assert rows == [("alice", 1), ("bob", 0)]


@pytest.mark.parametrize("entry", [["kmood.py", "--help"], ["kmood.py", "create-user", "--help"],
                                   ["kmood.py", "migrate", "--help"], ["kmood_worker.py", "--help"]])
def test_every_command_has_help(tmp_path, entry):
    result = run(entry, base_env(tmp_path / "k.db"))
    assert result.returncode == 0 and "usage:" in result.stdout


def test_jobs_retry_refuses_an_unknown_kind_and_an_impossible_id(tmp_path):
    env = base_env(tmp_path / "k.db")
    unknown = run(["kmood_worker.py", "jobs", "retry", "--kind", "nonesuch"], env)
    assert unknown.returncode == 2 and "no job kind 'nonesuch'" in unknown.stderr
    huge = run(["kmood_worker.py", "jobs", "retry", "99999999999999999999"], env)
    assert huge.returncode == 2 and "Traceback" not in huge.stderr
    conn = sqlite3.connect(tmp_path / "k.db", isolation_level=None)
    conn.execute("INSERT INTO jobs (kind, key, max_attempts, run_after, created_at, updated_at)"
                 " VALUES ('x', 'k', 3, 0, 0, 0)")
    queued = run(["kmood_worker.py", "jobs", "retry", "1"], env)
    assert queued.returncode == 0 and "already queued" in queued.stdout


def test_an_admin_command_loads_only_the_modules_it_runs(tmp_path):
    """`kmood.py create-user` reads its arguments from cli/commands.py and imports only the
    face that carries it out: not the web server, the importers or doctor's checks (loading
    every command's modules for any of them doubled its start)."""
    loaded = ("import sys, kmood; code = kmood.main(['create-user', 'ann', '--password-stdin']);"
              " print(code, sorted({m for m in sys.modules if m.startswith(("
              "'kmood_lib.web', 'kmood_lib.portability', 'kmood_lib.cli.'))}))")
    done = run(["-c", loaded], base_env(tmp_path / "k.db"), input="correct horse battery\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == (
        "0 ['kmood_lib.cli.commands', 'kmood_lib.cli.runner', 'kmood_lib.cli.users']")
