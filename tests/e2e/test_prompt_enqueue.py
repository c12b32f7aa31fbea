"""The server's prompt enqueue after a save, and the worker picking the job up, as processes."""

import sqlite3

from tests.helpers import http, run, spawn, start_test_server, stop, wait_until


def start(tmp_path, **extra):
    return start_test_server(tmp_path, KMOOD_WAKE_INTERVAL_MS="50",
                             KMOOD_SWEEP_INTERVAL_S="3600", **extra)


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
    assert conn.execute("SELECT key FROM jobs ORDER BY key").fetchall() == [
        (f"entry:{entry['id']}",), ("insights:1",)]
    conn.execute("DELETE FROM jobs")  # the queue is lost
    conn.commit()
    conn.close()
    result = run(["tests/entry.py", "worker", "jobs", "sweep"], env)
    # both found again: the entry's own job, and the insights its journal now lacks
    assert result.returncode == 0 and "enqueued 2" in result.stdout, result.stdout
    worker = spawn(["tests/entry.py", "worker"], env, tmp_path / "worker.log")
    try:
        wait_until(lambda: entry["id"] in pickups(tmp_path), 30, what="pickup after sweep")
    finally:
        assert stop(worker) == 0
