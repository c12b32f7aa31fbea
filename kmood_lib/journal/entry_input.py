"""Turning a client's entry JSON into checked values: every bad field named, nothing half-read."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

from kmood_lib.core.i18n import Phrase
from kmood_lib.core.text import name_key
from kmood_lib.core.text import problem as text_problem
from kmood_lib.core.validation import Fields, is_uuid, parse_occurred_at

MAX_NOTE = 20_000
MAX_NOTE_TITLE = 200
MAX_LABEL = 64
MAX_ACTIVITIES = 50
MAX_ACTIVITY_NAME = 64
MAX_SONG_FIELD = 300
MAX_FUTURE = timedelta(days=1)
SONG_SOURCES = ("manual", "listenbrainz", "lastfm")

WRITABLE = {"client_id", "occurred_at", "mood", "mood_label", "activities", "note_title", "note",
            "location", "song", "metrics"}
READ_ONLY = {"id", "weather", "source", "created_at", "updated_at", "time_known"}
PATCH_READ_ONLY = READ_ONLY | {"client_id"}


@dataclass
class Moment:
    """When an entry happened: UTC ms plus the wall clock it was lived on."""

    occurred_at_ms: int
    offset_s: int
    local_date: str
    local_minute: int

    @classmethod
    def of(cls, when: datetime) -> Moment:
        """Whole seconds: the precision entries are stored and shown with."""
        when = when.replace(microsecond=0)
        offset = when.utcoffset()
        return cls(int(when.timestamp()) * 1000, int(offset.total_seconds()),
                   when.date().isoformat(), when.hour * 60 + when.minute)


@dataclass
class Song:
    artist: str
    title: str
    album: str | None
    source: str


@dataclass
class EntryInput:
    """The checked fields of a create (all present) or a patch (only `present` ones apply)."""

    present: set[str] = field(default_factory=set)
    client_id: str | None = None
    moment: Moment | None = None
    mood: int | None = None
    mood_label: str | None = None
    activities: list[str] = field(default_factory=list)
    note_title: str = ""
    note: str = ""
    location: tuple[float, float] | None = None
    song: Song | None = None
    metrics: dict[int, float] = field(default_factory=dict)
    time_known: bool = True  # False: a date-only entry (imported history), stored at 12:00
    import_key: str | None = None  # the imported row it came from (never from a client)


def parse_entry(body: dict, *, tz: ZoneInfo, now: datetime, metric_defs: dict, patch: bool
                ) -> EntryInput:
    """Check a POST (patch=False) or PATCH body; raise ValidationError naming every bad field.

    `metric_defs` maps a metric's name key (text.name_key) to (id, name, min, max) for this user.
    """
    f = Fields()
    f.reject_fields(body, WRITABLE - ({"client_id"} if patch else set()),
                    PATCH_READ_ONLY if patch else READ_ONLY)
    out = EntryInput(present=set(body) & WRITABLE)
    if not patch:
        if "mood" not in body:
            f.fail("mood", Phrase("required"))
        out.moment = Moment.of(now.astimezone(tz))
        if body.get("client_id") is not None:
            if is_uuid(body["client_id"]):
                out.client_id = body["client_id"].lower()
            else:
                f.fail("client_id", Phrase("must be a UUID"))
    if "occurred_at" in body:
        try:
            when = parse_occurred_at(body["occurred_at"], tz)
        except ValueError as exc:
            f.fail("occurred_at", exc.args[0])  # a Phrase
        else:
            if when - now > MAX_FUTURE:
                f.fail("occurred_at", Phrase("must not be more than a day in the future"))
            out.moment = Moment.of(when)
    if "mood" in body:
        out.mood = f.integer(body["mood"], "mood", 1, 5)
    if "mood_label" in body:
        out.mood_label = f.text(body, "mood_label", MAX_LABEL, nullable=True, is_name=True) or None
    if "note_title" in body:
        out.note_title = f.text(body, "note_title", MAX_NOTE_TITLE) or ""
    if "note" in body:
        out.note = f.text(body, "note", MAX_NOTE) or ""
    if "activities" in body:
        out.activities = _activities(f, body["activities"])
    if "location" in body:
        out.location = _location(f, body["location"])
    if "song" in body:
        out.song = _song(f, body["song"], patch)
    if "metrics" in body:
        out.metrics = _metrics(f, body["metrics"], metric_defs)
    f.raise_if_any()
    return out


def _activities(f: Fields, value) -> list[str]:
    if not isinstance(value, list):
        f.fail("activities", Phrase("must be a list of activity names"))
        return []
    if len(value) > MAX_ACTIVITIES:
        f.fail("activities", Phrase("at most {n} activities", n=MAX_ACTIVITIES))
        return []
    names: dict[str, str] = {}
    for i, item in enumerate(value):
        if not isinstance(item, str) or not 1 <= len(item.strip()) <= MAX_ACTIVITY_NAME:
            if isinstance(item, str):
                shown = f"{item.strip()[:30]!r}{'…' if len(item.strip()) > 30 else ''}"
                f.fail("activities", Phrase("each activity must be a name of 1-{most} characters"
                                            " ({name} is {length})", most=MAX_ACTIVITY_NAME,
                                            name=shown, length=len(item.strip())))
            else:
                f.fail("activities", Phrase("each activity must be a name of 1-{most}"
                                            " characters", most=MAX_ACTIVITY_NAME))
            return []
        wrong = text_problem(item, name=True)
        if wrong:
            f.fail(f"activities[{i}]", wrong)
            return []
        names.setdefault(name_key(item.strip()), item.strip())
    return list(names.values())


def _location(f: Fields, value) -> tuple[float, float] | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        f.fail("location", Phrase("must be {shape} or null", shape='{"lat": ..., "lon": ...}'))
        return None
    f.reject_fields(value, {"lat", "lon"}, {"place"}, prefix="location.")
    if "lat" not in value or "lon" not in value:
        f.fail("location", Phrase("needs both lat and lon"))
        return None
    lat = f.number(value["lat"], "location.lat", -90, 90)
    lon = f.number(value["lon"], "location.lon", -180, 180)
    return None if lat is None or lon is None else (float(lat), float(lon))


def _song(f: Fields, value, patch: bool) -> Song | None:
    if value is None:
        return None
    if patch:
        f.fail("song", Phrase("an entry's song is set only when the entry is created; a PATCH"
                              " may remove it ({removal}) but not add or change it",
                              removal='"song": null'))
        return None
    if not isinstance(value, dict):
        f.fail("song", Phrase("must be an object with artist and title, or null"))
        return None
    f.reject_fields(value, {"artist", "title", "album", "source"}, {"metadata"}, prefix="song.")
    artist = f.text(value, "artist", MAX_SONG_FIELD, required=True, min_len=1, is_name=True)
    title = f.text(value, "title", MAX_SONG_FIELD, required=True, min_len=1, is_name=True)
    album = f.text(value, "album", MAX_SONG_FIELD, nullable=True, is_name=True)
    source = value.get("source", "manual")
    if source not in SONG_SOURCES:
        f.fail("song.source", Phrase("must be one of {choices}", choices=", ".join(SONG_SOURCES)))
    for name in ("artist", "title", "album"):
        if name in f.errors:
            f.errors[f"song.{name}"] = f.errors.pop(name)
    if artist is None or title is None:
        return None
    return Song(artist, title, album or None, source)


def _metrics(f: Fields, value, metric_defs: dict) -> dict[int, float]:
    if not isinstance(value, dict):
        f.fail("metrics", Phrase("must be an object mapping metric names to numbers"))
        return {}
    out = {}
    for name, raw in value.items():
        definition = metric_defs.get(name_key(name))
        key = f"metrics.{name}"
        if definition is None:
            f.fail(key, Phrase("no such metric; create it with {request} first",
                               request="POST /api/metrics"))
            continue
        metric_id, _, lo, hi = definition
        number = f.number(raw, key, lo, hi)
        if number is not None:
            out[metric_id] = float(number)
    return out


def utc_now(clock) -> datetime:
    return clock.now().astimezone(timezone.utc)
