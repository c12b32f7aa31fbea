"""The server's prompt enqueue after a save, and the worker picking the job up, as processes."""

import sqlite3

from tests.entry import create_test_tables
from tests.helpers import base_env, free_port, healthy, http, run, spawn, stop, wait_until


def start(tmp_path, **extra):
    port = free_port()
    env = base_env(tmp_path / "k.db", KMOOD_PORT=str(port), KMOOD_WAKE_INTERVAL_MS="50",
                   KMOOD_SWEEP_INTERVAL_S="3600", **extra)
    create_test_tables(env["KMOOD_DB"])
    assert run(["kmood.py", "create-user", "alice", "--password-stdin"], env,
               "correct horse\n").returncode == 0
    server = spawn(["tests/entry.py", "server"], env, tmp_path / "server.log")
    url = f"http://127.0.0.1:{port}"
    wait_until(lambda: healthy(url), 60, what="server")
    _, headers, me = http("POST", url + "/api/session",
                          {"username": "alice", "password": "correct horse"})
    auth = {"Cookie": headers["Set-Cookie"].split(";")[0], "X-CSRF-Token": me["csrf_token"]}
    return env, url, auth, server


def pickups(tmp_path):
    conn = sqlite3.connect(tmp_path / "k.db", timeout=30)
    try:
        return dict(conn.execute("SELECT entry_id, picked_at_ns FROM test_pickups").fetchall())
    finally:
        conn.close()


def test_a_saved_entry_is_enqueued_by_the_server_and_picked_up_by_the_worker(tmp_path):
    env, url, auth, server = start(tmp_path)
    worker = spawn(["tests/entry.py", "worker"], env, tmp_path / "worker.log")
    try:
        status, _, entry = http("POST", url + "/api/entries", {"mood": 4}, auth)
        assert status == 201
        wait_until(lambda: entry["id"] in pickups(tmp_path), 30, what="pickup")
    finally:
        assert stop(worker) == 0
        assert stop(server) == 0


def test_a_lost_prompt_job_is_found_again_by_the_sweep(tmp_path):
    env, url, auth, server = start(tmp_path)
    status, _, entry = http("POST", url + "/api/entries", {"mood": 3}, auth)
    assert status == 201
    assert stop(server) == 0
    conn = sqlite3.connect(tmp_path / "k.db")
    assert conn.execute("SELECT key FROM jobs").fetchall() == [(f"entry:{entry['id']}",)]
    conn.execute("DELETE FROM jobs")  # the queue is lost
    conn.commit()
    conn.close()
    result = run(["tests/entry.py", "worker", "jobs", "sweep"], env)
    assert result.returncode == 0 and "enqueued 1" in result.stdout, result.stdout
    worker = spawn(["tests/entry.py", "worker"], env, tmp_path / "worker.log")
    try:
        wait_until(lambda: entry["id"] in pickups(tmp_path), 30, what="pickup after sweep")
    finally:
        assert stop(worker) == 0
