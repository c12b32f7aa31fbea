"""Checking client input field by field, so one 422 can name every bad field at once."""

from __future__ import annotations

import math
import re
from datetime import date, datetime, timedelta, timezone
from zoneinfo import ZoneInfo


class ValidationError(ValueError):
    """Input that cannot be accepted; `fields` maps each bad field to what is wrong with it."""

    def __init__(self, fields: dict[str, str], message: str = "invalid input"):
        super().__init__(message)
        self.fields = fields


class Fields:
    """Collects per-field errors while a body is being checked."""

    def __init__(self):
        self.errors: dict[str, str] = {}

    def fail(self, name: str, message: str) -> None:
        self.errors.setdefault(name, message)

    def reject_fields(self, body: dict, allowed: set[str], read_only: set[str],
                      prefix: str = "") -> None:
        """Name every field that is read-only or unknown (`prefix` for nested objects)."""
        for name in body:
            if name in read_only:
                self.fail(prefix + name, "read-only field")
            elif name not in allowed:
                self.fail(prefix + name, "unknown field")

    def raise_if_any(self) -> None:
        if self.errors:
            raise ValidationError(self.errors)

    def text(self, body: dict, name: str, max_len: int, *, required: bool = False,
             nullable: bool = False, min_len: int = 0) -> str | None:
        value = body.get(name)
        if value is None:
            if required or (name in body and not nullable):
                self.fail(name, "required" if required else "must be a string")
            return None
        if not isinstance(value, str):
            self.fail(name, "must be a string")
            return None
        value = value.strip() if min_len else value
        if len(value) < min_len or len(value) > max_len:
            self.fail(name, f"must be {min_len}-{max_len} characters")
            return None
        if "\x00" in value:
            self.fail(name, "must not contain NUL characters")
            return None
        return value

    def number(self, value, name: str, lo: float | None = None, hi: float | None = None
               ) -> float | None:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(
                value):
            self.fail(name, "must be a number")
            return None
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            bounds = f"between {lo} and {hi}" if lo is not None and hi is not None else (
                f">= {lo}" if lo is not None else f"<= {hi}")
            self.fail(name, f"must be {bounds}")
            return None
        return value

    def integer(self, value, name: str, lo: int, hi: int) -> int | None:
        if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
            self.fail(name, f"must be an integer from {lo} to {hi}")
            return None
        return value


_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")


def is_uuid(value: object) -> bool:
    return isinstance(value, str) and bool(_UUID.match(value))


def parse_local_date(value: str, name: str) -> str:
    """A YYYY-MM-DD string, checked to be a real date."""
    if not isinstance(value, str) or not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        raise ValidationError({name: "must be a date YYYY-MM-DD"})
    try:
        date.fromisoformat(value)
    except ValueError:
        raise ValidationError({name: "must be a real date YYYY-MM-DD"}) from None
    return value


def resolve_local_time(naive: datetime, tz: ZoneInfo) -> datetime:
    """A wall-clock time in `tz`: in a DST gap it moves forward by the gap; in a fold it takes
    the first occurrence."""
    first = naive.replace(tzinfo=tz, fold=0)
    return first.astimezone(timezone.utc).astimezone(tz)


def parse_occurred_at(value: object, tz: ZoneInfo) -> datetime:
    """ISO-8601 with an offset, or naive meaning the user's timezone; returns an aware datetime
    carrying the offset the moment was lived in."""
    if not isinstance(value, str) or not (10 <= len(value) <= 40):
        raise ValueError("must be an ISO-8601 date-time such as 2026-11-30T21:15:00+01:00")
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        raise ValueError("must be an ISO-8601 date-time such as 2026-11-30T21:15:00+01:00") from None
    if parsed.tzinfo is None:
        parsed = resolve_local_time(parsed, tz)
    offset = parsed.utcoffset()
    if offset is None or abs(offset) > timedelta(hours=18):
        raise ValueError("has an impossible UTC offset")
    if not 1900 <= parsed.astimezone(timezone.utc).year <= 2200:
        raise ValueError("must be between the years 1900 and 2200")
    return parsed
