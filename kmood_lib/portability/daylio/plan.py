"""What reading a Daylio file produces: the import plan (rows on their own local wall clock,
problems, warnings, what was left out) and the error for a file that cannot be read."""

from __future__ import annotations

import codecs
import io
from collections import Counter
from dataclasses import dataclass, field
from datetime import date

from kmood_lib.core.errors import DomainError
from kmood_lib.core.i18n import N_, Phrase
from kmood_lib.core.text import hidden_character, name_key, without_hidden
from kmood_lib.portability.daylio.notes import _PlainText

THE_FILE = Phrase("the file")  # what a refusal names when it is the uploaded file itself
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
            raise DaylioFormatError(Phrase(
                "{what} holds more than {mib} MiB, the most one import reads"
                " (KMOOD_IMPORT_MAX_BYTES)", what=what, mib=f"{self.max_bytes / MIB:g}"))

    def check_rows(self, rows: int) -> None:
        if rows > self.max_rows:
            raise DaylioFormatError(Phrase(
                "the file holds more than {n} entries, the most one import brings"
                " (KMOOD_IMPORT_MAX_ROWS): split it by year", n=self.max_rows))


DEFAULT_LIMITS = Limits()


class DaylioFormatError(DomainError):
    """The file is not a Daylio export this build can read (named in the message)."""

    def __init__(self, message: str):
        super().__init__(message, {"file": message})


def at_line(n: int) -> Phrase:
    """Where a row is in a CSV file, for the report: "line 12"."""
    return Phrase("line {n}", n=n)


def at_entry(ident: str) -> Phrase:
    """Where a row is in a backup or an export, for the report: "entry 345"."""
    return Phrase("entry {id}", id=ident)


def where_again(text: str) -> str:
    """A row's place as a staged row keeps it (its English: "line 12") -> the Phrase it was
    made as, to be said again in a report; any other place as it is."""
    kind, _, rest = str(text).partition(" ")
    if kind == "line" and rest.isascii() and rest.isdigit():
        return at_line(int(rest))
    if kind == "entry" and rest:
        return at_entry(rest)
    return text


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

    where: str  # "line 12" or "entry 345" (at_line, at_entry), for the report
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
    photos: tuple[str, ...] = ()  # archive members of its photos, in order (backups only)
    memos: tuple[str, ...] = ()  # archive members of its voice memos, in order


class Notes(list):
    """Problems or warnings: the first MAX_PROBLEMS kept to list, all of them counted (a file
    of a million bad rows costs a number, not a million messages)."""

    def __init__(self):
        super().__init__()
        self.count = 0

    def append(self, message: str) -> None:
        self.count += 1
        if len(self) < MAX_PROBLEMS:
            super().append(message)

    def extend(self, messages) -> None:
        for message in messages:
            self.append(message)


# A character a name may not hold, taken out of a name from the file, by what the name names.
TAKEN_OUT = {
    "mood name": N_("{where}: {character} taken out of the mood name {name} (a name may not"
                    " hold it)"),
    "mood label": N_("{where}: {character} taken out of the mood label {name} (a name may not"
                     " hold it)"),
    "activity": N_("{where}: {character} taken out of the activity {name} (a name may not hold"
                   " it)"),
    "group": N_("{where}: {character} taken out of the group {name} (a name may not hold it)"),
    "metric": N_("{where}: {character} taken out of the metric {name} (a name may not hold"
                 " it)"),
    "unit": N_("{where}: {character} taken out of the unit {name} (a name may not hold it)"),
    "title": N_("{where}: {character} taken out of the title {name} (a name may not hold it)"),
    "song's artist": N_("{where}: {character} taken out of the song's artist {name} (a name"
                        " may not hold it)"),
    "song's title": N_("{where}: {character} taken out of the song's title {name} (a name may"
                       " not hold it)"),
    "song's album": N_("{where}: {character} taken out of the song's album {name} (a name may"
                       " not hold it)"),
    "name": N_("{where}: {character} taken out of the name {name} (a name may not hold it)"),
}
MAX_UNKNOWN_MOODS = 500  # distinct unknown names listed; more are counted under the last


@dataclass
class Plan:
    """What reading a file found, filled in while its rows are read (the rows themselves are
    handed out one by one, never held): counts, problems, the moods met, and what the file
    holds besides entries."""

    source: str  # "csv" or "backup"
    total: int = 0  # rows (or entries) in the file, readable or not
    first_day: date | None = None  # of the days that could be read
    last_day: date | None = None
    problems: Notes = field(default_factory=Notes)
    warnings: Notes = field(default_factory=Notes)
    ignored: list[str] = field(default_factory=list)
    moods: Counter = field(default_factory=Counter)  # (name, level) -> rows
    unknown_moods: dict[str, dict] = field(default_factory=dict)  # name -> count, first lines
    groups: dict[str, str] = field(default_factory=dict)  # activity -> group name
    extras: dict = field(default_factory=dict)  # k-mood's own export: see portability.restore
    html: _PlainText = field(default_factory=_PlainText, repr=False)  # reused for every note
    # a backup's archive member by name -> its bytes (read when its row is staged), or None
    read_asset: object | None = field(default=None, repr=False)
    photos: int = 0  # photos the rows name that the archive holds
    memos: int = 0  # voice memos likewise
    _spellings: dict[str, str] = field(default_factory=dict, repr=False)  # key -> first spelling
    _cleaned: set[str] = field(default_factory=set, repr=False)  # names already said so

    def problem(self, message: str) -> None:
        self.problems.append(message)

    def name(self, text: str, where: str, what: str) -> str:
        """A name from the file without the invisible and direction-changing characters a
        name may not hold (core.text; trimmed when one was taken out), said once per name in
        the warnings. Taken out rather than refusing the file: a backup cannot be fixed where
        it was made, and what goes shows nothing itself (an override goes with its disguise)."""
        cleaned = without_hidden(text)
        if cleaned == text:
            return text
        if text not in self._cleaned:
            self._cleaned.add(text)
            self.warnings.append(Phrase(TAKEN_OUT.get(what, TAKEN_OUT["name"]), where=where,
                                        character=hidden_character(text),
                                        name=repr(cleaned.strip()[:40])))
        return cleaned.strip()

    def clean_row(self, row: Row) -> None:
        """The row's names through `name`: its mood name, activities, song and metrics."""
        if row.label:
            row.label = self.name(row.label, row.where, "mood name") or None
        row.activities = list(dict.fromkeys(
            cleaned for a in row.activities if (cleaned := self.name(a, row.where, "activity"))))
        for metric in row.metrics:
            metric.name = self.name(metric.name, row.where, "metric")
        song = row.song
        if song is not None:
            song.artist = self.name(song.artist, row.where, "song's artist")
            song.title = self.name(song.title, row.where, "song's title")
            if song.album:
                song.album = self.name(song.album, row.where, "song's album") or None
            if not song.artist or not song.title:
                row.song = None

    def clean_names(self) -> None:
        """The names the file brings besides its rows through `name`: activity groups, and
        what the restore step makes (activities, metrics, goals, templates, mood labels,
        reminder titles)."""
        groups = {}
        for activity, group in self.groups.items():
            group = self.name(group, "groups", "group")
            if group:
                groups[self.name(activity, "activities", "activity")] = group
        self.groups = groups
        moods = self.extras.get("moods")
        if moods:
            self.extras["moods"] = {level: self.name(label, "moods", "mood label")
                                    for level, label in moods.items()}
        for kind in ("activities", "metrics", "goals", "templates", "reminders"):
            for item in self.extras.get(kind) or ():
                for key in ("name", "group", "activity", "unit", "title"):
                    if isinstance(item.get(key), str):
                        item[key] = self.name(item[key], kind, key)

    def saw_day(self, day: date) -> None:
        if self.first_day is None or day < self.first_day:
            self.first_day = day
        if self.last_day is None or day > self.last_day:
            self.last_day = day

    def unknown_mood(self, name: str, where: str) -> None:
        """Counted by name key, under the first spelling met."""
        key = name_key(name.strip())
        spelling = self._spellings.get(key)
        if spelling is None and len(self.unknown_moods) < MAX_UNKNOWN_MOODS:
            spelling = self._spellings[key] = name.strip()
        elif spelling is None:
            spelling = next(reversed(self.unknown_moods))
        found = self.unknown_moods.setdefault(spelling, {"count": 0, "first": []})
        found["count"] += 1
        if len(found["first"]) < 3:
            found["first"].append(where)


def text_stream(data: bytes) -> io.TextIOWrapper:
    """The file as UTF-8 text (with or without a BOM), read as it is asked for rather than
    decoded whole; checked first, a megabyte at a time. Raises DaylioFormatError."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    view = memoryview(data)
    for start in range(0, len(data), CHECK_CHUNK):
        try:
            decoder.decode(view[start:start + CHECK_CHUNK], final=start + CHECK_CHUNK >= len(data))
        except UnicodeDecodeError as exc:
            raise DaylioFormatError(Phrase("the file is not UTF-8 text (byte {n} cannot be"
                                           " read): Daylio writes UTF-8",
                                           n=start + exc.start)) from None
    return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8-sig", newline="")


CHECK_CHUNK = 1024 * 1024
