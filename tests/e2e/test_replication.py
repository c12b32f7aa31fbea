"""Off-machine replication with Litestream (README "Replication (off-machine)"): the shipped
deploy/litestream.yml replicates the database while the server saves entries; once the database
is gone, `litestream restore` brings back every entry that was acknowledged, and an earlier
transaction ID gives the journal as it was then."""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
import threading
import uuid
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


def replica_txids(env: dict[str, str]) -> list[int]:
    """The transaction IDs of the LTX files the replica holds (`litestream ltx`)."""
    listed = litestream(["ltx", "-json"], env)
    assert listed.returncode == 0, listed.stderr
    return sorted(int(f["max_txid"], 16) for f in json.loads(listed.stdout or "[]"))


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


@pytest.mark.parametrize("mode", ["off", "truncate"])  # off: the README's setting; truncate:
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
    # A point in time: the first LTX file the replica gains after the first round was saved
    # holds the whole WAL as it was then, so the first round and nothing of the second.
    listed = replica_txids(env)
    known = listed[-1] if listed else 0
    point = wait_until(lambda: [t for t in replica_txids(env) if t > known], 20, interval=0.2,
                       what="Litestream to copy the first round")[0]
    second: list[str] = []
    save_entries(stack.url, auth, second)

    # Catch up honestly: nothing writes any more, then Litestream stops on SIGTERM, which
    # syncs the rest of the WAL to the replica before it exits.
    assert stack.stop() == {"server": 0, "worker": 0}
    sidecar.send_signal(signal.SIGTERM)
    assert sidecar.wait(60) == 0, log_path.read_text()
    log = log_path.read_text()
    assert "litestream shut down" in log and "level=ERROR" not in log, log

    for suffix in ("", "-wal", "-shm"):  # the disk is gone
        Path(f"{db_path}{suffix}").unlink(missing_ok=True)
    restored = litestream(["restore"], env)
    assert restored.returncode == 0, restored.stderr
    found = client_ids(db_path)
    assert sorted(found) == sorted(first + second)  # every acknowledged entry, each once

    then = tmp_path / "then.db"
    as_it_was = litestream(["restore", "-txid", f"{point:016x}", "-o", str(then)], env)
    assert as_it_was.returncode == 0, as_it_was.stderr
    assert sorted(client_ids(then)) == sorted(first)
