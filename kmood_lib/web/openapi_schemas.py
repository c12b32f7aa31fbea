"""The component schemas of the OpenAPI description (api/openapi.py): every JSON object the
API takes or answers with, and the small helpers that write them."""

from __future__ import annotations


def ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


def nullable(schema: dict) -> dict:
    return {"oneOf": [schema, {"type": "null"}]}


def list_of(plural: str, item: str) -> dict:
    return {"type": "object", "required": [plural, "next_cursor"], "properties": {
        plural: {"type": "array", "items": ref(item)},
        "next_cursor": {"type": ["string", "null"]}}}


STR, INT, NUM, BOOL = {"type": "string"}, {"type": "integer"}, {"type": "number"}, {"type": "boolean"}


def bounded_name(longest: int) -> dict:
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
        "lastfm_user": {"type": ["string", "null"]}, "csrf_token": {"type": ["string", "null"]},
        "language": {"type": ["string", "null"]},
        # Set by an admin in Household; single sign-on may link by it (KMOOD_SSO_LINK_BY_EMAIL)
        "email": {"type": ["string", "null"]}}},
    "MeUpdate": {"type": "object", "additionalProperties": False, "properties": {
        "timezone": bounded_name(64), "listenbrainz_user": {"type": ["string", "null"]},
        "lastfm_user": {"type": ["string", "null"]},
        # The pages' language: a catalogue's code (en, de, es, fr, pl, pt_BR); null or "" for
        # the browser's Accept-Language.
        "language": {"type": ["string", "null"], "maxLength": 16}}},
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
        "timezone": STR, "channel": {"enum": ["ntfy", "gotify", "webhook", "webpush"]},
        "url": {"type": "string", "description": "empty for webpush (the person's devices)"},
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
        "timezone": {"type": ["string", "null"], "maxLength": 64,
                     "description": "IANA; empty, null or left out: the user's"},
        "channel": {"enum": ["ntfy", "gotify", "webhook", "webpush"]},
        "url": {"type": "string", "maxLength": 2000,
                "description": "http(s); for ntfy the topic URL; empty or left out for webpush"},
        "token": {"type": ["string", "null"], "description": "write-only"},
        "title": {"type": ["string", "null"]}, "message": {"type": ["string", "null"]},
        "skip_if_logged": BOOL, "enabled": BOOL},
        # an address for every channel but webpush (which goes to the person's devices)
        "if": {"required": ["channel"], "properties": {"channel": {"const": "webpush"}}},
        "then": {"properties": {"url": {"maxLength": 0}}},
        "else": {"properties": {"url": {"minLength": 1, "pattern": "^https?://"}}}},
    "PushKey": {"type": "object", "required": ["public_key"], "properties": {
        "public_key": {"type": "string", "description": "VAPID public key, base64url (the"
                       " app's applicationServerKey)"}}},
    "PushDevice": {"type": "object", "properties": {
        "id": INT, "label": STR, "push_service": {"type": "string", "description": "host"},
        "created_at": STR, "last_success_at": {"type": ["string", "null"]},
        "last_failure_at": {"type": ["string", "null"]},
        "last_error": {"type": ["string", "null"]}}},
    "PushSubscription": {"type": "object", "required": ["endpoint", "keys"], "properties": {
        "endpoint": {"type": "string", "maxLength": 2000, "description": "https"},
        "expirationTime": {"type": ["integer", "null"]},
        "keys": {"type": "object", "required": ["p256dh", "auth"], "properties": {
            "p256dh": STR, "auth": STR}},
        "label": {"type": "string", "maxLength": 100}}},
    "NewToken": {"type": "object", "required": ["id", "name", "token"],
                 "properties": {"id": INT, "name": STR, "token": STR}},
    "Song": {"type": "object", "required": ["artist", "title"], "properties": {
        "artist": STR, "title": STR, "album": {"type": ["string", "null"]},
        "source": {"enum": ["manual", "listenbrainz", "lastfm"]},
        "metadata": {**nullable({"type": "object", "properties": {
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
        "location": nullable({"type": "object", "properties": {
            "lat": NUM, "lon": NUM, "place": {
                "type": ["string", "null"],
                "description": "'Berlin, DE': null until the worker has named the area, or "
                               "when reverse geocoding found nothing there"}}}),
        "weather": {**nullable({"type": "object", "properties": {
            "temperature_c": NUM, "code": INT, "description": STR, "unavailable": BOOL}}),
            "description": "null until the worker has looked it up; {\"unavailable\": true} "
                           "when the upstream has no data for that hour"},
        "song": nullable(ref("Song")),
        "photos": {"type": "array", "items": ref("Photo"), "description": "in their order;"
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
            "location": nullable({"type": "object", "required": ["lat", "lon"], "properties": {
                "lat": {"type": "number", "minimum": -90, "maximum": 90},
                "lon": {"type": "number", "minimum": -180, "maximum": 180}}}),
            "song": nullable({"type": "object", "required": ["artist", "title"], "properties": {
                "artist": bounded_name(300), "title": bounded_name(300), "album": {"type": "string",
                                                                     "maxLength": 300},
                "source": {"enum": ["manual", "listenbrainz", "lastfm"]}}}),
            "metrics": {"type": "object", "additionalProperties": NUM}}},
    "Moods": {"type": "object", "properties": {"moods": {"type": "array", "items": {
        "type": "object", "properties": {"level": INT, "label": STR}}}}},
    "Activity": {"type": "object", "properties": {
        "id": INT, "name": STR, "icon": {"type": ["string", "null"],
                                         "description": "one emoji, or null: none"},
        "group": {"type": ["string", "null"]}, "entries": INT, "archived": BOOL}},
    "ActivityWrite": {"type": "object", "additionalProperties": False, "properties": {
        "name": bounded_name(64), "group": {"anyOf": [bounded_name(64), {"type": "null"}]},
        "icon": {"type": ["string", "null"], "maxLength": 16,
                 "description": "one emoji (one grapheme cluster of emoji: 🚶, 👩🏽‍💻, 🇵🇱, 1️⃣"
                                "); anything else is a 422. Null or empty: no icon"},
        "archived": {"type": "boolean", "description": "PATCH only: hide it from the log form "
                                                       "(kept on its entries), or restore it"}}},
    "ActivitiesChange": {"type": "object", "additionalProperties": False,
                         "required": ["ids", "action"], "properties": {
        "ids": {"type": "array", "minItems": 1, "maxItems": 1000,
                "items": {"type": "integer", "minimum": 1}},
        "action": {"enum": ["group", "archive", "restore", "delete"]},
        "group": {"anyOf": [bounded_name(64), {"type": "null"}],
                  "description": "with the action group: the group to move them to (created "
                                 "if new); null or absent takes them out of their groups"}}},
    "StarterSet": {"type": "object", "properties": {
        "offered": {**BOOL, "description": "whether my log page offers it (never answered, no"
                                           " activity yet)"},
        "groups": {"type": "array", "items": {"type": "object", "properties": {
            "group": STR, "activities": {"type": "array", "items": {
                "type": "object", "properties": {"name": STR, "icon": STR}}}}}}}},
    "StarterAnswer": {"type": "object", "additionalProperties": False, "properties": {
        "names": {"type": "array", "maxItems": 100, "items": STR,
                  "description": "the starter set's activities to take (created in their "
                                 "groups with their icons); empty or absent: skip the set"}}},
    "StarterAnswered": {"type": "object", "properties": {
        "created": {**INT, "description": "how many activities were made"},
        "offered": BOOL}},
    "ActivitiesChanged": {"type": "object", "properties": {
        "action": STR, "group": {"type": ["string", "null"]},
        "activities": {**INT, "description": "how many activities changed"},
        "entries": {**INT, "description": "how many entries carry one of them (once each)"}}},
    "Metric": {"type": "object", "properties": {
        "id": INT, "name": STR, "unit": STR, "min": {"type": ["number", "null"]},
        "max": {"type": ["number", "null"]}}},
    "MetricWrite": {"type": "object", "additionalProperties": False, "properties": {
        "name": bounded_name(64), "unit": {"type": "string", "maxLength": 32},
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
        "song": nullable(ref("Song")), "source": {"type": ["string", "null"]},
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
    "ActivityImpact": {"type": "object", "properties": {
        "needed_days": {**INT, "description": "logged days with and without an activity before"
                        " its row has evidence (the insights' rule)"},
        "activities": {
            "type": "array", "description": "rows with evidence first, the biggest difference"
            " first; then those with few days", "items": {"type": "object", "properties": {
                "activity": STR, "count_with": {**INT, "description": "entries"},
                "average_with": NUM, "count_without": INT,
                "average_without": {"type": ["number", "null"]},
                "difference": {"type": ["number", "null"]},
                "days_with": {**INT, "description": "logged days with the activity"},
                "days_without": INT, "enough": {**BOOL, "description": "false: few days"}}}}}},
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
        "name": bounded_name(64), "activity": {"type": ["string", "null"]},
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
        "name": bounded_name(64), "note_title": {"type": "string", "maxLength": 200},
        "note": {"type": "string", "maxLength": 20000}},
        "description": "a name, and a title or a note (or both)"},
    "Photo": {"type": "object", "required": ["id", "url", "thumb_url", "width", "height"],
              "properties": {
                  "id": INT, "url": {**STR, "description": "the photo, without metadata"},
                  "thumb_url": {**STR, "description": "at most 400 px on its long side"},
                  "width": INT, "height": INT}},
    "Insights": {"type": "object", "required": ["range", "days", "checked", "findings",
                                                "not_enough", "updating"], "properties": {
        "updating": {**BOOL, "description": "a stored result from before the journal's latest"
                     " change (or an earlier day): a newer one is being computed"},
        "outdated": {**BOOL, "description": "a stored result from before the journal's latest"
                     " change whose newer computation failed (the admin's job list says why);"
                     " it is tried again after the queue's cool-down"},
        "computed_at": {"type": ["integer", "null"], "description": "when the worker computed"
                        " this stored result (Unix ms); null when computed for this request"},
        "range": {"type": "object", "properties": {"from": STR, "to": STR}},
        "days": {**INT, "description": "logged days in the range"},
        "needed_days": {**INT, "description": "logged days needed before anything is compared"},
        "checked": {**INT, "description": "comparisons made: one family for Benjamini–Hochberg"},
        "findings": {"type": "array", "description": "one per thing, the strongest first"
                     " (strength: the interval's near end farthest from 0), differences in"
                     " mood points before rank correlations", "items": ref("Finding")},
        "open_findings": {**INT, "description": "how many of the first findings the page shows"
                          " open; the rest are folded"},
        "not_enough": {"type": "array", "items": {"type": "object", "properties": {
            "kind": STR, "name": STR, "lag": INT, "n_with": INT, "n_without": INT,
            "short_of": {"enum": ["with", "without"]}, "needed": INT, "sentence": STR,
            "within": {"type": "object"}}}},
        "comparisons": {"type": "array", "description": "every comparison of the family as it"
                        " came out, finding or not", "items": {"type": "object", "properties": {
                            "kind": STR, "name": STR, "lag": INT, "since": BOOL,
                            "measure": STR, "effect": {"type": ["number", "null"]},
                            "ci": {"type": ["array", "null"], "items": NUM},
                            "p": {"type": ["number", "null"]},
                            "q": {"type": ["number", "null"]}, "n_with": INT,
                            "n_without": INT}}},
        "on_this_day": {"type": "array", "items": {"type": "object", "properties": {
            "years_ago": INT, "entry": ref("Entry")}}},
        "weeks": ref("Ranked"), "months": ref("Ranked"),
        "stability": {"type": "array", "description": "per month, the mean size of the change"
                      " from one logged day to the next", "items": {
                          "type": "object", "properties": {
                              "month": STR, "change": NUM, "steps": INT}}}}},
    "Finding": {"type": "object", "required": ["kind", "name", "lag", "measure", "effect", "ci",
                                               "sentence"], "properties": {
        "kind": {"enum": ["activity", "place", "artist", "weather", "metric", "change"],
                 "description": "change: the mood changed around a date"},
        "name": STR, "lag": {"enum": [0, 1], "description": "1: the day after"},
        "since": {**BOOL, "description": "a change: the days from `started` on vs as many"
                  " before"},
        "started": {**STR, "description": "a change: its first day"},
        "began": {"type": "array", "items": STR, "description": "a change: the activities"
                  " first logged within a week of it (named, not credited)"},
        "also": {"type": "array", "description": "the same thing's day after, when it stands"
                 " out too (one finding per thing)", "items": {"type": "object"}},
        "within": {"type": "object", "description": "compared only on one side of a change"
                   " in mood", "properties": {"side": {"enum": ["before", "after"]},
                                              "date": STR}},
        "strength": {**NUM, "description": "how far the interval's near end is from 0: the"
                     " findings come strongest first, points before rho"},
        "measure": {"enum": ["points", "rho"], "description": "points: difference in mean"
                    " day-mood, with minus without; rho: Spearman's rank correlation"},
        "effect": NUM, "ci": {"type": "array", "items": NUM, "minItems": 2, "maxItems": 2,
                              "description": "95 % stationary block bootstrap interval"},
        "mean_with": NUM, "mean_without": NUM, "n_with": INT, "n_without": INT,
        "slope": {"type": ["number", "null"], "description": "Theil–Sen mood points per unit"},
        "unit": STR, "p": NUM, "q": {**NUM, "description": "Benjamini–Hochberg adjusted"},
        "sentence": STR}},
    "Ranked": {"type": "object", "properties": {
        "best": {"type": "array", "items": ref("Period")},
        "worst": {"type": "array", "items": ref("Period")},
        "ranked": INT, "least_days": INT}},
    "Period": {"type": "object", "properties": {"start": STR, "average": NUM, "days": INT}},
}
