"""k-mood's own JSON export (or the ZIP of it with the photos) read back into an import plan (the
importer applies it like a Daylio file): every entry with its offset, song, location, metrics
and photos, checked field by field."""

from __future__ import annotations

import math
import zipfile
from collections.abc import Iterator
from datetime import datetime

from kmood_lib.core.i18n import Phrase
from kmood_lib.journal import writes
from kmood_lib.journal.entry_input import SONG_SOURCES, Song
from kmood_lib.portability import restore
from kmood_lib.portability.counted import n_
from kmood_lib.portability.daylio.backup import read_member
from kmood_lib.portability.daylio.plan import (
    DEFAULT_LIMITS,
    THE_FILE,
    DaylioFormatError,
    Limits,
    Metric,
    Plan,
    Row,
    at_entry,
)
from kmood_lib.portability.json_stream import Document

FORMAT, VERSION = "k-mood", 1
ZIP_JSON = "export.json"  # the JSON inside export_zip's archive, beside photos/


class ExportFormatError(DaylioFormatError):
    """The file is not a k-mood export this build can read."""


def is_export(data: bytes) -> bool:
    return data[:64].lstrip(b"\xef\xbb\xbf \t\r\n")[:1] == b"{"


def is_export_zip(archive: zipfile.ZipFile) -> bool:
    return ZIP_JSON in archive.namelist()


def read_export_zip(archive: zipfile.ZipFile, limits: Limits = DEFAULT_LIMITS
                    ) -> tuple[Plan, Iterator[Row]]:
    """k-mood's ZIP export: its JSON, read as read_export reads a JSON file, and its photos,
    each read from the archive (through the bounded reader) when its row is staged."""
    data = read_member(archive, ZIP_JSON, limits)
    plan, rows = read_export(bytes(data), limits)
    members = set(archive.namelist())
    plan.read_asset = lambda name: read_member(archive, name, limits)
    return plan, _with_photos(plan, rows, members)


def _with_photos(plan: Plan, rows: Iterator[Row], members: set[str]) -> Iterator[Row]:
    missing = 0
    for row in rows:
        named = [f for f in row.photos if f in members]
        heard = [f for f in row.memos if f in members]
        missing += len(row.photos) - len(named) + len(row.memos) - len(heard)
        row.photos, row.memos = tuple(named), tuple(heard)
        plan.photos += len(named)
        plan.memos += len(heard)
        yield row
    if missing:
        plan.warnings.append(n_("{n} photo (or memo) named by entries missing from the ZIP:"
                                " left out",
                                "{n} photos (or memos) named by entries missing from the ZIP:"
                                " left out", missing))


def read_export(data: bytes, limits: Limits = DEFAULT_LIMITS) -> tuple[Plan, Iterator[Row]]:
    """k-mood's JSON export -> its plan and its rows, read one by one as they are asked for
    (the same importer applies them); raises ExportFormatError for a file that is not one,
    DaylioFormatError past `limits`."""
    limits.check_bytes(len(data), THE_FILE)
    document = Document(data, THE_FILE, "entries", ExportFormatError,
                        check_items=limits.check_rows)
    values = document.values
    if values.get("format") != FORMAT:
        raise ExportFormatError(Phrase("this JSON is not a k-mood export (no {field})",
                                       field='"format": "k-mood"'))
    if values.get("version") != VERSION:
        raise ExportFormatError(Phrase("k-mood export version {version} is not one this build"
                                       " reads (it reads {readable})",
                                       version=repr(values.get("version")), readable=VERSION))
    if not document.has_list():
        raise ExportFormatError(Phrase("the export has no entries list"))
    plan = Plan("kmood-json", extras=restore.extras_of(values))
    metrics = values.get("metrics")
    defs = {m["name"]: m for m in metrics if isinstance(m, dict)
            and isinstance(m.get("name"), str)} if isinstance(metrics, list) else {}
    activities = values.get("activities")
    for activity in activities if isinstance(activities, list) else []:
        if isinstance(activity, dict) and isinstance(activity.get("name"), str) \
                and isinstance(activity.get("group"), str):
            plan.groups[activity["name"]] = activity["group"]
    return plan, _rows(plan, document, defs, limits)


def _rows(plan: Plan, document: Document, defs: dict, limits: Limits) -> Iterator[Row]:
    without_files = 0
    for position, entry in document.items():
        plan.total += 1
        limits.check_rows(plan.total)
        row = _row(plan, entry, position, defs)
        if row is not None:
            plan.saw_day(row.local_date)
            plan.moods[(row.label or str(row.level), row.level)] += 1
            listed = entry.get("photos")
            without_files += (len(listed) if isinstance(listed, list) else 0) - len(row.photos)
            yield row
    if without_files > 0:
        plan.ignored.append(n_("{n} photo the entries list but this file does not hold (a JSON"
                               " export names them; the ZIP export brings them)",
                               "{n} photos the entries list but this file does not hold (a JSON"
                               " export names them; the ZIP export brings them)", without_files))


def _row(plan: Plan, entry, position: int, defs: dict) -> Row | None:
    if not isinstance(entry, dict):
        plan.problem(Phrase("{where}: not an object", where=f"entries[{position}]"))
        return None
    where = at_entry(repr(entry.get("id")))
    errors = []
    try:
        moment = datetime.fromisoformat(entry.get("occurred_at"))
        if moment.utcoffset() is None:
            raise ValueError
    except (TypeError, ValueError):
        errors.append(Phrase("occurred_at {value} is not a date-time with an offset",
                             value=repr(entry.get("occurred_at"))))
        moment = None
    mood = entry.get("mood")
    if isinstance(mood, bool) or not isinstance(mood, int) or not 1 <= mood <= 5:
        errors.append(Phrase("mood {value} is not a level from 1 to 5", value=repr(mood)))
    texts = {k: entry.get(k, "") for k in ("mood_label", "note_title", "note")}
    errors += [Phrase("{field} is not text", field=k) for k, v in texts.items()
               if not isinstance(v, str) and not (k == "mood_label" and v is None)]
    activities = entry.get("activities", [])
    if not isinstance(activities, list) or not all(isinstance(a, str) for a in activities):
        errors.append(Phrase("activities is not a list of names"))
    location = _location(entry.get("location"), errors)
    song = _song(entry.get("song"), errors)
    metrics = []
    values = entry.get("metrics") or {}
    if not isinstance(values, dict):
        errors.append(Phrase("metrics is not an object"))
        values = {}
    for name, value in values.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)) \
                or not math.isfinite(value):
            errors.append(Phrase("metric {name} is not a number", name=repr(name)))
            continue
        d = defs.get(name, {})
        metrics.append(Metric(name, float(value), d.get("unit"), d.get("max"), d.get("min")))
    source = entry.get("source") if entry.get("source") in writes.SOURCES else "api"
    for message in errors:
        plan.problem(Phrase("{where}: {problem}", where=where, problem=message))
    if errors:
        return None
    key = entry.get("import_key")
    if not isinstance(key, str) or not key:
        key = f"kmood:{entry.get('id')}:{entry.get('created_at')}"
    weather = restore.weather_of(entry.get("weather")) if location else None
    return Row(where, moment.date(), moment.hour * 60 + moment.minute
               if entry.get("time_known", True) is not False else None,
               int(moment.utcoffset().total_seconds()), mood, texts["mood_label"] or None,
               [a.strip() for a in activities if a.strip()], texts["note_title"], texts["note"],
               metrics, key, second=moment.second, location=location, song=song, source=source,
               weather=weather, photos=_files(entry.get("photos"), "photos/"),
               memos=_files(entry.get("memos"), "memos/"))


def _files(value, folder: str) -> tuple[str, ...]:
    """The ZIP members an entry's photos or memos name ("file", as export_zip writes them);
    a plain JSON export has none, and anything else is not such a file."""
    if not isinstance(value, list):
        return ()
    return tuple(p["file"] for p in value if isinstance(p, dict) and isinstance(
        p.get("file"), str) and p["file"].startswith(folder) and ".." not in p["file"])


def _location(value, errors: list) -> tuple[float, float] | None:
    if value is None:
        return None
    lat, lon = (value.get("lat"), value.get("lon")) if isinstance(value, dict) else (None, None)
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
               for v in (lat, lon)) or not (-90 <= lat <= 90 and -180 <= lon <= 180):
        errors.append(Phrase("location is not {lat, lon} within range"))
        return None
    return float(lat), float(lon)


def _song(value, errors: list) -> Song | None:
    if value is None:
        return None
    fields = {k: value.get(k) for k in ("artist", "title", "album", "source")} \
        if isinstance(value, dict) else {}
    if not (isinstance(fields.get("artist"), str) and fields["artist"].strip()
            and isinstance(fields.get("title"), str) and fields["title"].strip()
            and fields.get("source") in SONG_SOURCES
            and (fields.get("album") is None or isinstance(fields["album"], str))):
        errors.append(Phrase("song is not {artist, title, album, source}"))
        return None
    return Song(fields["artist"].strip(), fields["title"].strip(),
                (fields["album"] or "").strip() or None, fields["source"])
