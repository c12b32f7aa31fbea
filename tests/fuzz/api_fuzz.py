"""Property-based requests generated from /api/openapi.json against a live server process
(Schemathesis): never a 5xx, the JSON error shape under /api, and a database that is intact
and fully readable as UTF-8 afterwards (issue #9).

Run by tests/fuzz/test_api_fuzz.py in a pytest process of its own, the only one that loads
Schemathesis' pytest plugin and Hypothesis (the suite's other processes leave them out)."""

from __future__ import annotations

import os
import sqlite3

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.specs.openapi.checks import positive_data_acceptance

from tests.e2e.conftest import Stack
from tests.helpers import http, run

# A fixed set of 8 cases per operation in `make test` beside the coverage phase's edge cases
# (the same on every run: derandomized);
# `make fuzz` asks for 300 new random ones.
EXAMPLES = int(os.environ.get("KMOOD_TEST_FUZZ_EXAMPLES", "8"))
FIXED = os.environ.get("KMOOD_TEST_FUZZ_RANDOM") != "1"
COUNTS = {"requests": 0, "server_errors": 0}


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    """One server and worker for the whole module, a user with an API token and a metric."""
    stack = Stack(tmp_path_factory.mktemp("fuzz"), KMOOD_LOGIN_MAX_FAILURES="100000",
                  KMOOD_LOGIN_MAX_FAILURES_PER_ADDRESS="100000")
    assert run(["kmood.py", "create-user", "alice", "--password-stdin"], stack.env,
               input="correct horse battery\n").returncode == 0
    stack.start(worker=True)
    stack.token = _token(stack)  # requests go as Bearer: CSRF is pinned by the unit tests
    http("POST", stack.url + "/api/metrics", {"name": "sleep", "min": 0, "max": 24},
         headers={"Authorization": f"Bearer {stack.token}"})
    try:
        yield stack
    finally:
        print(f"fuzz: {COUNTS['requests']} requests, {COUNTS['server_errors']} 5xx")
        codes = stack.stop()
    assert codes == {"server": 0, "worker": 0}
    logs = stack.server_log.read_text() + stack.worker_log.read_text()
    assert "Traceback" not in logs, logs[-4000:]
    database_is_intact(stack.tmp_path / "kmood.db")


def _token(stack) -> str:
    """Log in with the cookie session and make an API token, as a user would."""
    import json
    import urllib.request

    login = urllib.request.Request(
        stack.url + "/api/session", method="POST",
        data=json.dumps({"username": "alice", "password": "correct horse battery"}).encode(),
        headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(login) as resp:
        csrf = json.loads(resp.read())["csrf_token"]
        cookie = resp.headers["Set-Cookie"].split(";")[0]
    create = urllib.request.Request(
        stack.url + "/api/tokens", method="POST", data=b'{"name": "fuzz"}',
        headers={"Content-Type": "application/json", "Cookie": cookie, "X-CSRF-Token": csrf})
    with urllib.request.urlopen(create) as resp:
        return json.loads(resp.read())["token"]


def database_is_intact(path) -> None:
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
        tables = [r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE '%VIRTUAL%'"
            " AND name NOT LIKE 'entries_fts%' AND name NOT LIKE 'sqlite_%'")]
        for table in tables:
            for row in conn.execute(f"SELECT * FROM {table}"):  # raises on text not UTF-8
                for value in row:
                    if isinstance(value, str):
                        value.encode("utf-8")  # raises on a lone surrogate
    finally:
        conn.close()


@pytest.fixture(scope="module")
def api_schema(live):
    return schemathesis.openapi.from_url(live.url + "/api/openapi.json")


schema = schemathesis.pytest.from_fixture("api_schema")


@pytest.mark.slow  # a property test over every route
@schema.parametrize()
@settings(max_examples=EXAMPLES, deadline=None, derandomize=FIXED, database=None,
          suppress_health_check=list(HealthCheck))
def test_no_request_gets_a_5xx_and_every_error_is_json(case, live):
    response = case.call(base_url=live.url,
                         headers={"Authorization": f"Bearer {live.token}"}, timeout=30)
    COUNTS["requests"] += 1
    if response.status_code >= 500:
        COUNTS["server_errors"] += 1
    assert response.status_code < 500, (case.method, case.formatted_path, response.text[:500])
    if response.status_code >= 400:
        assert response.headers.get("content-type", [""])[0].startswith("application/json"), (
            case.method, case.formatted_path, response.status_code, dict(response.headers),
            response.text[:300], case.body if hasattr(case, "body") else None)
        error = response.json()["error"]
        assert set(error) == {"code", "message", "fields"}
        assert isinstance(error["fields"], dict)
    # Every built-in check but "schema-valid data must be accepted": the schema cannot say that
    # a metric must exist before it is used, or that min must not exceed max.
    case.validate_response(response, excluded_checks=[positive_data_acceptance])
