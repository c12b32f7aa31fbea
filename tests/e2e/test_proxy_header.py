"""The sign-in proxy's header over real sockets (SPEC §14, issue #41): the server believes it
from the trusted loopback address 127.0.0.1 and ignores it, with a log line, from 127.0.0.2."""

from __future__ import annotations

import http.client
import json

import pytest

from tests.e2e.test_startup_errors import one_clear_line
from tests.helpers import base_env, run

pytestmark = pytest.mark.slow


def ask(stack, source: str, path: str, headers: dict) -> tuple[int, dict, dict]:
    """GET `path` from the loopback address `source` (the connection's own address)."""
    connection = http.client.HTTPConnection("127.0.0.1", stack.port, timeout=10,
                                            source_address=(source, 0))
    try:
        connection.request("GET", path, headers=headers)
        answer = connection.getresponse()
        return answer.status, dict(answer.getheaders()), json.loads(answer.read() or b"{}")
    finally:
        connection.close()


def test_the_header_signs_in_from_the_trusted_address_only(stack_factory):
    stack = stack_factory(KMOOD_AUTH_HEADER="Remote-User", KMOOD_TRUSTED_PROXIES="127.0.0.1",
                          KMOOD_AUTH_GROUPS_HEADER="Remote-Groups", KMOOD_SSO_AUTO_CREATE="1",
                          KMOOD_SSO_ADMIN_GROUP="admins")
    stack.create_user("ann")  # the household's admin, signing in with her password
    stack.start(worker=False)
    stamped = {"Remote-User": "zoe", "Remote-Groups": "family,admins"}
    status, headers, _ = ask(stack, "127.0.0.2", "/api/me", stamped)
    assert status == 401 and "Set-Cookie" not in headers
    status, headers, me = ask(stack, "127.0.0.1", "/api/me", stamped)
    assert status == 200 and (me["username"], me["is_admin"]) == ("zoe", True)
    cookie = headers["Set-Cookie"].split(";")[0]
    # the session it made is an ordinary one: it holds from anywhere, header or not
    status, _, me = ask(stack, "127.0.0.2", "/api/me", {"Cookie": cookie})
    assert status == 200 and me["username"] == "zoe"
    assert stack.stop() == {"server": 0}
    log = stack.server_log.read_text()
    assert "ignored the Remote-User header from '127.0.0.2'" in log
    assert "sign-in method=proxy user=zoe ok" in log
    assert "Traceback" not in log


def test_a_header_believed_from_anyone_is_refused_at_start(tmp_path):
    env = base_env(tmp_path / "k.db", KMOOD_AUTH_HEADER="Remote-User")
    assert "KMOOD_TRUSTED_PROXIES" in one_clear_line(run(["kmood.py"], env))


def test_the_shell_links_and_unlinks_a_proxy_name(tmp_path):
    """How a household that signs in through the proxy reaches Household the first time (or an
    admin recovers): the command line links the admin's name at the proxy."""
    env = base_env(tmp_path / "k.db")
    assert run(["kmood.py", "create-user", "ann", "--password-stdin"], env,
               input="correct horse battery\n").returncode == 0
    linked = run(["kmood.py", "users", "link", "ann", "ann@auth.example.org"], env)
    assert linked.returncode == 0, linked.stderr
    assert "'ann@auth.example.org' now signs in as ann" in linked.stdout
    again = run(["kmood.py", "users", "link", "ann", "someone else"], env)
    assert again.returncode == 2 and "unlink that first" in again.stderr
    assert "Traceback" not in again.stderr
    unlinked = run(["kmood.py", "users", "unlink", "ann"], env)
    assert unlinked.returncode == 0 and "0 session(s) ended" in unlinked.stdout
    nothing = run(["kmood.py", "users", "unlink", "ann"], env)
    assert nothing.returncode == 2 and "has no sign-in proxy name" in nothing.stderr


def test_with_passwords_off_the_shell_makes_the_first_account_by_its_proxy_name(tmp_path):
    env = base_env(tmp_path / "k.db", KMOOD_PASSWORD_LOGIN="off", KMOOD_AUTH_HEADER="Remote-User",
                   KMOOD_TRUSTED_PROXIES="127.0.0.1")
    made = run(["kmood.py", "create-user", "ann", "--proxy-name", "ann@auth.example.org"], env)
    assert made.returncode == 0, made.stderr
    assert "admin), signing in through the proxy as 'ann@auth.example.org'" in made.stdout
    padded = run(["kmood.py", "create-user", "bob", "--proxy-name", " bob"], env)
    assert padded.returncode == 2 and "without line breaks or spaces around it" in padded.stderr
    reset = run(["kmood.py", "users", "reset-password", "ann", "--password-stdin"], env,
                input="correct horse battery\n")
    assert reset.returncode == 0 and "password sign-in is off" in reset.stdout
