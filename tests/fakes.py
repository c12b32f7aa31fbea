"""Fakes with real behaviour: a controllable clock; fake upstream HTTP servers on 127.0.0.1."""

from __future__ import annotations

from datetime import datetime, timezone


class FakeClock:
    """A clock that moves only when the test says so."""

    def __init__(self, start: datetime | None = None):
        start = start or datetime(2026, 11, 30, 12, 0, tzinfo=timezone.utc)
        self._ms = int(start.timestamp() * 1000)

    def now(self) -> datetime:
        return datetime.fromtimestamp(self._ms / 1000, timezone.utc)

    def now_ms(self) -> int:
        return self._ms

    def advance(self, seconds: float) -> None:
        self._ms += int(seconds * 1000)

    def set(self, when: datetime) -> None:
        self._ms = int(when.timestamp() * 1000)
