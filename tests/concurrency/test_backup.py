"""Backups taken while another process keeps writing open cleanly and pass
`PRAGMA integrity_check`; the worker rotates its own copies (issue #12)."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import time

from kmood_lib.portability import backup
from tests.helpers import PYTHON, ROOT, base_env, run, spawn, stop, wait_until

WRITER = """
import sys, time
from zoneinfo import ZoneInfo
from kmood_lib.journal import writes
from kmood_lib.accounts import users
from kmood_lib.bootstrap import bootstrap
from kmood_lib.core.config import Config
from kmood_lib.journal.entry_input import parse_entry, utc_now
import os
services = bootstrap(Config.from_env(os.environ))
conn = services.connect()
user = users.find_user(conn, "ann")
print("writing", flush=True)
n = 0
while True:
    data = parse_entry({"mood": 1 + n % 5, "note": "x" * (n % 500), "activities": [f"a{n % 30}"]},
                       tz=ZoneInfo("UTC"), now=utc_now(services.clock), metric_defs={},
                       patch=False)
    writes.create_entry(conn, user.id, data, "api", 0)
    n += 1
"""


def count(path) -> int:
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
        return conn.execute("SELECT count(*) FROM entries").fetchone()[0]
    finally:
        conn.close()


def test_backups_taken_while_another_process_writes_are_consistent(tmp_path):
    env = base_env(tmp_path / "k.db")
    assert run(["kmood.py", "create-user", "ann", "--password-stdin"], env,
               input="a long password\n").returncode == 0
    writer = subprocess.Popen([PYTHON, "-c", WRITER], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                              text=True)
    try:
        assert writer.stdout.readline().strip() == "writing"
        counts = []
        for i in range(4):
            dest = tmp_path / f"copy{i}.db"
            result = run(["kmood.py", "backup", str(dest)], env)
            assert result.returncode == 0, result.stderr
            assert "integrity check ok" in result.stdout
            assert not (tmp_path / f"copy{i}.db.partial").exists()
            counts.append(count(dest))
    finally:
        writer.kill()
        writer.wait(30)
    assert counts == sorted(counts) and counts[-1] > counts[0] > 0  # the writer kept writing
    again = run(["kmood.py", "backup", str(tmp_path / "copy0.db")], env)
    assert again.returncode == 2 and "exists already" in again.stderr
    into_dir = run(["kmood.py", "backup", str(tmp_path)], env)
    assert into_dir.returncode == 0 and len(backup.rotating_backups(tmp_path)) == 1
    missing = run(["kmood.py", "backup", str(tmp_path / "x.db")],
                  {**env, "KMOOD_DB": str(tmp_path / "none.db")})
    assert missing.returncode == 2 and "no database" in missing.stderr


def test_the_worker_takes_a_backup_when_the_newest_is_too_old_and_keeps_the_newest(tmp_path):
    store = tmp_path / "backups"
    store.mkdir()
    week_ago = time.time() - 7 * 86400
    for day in range(9):  # nine old copies, oldest first by name and time
        old = store / f"kmood-202001{day + 1:02d}-000000.db"
        old.write_bytes(b"old")
        os.utime(old, (week_ago + day, week_ago + day))
    (store / "notes.txt").write_text("not a backup: left alone")
    env = base_env(tmp_path / "k.db", KMOOD_BACKUP_DIR=str(store), KMOOD_BACKUP_KEEP="3")
    worker = spawn(["kmood_worker.py"], env, tmp_path / "worker.log")
    try:
        wait_until(lambda: len(backup.rotating_backups(store)) == 3
                   and backup.rotating_backups(store)[-1].stat().st_size > 3, 60,
                   what="the worker's backup and rotation")
    finally:
        assert stop(worker) == 0
    kept = backup.rotating_backups(store)
    assert [p.name for p in kept[:2]] == ["kmood-20200108-000000.db", "kmood-20200109-000000.db"]
    count(kept[-1])
    assert (store / "notes.txt").exists()
    assert not backup.due(store, 3600, int(time.time() * 1000))  # fresh: not due again
    assert backup.due(store, 3600, int(time.time() * 1000) + 3601 * 1000)
