"""Everything of one user, out: k-mood's own JSON (entries with activities, metrics, songs and
what the worker found out, moods, activities and groups, metrics), the same JSON with the
photos in a ZIP, and a CSV in Daylio's newest column layout, written the way Daylio writes it
so other tools read it and k-mood reads it back exactly (`kmood_json` reads the JSON and the
ZIP back in).
"""

from __future__ import annotations

import csv
import html
import io
import json
import zipfile
from datetime import datetime
from typing import IO

from kmood_lib.accounts import users
from kmood_lib.core.clock import ms_to_iso
from kmood_lib.journal import goals, memos, photos, queries, templates, vocab
from kmood_lib.portability.daylio.csv_export import spreadsheet_safe
from kmood_lib.portability.kmood_json import FORMAT, VERSION, ZIP_JSON
from kmood_lib.reminders import schedule as reminders

CSV_COLUMNS = ["full_date", "date", "weekday", "time", "mood", "activities", "scales",
               "note_title", "note"]
PAGE = 500


def all_entries(conn, user_id: int):
    """Every entry of the user as its API JSON plus its import key, newest first."""
    keys = dict(conn.execute("SELECT id, import_key FROM entries WHERE user_id = ?"
                             " AND import_key IS NOT NULL", (user_id,)).fetchall())
    cursor = None
    while True:
        found, cursor = queries.list_entries(conn, user_id, queries.EntryFilter(), PAGE, cursor)
        for entry in found:
            yield {**entry, "import_key": keys.get(entry["id"])}
        if cursor is None:
            return


def export_document(conn, user_id: int, now_ms: int) -> dict:
    me = users.profile(conn, user_id)
    return {
        "format": FORMAT, "version": VERSION, "exported_at": ms_to_iso(now_ms),
        "user": {"username": me["username"], "timezone": me["timezone"],
                 "listenbrainz_user": me.get("listenbrainz_user"),
                 "lastfm_user": me.get("lastfm_user")},
        "moods": {str(level): label for level, label in vocab.mood_labels(conn, user_id).items()},
        "activities": [{"name": a["name"], "group": a["group"], "icon": a["icon"],
                        "archived": a["archived"]} for a in vocab.list_activities(conn, user_id)],
        "metrics": [{"name": m["name"], "unit": m["unit"], "min": m["min"], "max": m["max"]}
                    for m in vocab.list_metrics(conn, user_id)],
        "reminders": reminders.list_reminders(conn, user_id),  # tokens are write-only: none
        "templates": [{k: t[k] for k in ("name", "note_title", "note")}
                      for t in templates.list_templates(conn, user_id)],
        "goals": goals.export_goals(conn, user_id),
        "entries": list(all_entries(conn, user_id))[::-1],  # oldest first
    }


def export_json(conn, user_id: int, now_ms: int) -> str:
    return json.dumps(export_document(conn, user_id, now_ms), ensure_ascii=False)


EXTENSIONS = {"image/jpeg": "jpg", "image/png": "png", "image/webp": "webp"}


def export_zip(conn, user_id: int, now_ms: int, out: IO[bytes]) -> None:
    """The JSON export and every photo and voice memo, as a ZIP written to `out` (a file:
    they are read one at a time, never held together): `export.json`, whose entries name
    their files, `photos/<entry id>/<n>.<ext>` and `memos/<entry id>/<n>.<ext>`, as stored."""
    document = export_document(conn, user_id, now_ms)
    with zipfile.ZipFile(out, "w") as archive:
        for entry in document["entries"]:
            for n, photo in enumerate(entry.get("photos") or (), start=1):
                stored = photos.file_of(conn, user_id, photo["id"], "full")
                photo["file"] = (f"photos/{entry['id']}/{n}."
                                 f"{EXTENSIONS.get(stored.content_type, 'bin')}")
                archive.writestr(photo["file"], photos.read_file(conn, stored),
                                 zipfile.ZIP_STORED)  # compressed already
            for n, memo in enumerate(entry.get("memos") or (), start=1):
                kind, data = conn.execute("SELECT content_type, data FROM voice_memos"
                                          " WHERE id = ?", (memo["id"],)).fetchone()
                memo["file"] = f"memos/{entry['id']}/{n}.{memos.EXTENSIONS.get(kind, 'bin')}"
                archive.writestr(memo["file"], bytes(data), zipfile.ZIP_STORED)
        archive.writestr(ZIP_JSON, json.dumps(document, ensure_ascii=False),
                         zipfile.ZIP_DEFLATED)


def daylio_html(text: str) -> str:
    """Plain text the way Daylio writes notes: HTML-escaped, line breaks as <br>."""
    return html.escape(text.replace("\r\n", "\n"), quote=False).replace("\n", "<br>")


def _scale(name: str, value: float, metric: dict | None) -> str:
    unit = (metric or {}).get("unit") or ""
    top = (metric or {}).get("max")
    number = f"{value:g}"
    if top is not None and unit:
        return f"{name}: {number}/{top:g} {unit}"
    return f"{name}: {number}" + (f" {unit}" if unit else "")


def export_csv(conn, user_id: int) -> str:
    """Daylio's newest layout, newest first; a date-only entry has an empty time. A cell a
    spreadsheet would run as a formula starts with a ' (our reader takes it away)."""
    metrics = {m["name"]: m for m in vocab.list_metrics(conn, user_id)}
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for entry in all_entries(conn, user_id):
        moment = datetime.fromisoformat(entry["occurred_at"])
        writer.writerow(map(spreadsheet_safe, [
            moment.date().isoformat(), f"{moment.strftime('%B')} {moment.day}",
            moment.strftime("%A"), moment.strftime("%H:%M") if entry["time_known"] else "",
            entry["mood_label"], " | ".join(entry["activities"]),
            " | ".join(_scale(n, v, metrics.get(n)) for n, v in entry["metrics"].items()),
            daylio_html(entry["note_title"]), daylio_html(entry["note"])]))
    return "\ufeff" + out.getvalue()  # Daylio's files start with a BOM



