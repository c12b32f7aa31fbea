"""A small HTTP load generator: N concurrent keep-alive clients over several processes."""

from __future__ import annotations

import http.client
import json
import multiprocessing
import statistics
import threading
import time
from dataclasses import dataclass


@dataclass
class Result:
    name: str
    requests: int
    errors: int
    seconds: float
    latencies: list[float]

    @property
    def rps(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0

    def percentile(self, q: float) -> float:
        if not self.latencies:
            return float("nan")
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]

    def line(self) -> str:
        return (f"{self.name:<34} {self.rps:9.0f} req/s  p50 {self.percentile(0.5) * 1000:6.1f} ms"
                f"  p99 {self.percentile(0.99) * 1000:6.1f} ms  errors {self.errors}")


def _client(port: int, method: str, path: str, body_fn, headers: dict, stop_at: float,
            out: list, lock: threading.Lock, seq: list) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    latencies, errors = [], 0
    while time.perf_counter() < stop_at:
        with lock:
            seq[0] += 1
            n = seq[0]
        body = json.dumps(body_fn(n)).encode() if body_fn else None
        started = time.perf_counter()
        try:
            conn.request(method, path, body=body, headers=headers)
            response = conn.getresponse()
            response.read()
            if response.status >= 400:
                errors += 1
        except (OSError, http.client.HTTPException):
            errors += 1
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            continue
        latencies.append(time.perf_counter() - started)
    conn.close()
    with lock:
        out.append((latencies, errors))


def _process(args) -> tuple[list[float], int]:
    port, method, path, body_fn, headers, threads, start_at, duration, proc_index = args
    while time.time() < start_at:
        time.sleep(0.001)
    stop_at = time.perf_counter() + duration
    out, lock, seq = [], threading.Lock(), [proc_index * 10_000_000]
    workers = [threading.Thread(target=_client, args=(port, method, path, body_fn, headers,
                                                      stop_at, out, lock, seq))
               for _ in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return [lat for lats, _ in out for lat in lats], sum(e for _, e in out)


def run_load(name: str, port: int, method: str, path: str, *, body_fn=None,
             headers: dict | None = None, clients: int = 16, processes: int = 4,
             duration: float = 5.0) -> Result:
    """`clients` keep-alive connections spread over `processes` processes, for `duration` s."""
    headers = {"Content-Type": "application/json", **(headers or {})}
    start_at = time.time() + 0.5
    per_process = [clients // processes + (1 if i < clients % processes else 0)
                   for i in range(processes)]
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(processes) as pool:
        parts = pool.map(_process, [(port, method, path, body_fn, headers, n, start_at,
                                     duration, i) for i, n in enumerate(per_process)])
    latencies = [lat for lats, _ in parts for lat in lats]
    return Result(name, len(latencies), sum(e for _, e in parts), duration, latencies)


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")
