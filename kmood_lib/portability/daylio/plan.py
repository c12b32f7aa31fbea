"""What reading a Daylio file produces: the import plan (rows on their own local wall clock,
problems, warnings, what was left out) and the error for a file that cannot be read."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from datetime import date

from kmood_lib.core.errors import DomainError
from kmood_lib.core.text import name_key
from kmood_lib.portability.daylio.notes import _PlainText

MAX_PROBLEMS = 200  # listed in a report; the count says how many more there were
MIB = 1024 * 1024


@dataclass(frozen=True)
class Limits:
    """What one import may bring: the bytes of the text it reads (the CSV or JSON file, or a
    backup's backup.daylio once inflated) and its rows. KMOOD_IMPORT_MAX_BYTES /
    KMOOD_IMPORT_MAX_ROWS; the defaults here are theirs."""

    max_bytes: int = 32 * MIB
    max_rows: int = 250_000

    def check_bytes(self, size: int, what: str) -> None:
        if size > self.max_bytes:
            raise DaylioFormatError(
                f"{what} holds more than {self.max_bytes / MIB:g} MiB, the most one import"
                f" reads (KMOOD_IMPORT_MAX_BYTES)")

    def check_rows(self, rows: int) -> None:
        if rows > self.max_rows:
            raise DaylioFormatError(
                f"the file holds more than {self.max_rows} entries, the most one import"
                f" brings (KMOOD_IMPORT_MAX_ROWS): split it by year")


DEFAULT_LIMITS = Limits()


class DaylioFormatError(DomainError):
    """The file is not a Daylio export this build can read (named in the message)."""

    def __init__(self, message: str):
        super().__init__(message, {"file": message})


@dataclass
class Metric:
    name: str
    value: float
    unit: str | None
    max: float | None
    min: float | None = None


@dataclass
class Row:
    """One entry to import, on its own local wall clock."""

    where: str  # "line 12" or "entry 345", for the report
    local_date: date
    minute: int | None  # None: no time recorded (a date-only entry)
    offset_s: int | None  # None: read the wall time in the user's timezone
    level: int
    label: str | None  # the custom mood name, kept as the entry's label
    activities: list[str]
    note_title: str
    note: str
    metrics: list[Metric]
    import_key: str
    second: int = 0
    location: tuple[float, float] | None = None
    song: object | None = None  # entry_input.Song (k-mood's own export only)
    source: str = "daylio"
    weather: dict | None = None  # what the worker had found (k-mood's own export only)


@dataclass
class Plan:
    source: str  # "csv" or "backup"
    rows: list[Row] = field(default_factory=list)
    total: int = 0  # rows (or entries) in the file, readable or not
    days: list[date] = field(default_factory=list)  # every day that could be read
    problems: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)
    moods: Counter = field(default_factory=Counter)  # (name, level) -> rows
    unknown_moods: dict[str, dict] = field(default_factory=dict)  # name -> count, first lines
    groups: dict[str, str] = field(default_factory=dict)  # activity -> group name
    extras: dict = field(default_factory=dict)  # k-mood's own export: see portability.restore
    html: _PlainText = field(default_factory=_PlainText, repr=False)  # reused for every note

    def problem(self, message: str) -> None:
        self.problems.append(message)

    def unknown_mood(self, name: str, where: str) -> None:
        """Counted by name key, under the first spelling met."""
        key = name_key(name.strip())
        spelling = next((n for n in self.unknown_moods if name_key(n) == key), name.strip())
        found = self.unknown_moods.setdefault(spelling, {"count": 0, "first": []})
        found["count"] += 1
        if len(found["first"]) < 3:
            found["first"].append(where)


def decode_file(data: bytes) -> str:
    """UTF-8, with or without a BOM; raises DaylioFormatError."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DaylioFormatError(f"the file is not UTF-8 text (byte {exc.start} cannot be"
                                f" read): Daylio writes UTF-8") from None


def json_object(raw: bytes, what: str, error: type[DaylioFormatError] = DaylioFormatError
                ) -> dict:
    """UTF-8 JSON holding an object, or `error` saying what `what` holds instead."""
    try:
        document = json.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise error(f"{what} does not hold UTF-8 text") from None
    except ValueError as exc:
        raise error(f"{what} does not hold valid JSON ({exc})") from None
    except RecursionError:
        raise error(f"{what} holds JSON nested too deeply to be an export") from None
    if not isinstance(document, dict):
        raise error(f"{what} holds JSON that is not an object")
    return document
