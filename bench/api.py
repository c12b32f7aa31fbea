"""API benchmark: 16 concurrent clients creating and listing entries against kmood.py on
waitress (with kmood_worker.py beside it, as deployed), beside a bare Bottle+waitress endpoint
measured in the same run."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

sys.path[0] = str(Path(__file__).resolve().parent.parent)  # not bench/: bench/queue.py shadows stdlib queue

from bench.load import run_load  # noqa: E402
from tests.helpers import (  # noqa: E402
    PYTHON,
    ROOT,
    base_env,
    free_port,
    healthy,
    http,
    run,
    spawn,
    stop,
    wait_until,
)

THREADS = os.environ.get("BENCH_THREADS", "8")  # waitress threads for both servers; k-mood's default
CLIENTS = 16
DURATION_S = 5.0


def entry_body(n: int) -> dict:
    return {"mood": n % 5 + 1, "activities": ["bench", f"tag{n % 7}"],
            "note": f"benchmark entry {n}", "location": {"lat": 52.5, "lon": 13.4}}


def main() -> list[str]:
    tmp = Path(tempfile.mkdtemp(prefix="kmood-bench-"))
    port, bare_port = free_port(), free_port()
    env = base_env(tmp / "bench.db", KMOOD_PORT=str(port), KMOOD_THREADS=THREADS,
                   KMOOD_LOG_LEVEL="WARNING", KMOOD_SCRYPT_N="1024")
    assert run(["kmood.py", "create-user", "bench", "--password-stdin"], env,
               "bench-password\n").returncode == 0
    server = spawn(["kmood.py"], env, tmp / "server.log")
    worker = spawn(["kmood_worker.py"], env, tmp / "worker.log")  # as deployed: it checkpoints
    bare = spawn([str(ROOT / "bench" / "bare_app.py"), str(bare_port), THREADS], env,
                 tmp / "bare.log")
    try:
        url = f"http://127.0.0.1:{port}"
        wait_until(lambda: healthy(url), 30, what="kmood server")
        wait_until(lambda: _up(bare_port), 30, what="bare server")
        _, headers, login = http("POST", url + "/api/session",
                                 {"username": "bench", "password": "bench-password"})
        cookie = headers["Set-Cookie"].split(";")[0]
        _, _, token = http("POST", url + "/api/tokens", {"name": "bench"},
                           {"Cookie": cookie, "X-CSRF-Token": login["csrf_token"]})
        auth = {"Authorization": f"Bearer {token['token']}"}
        results = [
            run_load("bare bottle+waitress GET", bare_port, "GET", "/bare",
                     clients=CLIENTS, duration=DURATION_S),
            run_load("bare bottle+waitress POST", bare_port, "POST", "/bare",
                     body_fn=entry_body, clients=CLIENTS, duration=DURATION_S),
            run_load("k-mood POST /api/entries", port, "POST", "/api/entries",
                     body_fn=entry_body, headers=auth, clients=CLIENTS, duration=DURATION_S),
            run_load("k-mood GET /api/entries?limit=20", port, "GET", "/api/entries?limit=20",
                     headers=auth, clients=CLIENTS, duration=DURATION_S),
        ]
    finally:
        stop(server)
        stop(worker)
        stop(bare)
    bare_post, create, listing = results[1], results[2], results[3]
    lines = [r.line() for r in results]
    lines.append(f"ratio create / bare POST: {create.rps / bare_post.rps:.2f}"
                 f"  (target >= 0.50, errors {create.errors})")
    lines.append(f"ratio list   / bare GET:  {listing.rps / results[0].rps:.2f}")
    return lines


def _up(port: int) -> bool:
    try:
        return http("GET", f"http://127.0.0.1:{port}/bare", timeout=2)[0] == 200
    except OSError:
        return False


if __name__ == "__main__":
    print(f"API benchmark: {CLIENTS} clients, {DURATION_S:.0f} s each, {THREADS} waitress"
          f" threads (BENCH_THREADS), python {PYTHON}")
    for line in main():
        print(line)
