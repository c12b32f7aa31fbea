"""Daylio's exports read exactly: the CSV (every header generation) and the `.daylio` backup,
turned into an import plan — rows with their local day and minute, mood level and label,
activities, plain-text notes and metric values — plus every problem found, with its line.

Nothing here touches the database: `importer.py` applies a plan atomically.
"""

from __future__ import annotations

import base64
import binascii
import csv
import hashlib
import html
import io
import json
import re
import zipfile
from collections import Counter
from dataclasses import dataclass, field
from datetime import date
from html.parser import HTMLParser

from kmood_lib.core.text import name_key

MAX_PROBLEMS = 200  # listed in a report; the count says how many more there were


class DaylioFormatError(Exception):
    """The file is not a Daylio export this build can read (named in the message)."""


# --- moods --------------------------------------------------------------------------------

# Daylio's default mood names (SPEC §8): English (older exports say "fugly" for 2), French,
# Polish. Renamed and custom moods, and other languages, need the user's mood map.
DEFAULT_MOODS = {
    **{name: level for level, name in enumerate(("awful", "bad", "meh", "good", "rad"), 1)},
    "fugly": 2,
    **{name: level for level, name in enumerate(
        ("horrible", "mauvais", "mouais", "bien", "super"), 1)},
    **{name: level for level, name in enumerate(
        ("okropnie", "źle", "tak sobie", "dobrze", "wspaniale"), 1)},
}
PREDEFINED = {1: "rad", 2: "good", 3: "meh", 4: "bad", 5: "awful"}  # backup predefined_name_id


def parse_mood_map(value: str) -> dict[str, int]:
    """The user's mood map: JSON `{"sad": 2}`, or the short form `sad=2,ok=3` (names without
    `,` or `=`). Keys are compared by name key after trimming; raises ValueError."""
    text = value.strip()
    if not text:
        return {}
    if text.startswith("{"):
        try:
            raw = json.loads(text)
        except ValueError as exc:
            raise ValueError(f"the mood map is not valid JSON ({exc})") from None
        if not isinstance(raw, dict):
            raise ValueError("the mood map must be a JSON object of name: level")
        pairs = list(raw.items())
    else:
        pairs = []
        for part in text.split(","):
            name, sep, level = part.partition("=")
            if not sep:
                raise ValueError(f"{part.strip()!r} in the mood map is not name=level")
            pairs.append((name, level.strip()))
    out: dict[str, int] = {}
    for name, level in pairs:
        if isinstance(level, str) and level.isascii() and level.isdigit():
            level = int(level)
        if isinstance(level, bool) or not isinstance(level, int) or not 1 <= level <= 5:
            raise ValueError(f"the mood map gives {name.strip()!r} the level {level!r}: "
                             f"levels run from 1 (worst) to 5 (best)")
        if not name.strip():
            raise ValueError("the mood map has an empty name")
        out[name_key(name.strip())] = level
    return out


class MoodNames:
    """Mood name -> level: the user's map first, then the user's own labels, then the custom
    names the user's entries already carry for one level only, then the defaults; names
    compared by name key after trimming."""

    def __init__(self, user_map: dict[str, int], user_labels: dict[int, str],
                 used: dict[str, int] | None = None):
        self.known = {name_key(k): v for k, v in DEFAULT_MOODS.items()}
        self.known.update(used or {})
        self.known.update({name_key(label.strip()): level for level, label in user_labels.items()})
        self.known.update(user_map)

    def level(self, name: str) -> int | None:
        return self.known.get(name_key(name.strip()))


# --- notes --------------------------------------------------------------------------------

class _PlainText(HTMLParser):
    BREAKS = {"br", "p", "div", "li"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag == "br":
            self.parts.append("\n")

    def handle_endtag(self, tag):
        if tag in self.BREAKS - {"br"}:
            self.parts.append("\n")

    def handle_data(self, data):
        self.parts.append(data)


# The tags Daylio's editor writes, exactly as it writes them (no attributes), and what
# _PlainText makes of each: a line break, or nothing.
_SIMPLE_TAGS = {"<br>": "\n", "<br/>": "\n", "<br />": "\n", "</p>": "\n", "</div>": "\n",
                "</li>": "\n", **{f"<{t}>": "" for t in ("p", "div", "li", "b", "i", "u", "s",
                                                       "strong", "em", "ul", "ol")},
                **{f"</{t}>": "" for t in ("b", "i", "u", "s", "strong", "em", "ul", "ol")}}


def _simple_markup(value: str) -> str | None:
    """The plain text of a note whose every tag is one of _SIMPLE_TAGS, exactly as _PlainText
    reads it (each run of text between tags unescaped on its own), or None for anything else
    (which then goes to html.parser)."""
    parts, start = [], 0
    while True:
        opening = value.find("<", start)
        if opening < 0:
            parts.append(html.unescape(value[start:]))
            return "".join(parts).strip()
        closing = value.find(">", opening)
        tag = value[opening:closing + 1] if closing > 0 else ""
        if tag not in _SIMPLE_TAGS:
            return None
        parts += [html.unescape(value[start:opening]), _SIMPLE_TAGS[tag]]
        start = closing + 1


def html_to_text(value: str, parser: _PlainText | None = None) -> str:
    """Daylio's HTML notes as plain text: `<br>` a newline, entities unescaped, tags dropped.
    A parser may be passed in to be reused (reset first) across many notes."""
    if "<" not in value and "&" not in value:
        return value.strip()
    simple = _simple_markup(value)
    if simple is not None:
        return simple
    parser = parser or _PlainText()
    parser.reset()
    parser.parts = []
    parser.feed(value)
    parser.close()
    return "".join(parser.parts).strip()


# --- dates and times ----------------------------------------------------------------------

# Month names in the languages Daylio's oldest CSV localises its `date` cell into, nominative
# and genitive (Polish, "7 września"), with common abbreviations; compared by name key.
_MONTHS = {
    1: "january jan januar jänner janvier janv enero ene gennaio gen janeiro styczeń stycznia sty",
    2: "february feb februar février févr fevrier fevr febrero febbraio fevereiro fev luty lutego"
       " lut",
    3: "march mar märz marz mars marzo março marco marca",
    4: "april apr avril avr abril abr aprile kwiecień kwietnia kwi",
    5: "may mai mayo maggio mag maio maj maja",
    6: "june jun juni juin junio giugno giu junho czerwiec czerwca cze",
    7: "july jul juli juillet juil julio luglio lug julho lipiec lipca lip",
    8: "august aug août aout agosto ago sierpień sierpnia sie",
    9: "september sep sept septembre septiembre setiembre settembre set setembro wrzesień"
       " września wrz",
    10: "october oct oktober okt octobre octubre ottobre ott outubro out październik"
        " października paź",
    11: "november nov novembre noviembre novembro listopad listopada lis",
    12: "december dec dezember dez décembre decembre diciembre dic dicembre dezembro grudzień"
        " grudnia gru",
}
MONTH_NAMES = {name_key(word): month for month, words in _MONTHS.items()
               for word in words.split()}
_WORD = re.compile(r"[^\W\d_]+|\d+")  # a run of letters, or of digits


def localised_day(year_cell: str, date_cell: str) -> date:
    """The oldest header's day: `year` plus a localised day and month such as `June 22`,
    `22. Juni`, `7 września`, `16 de octubre`; raises ValueError naming what it could not read."""
    if not year_cell.strip().isdigit():
        raise ValueError(f"year {year_cell!r} is not a number")
    days, months = [], []
    for token in _WORD.findall(date_cell):
        if token.isdigit():
            days.append(int(token))
        elif name_key(token) in MONTH_NAMES:
            months.append(MONTH_NAMES[name_key(token)])
    if len(days) != 1 or len(months) != 1:
        raise ValueError(f"cannot read a day and a month from the date {date_cell!r}")
    return date(int(year_cell.strip()), months[0], days[0])


def parse_time(cell: str) -> int:
    """Minutes after midnight from `18:52`, `9:03`, `6:50 pm`, `10:04 AM` (12:xx AM is just
    after midnight); raises ValueError."""
    text = cell.strip().casefold().replace(".", "")
    suffix = None
    for mark in ("am", "pm"):
        if text.endswith(mark):
            suffix, text = mark, text[: -len(mark)].strip()
    hours, sep, minutes = text.partition(":")
    if not (sep and hours.isascii() and hours.isdigit() and minutes.isascii()
            and minutes.isdigit() and len(minutes) == 2 and 1 <= len(hours) <= 2):
        raise ValueError(f"cannot read the time {cell!r}")
    h, m = int(hours), int(minutes)
    if suffix:
        if not 1 <= h <= 12:
            raise ValueError(f"cannot read the time {cell!r}")
        h = h % 12 + (12 if suffix == "pm" else 0)
    if h > 23 or m > 59:
        raise ValueError(f"cannot read the time {cell!r}")
    return h * 60 + m


# --- the plan -----------------------------------------------------------------------------

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


# --- CSV ----------------------------------------------------------------------------------

KNOWN_COLUMNS = {"full_date", "year", "date", "weekday", "time", "mood", "activities",
                 "scales", "note_title", "note"}


def read_csv(data: bytes, moods: MoodNames) -> Plan:
    """A Daylio CSV (any of the four header generations) -> a plan; raises DaylioFormatError
    for a file that is not one at all, and lists row problems in the plan."""
    text = decode_file(data)
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader, None)
    except csv.Error as exc:
        raise DaylioFormatError(f"line 1: {exc}") from None
    if header is None:
        raise DaylioFormatError("the file is empty")
    columns = [name_key(h.strip()) for h in header]
    missing = {"time", "mood", "activities", "note"} - set(columns)
    if "full_date" not in columns and not {"year", "date"} <= set(columns):
        missing.add("full_date")
    if missing:
        raise DaylioFormatError(
            f"line 1 is not a Daylio CSV header: it lacks {', '.join(sorted(missing))}"
            f" (found: {', '.join(h.strip() for h in header) or 'nothing'})")
    if len(set(columns)) != len(columns):
        raise DaylioFormatError("line 1 names a column twice")
    plan = Plan("csv")
    unknown = [h.strip() for h, c in zip(header, columns, strict=True) if c not in KNOWN_COLUMNS]
    if unknown:
        plan.ignored.append(f"columns not read: {', '.join(unknown)}")
    seen: Counter = Counter()
    line = 1
    while True:
        try:
            cells = next(reader, None)
        except csv.Error as exc:
            plan.problem(f"line {reader.line_num}: {exc}")
            break
        if cells is None:
            break
        line = reader.line_num
        if not any(c.strip() for c in cells):
            continue
        plan.total += 1
        if len(cells) != len(columns):
            plan.problem(f"line {line}: {len(cells)} cells where the header has {len(columns)}")
            continue
        record = dict(zip(columns, cells, strict=True))
        row = _csv_row(plan, record, f"line {line}", moods)
        if row is not None:
            signature = (row.local_date.isoformat(), record["time"].strip(),
                         record["mood"].strip(), record["activities"], record["note"])
            seen[signature] += 1
            digest = hashlib.sha256("\x1f".join(signature).encode()).hexdigest()[:32]
            row.import_key = f"daylio-csv:{digest}:{seen[signature]}"
            plan.rows.append(row)
    return plan


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
        errors.append(f"the date {raw.strip()!r} is not a real day ({exc})"
                      if "full_date" in record else str(exc))
    if day is not None:
        plan.days.append(day)
    minute = None
    try:
        # Daylio always writes a time; k-mood's own CSV leaves it empty for a date-only entry.
        minute = parse_time(record["time"]) if record["time"].strip() else None
    except ValueError as exc:
        errors.append(str(exc))
    name = record["mood"].strip()
    level = moods.level(name) if name else None
    if not name:
        errors.append("the mood is empty")
    elif level is None:
        plan.unknown_mood(name, where)
    for message in errors:
        plan.problem(f"{where}: {message}")
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
            plan.warnings.append(f"{where}: scale {part!r} not understood, left out")
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


# --- the .daylio backup -------------------------------------------------------------------

def read_backup(data: bytes) -> Plan:
    """A `.daylio` backup (ZIP -> backup.daylio -> base64 or plain JSON) -> a plan; raises
    DaylioFormatError for a file that is not one, and lists entry problems in the plan."""
    document = _backup_json(data)
    plan = Plan("backup")
    moods = _backup_moods(plan, document.get("customMoods"))
    tags = _backup_tags(plan, document.get("tags"), document.get("tag_groups"))
    entries = document.get("dayEntries")
    if not isinstance(entries, list):
        raise DaylioFormatError("the backup has no dayEntries list")
    identity = hashlib.sha256(json.dumps(document.get("metadata"), sort_keys=True,
                                         default=str).encode()).hexdigest()[:16]
    mismatched = 0
    plan.total = len(entries)
    for position, entry in enumerate(entries):
        row, off = _backup_row(plan, entry, position, moods, tags, identity)
        mismatched += off
        if row is not None:
            plan.rows.append(row)
    if mismatched:
        plan.warnings.append(f"{mismatched} entr{'y' if mismatched == 1 else 'ies'}: the UTC"
                             f" instant disagrees with the local date and time; the local"
                             f" fields were used")
    _backup_ignored(plan, document, data)
    return plan


def _backup_json(data: bytes) -> dict:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError):
        raise DaylioFormatError("the file is not a ZIP archive: a .daylio backup is one"
                                " (or the file was cut short)") from None
    if "backup.daylio" not in archive.namelist():
        raise DaylioFormatError("the ZIP holds no backup.daylio: this is not a Daylio backup")
    try:
        raw = archive.read("backup.daylio")
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as exc:
        raise DaylioFormatError(f"backup.daylio cannot be read from the ZIP ({exc})") from None
    text = raw.strip()
    if not text.startswith((b"{", b"[")):  # real backups: base64 wrapped at 76 characters
        try:
            text = base64.b64decode(b"".join(text.split()), validate=True)
        except (binascii.Error, ValueError):
            raise DaylioFormatError("backup.daylio is neither JSON nor base64") from None
    return json_object(text, "backup.daylio")


def json_object(raw: bytes, what: str, error: type[DaylioFormatError] = DaylioFormatError
                ) -> dict:
    """UTF-8 JSON holding an object, or `error` saying what `what` holds instead."""
    try:
        document = json.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise error(f"{what} does not hold UTF-8 text") from None
    except ValueError as exc:
        raise error(f"{what} does not hold valid JSON ({exc})") from None
    if not isinstance(document, dict):
        raise error(f"{what} holds JSON that is not an object")
    return document


def _int(value) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _backup_moods(plan: Plan, moods) -> dict[int, tuple[int, str]]:
    """id -> (level, name): level = 6 - mood_group_id (group 1 is the best)."""
    if not isinstance(moods, list):
        raise DaylioFormatError("the backup has no customMoods list")
    out = {}
    for mood in moods:
        ident = _int(mood.get("id")) if isinstance(mood, dict) else None
        group = _int(mood.get("mood_group_id")) if isinstance(mood, dict) else None
        if ident is None or group is None or not 1 <= group <= 5:
            plan.problem(f"customMoods: {json.dumps(mood)[:80]} has no id or mood group 1-5")
            continue
        custom = mood.get("custom_name")
        name = custom.strip() if isinstance(custom, str) and custom.strip() else \
            PREDEFINED.get(_int(mood.get("predefined_name_id")) or 0)
        if name is None:
            plan.problem(f"customMoods: mood {ident} has neither a name nor a predefined one")
            continue
        out[ident] = (6 - group, name)
    return out


def _backup_tags(plan: Plan, tags, groups) -> dict[int, str]:
    if tags is None:
        return {}
    if not isinstance(tags, list):
        raise DaylioFormatError("the backup's tags are not a list")
    group_names = {}
    for group in groups if isinstance(groups, list) else []:
        if isinstance(group, dict) and _int(group.get("id")) is not None \
                and isinstance(group.get("name"), str) and group["name"].strip():
            group_names[group["id"]] = group["name"].strip()
    out = {}
    for tag in tags:
        ident = _int(tag.get("id")) if isinstance(tag, dict) else None
        name = tag.get("name") if isinstance(tag, dict) else None
        if ident is None or not isinstance(name, str) or not name.strip():
            plan.problem(f"tags: {json.dumps(tag)[:80]} has no id or name")
            continue
        out[ident] = name.strip()
        group = group_names.get(_int(tag.get("id_tag_group")) or 0)
        if group:
            plan.groups[name.strip()] = group
    return out


def _backup_row(plan: Plan, entry, position: int, moods: dict, tags: dict, identity: str
                ) -> tuple[Row | None, int]:
    if not isinstance(entry, dict):
        plan.problem(f"dayEntries[{position}]: not an object")
        return None, 0
    ident = _int(entry.get("id"))
    where = f"entry {ident}" if ident is not None else f"dayEntries[{position}]"
    fields = {k: _int(entry.get(k)) for k in ("year", "month", "day", "hour", "minute")}
    errors = [f"{k} is not a whole number" for k, v in fields.items() if v is None]
    day = minute = None
    if not errors:
        try:
            day = date(fields["year"], fields["month"] + 1, fields["day"])  # month is 0-based
        except ValueError:
            errors.append(f"{fields['year']}-{fields['month'] + 1:02d}-{fields['day']:02d} is"
                          f" not a real day (month is 0-based in backups)")
        else:
            plan.days.append(day)
        if fields["hour"] == -1:
            minute = None  # no time recorded
        elif 0 <= fields["hour"] <= 23 and 0 <= fields["minute"] <= 59:
            minute = fields["hour"] * 60 + fields["minute"]
        else:
            errors.append(f"{fields['hour']}:{fields['minute']:02d} is not a time of day")
    mood = moods.get(_int(entry.get("mood")))
    if mood is None:
        errors.append(f"mood id {entry.get('mood')!r} is not in customMoods")
    tag_ids = entry.get("tags", [])
    if not isinstance(tag_ids, list):
        errors.append("tags is not a list")
        tag_ids = []
    unknown = [t for t in tag_ids if _int(t) not in tags]
    if unknown:
        errors.append(f"tag id{'s' if len(unknown) > 1 else ''} {unknown} not in tags")
    notes = {k: entry.get(k) or "" for k in ("note", "note_title")}
    errors += [f"{k} is not text" for k, v in notes.items() if not isinstance(v, str)]
    offset_ms = _int(entry.get("timeZoneOffset"))
    if offset_ms is None or abs(offset_ms) > 18 * 3600 * 1000:
        errors.append(f"timeZoneOffset {entry.get('timeZoneOffset')!r} is not an offset")
    for message in errors:
        plan.problem(f"{where}: {message}")
    if errors:
        return None, 0
    offset_s = offset_ms // 1000
    mismatch = 0
    instant = _int(entry.get("datetime"))
    if instant is not None and minute is not None:
        local_ms = (date_ordinal_ms(day) + minute * 60_000)
        if instant + offset_ms - local_ms not in range(0, 60_000):  # seconds may be kept
            mismatch = 1
            if offset_ms == 0:
                offset_s = None  # an anonymised backup: read the wall time in the user's zone
    level, name = mood
    plan.moods[(name, level)] += 1
    return Row(where, day, minute, offset_s, level, name,
               list(dict.fromkeys(tags[t] for t in tag_ids)),
               html_to_text(notes["note_title"], plan.html), html_to_text(notes["note"], plan.html),
               [], f"daylio-backup:{identity}:{ident}"), mismatch


def date_ordinal_ms(day: date) -> int:
    """Midnight of `day` as if it were UTC, in Unix ms."""
    return (day.toordinal() - date(1970, 1, 1).toordinal()) * 86_400_000


def _backup_ignored(plan: Plan, document: dict, data: bytes) -> None:
    archive = zipfile.ZipFile(io.BytesIO(data))
    assets = [n for n in archive.namelist() if n.startswith("assets/") and not n.endswith("/")]
    if assets:
        plan.ignored.append(f"{len(assets)} photo or asset file(s) not imported")
    for key, what in (("goals", "goals"), ("reminders", "Daylio reminders"),
                      ("prefs", "app preferences")):
        if document.get(key):
            plan.ignored.append(f"{what} not imported")
    if "pin" in document or any("pin" in str(k).lower() for k in (document.get("prefs") or {})
                                if isinstance(document.get("prefs"), dict)):
        plan.ignored.append("the app PIN in the backup was neither read nor stored")
