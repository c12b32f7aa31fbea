"""JSON routes for entries, mood labels, activities, metrics, now-playing and stats."""

from __future__ import annotations

import functools
import logging
from datetime import date
from zoneinfo import ZoneInfo

import bottle

from kmood_lib.accounts import users
from kmood_lib.core.db import transaction
from kmood_lib.core.validation import (
    MAX_YEAR,
    MIN_YEAR,
    MalformedInput,
    ValidationError,
    parse_int_param,
)
from kmood_lib.journal import queries, stats, vocab, writes
from kmood_lib.journal.entry_json import dumps
from kmood_lib.journal.nowplaying import now_playing
from kmood_lib.journal.saving import EntryWrites
from kmood_lib.web.auth import Auth
from kmood_lib.web.http import (
    ApiError,
    json_response,
    json_text_response,
    query_params,
    read_json_object,
)

log = logging.getLogger(__name__)


def invalid(exc: ValidationError) -> ApiError:
    status = 400 if isinstance(exc, MalformedInput) else 422
    return ApiError(status, "invalid input: " + ", ".join(sorted(exc.fields)), exc.fields)


def not_found(exc: vocab.NotFound) -> ApiError:
    return ApiError(404, f"no such {exc.args[0].split()[0]}")


def guarded(fn):
    """Domain errors -> JSON answers (422 naming fields, 404 for missing or foreign objects)."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except ValidationError as exc:
            raise invalid(exc) from None
        except vocab.NotFound as exc:
            raise not_found(exc) from None

    return wrapper


def register(app: bottle.Bottle, services) -> None:
    config = services.config
    max_body = config.max_body_bytes
    saving: EntryWrites = app.config["kmood.entry_writes"]

    def body() -> dict:
        return read_json_object(bottle.request, max_body)

    # --- entries --------------------------------------------------------------------------

    @app.get("/api/entries")
    @guarded
    def list_entries(conn, auth: Auth):
        query = query_params(bottle.request)
        flt = queries.parse_filter(query)
        limit = queries.parse_limit(query.get("limit"))
        return json_text_response(queries.list_entries_json(conn, auth.user.id, flt, limit,
                                                            query.get("cursor") or None))

    @app.post("/api/entries")
    @guarded
    def create_entry(conn, auth: Auth):
        source = "web" if auth.via == "session" else "api"
        saved = saving.create(conn, auth.user, body(), source)
        text = (dumps(saved.entry) if saved.entry is not None  # created: no second read
                else queries.get_entry_json(conn, auth.user.id, saved.entry_id))
        return json_text_response(text, 201 if saved.created else 200,
                                  {"Location": f"/api/entries/{saved.entry_id}"})

    @app.get("/api/entries/<entry_id:id>")
    @guarded
    def get_entry(conn, auth: Auth, entry_id: int):
        return json_text_response(queries.get_entry_json(conn, auth.user.id, entry_id))

    @app.patch("/api/entries/<entry_id:id>")
    @guarded
    def patch_entry(conn, auth: Auth, entry_id: int):
        saving.update(conn, auth.user, entry_id, body())
        return json_text_response(queries.get_entry_json(conn, auth.user.id, entry_id))

    @app.delete("/api/entries/<entry_id:id>")
    @guarded
    def delete_entry(conn, auth: Auth, entry_id: int):
        writes.delete_entry(conn, auth.user.id, entry_id)
        return bottle.HTTPResponse(status=204)

    # --- mood labels ----------------------------------------------------------------------

    def moods_json(conn, user_id):
        labels = vocab.mood_labels(conn, user_id)
        return {"moods": [{"level": level, "label": labels[level]} for level in range(5, 0, -1)]}

    @app.get("/api/moods")
    def get_moods(conn, auth: Auth):
        return json_response(moods_json(conn, auth.user.id))

    @app.patch("/api/moods/<level:id>")
    @guarded
    def patch_mood(conn, auth: Auth, level: int):
        vocab.set_mood_label(conn, auth.user.id, level, body())
        return json_response(moods_json(conn, auth.user.id))

    # --- activities and metrics -----------------------------------------------------------

    def vocabulary_routes(plural: str, lister, creator, updater, deleter):
        @app.get(f"/api/{plural}", name=f"list_{plural}")
        def list_all(conn, auth: Auth):
            return json_response({plural: lister(conn, auth.user.id), "next_cursor": None})

        @app.post(f"/api/{plural}", name=f"create_{plural}")
        @guarded
        def create(conn, auth: Auth):
            data = body()
            with transaction(conn):
                created = creator(conn, auth.user.id, data, services.clock.now_ms())
            return json_response(created, 201)

        @app.patch(f"/api/{plural}/<item_id:id>", name=f"patch_{plural}")
        @guarded
        def patch(conn, auth: Auth, item_id: int):
            data = body()
            with transaction(conn):
                updated = updater(conn, auth.user.id, item_id, data, services.clock.now_ms())
            return json_response(updated)

        @app.delete(f"/api/{plural}/<item_id:id>", name=f"delete_{plural}")
        @guarded
        def delete(conn, auth: Auth, item_id: int):
            deleter(conn, auth.user.id, item_id)
            return bottle.HTTPResponse(status=204)

    vocabulary_routes("activities", vocab.list_activities, vocab.create_activity,
                      vocab.update_activity, vocab.delete_activity)
    vocabulary_routes("metrics", vocab.list_metrics, vocab.create_metric, vocab.update_metric,
                      vocab.delete_metric)

    # --- now playing ----------------------------------------------------------------------

    @app.get("/api/now-playing")
    def get_now_playing(conn, auth: Auth):
        me = users.profile(conn, auth.user.id)
        return json_response(now_playing(services.listenbrainz, services.lastfm,
                                         me["listenbrainz_user"], me["lastfm_user"],
                                         config.now_playing_timeout_ms))

    # --- stats ----------------------------------------------------------------------------

    def today_for(user) -> date:
        return services.clock.now().astimezone(ZoneInfo(user.timezone)).date()

    @app.get("/api/stats/summary")
    @guarded
    def stats_summary(conn, auth: Auth):
        flt = queries.parse_filter(query_params(bottle.request))
        return json_response(stats.summary(conn, auth.user.id, today_for(auth.user), flt))

    @app.get("/api/stats/calendar")
    @guarded
    def stats_calendar(conn, auth: Auth):
        year = parse_int_param(query_params(bottle.request).get("year"), "year", MIN_YEAR,
                               MAX_YEAR, default=today_for(auth.user).year)
        return json_response(stats.calendar(conn, auth.user.id, year))

    def filtered_stats(compute):
        """A stats route over the entry filters (from, to, mood, activity, q)."""
        @guarded
        def route(conn, auth: Auth):
            flt = queries.parse_filter(query_params(bottle.request))
            return json_response(compute(conn, auth.user.id, flt))

        return route

    for path, compute in (("weekday", stats.by_weekday_and_hour),
                          ("weather", stats.weather_impact), ("places", stats.place_impact),
                          ("music", stats.music_impact), ("activities", stats.activity_impact)):
        app.get(f"/api/stats/{path}", name=f"stats_{path}")(filtered_stats(compute))
