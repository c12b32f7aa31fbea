"""Requests sent back to back while something else loads the server, and what their latencies
were: the yardstick of the burst benchmarks (import_latency, insights_burst)."""

from __future__ import annotations

import statistics
import threading
import time
from typing import NamedTuple

from tests.helpers import http


class Ask(NamedTuple):
    """One request a probe repeats, and the status it expects back."""
    method: str
    path: str
    body: dict | None = None
    headers: dict | None = None
    expect: int = 200


class Probe:
    """Each request of `asks` in turn, until stopped; latencies in seconds, by name."""

    def __init__(self, url: str, asks: dict[str, Ask], timeout: float = 300):
        self.url, self.asks, self.timeout = url, asks, timeout
        self.latencies: dict[str, list[float]] = {name: [] for name in asks}
        self.failed: list[int] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            for name, ask in self.asks.items():
                started = time.perf_counter()
                status, _, _ = http(ask.method, self.url + ask.path, ask.body, ask.headers,
                                    timeout=self.timeout)
                self.latencies[name].append(time.perf_counter() - started)
                if status != ask.expect:
                    self.failed.append(status)

    def worst(self) -> float:
        return max(max(values) for values in self.latencies.values())

    def __enter__(self) -> Probe:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(self.timeout * 2)


def summary(values: list[float]) -> str:
    """Median, 99th percentile and worst of some latencies, in milliseconds."""
    ordered = sorted(values)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return (f"median {statistics.median(ordered) * 1000:7.1f} ms, p99 {p99 * 1000:7.1f} ms,"
            f" max {ordered[-1] * 1000:8.1f} ms ({len(ordered)} requests)")
