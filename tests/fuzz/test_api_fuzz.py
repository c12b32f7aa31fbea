"""The API fuzz (tests/fuzz/api_fuzz.py) in a pytest process of its own: Schemathesis' and
Hypothesis' pytest plugins, and the ~280 modules of theirs that pytest rewrites, are loaded there
and nowhere else (pyproject.toml leaves them out of the suite's processes: 3-4 CPU-s each)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.helpers import ROOT

FUZZ = "tests/fuzz/api_fuzz.py"


def run_fuzz(*args: str) -> subprocess.CompletedProcess:
    # --assert=plain: pytest would otherwise rewrite the ~280 modules of the plugins it loads
    # (8 CPU-s on a fresh clone); the fuzz's assertions carry their own messages.
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:xdist", "-p", "no:cacheprovider",
               "--assert=plain", "-o", "addopts=", *args, FUZZ]
    return subprocess.run(command, cwd=ROOT, env=os.environ.copy(), capture_output=True,
                          text=True, timeout=600)


@pytest.mark.slow
def test_generated_requests_get_no_5xx_and_every_error_is_json():
    ran = run_fuzz()
    assert ran.returncode == 0, (ran.stdout + ran.stderr)[-8000:]
    assert " passed" in ran.stdout and " failed" not in ran.stdout, ran.stdout[-2000:]
