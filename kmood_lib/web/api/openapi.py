"""The OpenAPI 3.1 description of the JSON API (a test keeps it in step with the route table)."""

from __future__ import annotations

from kmood_lib import __version__
from kmood_lib.core.validation import MAX_YEAR, MIN_YEAR
from kmood_lib.web.http import json_response
from kmood_lib.web.routing import Routes

routes = Routes()


def _ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


def _nullable(schema: dict) -> dict:
    return {"oneOf": [schema, {"type": "null"}]}


def _list_of(plural: str, item: str) -> dict:
    return {"type": "object", "required": [plural, "next_cursor"], "properties": {
        plural: {"type": "array", "items": _ref(item)},
        "next_cursor": {"type": ["string", "null"]}}}


STR, INT, NUM, BOOL = {"type": "string"}, {"type": "integer"}, {"type": "number"}, {"type": "boolean"}


def _name(longest: int) -> dict:
    """A name as the server takes it: 1 to `longest` characters."""
    return {"type": "string", "minLength": 1, "maxLength": longest}

SCHEMAS = {
    "Error": {"type": "object", "required": ["error"], "properties": {"error": {
        "type": "object", "required": ["code", "message", "fields"], "properties": {
            "code": STR, "message": STR,
            "fields": {"type": "object", "additionalProperties": STR}}}}},
    "Me": {"type": "object", "properties": {
        "id": INT, "username": STR, "timezone": STR, "is_admin": BOOL,
        "listenbrainz_user": {"type": ["string", "null"]},
        "lastfm_user": {"type": ["string", "null"]}, "csrf_token": {"type": ["string", "null"]}}},
    "MeUpdate": {"type": "object", "additionalProperties": False, "properties": {
        "timezone": _name(64), "listenbrainz_user": {"type": ["string", "null"]},
        "lastfm_user": {"type": ["string", "null"]}}},
    "Login": {"type": "object", "required": ["username", "password"],
              "properties": {"username": STR, "password": STR}},
    "PasswordChange": {"type": "object", "required": ["old_password", "new_password"],
                       "additionalProperties": False,
                       "properties": {"old_password": STR,
                                      "new_password": {"type": "string", "minLength": 8},
                                      "revoke_api_tokens": {
                                          **BOOL, "default": True,
                                          "description": "also revoke every API token"}}},
    "PasswordChanged": {"type": "object", "properties": {
        "status": STR, "other_sessions_ended": INT, "api_tokens_revoked": INT}},
    "Token": {"type": "object", "properties": {
        "id": INT, "name": STR, "created_at": STR, "last_used_at": {"type": ["string", "null"]}}},
    "TokenWrite": {"type": "object", "required": ["name"], "additionalProperties": False,
                   "properties": {"name": {"type": "string", "minLength": 1, "maxLength": 100}}},
    "Reminder": {"type": "object", "properties": {
        "id": INT, "time": STR, "weekdays": {"type": "array", "items": INT},
        "timezone": STR, "channel": {"enum": ["ntfy", "gotify", "webhook"]}, "url": STR,
        "token": {"type": "null", "description": "write-only: always null in answers"},
        "has_token": BOOL, "title": {"type": ["string", "null"]},
        "message": {"type": ["string", "null"]}, "skip_if_logged": BOOL, "enabled": BOOL,
        "next_fire_at": {"type": ["string", "null"], "format": "date-time",
                         "description": "UTC; null while disabled"},
        "next_local_date": {"type": ["string", "null"]},
        "created_at": STR, "updated_at": STR}},
    "ReminderWrite": {"type": "object", "additionalProperties": False, "properties": {
        "time": {"type": "string", "pattern": "^([01][0-9]|2[0-3]):[0-5][0-9]$",
                 "description": "HH:MM, 24-hour, in the reminder's zone"},
        "weekdays": {"type": "array", "items": {"type": "integer", "minimum": 0, "maximum": 6},
                     "minItems": 1, "maxItems": 7, "uniqueItems": True,
                     "description": "Monday = 0; default every day"},
        "timezone": {"type": "string", "maxLength": 64,
                     "description": "IANA; empty or left out: the user's"},
        "channel": {"enum": ["ntfy", "gotify", "webhook"]},
        "url": {"type": "string", "minLength": 1, "maxLength": 2000, "pattern": "^https?://",
                "description": "http(s); for ntfy the topic URL"},
        "token": {"type": ["string", "null"], "description": "write-only"},
        "title": {"type": ["string", "null"]}, "message": {"type": ["string", "null"]},
        "skip_if_logged": BOOL, "enabled": BOOL}},
    "NewToken": {"type": "object", "required": ["id", "name", "token"],
                 "properties": {"id": INT, "name": STR, "token": STR}},
    "Song": {"type": "object", "required": ["artist", "title"], "properties": {
        "artist": STR, "title": STR, "album": {"type": ["string", "null"]},
        "source": {"enum": ["manual", "listenbrainz", "lastfm"]},
        "metadata": {**_nullable({"type": "object", "properties": {
            "recording_mbid": STR, "release": {"type": ["string", "null"]},
            "release_date": {"type": ["string", "null"],
                             "description": "YYYY, YYYY-MM or YYYY-MM-DD, as MusicBrainz has it"},
            "length_ms": {"type": ["integer", "null"]},
            "cover_url": {"type": ["string", "null"],
                          "description": "/covers/<release MBID>, served by k-mood; null when "
                                         "the release has no cover"}}}),
            "description": "null until the worker has found the recording on MusicBrainz, "
                           "and when no recording matched well enough"}}},
    "Entry": {"type": "object", "properties": {
        "id": INT, "client_id": {"type": ["string", "null"], "format": "uuid"},
        "occurred_at": {"type": "string", "format": "date-time",
                        "description": "seconds precision with the offset the moment was lived "
                                       "in, e.g. 2026-11-30T21:15:00+01:00"},
        "time_known": {"type": "boolean", "description": "false for a date-only entry "
                       "(imported history that recorded no time): stored at 12:00 local"},
        "mood": {"type": "integer", "minimum": 1, "maximum": 5}, "mood_label": STR,
        "activities": {"type": "array", "items": STR}, "note_title": STR, "note": STR,
        "location": _nullable({"type": "object", "properties": {
            "lat": NUM, "lon": NUM, "place": {
                "type": ["string", "null"],
                "description": "'Berlin, DE': null until the worker has named the area, or "
                               "when reverse geocoding found nothing there"}}}),
        "weather": {**_nullable({"type": "object", "properties": {
            "temperature_c": NUM, "code": INT, "description": STR, "unavailable": BOOL}}),
            "description": "null until the worker has looked it up; {\"unavailable\": true} "
                           "when the upstream has no data for that hour"},
        "song": _nullable(_ref("Song")),
        "photos": {"type": "array", "items": _ref("Photo"), "description": "in their order;"
                   " add them with POST /api/entries/{id}/photos"},
        "memos": {"type": "array", "description": "voice memos (from a Daylio backup), in"
                  " order", "items": {"type": "object", "properties": {
                      "id": INT, "url": STR, "content_type": STR}}},
        "metrics": {"type": "object", "additionalProperties": NUM},
        "source": {"enum": ["web", "api", "daylio"]},
        "created_at": {"type": "string", "format": "date-time",
                       "description": "UTC, seconds precision, e.g. 2026-11-30T20:15:00Z"},
        "updated_at": {"type": "string", "format": "date-time"}}},
    "EntryWrite": {
        "type": "object", "additionalProperties": False,
        "description": "POST needs mood; occurred_at without an offset is read in the user's "
                       "timezone. PATCH may set song to null but never add or change one; "
                       "client_id is accepted only on POST.",
        "properties": {
            "client_id": {"type": "string", "format": "uuid"},
            "occurred_at": {"type": "string"},
            "mood": {"type": "integer", "minimum": 1, "maximum": 5},
            "mood_label": {"type": ["string", "null"], "maxLength": 64},
            "activities": {"type": "array", "items": STR, "maxItems": 50},
            "note_title": {"type": "string", "maxLength": 200},
            "note": {"type": "string", "maxLength": 20000},
            "location": _nullable({"type": "object", "required": ["lat", "lon"], "properties": {
                "lat": {"type": "number", "minimum": -90, "maximum": 90},
                "lon": {"type": "number", "minimum": -180, "maximum": 180}}}),
            "song": _nullable({"type": "object", "required": ["artist", "title"], "properties": {
                "artist": _name(300), "title": _name(300), "album": {"type": "string",
                                                                     "maxLength": 300},
                "source": {"enum": ["manual", "listenbrainz", "lastfm"]}}}),
            "metrics": {"type": "object", "additionalProperties": NUM}}},
    "Moods": {"type": "object", "properties": {"moods": {"type": "array", "items": {
        "type": "object", "properties": {"level": INT, "label": STR}}}}},
    "Activity": {"type": "object", "properties": {
        "id": INT, "name": STR, "group": {"type": ["string", "null"]}, "entries": INT,
        "archived": BOOL}},
    "ActivityWrite": {"type": "object", "additionalProperties": False, "properties": {
        "name": _name(64), "group": {"anyOf": [_name(64), {"type": "null"}]},
        "archived": {"type": "boolean", "description": "PATCH only: hide it from the log form "
                                                       "(kept on its entries), or restore it"}}},
    "ActivitiesChange": {"type": "object", "additionalProperties": False,
                         "required": ["ids", "action"], "properties": {
        "ids": {"type": "array", "minItems": 1, "maxItems": 1000,
                "items": {"type": "integer", "minimum": 1}},
        "action": {"enum": ["group", "archive", "restore", "delete"]},
        "group": {"anyOf": [_name(64), {"type": "null"}],
                  "description": "with the action group: the group to move them to (created "
                                 "if new); null or absent takes them out of their groups"}}},
    "ActivitiesChanged": {"type": "object", "properties": {
        "action": STR, "group": {"type": ["string", "null"]},
        "activities": {**INT, "description": "how many activities changed"},
        "entries": {**INT, "description": "how many entries carry one of them (once each)"}}},
    "Metric": {"type": "object", "properties": {
        "id": INT, "name": STR, "unit": STR, "min": {"type": ["number", "null"]},
        "max": {"type": ["number", "null"]}}},
    "MetricWrite": {"type": "object", "additionalProperties": False, "properties": {
        "name": _name(64), "unit": {"type": "string", "maxLength": 32},
        "min": {"type": ["number", "null"]},
        "max": {"type": ["number", "null"]}}},
    "Job": {"type": "object", "properties": {
        "id": INT, "kind": STR, "key": STR, "payload": {}, "status": STR, "attempts": INT,
        "max_attempts": INT, "run_after": {}, "claimed_by": {"type": ["string", "null"]},
        "lease_until": {}, "last_error": {"type": ["string", "null"]}, "created_at": {},
        "updated_at": {}, "finished_at": {}}},
    "JobSummary": {"type": "object", "properties": {
        "counts": {"type": "object", "additionalProperties": {
            "type": "object", "additionalProperties": INT}},
        "oldest_waiting_age_s": {"type": ["number", "null"]},
        "kinds": {"type": "array", "items": STR}}},
    "NowPlaying": {"type": "object", "properties": {
        "song": _nullable(_ref("Song")), "source": {"type": ["string", "null"]},
        "upstream_error": {"type": ["string", "null"]}}},
    "Summary": {"type": "object", "properties": {
        "count": INT, "average": {"type": ["number", "null"]},
        "distribution": {"type": "object", "additionalProperties": INT}, "days_logged": INT,
        "first_day": {"type": ["string", "null"]}, "last_day": {"type": ["string", "null"]},
        "current_streak": INT, "longest_streak": INT, "today": STR}},
    "Calendar": {"type": "object", "properties": {"year": INT, "days": {
        "type": "object", "additionalProperties": {"type": "object", "properties": {
            "average": NUM, "count": INT}}}}},
    "WeekdayHour": {"type": "object", "properties": {
        "weekdays": {"type": "array", "items": {"type": "object"}},
        "hours": {"type": "array", "items": {"type": "object"}}}},
    "WeatherImpact": {"type": "object", "properties": {
        "entries_with_weather": INT,
        "temperature": {"type": "array", "items": {"type": "object", "properties": {
            "from_c": INT, "to_c": INT, "average": {"type": ["number", "null"]}, "count": INT}}},
        "conditions": {"type": "array", "items": {"type": "object", "properties": {
            "group": STR, "average": {"type": ["number", "null"]}, "count": INT}}}}},
    "PlaceImpact": {"type": "object", "properties": {
        "entries_with_place": INT,
        "places": {"type": "array", "items": {"type": "object", "properties": {
            "place": STR, "average": {"type": ["number", "null"]}, "count": INT}}}}},
    "MusicImpact": {"type": "object", "properties": {
        "entries_with_song": INT,
        "artists": {"type": "array", "items": {"type": "object", "properties": {
            "artist": STR, "average": {"type": ["number", "null"]}, "count": INT}}}}},
    "ActivityImpact": {"type": "object", "properties": {"activities": {
        "type": "array", "items": {"type": "object", "properties": {
            "activity": STR, "count_with": INT, "average_with": NUM, "count_without": INT,
            "average_without": {"type": ["number", "null"]},
            "difference": {"type": ["number", "null"]}}}}}},
    "Goal": {"type": "object", "properties": {
        "id": INT, "name": STR, "activity": {"type": ["string", "null"],
                                             "description": "null: checked off by hand"},
        "period": {"enum": ["week", "month"]}, "target": INT, "start_date": STR,
        "archived": BOOL, "progress": {"type": "object", "properties": {
            "period_start": STR, "done": INT, "target": INT, "reached": BOOL,
            "current_streak": INT, "longest_streak": INT, "today_checked": BOOL,
            "strip": {"type": "array", "items": {"type": "object", "properties": {
                "start": STR, "done": INT}}}}}}},
    "GoalWrite": {"type": "object", "additionalProperties": False, "properties": {
        "name": _name(64), "activity": {"type": ["string", "null"]},
        "period": {"enum": ["week", "month"]},
        "target": {"type": "integer", "minimum": 1, "maximum": 31,
                   "description": "days a period (at most 7 a week)"},
        "start_date": {"type": "string", "format": "date"}, "archived": BOOL}},
    "CheckIn": {"type": "object", "additionalProperties": False, "properties": {
        "date": {"type": "string", "format": "date", "description": "default: today"},
        "done": {**BOOL, "description": "false takes the check-off back"}}},
    "Template": {"type": "object", "properties": {"id": INT, "name": STR, "note_title": STR,
                                                  "note": STR}},
    "TemplateWrite": {"type": "object", "additionalProperties": False, "properties": {
        "name": _name(64), "note_title": {"type": "string", "maxLength": 200},
        "note": {"type": "string", "maxLength": 20000}},
        "description": "a name, and a title or a note (or both)"},
    "Photo": {"type": "object", "required": ["id", "url", "thumb_url", "width", "height"],
              "properties": {
                  "id": INT, "url": {**STR, "description": "the photo, without metadata"},
                  "thumb_url": {**STR, "description": "at most 400 px on its long side"},
                  "width": INT, "height": INT}},
    "Insights": {"type": "object", "required": ["range", "days", "checked", "findings",
                                                "not_enough"], "properties": {
        "range": {"type": "object", "properties": {"from": STR, "to": STR}},
        "days": {**INT, "description": "logged days in the range"},
        "needed_days": {**INT, "description": "logged days needed before anything is compared"},
        "checked": {**INT, "description": "comparisons made: one family for Benjamini–Hochberg"},
        "findings": {"type": "array", "description": "sorted by the size of the effect",
                     "items": _ref("Finding")},
        "not_enough": {"type": "array", "items": {"type": "object", "properties": {
            "kind": STR, "name": STR, "lag": INT, "n_with": INT, "n_without": INT,
            "short_of": {"enum": ["with", "without"]}, "needed": INT, "sentence": STR}}},
        "comparisons": {"type": "array", "description": "every comparison of the family as it"
                        " came out, finding or not", "items": {"type": "object", "properties": {
                            "kind": STR, "name": STR, "lag": INT, "since": BOOL,
                            "measure": STR, "effect": {"type": ["number", "null"]},
                            "ci": {"type": ["array", "null"], "items": NUM},
                            "p": {"type": ["number", "null"]},
                            "q": {"type": ["number", "null"]}, "n_with": INT,
                            "n_without": INT}}},
        "on_this_day": {"type": "array", "items": {"type": "object", "properties": {
            "years_ago": INT, "entry": _ref("Entry")}}},
        "weeks": _ref("Ranked"), "months": _ref("Ranked"),
        "stability": {"type": "array", "description": "per month, the mean size of the change"
                      " from one logged day to the next", "items": {
                          "type": "object", "properties": {
                              "month": STR, "change": NUM, "steps": INT}}}}},
    "Finding": {"type": "object", "required": ["kind", "name", "lag", "measure", "effect", "ci",
                                               "sentence"], "properties": {
        "kind": {"enum": ["activity", "place", "artist", "weather", "metric"]},
        "name": STR, "lag": {"enum": [0, 1], "description": "1: the day after"},
        "since": {**BOOL, "description": "days since the activity started vs before"},
        "started": {**STR, "description": "the first day of the activity (since only)"},
        "measure": {"enum": ["points", "rho"], "description": "points: difference in mean"
                    " day-mood, with minus without; rho: Spearman's rank correlation"},
        "effect": NUM, "ci": {"type": "array", "items": NUM, "minItems": 2, "maxItems": 2,
                              "description": "95 % stationary block bootstrap interval"},
        "mean_with": NUM, "mean_without": NUM, "n_with": INT, "n_without": INT,
        "slope": {"type": ["number", "null"], "description": "Theil–Sen mood points per unit"},
        "unit": STR, "p": NUM, "q": {**NUM, "description": "Benjamini–Hochberg adjusted"},
        "sentence": STR}},
    "Ranked": {"type": "object", "properties": {
        "best": {"type": "array", "items": _ref("Period")},
        "worst": {"type": "array", "items": _ref("Period")},
        "ranked": INT, "least_days": INT}},
    "Period": {"type": "object", "properties": {"start": STR, "average": NUM, "days": INT}},
}

# A local day, or empty for no bound (what a filter form sends when the field is left blank).
DAY_OR_EMPTY = {"anyOf": [{"type": "string", "format": "date"},
                          {"type": "string", "maxLength": 0}]}
FILTER_PARAMS = [
    {"name": "from", "in": "query", "schema": DAY_OR_EMPTY,
     "description": "first local day, inclusive; empty: no bound"},
    {"name": "to", "in": "query", "schema": DAY_OR_EMPTY,
     "description": "last local day, inclusive; empty: no bound"},
    {"name": "mood", "in": "query", "schema": STR, "description": "levels, e.g. 4,5"},
    {"name": "activity", "in": "query", "schema": STR,
     "description": "activity names; entries having all of them"},
    {"name": "q", "in": "query", "schema": STR,
     "description": "free-text search: words of notes and titles, or text in an activity name"},
]
PAGE_PARAMS = [
    {"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": 500,
                                                 "default": 50}},
    {"name": "cursor", "in": "query", "schema": STR},
]


def _op(summary: str, response: str | None, status: int = 200, body: str | None = None,
        params: list | None = None, errors=(401, 422), public: bool = False) -> dict:
    op: dict = {"summary": summary, "responses": {}}
    if response is None:
        op["responses"][str(status)] = {"description": "done"}
    else:
        op["responses"][str(status)] = {"description": "OK", "content": {
            "application/json": {"schema": _ref(response) if not isinstance(response, dict)
                                 else response}}}
    for code in errors:
        op["responses"][str(code)] = {"description": "error", "content": {
            "application/json": {"schema": _ref("Error")}}}
    if body:
        op["requestBody"] = {"required": True, "content": {"application/json": {
            "schema": _ref(body)}}}
    if params:
        op["parameters"] = params
    if public:
        op["security"] = []
    return op


ID = [{"name": "id", "in": "path", "required": True, "schema": INT}]


def _vocabulary(plural: str, item: str, write: str) -> dict:
    return {
        f"/api/{plural}": {
            "get": _op(f"List {plural}", _list_of(plural, item), errors=(401,)),
            "post": _op(f"Create one of the {plural}", item, 201, write),
        },
        f"/api/{plural}/{{id}}": {
            "patch": _op(f"Change one of the {plural}", item, body=write, params=ID,
                         errors=(401, 404, 422)),
            "delete": _op(f"Delete one of the {plural}", None, 204, params=ID,
                          errors=(401, 404)),
        },
    }


PATHS = {
    "/api/session": {
        "post": _op("Log in (sets the session cookie; returns the CSRF token)", "Me", 201,
                    "Login", errors=(401, 422, 429), public=True),
        "delete": _op("Log out", None, 204, errors=(401,)),
    },
    "/api/me": {
        "get": _op("Who am I (with the CSRF token)", "Me", errors=(401,)),
        "patch": _op("Change my settings", "Me", body="MeUpdate"),
    },
    "/api/me/password": {"post": _op("Change my password; ends my other sessions and (unless "
                                     "revoke_api_tokens is false) revokes my API tokens",
                                     "PasswordChanged", body="PasswordChange")},
    "/api/reminders": {
        "get": _op("List reminders", _list_of("reminders", "Reminder"), errors=(401,)),
        "post": _op("Create a reminder (its first occurrence is never one already passed)",
                    "Reminder", 201, "ReminderWrite"),
    },
    "/api/reminders/{id}": {
        "get": _op("One reminder", "Reminder", params=ID, errors=(401, 404)),
        "patch": _op("Change a reminder (rescheduled from now)", "Reminder",
                     body="ReminderWrite", params=ID, errors=(401, 404, 422)),
        "delete": _op("Delete a reminder and its deliveries", None, 204, params=ID,
                      errors=(401, 404)),
    },
    "/api/reminders/{id}/test": {"post": _op(
        "Send one message now through the reminder's channel (5 s at most) and report the "
        "answer; no delivery is recorded",
        {"type": "object", "properties": {"ok": BOOL, "status": {"type": ["integer", "null"]},
                                          "body": STR, "error": {"type": ["string", "null"]}}},
        params=ID, errors=(401, 404))},
    "/api/tokens": {
        "get": _op("List my API tokens", _list_of("tokens", "Token"), errors=(401,)),
        "post": _op("Create an API token (shown once)", "NewToken", 201, "TokenWrite"),
    },
    "/api/tokens/{id}": {"delete": _op("Revoke an API token", None, 204, params=ID,
                                       errors=(401, 404))},
    "/api/entries": {
        "get": _op("List entries, newest first", _list_of("entries", "Entry"),
                   params=FILTER_PARAMS + PAGE_PARAMS),
        "post": _op("Log an entry (201; a replayed client_id answers 200)", "Entry", 201,
                    "EntryWrite", errors=(400, 401, 413, 415, 422)),
    },
    "/api/entries/{id}": {
        "get": _op("One entry", "Entry", params=ID, errors=(401, 404)),
        "patch": _op("Change an entry", "Entry", body="EntryWrite", params=ID,
                     errors=(400, 401, 404, 415, 422)),
        "delete": _op("Delete an entry", None, 204, params=ID, errors=(401, 404)),
    },
    "/api/moods": {"get": _op("My five mood labels", "Moods", errors=(401,))},
    "/api/moods/{level}": {"patch": _op(
        "Rename a mood level", "Moods", params=[{"name": "level", "in": "path", "required": True,
                                                 "schema": {"type": "integer", "minimum": 1,
                                                            "maximum": 5}}],
        body=None, errors=(401, 404, 422))},
    **_vocabulary("activities", "Activity", "ActivityWrite"),
    **_vocabulary("metrics", "Metric", "MetricWrite"),
    **_vocabulary("templates", "Template", "TemplateWrite"),
    "/api/activities/bulk": {"post": _op(
        "Move several activities to a group, archive, restore or delete them: all or none "
        "(an id that is not one of mine is a 404 and changes nothing)", "ActivitiesChanged",
        body="ActivitiesChange", errors=(400, 401, 404, 415, 422))},

    "/api/now-playing": {"get": _op("What I am listening to right now", "NowPlaying",
                                    errors=(401,))},
    "/api/stats/summary": {"get": _op("Count, average, distribution, streaks", "Summary",
                                      params=FILTER_PARAMS)},
    "/api/stats/calendar": {"get": _op(
        "Year in pixels: average mood and count per local day", "Calendar",
        params=[{"name": "year", "in": "query", "schema": {
            "type": "integer", "minimum": MIN_YEAR, "maximum": MAX_YEAR}}])},
    "/api/stats/weekday": {"get": _op("Mood by weekday (Monday = 0) and local hour",
                                      "WeekdayHour", params=FILTER_PARAMS)},
    "/api/stats/activities": {"get": _op("Mean mood with vs without each activity",
                                         "ActivityImpact", params=FILTER_PARAMS)},
    "/api/stats/weather": {"get": _op("Mean mood by temperature band and by kind of weather",
                                      "WeatherImpact", params=FILTER_PARAMS)},
    "/api/stats/places": {"get": _op("Mean mood in the places with the most entries",
                                     "PlaceImpact", params=FILTER_PARAMS)},
    "/api/stats/music": {"get": _op("Mean mood with the artists heard most", "MusicImpact",
                                    params=FILTER_PARAMS)},
    "/api/insights": {"get": _op(
        "What goes with better and worse days: every comparison tested as one family"
        " (stationary block bootstrap, Benjamini–Hochberg); on this day; best and worst weeks"
        " and months; day-to-day stability. A range not computed yet is computed on the"
        " request, one per person at a time: 429 while the person's other range is computed,"
        " 503 while the server computes as many as it takes; both with Retry-After",
        "Insights", params=FILTER_PARAMS[:2], errors=(401, 422, 429, 503))},
    "/api/jobs": {"get": _op(
        "List jobs, newest first (admin)", _list_of("jobs", "Job"), errors=(401, 403, 422),
        params=[{"name": "status", "in": "query", "schema": {"enum": [
            "queued", "running", "retrying", "done", "exhausted"]}},
            {"name": "kind", "in": "query", "schema": STR}] + PAGE_PARAMS)},
    "/api/jobs/summary": {"get": _op("Counts by kind and status, oldest waiting job (admin)",
                                     "JobSummary", errors=(401, 403))},
    "/api/jobs/{id}/retry": {"post": _op(
        "Re-run a job now (admin); 409 when a live twin exists", "Job", params=ID,
        errors=(401, 403, 404, 409))},
    "/api/jobs/retry": {"post": _op(
        "Re-run every exhausted job of a kind (admin)",
        {"type": "object", "properties": {"kind": STR, "retried": INT}},
        params=[{"name": "kind", "in": "query", "required": True, "schema": STR}],
        errors=(401, 403, 422))},
    "/api/openapi.json": {"get": _op("This description", {"type": "object"}, errors=(),
                                     public=True)},
}
PATHS["/api/moods/{level}"]["patch"]["requestBody"] = {"required": True, "content": {
    "application/json": {"schema": {"type": "object", "required": ["label"],
                                    "additionalProperties": False,
                                    "properties": {"label": _name(32)}}}}}


_REPORT = {"type": "object", "properties": {
    "format": {"enum": ["daylio-csv", "daylio-backup", "kmood-json"]}, "rows": INT,
    "first_day": {"type": ["string", "null"]}, "last_day": {"type": ["string", "null"]},
    "moods": {"type": "array", "items": {"type": "object", "properties": {
        "name": STR, "level": INT, "rows": INT}}},
    "unknown_moods": {"type": "array", "items": {"type": "object", "properties": {
        "name": STR, "rows": INT, "first": {"type": "array", "items": STR},
        "suggested": {"type": ["integer", "null"], "description": "a level guessed from a "
                      "default mood name inside this one (\"pretty good\": 4), to offer, "
                      "never applied"}}}},
    "problems": {"type": "array", "items": STR}, "more_problems": INT,
    "warnings": {"type": "array", "items": STR}, "ignored": {"type": "array", "items": STR},
    "imported": INT, "duplicates": INT, "dry_run": BOOL, "message": STR,
    "photos": {**INT, "description": "photos the file brings (a .daylio backup, k-mood's ZIP)"},
    "memos": {**INT, "description": "voice memos the file brings"},
    "restored": {"type": "array", "items": STR, "description": "what a k-mood export brought"
                 " back besides its entries (labels, vocabularies, reminders)"}}}
PATHS["/api/import/daylio"] = {"post": _op(
    "Import a Daylio CSV export, a .daylio backup or a k-mood JSON export: every row or none;"
    " a file imported again "
    "adds nothing. A refused file answers 422 with the report under `report`.", _REPORT,
    errors=(401, 413, 415, 422))}
PATHS["/api/import/daylio"]["post"]["requestBody"] = {"required": True, "content": {
    "multipart/form-data": {"schema": {"type": "object", "required": ["file"], "properties": {
        "file": {"type": "string", "format": "binary"},
        "mood_map": {"type": "string", "description": 'JSON {"sad": 2} or sad=2,ok=3'},
        "dry_run": {"enum": ["0", "1", "true", "false"]}}}}}}


_PHOTOS = {"type": "object", "properties": {"photos": {"type": "array",
                                                       "items": _ref("Photo")}}}
PATHS["/api/entries/{id}/photos"] = {"post": _op(
    "Add photos to an entry (multipart, one or more files under `photo`): JPEG, PNG or WebP;"
    " stored upright without EXIF, GPS or other metadata, at most 2 560 px; the same photo"
    " twice is one photo. Answers the entry's photos in order", _PHOTOS, status=201,
    params=ID, errors=(401, 404, 413, 415, 422))}
PATHS["/api/entries/{id}/photos"]["post"]["requestBody"] = {"required": True, "content": {
    "multipart/form-data": {"schema": {"type": "object", "required": ["photo"], "properties": {
        "photo": {"type": "array", "items": {"type": "string", "format": "binary"}}}}}}}
PATHS["/api/entries/{id}/photos/order"] = {"put": _op(
    "Put the entry's photos in this order (each of them, once)", _PHOTOS, params=ID,
    errors=(401, 404, 422))}
PATHS["/api/entries/{id}/photos/order"]["put"]["requestBody"] = {"required": True, "content": {
    "application/json": {"schema": {"type": "object", "required": ["order"],
                                    "additionalProperties": False, "properties": {
                                        "order": {"type": "array", "items": INT}}}}}}
PATHS["/api/goals"] = {
    "get": _op("Goals with their progress (counted from the journal or check-ins)",
               {"type": "object", "properties": {"goals": {"type": "array",
                                                           "items": _ref("Goal")}}},
               params=[{"name": "archived", "in": "query", "schema": {"enum": ["0", "1"]}}]),
    "post": _op("Create a goal", "Goal", 201, "GoalWrite")}
PATHS["/api/goals/{id}"] = {
    "get": _op("One goal with its progress", "Goal", params=ID, errors=(401, 404)),
    "patch": _op("Change a goal (archive it with archived: true)", "Goal", body="GoalWrite",
                 params=ID, errors=(401, 404, 422)),
    "delete": _op("Delete a goal and its check-ins", None, 204, params=ID, errors=(401, 404))}
PATHS["/api/goals/{id}/checkins"] = {
    "get": _op("The days a goal without an activity was checked off",
               {"type": "object", "properties": {"checkins": {"type": "array",
                                                              "items": STR}}},
               params=ID, errors=(401, 404)),
    "post": _op("Check a goal without an activity off for a day (or take it back)", "Goal",
                body="CheckIn", params=ID, errors=(401, 404, 422))}
PATHS["/api/photos/{id}"] = {"delete": _op("Remove a photo", None, status=204, params=ID,
                                           errors=(401, 404))}


PATHS["/api/export"] = {"get": {
    "summary": "Everything of this user as a file: k-mood's JSON (imports back into any "
               "k-mood), the ZIP of it with the photos (export.json and photos/<entry>/<n>.<ext>;"
               " imports back the same way) or a CSV in Daylio's newest column layout",
    "parameters": [{"name": "format", "in": "query",
                    "schema": {"enum": ["json", "zip", "csv"]}}],
    "responses": {
        "200": {"description": "the file (Content-Disposition: attachment)", "content": {
            "application/json": {"schema": {"type": "object"}},
            "application/zip": {"schema": {"type": "string", "format": "binary"}},
            "text/csv": {"schema": {"type": "string"}}}},
        **{code: {"description": "error", "content": {"application/json": {
            "schema": _ref("Error")}}} for code in ("401", "422")}}}}


PATHS["/api/entries"]["post"]["responses"]["200"] = {
    "description": "a replayed client_id: the entry created the first time, unchanged",
    "content": {"application/json": {"schema": _ref("Entry")}}}
PATHS["/api/entries"]["post"]["responses"]["410"] = {
    "description": "a replayed client_id whose entry was deleted since (code `deleted`):"
                   " nothing is saved, and an outbox takes it as done",
    "content": {"application/json": {"schema": _ref("Error")}}}
PATHS["/api/session"]["post"]["responses"]["503"] = {
    "description": "every password-hashing slot is busy; retry after Retry-After seconds",
    "content": {"application/json": {"schema": _ref("Error")}}}

_ERROR_MEANING = {
    "400": "malformed request: JSON, query string or form not valid UTF-8, duplicate keys, "
           "nesting too deep, a cursor this server did not hand out",
    "403": "a cookie session without the right X-CSRF-Token header (or not an admin)",
    "413": "body larger than KMOOD_MAX_BODY_BYTES",
    "415": "a body without Content-Type: application/json",
}


def _complete(paths: dict) -> dict:
    """Answers every operation of a kind can give: 400 for any query or body, 403 for a
    cookie-authenticated write without its CSRF token, 413/415 for a JSON body."""
    for ops in paths.values():
        for method, op in ops.items():
            codes = []
            if op.get("requestBody") or op.get("parameters"):
                codes.append("400")
            if method in ("post", "patch", "delete") and op.get("security") != []:
                codes.append("403")
            if op.get("requestBody"):
                codes += ["413", "415"]
            for code in codes:
                op["responses"].setdefault(code, {"description": _ERROR_MEANING[code], "content": {
                    "application/json": {"schema": _ref("Error")}}})
    return paths


_complete(PATHS)


def document() -> dict:
    return {
        "openapi": "3.1.0",
        "info": {"title": "k-mood API", "version": __version__,
                 "description": "Errors are {\"error\": {\"code\", \"message\", \"fields\"}}. "
                                "Cookie-authenticated writes need the X-CSRF-Token header."},
        "servers": [{"url": "/"}],
        "components": {"schemas": SCHEMAS, "securitySchemes": {
            "bearer": {"type": "http", "scheme": "bearer"},
            "session": {"type": "apiKey", "in": "cookie", "name": "kmood_session"}}},
        "security": [{"bearer": []}, {"session": []}],
        "paths": PATHS,
    }


@routes.get("/api/openapi.json", auth="public")
def openapi():
    return json_response(document())
