"""The OpenAPI 3.1 description of the JSON API (a test keeps it in step with the route table)."""

from __future__ import annotations

from kmood_lib import __version__
from kmood_lib.core.validation import MAX_YEAR, MIN_YEAR
from kmood_lib.web.http import json_response
from kmood_lib.web.openapi_schemas import BOOL, INT, SCHEMAS, STR, bounded_name, list_of, ref
from kmood_lib.web.routing import Routes

routes = Routes()


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
            "application/json": {"schema": ref(response) if not isinstance(response, dict)
                                 else response}}}
    for code in errors:
        op["responses"][str(code)] = {"description": "error", "content": {
            "application/json": {"schema": ref("Error")}}}
    if body:
        op["requestBody"] = {"required": True, "content": {"application/json": {
            "schema": ref(body)}}}
    if params:
        op["parameters"] = params
    if public:
        op["security"] = []
    return op


ID = [{"name": "id", "in": "path", "required": True, "schema": INT}]


def _vocabulary(plural: str, item: str, write: str) -> dict:
    return {
        f"/api/{plural}": {
            "get": _op(f"List {plural}", list_of(plural, item), errors=(401,)),
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
        "post": _op("Log in (sets the session cookie; returns the CSRF token); 403 with the"
                    " code password_login_off when KMOOD_PASSWORD_LOGIN is off", "Me", 201,
                    "Login", errors=(401, 403, 422, 429), public=True),
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
        "get": _op("List reminders", list_of("reminders", "Reminder"), errors=(401,)),
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
    "/api/push/key": {"get": _op("The VAPID public key to subscribe a browser with",
                                 "PushKey", errors=(401,))},
    "/api/push/subscriptions": {
        "get": _op("List my devices with Web Push on", list_of("subscriptions", "PushDevice"),
                   errors=(401,)),
        "post": _op("Add this browser's push subscription (the same endpoint again renews it)",
                    "PushDevice", 201, "PushSubscription"),
    },
    "/api/push/subscriptions/{id}": {"delete": _op("Remove a device", None, 204, params=ID,
                                                   errors=(401, 404))},
    "/api/push/subscriptions/{id}/test": {"post": _op(
        "Send one notification now to the device and report its push service's answer",
        {"type": "object", "properties": {"ok": BOOL, "status": {"type": ["integer", "null"]},
                                          "body": STR, "error": {"type": ["string", "null"]}}},
        params=ID, errors=(401, 404))},
    "/api/tokens": {
        "get": _op("List my API tokens", list_of("tokens", "Token"), errors=(401,)),
        "post": _op("Create an API token (shown once)", "NewToken", 201, "TokenWrite"),
    },
    "/api/tokens/{id}": {"delete": _op("Revoke an API token", None, 204, params=ID,
                                       errors=(401, 404))},
    "/api/entries": {
        "get": _op("List entries, newest first", list_of("entries", "Entry"),
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
    "/api/activities/starter": {
        "get": _op("The starter set of groups and activities with icons, and whether my log"
                   " page offers it", "StarterSet", errors=(401,)),
        "post": _op("Take activities of the starter set (none: skip it); either way it is not"
                    " offered again", "StarterAnswered", body="StarterAnswer",
                    errors=(400, 401, 415, 422)),
    },

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
        " and months; day-to-day stability. The standard ranges (`range`, or no dates: all"
        " time) are computed by the worker after the journal changes and answered at once,"
        " `updating` while a newer computation is on its way. Other dates are computed on the"
        " request, one per person at a time: 429 while the person's other range is computed,"
        " 503 while the server computes as many as it takes; both with Retry-After",
        "Insights", params=[{"name": "range", "in": "query", "schema": {
            "enum": ["90", "365", "all"]}, "description": "a standard range: the last 90"
            " days, the last year or all time (not with from or to)"}, *FILTER_PARAMS[:2]],
        errors=(401, 422, 429, 503))},
    "/api/jobs": {"get": _op(
        "List jobs, newest first (admin)", list_of("jobs", "Job"), errors=(401, 403, 422),
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
                                    "properties": {"label": bounded_name(32)}}}}}


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
                                                       "items": ref("Photo")}}}
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
                                                           "items": ref("Goal")}}},
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
            "schema": ref("Error")}}} for code in ("401", "422")}}}}


PATHS["/api/entries"]["post"]["responses"]["200"] = {
    "description": "a replayed client_id: the entry created the first time, unchanged",
    "content": {"application/json": {"schema": ref("Entry")}}}
PATHS["/api/entries"]["post"]["responses"]["410"] = {
    "description": "a replayed client_id whose entry was deleted since (code `deleted`):"
                   " nothing is saved, and an outbox takes it as done",
    "content": {"application/json": {"schema": ref("Error")}}}
PATHS["/api/session"]["post"]["responses"]["503"] = {
    "description": "every password-hashing slot is busy; retry after Retry-After seconds",
    "content": {"application/json": {"schema": ref("Error")}}}

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
                    "application/json": {"schema": ref("Error")}}})
    return paths


_complete(PATHS)


def document(auth_header: str = "", single_sign_on: bool = False, passkeys: bool = False
             ) -> dict:
    """The description; with a sign-in proxy configured (KMOOD_AUTH_HEADER), its header as a
    way in too; with single sign-on (KMOOD_OIDC_ISSUER) or passkeys (KMOOD_PASSKEYS), where
    a browser gets its session."""
    session = {"type": "apiKey", "in": "cookie", "name": "kmood_session",
               "description": "the cookie a sign-in sets: POST /api/session with a password"
               + (", or single sign-on in a browser (GET /login/oidc; the provider's own"
                  " tokens are not accepted here: use an API token)" if single_sign_on else "")
               + (", or a passkey in a browser (POST /login/passkey/options, then"
                  " POST /login/passkey)" if passkeys else "")}
    schemes = {"bearer": {"type": "http", "scheme": "bearer"}, "session": session}
    security = [{"bearer": []}, {"session": []}]
    about = ("Errors are {\"error\": {\"code\", \"message\", \"fields\"}}. "
             "Cookie-authenticated writes need the X-CSRF-Token header.")
    if auth_header:
        schemes["proxy"] = {
            "type": "apiKey", "in": "header", "name": auth_header,
            "description": "set by the trusted sign-in proxy only (KMOOD_TRUSTED_PROXIES): reads"
                           " are answered without a session; GET /api/me makes one (its"
                           " cookie, and the X-CSRF-Token writes need)"}
        security.append({"proxy": []})
        about += (f" A request the sign-in proxy vouches for ({auth_header}) with a name no"
                  " account is linked to is answered 403 with the code not_linked; a header"
                  " that is not one name, 400.")
    return {
        "openapi": "3.1.0",
        "info": {"title": "k-mood API", "version": __version__, "description": about},
        "servers": [{"url": "/"}],
        "components": {"schemas": SCHEMAS, "securitySchemes": schemes},
        "security": security,
        "paths": PATHS,
    }


@routes.get("/api/openapi.json", auth="public")
def openapi(services):
    config = services.config
    return json_response(document(config.auth_header, bool(config.oidc_issuer),
                                  config.passkeys))
