"""`kmood.py import-daylio` as a user runs it: progress on stderr, a report, exit codes, and a
refusal that names every unknown mood and changes nothing (issue #12)."""

from __future__ import annotations

import sqlite3

from tests.helpers import base_env, run
from tests.unit.test_daylio_backup import backup
from tests.unit.test_daylio_csv import NEWEST, csv_bytes


def entries(db) -> int:
    conn = sqlite3.connect(db)
    try:
        return conn.execute("SELECT count(*) FROM entries").fetchone()[0]
    finally:
        conn.close()


def test_import_daylio_from_the_command_line(tmp_path):
    env = base_env(tmp_path / "k.db")
    assert run(["kmood.py", "create-user", "ann", "--password-stdin", "--timezone",
                "Europe/Berlin"], env, input="a long password\n").returncode == 0
    rows = [f"2024-01-{1 + i % 28:02d},,,{i % 24}:{i % 60:02d},{'Sad' if i % 3 else 'good'},"
            f"walk,,,n{i}" for i in range(1200)]
    path = tmp_path / "daylio.csv"
    path.write_bytes(csv_bytes(NEWEST, *rows))
    refused = run(["kmood.py", "import-daylio", str(path), "--user", "ann"], env)
    assert refused.returncode == 2, refused.stderr
    assert "mood 'Sad' has no level: 800 rows, first line 3, line 4, line 6" in refused.stderr
    assert entries(tmp_path / "k.db") == 0
    dry = run(["kmood.py", "import-daylio", str(path), "--user", "ann", "--mood-map", "sad=2",
               "--dry-run"], env)
    assert dry.returncode == 0 and "Would import 1200 entries" in dry.stdout
    assert entries(tmp_path / "k.db") == 0
    mood_map = tmp_path / "map.json"
    mood_map.write_text('{"Sad": 2}')
    done = run(["kmood.py", "import-daylio", str(path), "--user", "ann", "--mood-map-file",
                str(mood_map)], env)
    assert done.returncode == 0, done.stderr
    assert "Imported 1200 entries; 0 already in the journal." in done.stdout
    assert "mood 'Sad' -> level 2: 800 rows" in done.stdout
    progress = [line for line in done.stderr.splitlines() if "rows/s" in line]
    assert progress[0].startswith("500/1200 rows (41%)") and progress[-1].startswith("1200/1200")
    assert entries(tmp_path / "k.db") == 1200
    again = run(["kmood.py", "import-daylio", str(path), "--user", "ann", "--mood-map", "sad=2"],
                env)
    assert "Imported 0 entries; 1200 already in the journal." in again.stdout
    backup_path = tmp_path / "backup.daylio"
    backup_path.write_bytes(backup())
    assert run(["kmood.py", "import-daylio", str(backup_path), "--user", "ann"],
               env).returncode == 0
    assert entries(tmp_path / "k.db") == 1207


def test_import_daylio_refuses_bad_input_with_exit_2(tmp_path):
    env = base_env(tmp_path / "k.db")
    run(["kmood.py", "create-user", "ann", "--password-stdin"], env, input="a long password\n")
    bad = tmp_path / "bad.csv"
    bad.write_bytes(b"hello,world\n1,2\n")
    cases = [
        (["--user", "ann", str(bad)], "not a Daylio CSV header"),
        (["--user", "nobody", str(bad)], "no user 'nobody'"),
        (["--user", "ann", str(tmp_path / "missing.csv")], "cannot read"),
        (["--user", "ann", "--mood-map", "sad=nine", str(bad)], "the level 'nine'"),
    ]
    for args, message in cases:
        result = run(["kmood.py", "import-daylio", *args], env)
        assert result.returncode == 2 and message in result.stderr, (args, result.stderr)
        assert "Traceback" not in result.stderr
    assert entries(tmp_path / "k.db") == 0
