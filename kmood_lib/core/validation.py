"""Checking client input field by field, so one 422 can name every bad field at once. Each
message is a Phrase: its English for the JSON API, the person's language on a page."""

from __future__ import annotations

import math
import re
from datetime import date, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

from kmood_lib.core.errors import ValidationError
from kmood_lib.core.i18n import Phrase
from kmood_lib.core.text import problem as text_problem

MAX_EXACT_INT = 2**53
MAX_ID = 2**63 - 1  # SQLite's largest rowid
MIN_YEAR, MAX_YEAR = 1900, 2200


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
                self.fail(prefix + name, Phrase("read-only field"))
            elif name not in allowed:
                self.fail(prefix + name, Phrase("unknown field"))

    def raise_if_any(self) -> None:
        if self.errors:
            raise ValidationError(self.errors)

    def text(self, body: dict, name: str, max_len: int, *, required: bool = False,
             nullable: bool = False, min_len: int = 0, is_name: bool = False) -> str | None:
        """A string field; `is_name` refuses every control character (prose keeps tab and
        line breaks); `min_len` > 0 also strips surrounding whitespace."""
        value = body.get(name)
        if value is None:
            if required or (name in body and not nullable):
                self.fail(name, Phrase("required") if required else Phrase("must be a string"))
            return None
        if not isinstance(value, str):
            self.fail(name, Phrase("must be a string"))
            return None
        wrong = text_problem(value, name=is_name)  # before stripping: U+0085 is whitespace
        if wrong:
            self.fail(name, wrong)
            return None
        value = value.strip() if min_len else value
        if len(value) < min_len or len(value) > max_len:
            self.fail(name, Phrase("must be {min}-{max} characters", min=min_len, max=max_len))
            return None
        return value

    def number(self, value, name: str, lo: float | None = None, hi: float | None = None
               ) -> float | None:
        """A finite number; an integer beyond 2**53 is refused, as a float could not hold it
        exactly."""
        if isinstance(value, bool) or not isinstance(value, (int, float)) or (
                isinstance(value, float) and not math.isfinite(value)):
            self.fail(name, Phrase("must be a number"))
            return None
        if isinstance(value, int) and abs(value) > MAX_EXACT_INT:
            self.fail(name, Phrase("must be a number between -{most} and {most}",
                                   most=MAX_EXACT_INT))
            return None
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            self.fail(name, Phrase("must be between {lo} and {hi}", lo=f"{lo:g}", hi=f"{hi:g}")
                      if lo is not None and hi is not None else
                      Phrase("must be >= {lo}", lo=f"{lo:g}") if lo is not None else
                      Phrase("must be <= {hi}", hi=f"{hi:g}"))
            return None
        return value

    def integer(self, value, name: str, lo: int, hi: int) -> int | None:
        if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
            self.fail(name, Phrase("must be an integer from {lo} to {hi}", lo=lo, hi=hi))
            return None
        return value


def parse_int_param(raw: str | None, name: str, lo: int, hi: int, default: int | None = None
                    ) -> int | None:
    """A query parameter holding a plain decimal integer (ASCII digits only: `str.isdigit()`
    also accepts '²' and other digits that int() refuses)."""
    if raw is None or raw == "":
        return default
    if not re.fullmatch(r"[0-9]{1,19}", raw) or not lo <= int(raw) <= hi:
        raise ValidationError({name: Phrase("must be an integer from {lo} to {hi}", lo=lo, hi=hi)})
    return int(raw)


_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")


def is_uuid(value: object) -> bool:
    return isinstance(value, str) and bool(_UUID.match(value))


def parse_local_date(value: str, name: str) -> str:
    """A YYYY-MM-DD string, checked to be a real date."""
    if not isinstance(value, str) or not re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", value):
        raise ValidationError({name: Phrase("must be a date YYYY-MM-DD")})
    try:
        date.fromisoformat(value)
    except ValueError:
        raise ValidationError({name: Phrase("must be a real date YYYY-MM-DD")}) from None
    return value


def resolve_local_time(naive: datetime, tz: ZoneInfo) -> datetime:
    """A wall-clock time in `tz`: in a DST gap it moves forward by the gap; in a fold it takes
    the first occurrence."""
    first = naive.replace(tzinfo=tz, fold=0)
    return first.astimezone(timezone.utc).astimezone(tz)


def parse_occurred_at(value: object, tz: ZoneInfo) -> datetime:
    """ISO-8601 with an offset, or naive meaning the user's timezone; returns an aware datetime
    carrying the offset the moment was lived in, truncated to whole seconds (the precision
    entries are stored and shown with)."""
    message = Phrase("must be an ISO-8601 date-time such as {example}",
                     example="2026-11-30T21:15:00+01:00")
    if not isinstance(value, str) or not (10 <= len(value) <= 40) or not value.isascii():
        raise ValueError(message)
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        raise ValueError(message) from None
    # Checked on the wall clock first: converting year 1 or 9999 across an offset overflows.
    if not MIN_YEAR <= parsed.year <= MAX_YEAR:
        raise ValueError(Phrase("must be between the years {first} and {last}", first=MIN_YEAR,
                                last=MAX_YEAR))
    if parsed.tzinfo is None:
        parsed = resolve_local_time(parsed, tz)
    offset = parsed.utcoffset()
    if offset is None or abs(offset) > timedelta(hours=18):
        raise ValueError(Phrase("has an impossible UTC offset"))
    if not MIN_YEAR <= parsed.astimezone(timezone.utc).year <= MAX_YEAR:
        raise ValueError(Phrase("must be between the years {first} and {last}", first=MIN_YEAR,
                                last=MAX_YEAR))
    return parsed.replace(microsecond=0)
