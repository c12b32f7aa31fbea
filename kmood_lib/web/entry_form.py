"""The entry form (log and edit pages) <-> the entry JSON the API takes, so a form post goes
through exactly the checks and the save of POST/PATCH /api/entries."""

from __future__ import annotations

import re
import uuid
from datetime import date, datetime

from kmood_lib.core.errors import DomainError
from kmood_lib.core.i18n import N_
from kmood_lib.web.http import Params
from kmood_lib.web.template_helpers import day_title

FIELD_LABELS = {
    "mood": N_("Mood"), "occurred_at": N_("Date and time"), "activities": N_("Activities"),
    "note_title": N_("Title"), "note": N_("Note"), "mood_label": N_("Mood label"),
    "location": N_("Location"), "location.lat": N_("Latitude"),
    "location.lon": N_("Longitude"), "song": N_("Song"), "song.artist": N_("Song artist"),
    "song.title": N_("Song title"), "song.album": N_("Song album"), "client_id": N_("Form"),
    "metrics": N_("Metrics"), "photo": N_("Photos (choose them again)"),
}


def _number(raw: str):
    """A number typed into a form, or the text itself so the entry checks name it."""
    text = raw.strip().replace(",", ".") if re.fullmatch(r"\s*-?[0-9]+,[0-9]+\s*", raw) else raw
    try:
        return float(text) if re.fullmatch(r"\s*-?[0-9]+(\.[0-9]+)?\s*", text) else text
    except ValueError:
        return text


def _prose(text: str) -> str:
    """Browsers send a textarea's line breaks as CRLF; store them as LF."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def entry_body(fields: Params, metrics: list[dict], *, creating: bool) -> dict:
    """The form's fields as the JSON body of POST (creating) or PATCH /api/entries: every
    field the form shows is present, so an edit sets exactly what the form says."""
    body: dict = {}
    mood = fields.get("mood", "")
    if mood:  # left out, the entry checks say it is required (an edit keeps the old one)
        body["mood"] = int(mood) if re.fullmatch(r"[1-5]", mood) else mood
    new = [n.strip() for n in re.split(r"[,\n]", fields.get("new_activities", "")) if n.strip()]
    body["activities"] = fields.getall("activity") + new
    body["note_title"] = fields.get("note_title", "").strip()
    body["note"] = _prose(fields.get("note", ""))
    day, time = fields.get("date", "").strip(), fields.get("time", "").strip()
    if day:
        # The offset the date and time are read with ("+01:00"): on the log form (with
        # JavaScript) the device's, on the edit form the entry's own, so an edit never moves
        # an entry in time. Without one, the profile's zone. Anything else there is passed on
        # for the entry checks to refuse.
        offset = fields.get("utc_offset", "").strip()
        body["occurred_at"] = f"{day}T{time or '12:00'}{offset}"
    values = {}
    for metric in metrics:
        raw = fields.get(f"metric_{metric['id']}", "")
        if raw.strip():
            values[metric["name"]] = _number(raw)
    body["metrics"] = values
    lat, lon = fields.get("lat", "").strip(), fields.get("lon", "").strip()
    if fields.get("remove_location"):
        body["location"] = None
    elif lat or lon:  # an edit form without coordinates leaves the location as it is
        body["location"] = {"lat": _number(lat), "lon": _number(lon)}
    if creating:
        body["client_id"] = fields.get("client_id") or None
        artist, title = fields.get("song_artist", "").strip(), fields.get("song_title", "").strip()
        if artist and title:
            body["song"] = {"artist": artist, "title": title,
                            "album": fields.get("song_album", "").strip() or None,
                            "source": fields.get("song_source") or "manual"}
    elif fields.get("remove_song"):
        body["song"] = None
    return body


def keeping_date_only(body: dict, fields: Params, entry: dict) -> dict:
    """An edit of a date-only entry (imported history) that leaves its day as it was and its
    time empty changes nothing of when it was: the body keeps no `occurred_at`, so the entry
    is not turned into one logged at 12:00."""
    unchanged = fields.get("date", "").strip() == entry["occurred_at"][:10]
    if not entry["time_known"] and unchanged and not fields.get("time", "").strip():
        body.pop("occurred_at", None)
    return body


def form_errors(exc: DomainError) -> dict[str, str]:
    """A refused entry's fields, named as the page shows them (metrics by their own name), in
    English (a label marked N_, a message a Phrase): _errors.tpl says them in the page's
    language."""
    shown = {}
    for name, message in exc.fields.items():
        label = FIELD_LABELS.get(name) or (name.split(".", 1)[1] if name.startswith(
            "metrics.") else name.split("[")[0].capitalize())
        shown[label] = message
    return shown or {N_("Error"): exc.message}


def values_new(now_local: datetime) -> dict:
    """A blank log form: a fresh client_id (a double submit creates one entry) and now."""
    return {"client_id": str(uuid.uuid4()), "date": now_local.strftime("%Y-%m-%d"),
            "time": now_local.strftime("%H:%M"), "activities": set()}


def day_asked(params: Params, today: date) -> tuple[str, str | None] | None:
    """`?day=YYYY-MM-DD&at=HH:MM` (a reminder's notification opens the log page for the day
    it was for: tapped after midnight, yesterday's reminder logs yesterday): the day when it
    is a real one before today, with the time when it is one; else None (today is "now")."""
    day, at = params.get("day") or "", params.get("at") or ""
    try:
        if not (re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", day)
                and date.fromisoformat(day) < today):
            return None
    except ValueError:
        return None
    fine = len(at) == 5 and at[2] == ":" and (at[:2] + at[3:]).isascii() and \
        (at[:2] + at[3:]).isdigit() and int(at[:2]) < 24 and int(at[3:]) < 60
    return day, at if fine else None


def values_posted(fields: Params) -> dict:
    """What was typed, to show the form again with its errors."""
    values = {name: value for name, value in fields.items() if name != "csrf_token"}
    values["activities"] = set(fields.getall("activity"))
    return values


def when_line(values: dict, today: date, now: bool, i18n, time_known: bool = True) -> str:
    """The one line at the top of the form that opens its date and time: "Now" for a new
    entry left at now, else the day and time it holds ("Yesterday, 21:15"; "Sat 1 Apr 2023
    (no time)" for an imported entry that had only a date), in the language of `i18n`."""
    if now:
        return i18n.gettext(N_("Now"))
    day, time = values.get("date", ""), values.get("time", "")
    try:
        shown = day_title(day, today.isoformat(), i18n)
    except ValueError:  # a form shown again with what was typed, however odd
        shown = day
    if not time_known:
        return i18n.gettext(N_("{day} (no time)"), day=shown)
    return i18n.gettext(N_("{day}, {time}"), day=shown, time=time) if time else shown


def offset_text(moment: datetime) -> str:
    """+05:30 for a moment lived at UTC+5:30 (the form's utc_offset field)."""
    minutes = int(moment.utcoffset().total_seconds() // 60)
    sign, minutes = ("-" if minutes < 0 else "+"), abs(minutes)
    return f"{sign}{minutes // 60:02d}:{minutes % 60:02d}"


def values_of(entry: dict, metrics: list[dict]) -> dict:
    """An entry's values as the edit form's fields."""
    when = datetime.fromisoformat(entry["occurred_at"])
    out = {"mood": str(entry["mood"]), "note_title": entry["note_title"], "note": entry["note"],
           "date": when.strftime("%Y-%m-%d"),
           "time": when.strftime("%H:%M") if entry["time_known"] else "",  # none was logged
           "utc_offset": offset_text(when),
           "activities": set(entry["activities"])}
    for metric in metrics:
        value = entry["metrics"].get(metric["name"])
        if value is not None:
            out[f"metric_{metric['id']}"] = str(int(value)) if value == int(value) else repr(value)
    return out
