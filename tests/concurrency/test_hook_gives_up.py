"""The server's prompt enqueue gives up quietly when another process holds the write lock."""

import logging
import subprocess
import threading

from kmood_lib.bootstrap import bootstrap
from kmood_lib.journal import saving
from tests.entry import TEST_KINDS, create_test_tables
from tests.helpers import PYTHON, ROOT

HOLD_LOCK = """
import sys
from kmood_lib.core import db
conn = db.connect(sys.argv[1], 10000)
conn.execute("BEGIN IMMEDIATE")
print("locked", flush=True)
sys.stdin.readline()
conn.execute("ROLLBACK")
"""


def test_the_prompt_enqueue_gives_up_on_a_held_lock_and_the_error_is_only_logged(
        config, clock, caplog):
    create_test_tables(config.db_path)
    services = bootstrap(config, clock=clock, job_kinds=TEST_KINDS)
    assert services.config.hook_busy_timeout_ms == 200
    holder = subprocess.Popen([PYTHON, "-c", HOLD_LOCK, config.db_path], cwd=ROOT,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "locked"
    outcome = {}
    try:
        with caplog.at_level(logging.WARNING):
            worker = threading.Thread(target=lambda: outcome.update(
                result=saving.after_save(services, 1, 42)))
            worker.start()
            worker.join(10 * 0.2)  # guard: 10x the 200 ms hook busy timeout, far below 10 s
            assert not worker.is_alive(), "the post-save hook did not give up"
    finally:
        holder.stdin.write("\n")
        holder.stdin.flush()
        holder.wait(30)
    assert outcome == {"result": None}  # returned normally: nothing raised to the save
    assert "gave up for entry 42" in caplog.text and "locked" in caplog.text
    conn = services.connect()
    assert conn.execute("SELECT count(*) FROM jobs").fetchone()[0] == 0
