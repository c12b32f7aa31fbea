"""End-to-end fixtures: the real kmood.py and kmood_worker.py as subprocesses on a free port."""

from __future__ import annotations

import pytest

from tests.helpers import add_user, base_env, free_port, healthy, http, spawn, stop, wait_until

PASSWORD = "correct horse battery"


class Stack:
    """A running server (and optionally worker) with its environment, logs and base URL."""

    def __init__(self, tmp_path, **env_extra):
        self.tmp_path = tmp_path
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = base_env(tmp_path / "kmood.db", KMOOD_PORT=str(self.port), **env_extra)
        self.server_log = tmp_path / "server.log"
        self.worker_log = tmp_path / "worker.log"
        self.server = self.worker = None

    def start(self, worker: bool = True):
        self.server = spawn(["kmood.py"], self.env, self.server_log)
        if worker:
            self.worker = spawn(["kmood_worker.py"], self.env, self.worker_log)
        wait_until(lambda: healthy(self.url) or self.server.poll() is not None, 60, what="healthz")
        assert self.server.poll() is None, self.server_log.read_text()
        return self

    def create_user(self, name: str) -> None:
        add_user(self.env, name, PASSWORD)

    def log_in(self, name: str) -> dict[str, str]:
        """Headers for a cookie session of `name`: the cookie and the CSRF token."""
        status, headers, me = http("POST", self.url + "/api/session",
                                   {"username": name, "password": PASSWORD})
        assert status == 201, me
        return {"Cookie": headers["Set-Cookie"].split(";")[0], "X-CSRF-Token": me["csrf_token"]}

    def stop(self) -> dict[str, int]:
        codes = {}
        for name in ("server", "worker"):
            proc = getattr(self, name)
            if proc is not None:
                codes[name] = stop(proc)
        return codes


@pytest.fixture
def stack_factory(tmp_path):
    stacks = []

    def make(**env_extra) -> Stack:
        stack = Stack(tmp_path, **env_extra)
        stacks.append(stack)
        return stack

    yield make
    for stack in stacks:
        for proc in (stack.server, stack.worker):
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.wait()
