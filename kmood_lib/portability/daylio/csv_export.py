"""Daylio's CSV export, every header generation, read by header name into a plan."""

from __future__ import annotations

import csv
import hashlib
from collections import Counter
from collections.abc import Iterator
from datetime import date

from kmood_lib.core.i18n import Phrase
from kmood_lib.core.text import name_key
from kmood_lib.portability.counted import n_
from kmood_lib.portability.daylio.dates import localised_day, parse_time
from kmood_lib.portability.daylio.moods import MoodNames
from kmood_lib.portability.daylio.notes import html_to_text
from kmood_lib.portability.daylio.plan import (
    DEFAULT_LIMITS,
    THE_FILE,
    DaylioFormatError,
    Limits,
    Metric,
    Plan,
    Row,
    at_line,
    text_stream,
)

KNOWN_COLUMNS = {"full_date", "year", "date", "weekday", "time", "mood", "activities",
                 "scales", "note_title", "note"}
OPTIONAL_COLUMNS = {"activities", "scales", "note_title", "note"}  # may be cut off a row's end


# A cell that a spreadsheet would run as a formula (CSV injection): k-mood's CSV export writes
# it behind a ' and this reader takes that ' away again, so the file reads back unchanged.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(cell: str) -> str:
    return "'" + cell if cell.startswith(FORMULA_STARTS) else cell


def unquoted(cell: str) -> str:
    return cell[1:] if cell.startswith("'") and cell[1:].startswith(FORMULA_STARTS) else cell


def read_csv(data: bytes, moods: MoodNames, limits: Limits = DEFAULT_LIMITS
             ) -> tuple[Plan, Iterator[Row]]:
    """A Daylio CSV (any of the four header generations) -> its plan and its rows, read one
    by one as they are asked for; raises DaylioFormatError for a file that is not one at all,
    or one past `limits`, and lists row problems in the plan."""
    limits.check_bytes(len(data), THE_FILE)
    reader = csv.reader(text_stream(data))
    try:
        header = next(reader, None)
    except csv.Error as exc:
        raise DaylioFormatError(Phrase("{where}: {problem}", where=at_line(1),
                                       problem=str(exc))) from None
    if header is None:
        raise DaylioFormatError(Phrase("the file is empty"))
    columns = [name_key(h.strip()) for h in header]
    missing = {"time", "mood", "activities", "note"} - set(columns)
    if "full_date" not in columns and not {"year", "date"} <= set(columns):
        missing.add("full_date")
    if missing:
        found = ", ".join(h.strip() for h in header)
        raise DaylioFormatError(
            Phrase("line 1 is not a Daylio CSV header: it lacks {columns} (found: {found})",
                   columns=", ".join(sorted(missing)), found=found) if found else
            Phrase("line 1 is not a Daylio CSV header: it lacks {columns} (found: nothing)",
                   columns=", ".join(sorted(missing))))
    if len(set(columns)) != len(columns):
        raise DaylioFormatError(Phrase("line 1 names a column twice"))
    plan = Plan("csv")
    unknown = [h.strip() for h, c in zip(header, columns, strict=True) if c not in KNOWN_COLUMNS]
    if unknown:
        plan.ignored.append(Phrase("columns not read: {columns}", columns=", ".join(unknown)))
    return plan, _csv_rows(plan, reader, columns, moods, limits)


def _csv_rows(plan: Plan, reader, columns: list[str], moods: MoodNames, limits: Limits
              ) -> Iterator[Row]:
    seen: Counter = Counter()
    short = 0
    while True:
        try:
            cells = next(reader, None)
        except csv.Error as exc:
            plan.problem(Phrase("{where}: {problem}", where=at_line(reader.line_num),
                                problem=str(exc)))
            break
        if cells is None:
            break
        line = reader.line_num
        if not any(c.strip() for c in cells):
            continue
        plan.total += 1
        limits.check_rows(plan.total)
        if len(cells) < len(columns) and OPTIONAL_COLUMNS.issuperset(columns[len(cells):]):
            short += 1  # a real export's last row without its empty trailing note cell
            cells = cells + [""] * (len(columns) - len(cells))
        if len(cells) != len(columns):
            plan.problem(Phrase("{where}: {problem}", where=at_line(line), problem=n_(
                "{n} cell where the header has {columns}",
                "{n} cells where the header has {columns}", len(cells), columns=len(columns))))
            continue
        record = dict(zip(columns, map(unquoted, cells), strict=True))
        row = _csv_row(plan, record, at_line(line), moods)
        if row is not None:
            signature = (row.local_date.isoformat(), record["time"].strip(),
                         record["mood"].strip(), record["activities"], record["note"])
            digest = hashlib.sha256("\x1f".join(signature).encode()).digest()[:16]
            seen[digest] += 1  # identical rows are numbered; only the digest is kept
            row.import_key = f"daylio-csv:{digest.hex()}:{seen[digest]}"
            yield row
    if short:
        cut = [c for c in columns if c in OPTIONAL_COLUMNS]
        plan.warnings.append(n_("{n} row ended before the header's last optional column"
                                " ({columns}): read as empty",
                                "{n} rows ended before the header's last optional column"
                                " ({columns}): read as empty", short, columns=", ".join(cut))
                             if len(cut) == 1 else
                             n_("{n} row ended before the header's last optional columns"
                                " ({columns}): read as empty",
                                "{n} rows ended before the header's last optional columns"
                                " ({columns}): read as empty", short, columns=", ".join(cut)))


def _csv_row(plan: Plan, record: dict, where: str, moods: MoodNames) -> Row | None:
    errors = []
    day = None
    try:
        if "full_date" in record:
            day = date.fromisoformat(record["full_date"].strip())
        else:
            day = localised_day(record["year"], record["date"])
    except ValueError as exc:
        raw = record.get("full_date", f"{record.get('year')} {record.get('date')}")
        errors.append(Phrase("the date {date} is not a real day ({reason})",
                             date=repr(raw.strip()), reason=str(exc))
                      if "full_date" in record else exc.args[0])
    if day is not None:
        plan.saw_day(day)
    minute = None
    try:
        # Daylio always writes a time; k-mood's own CSV leaves it empty for a date-only entry.
        minute = parse_time(record["time"]) if record["time"].strip() else None
    except ValueError as exc:
        errors.append(exc.args[0])
    name = record["mood"].strip()
    level = moods.level(name) if name else None
    if not name:
        errors.append(Phrase("the mood is empty"))
    elif level is None:
        plan.unknown_mood(name, where)
    for message in errors:
        plan.problem(Phrase("{where}: {problem}", where=where, problem=message))
    if errors or level is None:
        return None
    plan.moods[(name, level)] += 1
    activities = [a.strip() for a in record["activities"].split("|")]
    metrics = _scales(plan, record.get("scales", ""), where)
    return Row(where, day, minute, None, level, name, [a for a in activities if a],
               html_to_text(record.get("note_title", ""), plan.html),
               html_to_text(record["note"], plan.html), metrics,
               "")


def _scales(plan: Plan, cell: str, where: str) -> list[Metric]:
    """`Sleep Quality: 8/10 points | Sleep Time: 8:00` -> metric values; anything else is a
    warning in the report."""
    out = []
    for part in cell.split("|"):
        part = part.strip()
        if not part:
            continue
        name, sep, value = part.partition(":")
        name, value = name.strip(), value.strip()
        metric = _scale_value(name, value) if sep and name else None
        if metric is None:
            plan.warnings.append(Phrase("{where}: scale {scale} not understood, left out",
                                        where=where, scale=repr(part)))
        else:
            out.append(metric)
    return out


def _scale_value(name: str, value: str) -> Metric | None:
    words = value.split()
    if len(words) in (1, 2) and "/" in words[0]:  # 8/10 points
        got, _, top = words[0].partition("/")
        if _number(got) is not None and _number(top):
            return Metric(name, _number(got), words[1] if len(words) == 2 else None,
                          _number(top))
    hours, sep, minutes = value.partition(":")
    if sep and hours.isascii() and hours.isdigit() and minutes.isascii() and minutes.isdigit() \
            and len(minutes) == 2 and int(minutes) < 60:  # 8:00 -> 8 h
        return Metric(name, int(hours) + int(minutes) / 60, "h", None)
    if len(words) in (1, 2) and _number(words[0]) is not None:
        return Metric(name, _number(words[0]), words[1] if len(words) == 2 else None, None)
    return None


def _number(text: str) -> float | None:
    try:
        value = float(text.replace(",", "."))
    except ValueError:
        return None
    return value if value == value and abs(value) < 1e15 else None
