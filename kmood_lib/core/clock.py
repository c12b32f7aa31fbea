"""Time as an injected dependency: the system clock in production, a fake one in tests."""

from __future__ import annotations

import time
from datetime import datetime, timezone


class SystemClock:
    """Wall-clock time in UTC, and the waiting production needs (an import leaving other
    writers their turn, a batch retried after a busy database): a fake moves instead."""

    def now(self) -> datetime:
        return datetime.now(timezone.utc)

    def now_ms(self) -> int:
        return time.time_ns() // 1_000_000

    def monotonic(self) -> float:
        """Seconds that never jump, for measuring how long something held the database."""
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)


def ms_to_iso(ms: int | None) -> str | None:
    """A Unix-ms timestamp as ISO-8601 UTC with seconds precision and a Z, for JSON (the one
    format of instants: `2026-11-30T20:15:00Z`)."""
    if ms is None:
        return None
    return (
        datetime.fromtimestamp(ms // 1000, timezone.utc)
        .isoformat(timespec="seconds")
        .replace("+00:00", "Z")
    )
