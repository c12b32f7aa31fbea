"""Configuration that parses but cannot work stops start-up with exit 2 and one clear line
(issue #9, defect 9); `make run` never leaves one process behind when the other dies."""

from __future__ import annotations

import os
import socket
import subprocess
import time

import pytest

from tests.helpers import ROOT, base_env, free_port, run


def one_clear_line(result) -> str:
    assert result.returncode == 2, (result.returncode, result.stderr)
    assert "Traceback" not in result.stderr, result.stderr
    lines = [line for line in result.stderr.splitlines() if "kmood" in line and ":" in line]
    assert lines, result.stderr
    return lines[-1]


@pytest.mark.parametrize("args", [["kmood.py"], ["kmood.py", "create-user", "bob",
                                                 "--password-stdin"]])
def test_a_scrypt_cost_that_is_not_a_power_of_two_is_refused_at_start(tmp_path, args):
    result = run(args, base_env(tmp_path / "k.db", KMOOD_SCRYPT_N="1000"), input="long secret\n")
    assert "KMOOD_SCRYPT_N" in one_clear_line(result)


def test_an_address_that_cannot_exist_is_exit_2(tmp_path):
    env = base_env(tmp_path / "k.db", KMOOD_HOST="256.1.1.1", KMOOD_PORT=str(free_port()))
    assert "cannot listen on 256.1.1.1" in one_clear_line(run(["kmood.py"], env))


def test_a_port_in_use_is_exit_2(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        env = base_env(tmp_path / "k.db", KMOOD_PORT=str(port))
        assert f"cannot listen on 127.0.0.1:{port}" in one_clear_line(run(["kmood.py"], env))


@pytest.mark.parametrize("entry", ["kmood.py", "kmood_worker.py"])
@pytest.mark.parametrize("where", ["under_a_file", "a_directory", "not_a_database"])
def test_a_database_path_that_cannot_be_opened_is_exit_2(tmp_path, entry, where):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory, not a database")
    path = {"under_a_file": blocker / "k.db", "a_directory": tmp_path,
            "not_a_database": blocker}[where]
    line = one_clear_line(run([entry, "migrate"] if entry == "kmood.py" else [entry, "--once"],
                              base_env(path)))
    assert "cannot open the database" in line
    assert blocker.read_text() == "not a directory, not a database"


def kmood_processes_using(db_path) -> list[int]:
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                if f"KMOOD_DB={db_path}".encode() in f.read().split(b"\0"):
                    found.append(int(pid))
        except OSError:
            continue
    return found


def test_make_run_with_the_port_taken_stops_the_worker_and_fails(tmp_path):
    db_path = tmp_path / "k.db"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        env = base_env(db_path, KMOOD_PORT=str(taken.getsockname()[1]))
        env["MAKEFLAGS"] = ""
        started = time.monotonic()
        result = subprocess.run(["make", "-s", "run"], cwd=ROOT, env=env, capture_output=True,
                                text=True, timeout=120)
    assert result.returncode != 0, result.stderr
    assert "cannot listen" in result.stderr and "stopped the other" in result.stderr
    assert time.monotonic() - started < 120
    assert kmood_processes_using(db_path) == []


def test_create_user_refuses_a_password_that_is_not_utf8(tmp_path):
    import subprocess

    from tests.helpers import PYTHON

    env = base_env(tmp_path / "k.db")
    result = subprocess.run([PYTHON, "kmood.py", "create-user", "bob", "--password-stdin"],
                            cwd=ROOT, env=env, input=b"caf\xe9 latin-1 secret\n",
                            capture_output=True, timeout=60)
    assert result.returncode == 2 and b"not valid UTF-8" in result.stderr
    assert b"Traceback" not in result.stderr
