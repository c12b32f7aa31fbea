"""Two processes migrating a fresh file at the same instant must both come up."""

import multiprocessing

from kmood_lib.core import db, migrate

REPETITIONS = 20


def _migrate_at_barrier(path, barrier, results, unsafe: bool):
    try:
        barrier.wait(30)
        conn = db.connect(path, 10000)  # the WAL switch races here too
        if unsafe:
            migrate.run(conn, migrate.load_migrations(), lambda: 1,
                        _single_transaction=False, _pause_after_read_s=0.1)
        else:
            migrate.run(conn, migrate.load_migrations(), lambda: 1)
        conn.close()
        results.put("ok")
    except Exception as exc:  # reported to the parent, which counts failures
        results.put(f"{type(exc).__name__}: {exc}")


def race(tmp_path, unsafe: bool) -> list[list[str]]:
    ctx = multiprocessing.get_context("fork")
    outcomes = []
    for i in range(REPETITIONS):
        path = str(tmp_path / f"race{i}.db")
        barrier, results = ctx.Barrier(2), ctx.Queue()
        procs = [ctx.Process(target=_migrate_at_barrier, args=(path, barrier, results, unsafe))
                 for _ in range(2)]
        for p in procs:
            p.start()
        for p in procs:
            p.join(60)
            assert p.exitcode == 0, "a racing process died instead of reporting"
        outcomes.append(sorted(results.get(timeout=5) for _ in procs))
    return outcomes


def test_two_processes_migrating_a_fresh_file_at_once_both_succeed(tmp_path):
    outcomes = race(tmp_path, unsafe=False)
    assert outcomes == [["ok", "ok"]] * REPETITIONS
    conn = db.connect(str(tmp_path / "race0.db"), 1000)
    count = conn.execute("SELECT count(*) FROM schema_migrations").fetchone()[0]
    assert count == len(migrate.load_migrations())


def test_control_without_one_transaction_the_same_race_fails(tmp_path):
    outcomes = race(tmp_path, unsafe=True)
    failed = [o for o in outcomes if o != ["ok", "ok"]]
    # With both reading "nothing applied" before either applies, one must collide.
    assert len(failed) >= REPETITIONS // 2, outcomes
    assert any("already exists" in msg for o in failed for msg in o)
