"""`kmood.py import-daylio` as a user runs it: progress on stderr, a report, exit codes, and a
refusal that names every unknown mood and changes nothing (issue #12)."""

from __future__ import annotations

import shutil
import sqlite3

import pytest

from tests.helpers import base_env, run
from tests.unit.test_daylio_backup import backup
from tests.unit.test_daylio_csv import NEWEST, csv_bytes


def entries(db) -> int:
    conn = sqlite3.connect(db)
    try:
        return conn.execute("SELECT count(*) FROM entries").fetchone()[0]
    finally:
        conn.close()


@pytest.fixture(scope="module")
def with_ann(tmp_path_factory):
    """A database in which `kmood.py create-user` has made ann, made once for the module; its
    WAL checkpointed into the file, so a copy of the file is the whole database."""
    path = tmp_path_factory.mktemp("with-ann") / "k.db"
    assert run(["kmood.py", "create-user", "ann", "--password-stdin"], base_env(path),
               input="a long password\n").returncode == 0
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return path


@pytest.fixture
def ann_env(tmp_path, with_ann):
    """The environment of a fresh database (`k.db` or the name given) that holds ann."""

    def make(name: str = "k.db") -> dict[str, str]:
        shutil.copyfile(with_ann, tmp_path / name)
        return base_env(tmp_path / name)

    return make


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
    assert progress[0].startswith("250/1200 rows (20%)") and progress[-1].startswith("1200/1200")
    assert entries(tmp_path / "k.db") == 1200
    again = run(["kmood.py", "import-daylio", str(path), "--user", "ann", "--mood-map", "sad=2"],
                env)
    assert "Imported 0 entries; 1200 already in the journal." in again.stdout
    backup_path = tmp_path / "backup.daylio"
    backup_path.write_bytes(backup())
    assert run(["kmood.py", "import-daylio", str(backup_path), "--user", "ann"],
               env).returncode == 0
    assert entries(tmp_path / "k.db") == 1207


def test_import_daylio_refuses_bad_input_with_exit_2(tmp_path, ann_env):
    env = ann_env()
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


def test_export_to_a_file_and_import_json_into_a_fresh_database(tmp_path, ann_env):
    env = ann_env()
    (tmp_path / "backup.daylio").write_bytes(backup())
    assert run(["kmood.py", "import-daylio", str(tmp_path / "backup.daylio"), "--user", "ann"],
               env).returncode == 0
    out = tmp_path / "ann.json"
    done = run(["kmood.py", "export", "--user", "ann", "--format", "json", "-o", str(out)], env)
    assert done.returncode == 0 and f"to {out}" in done.stderr
    assert not (tmp_path / "ann.json.partial").exists()
    csv_out = run(["kmood.py", "export", "--user", "ann", "--format", "csv"], env)
    assert csv_out.stdout.startswith("\ufefffull_date,date,weekday,time,mood,")
    assert csv_out.stdout.count("\n") == 8  # the header and seven entries
    other = ann_env("other.db")
    first = run(["kmood.py", "import-json", str(out), "--user", "ann"], other)
    assert first.returncode == 0 and "Imported 7 entries" in first.stdout, first.stderr
    again = run(["kmood.py", "import-json", str(out), "--user", "ann"], other)
    assert "Imported 0 entries; 7 already in the journal." in again.stdout
    assert entries(tmp_path / "other.db") == 7
    not_json = run(["kmood.py", "import-json", str(tmp_path / "backup.daylio"), "--user", "ann"],
                   other)
    assert not_json.returncode == 2 and "not a k-mood JSON or ZIP export" in not_json.stderr
    nobody = run(["kmood.py", "export", "--user", "nobody"], env)
    assert nobody.returncode == 2 and "no user 'nobody'" in nobody.stderr


def test_crafted_files_are_one_line_and_exit_2_never_a_traceback(tmp_path, ann_env):
    from tests.unit.test_import_pages import crafted_files

    env = ann_env()
    for i, (what, fields, files) in enumerate(crafted_files()):
        path = tmp_path / f"crafted-{i}"
        path.write_bytes(files["file"])
        for command in ("import-daylio", "import-json"):
            args = ["kmood.py", command, str(path), "--user", "ann"]
            if "mood_map" in fields and command == "import-daylio":
                args += ["--mood-map", fields["mood_map"]]
            done = run(args, env)
            assert done.returncode == 2, (what, command, done.returncode, done.stderr[-500:])
            assert "Traceback" not in done.stderr and done.stderr.strip(), (what, command)
    assert entries(tmp_path / "k.db") == 0


def test_a_zip_export_with_photos_imports_into_a_fresh_database_from_the_command_line(
        tmp_path, ann_env):
    from tests.unit.test_daylio_backup_photos import photo_backup, stored_photos

    env = ann_env()
    (tmp_path / "photos.daylio").write_bytes(photo_backup())
    imported = run(["kmood.py", "import-daylio", str(tmp_path / "photos.daylio"), "--user",
                    "ann"], env)
    assert imported.returncode == 0, imported.stderr
    out = tmp_path / "ann.zip"
    no_file = run(["kmood.py", "export", "--user", "ann", "--format", "zip"], env)
    assert no_file.returncode == 2 and "needs --output" in no_file.stderr
    done = run(["kmood.py", "export", "--user", "ann", "--format", "zip", "-o", str(out)], env)
    assert done.returncode == 0 and f"wrote zip export of ann to {out}" in done.stderr
    other = ann_env("other.db")
    first = run(["kmood.py", "import-json", str(out), "--user", "ann"], other)
    assert first.returncode == 0 and "Imported 3 entries" in first.stdout, first.stderr
    before, after = (sqlite3.connect(tmp_path / name) for name in ("k.db", "other.db"))
    try:
        assert stored_photos(after, 1) == stored_photos(before, 1)  # 6 photos, byte for byte
        assert sum(map(len, stored_photos(after, 1).values())) == 6
    finally:
        before.close()
        after.close()
