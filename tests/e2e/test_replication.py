"""Off-machine replication with Litestream (docs/backups.md "Replication (off-machine)"): the
shipped deploy/litestream.yml replicates the database while the server saves entries; once the
database is gone, `litestream restore` brings back every entry that was acknowledged, and an
earlier transaction ID gives the journal as it was then. k-mood runs on the restored file, and
Litestream replicates it on from there."""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import uuid
from datetime import datetime
from pathlib import Path

import pytest

from tests.helpers import ROOT, SPAWNED, http, wait_until

LITESTREAM = Path(sys.executable).parent / "litestream"  # from requirements-replica.txt
CONFIG = ROOT / "deploy" / "litestream.yml"
CLIENTS = 4  # concurrent HTTP clients per round
CREATES = 12  # entries each client saves per round


def litestream(args: list[str], env: dict[str, str], **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([str(LITESTREAM), *args, "-config", str(CONFIG), env["KMOOD_DB"]],
                          env=env, capture_output=True, text=True, timeout=60, **kwargs)


def replicate(env: dict[str, str], log_path: Path) -> subprocess.Popen:
    if not LITESTREAM.exists():
        raise AssertionError(f"{LITESTREAM} is missing: pip install -r requirements-replica.txt")
    proc = subprocess.Popen([str(LITESTREAM), "replicate", "-config", str(CONFIG)], env=env,
                            stdout=open(log_path, "ab"), stderr=subprocess.STDOUT)
    SPAWNED.append(proc)
    return proc


def stop_replicating(sidecar: subprocess.Popen, log_path: Path) -> None:
    """SIGTERM: Litestream copies what is left of the WAL to the replica before it exits."""
    sidecar.send_signal(signal.SIGTERM)
    assert sidecar.wait(60) == 0, log_path.read_text()
    log = log_path.read_text()
    assert "litestream shut down" in log and "level=ERROR" not in log, log


def replica_files(env: dict[str, str]) -> list[tuple[int, float]]:
    """(transaction ID, Unix time it was read from the WAL, to the second) of every LTX file
    the replica holds (`litestream ltx`)."""
    listed = litestream(["ltx", "-json"], env)
    assert listed.returncode == 0, listed.stderr
    return sorted((int(f["max_txid"], 16),
                   datetime.fromisoformat(f["timestamp"].replace("Z", "+00:00")).timestamp())
                  for f in json.loads(listed.stdout or "[]"))


def save_entries(url: str, auth: dict[str, str], ledger: list[str]) -> None:
    """CLIENTS clients at once, each saving CREATES entries; every client_id the server
    acknowledged (2xx) goes into the ledger."""
    lock = threading.Lock()
    errors: list[object] = []

    def client():
        for _ in range(CREATES):
            client_id = str(uuid.uuid4())
            status, _, body = http("POST", url + "/api/entries",
                                   {"mood": 4, "note": "replicated", "client_id": client_id}, auth)
            if 200 <= status < 300:
                with lock:
                    ledger.append(client_id)
            else:
                errors.append((status, body))

    threads = [threading.Thread(target=client) for _ in range(CLIENTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert errors == [] and len(ledger) % (CLIENTS * CREATES) == 0, errors


def client_ids(db_path: Path) -> list[str]:
    """Every entry's client_id in a restored file, after checking the file is sound."""
    conn = sqlite3.connect(db_path)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        return [row[0] for row in conn.execute("SELECT client_id FROM entries")]
    finally:
        conn.close()


@pytest.mark.parametrize("mode", ["off", "truncate"])  # off: the documented setting; truncate:
def test_litestream_restores_every_acknowledged_entry_after_the_database_is_lost(  # the default
        stack_factory, tmp_path, mode):
    stack = stack_factory(KMOOD_CHECKPOINT_MODE=mode, KMOOD_CHECKPOINT_INTERVAL_S="0.2",
                          KMOOD_WORKER_HEARTBEAT_S="0.5")  # a write (and an LTX file) each second
    stack.create_user("alice")  # migrates: the database exists before Litestream opens it
    db_path = Path(stack.env["KMOOD_DB"])
    env = {"PATH": "/usr/bin:/bin", "KMOOD_DB": str(db_path),
           "LITESTREAM_REPLICA_PATH": str(tmp_path / "replica")}
    log_path = tmp_path / "litestream.log"
    sidecar = replicate(env, log_path)
    stack.start(worker=True)
    auth = stack.log_in("alice")

    first: list[str] = []
    save_entries(stack.url, auth, first)
    saved = time.time()  # every entry of the first round is committed by now
    # A point in time: an LTX file read from the WAL after that (its time is cut to the second,
    # hence the second's margin) holds the whole first round; none of the second, which starts
    # only once the replica has it.
    point = wait_until(lambda: [txid for txid, read in replica_files(env) if read > saved + 1],
                       20, interval=0.2, what="Litestream to copy the first round")[0]
    second: list[str] = []
    save_entries(stack.url, auth, second)

    # Catch up honestly: nothing writes any more, then Litestream stops and syncs the rest.
    assert stack.stop() == {"server": 0, "worker": 0}
    stop_replicating(sidecar, log_path)

    for suffix in ("", "-wal", "-shm"):  # the disk is gone
        Path(f"{db_path}{suffix}").unlink(missing_ok=True)
    restored = litestream(["restore"], env)
    assert restored.returncode == 0, restored.stderr
    assert sorted(client_ids(db_path)) == sorted(first + second)  # every acknowledged one, once

    then = tmp_path / "then.db"
    as_it_was = litestream(["restore", "-txid", f"{point:016x}", "-o", str(then)], env)
    assert as_it_was.returncode == 0, as_it_was.stderr
    assert sorted(client_ids(then)) == sorted(first)

    # Life goes on on the restored file: k-mood opens it, Litestream replicates it again. It
    # opens the database only at its first tick (a second): stopped before that, it exits 0
    # having copied nothing, so wait until the replica grows (the worker's heartbeats).
    known = replica_files(env)[-1][0]
    sidecar = replicate(env, tmp_path / "litestream-again.log")
    stack.start(worker=True)
    wait_until(lambda: replica_files(env)[-1][0] > known, 20, interval=0.2,
               what="Litestream to replicate the restored database")
    third: list[str] = []
    save_entries(stack.url, stack.log_in("alice"), third)
    assert stack.stop() == {"server": 0, "worker": 0}
    stop_replicating(sidecar, tmp_path / "litestream-again.log")
    again = tmp_path / "again.db"
    assert litestream(["restore", "-o", str(again)], env).returncode == 0
    assert sorted(client_ids(again)) == sorted(first + second + third)
