"""JSON routes for entries, mood labels, activities, metrics, now-playing and stats."""

from __future__ import annotations

import functools
import logging
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date

import bottle

from kmood_lib.accounts import users
from kmood_lib.core.db import transaction
from kmood_lib.core.errors import ValidationError
from kmood_lib.core.timezones import local_today
from kmood_lib.core.validation import MAX_YEAR, MIN_YEAR, parse_int_param
from kmood_lib.journal import (
    insights,
    queries,
    saving,
    stats,
    templates,
    versions,
    vocab,
    writes,
)
from kmood_lib.journal.entry_json import dumps
from kmood_lib.journal.nowplaying import now_playing
from kmood_lib.web.auth import Auth
from kmood_lib.web.http import (
    ApiError,
    json_body,
    json_response,
    json_text_response,
    query_params,
)
from kmood_lib.web.routing import Routes

routes = Routes()
log = logging.getLogger(__name__)


# --- entries ------------------------------------------------------------------------------

LIST_PARAMETERS = ("from", "to", "mood", "activity", "q", "limit", "cursor")


@routes.get("/api/entries")
def list_entries(services, conn, auth: Auth):
    """A page of entries, kept in memory by the journal version (which every change to what
    the page shows raises, migrations 0018 and 0024), so a client polling its history costs
    a version read until something changes."""
    query = query_params(bottle.request)
    flt = queries.parse_filter(query)
    limit = queries.parse_limit(query.get("limit"))
    cursor = query.get("cursor") or None
    key = ("entries", *(query.get(name) or "" for name in LIST_PARAMETERS))
    return json_text_response(versions.cached(
        conn, services.entries_cache, auth.user.id, key,
        lambda: queries.list_entries_json(conn, auth.user.id, flt, limit, cursor)))


class OutboxBatches:
    """A device sending its offline outbox marks each request `X-Kmood-Outbox: <batch> i/n`;
    the server writes one line per batch when its last item arrives: how many were new, were
    already here (a replay), had been deleted since (answered 410) or refused. At most MAX
    batches are followed at once (in memory: a restart loses only the count of a batch under
    way)."""

    MAX = 256
    HEADER = re.compile(r"([0-9a-f-]{8,36}) ([0-9]{1,6})/([0-9]{1,6})")

    def __init__(self):
        self.lock = threading.Lock()
        self.batches: dict[tuple[int, str], dict[str, int]] = {}

    def count(self, user, header: str | None, outcome: str) -> None:
        found = self.HEADER.fullmatch(header or "")
        if not found:
            return
        key, (i, n) = (user.id, found.group(1)), (int(found.group(2)), int(found.group(3)))
        with self.lock:
            tally = self.batches.pop(key, {"new": 0, "replayed": 0, "deleted": 0, "refused": 0})
            tally[outcome] += 1
            if i < n:
                self.batches[key] = tally
                while len(self.batches) > self.MAX:
                    del self.batches[next(iter(self.batches))]
                return
        deleted = f", {tally['deleted']} deleted since" if tally["deleted"] else ""
        log.info("outbox sync for %s: %d of %d entries sent (%d new, %d already here%s), "
                 "%d refused", user.username,
                 tally["new"] + tally["replayed"] + tally["deleted"], n, tally["new"],
                 tally["replayed"], deleted, tally["refused"])


OUTBOX = OutboxBatches()


@routes.post("/api/entries")
def create_entry(services, conn, auth: Auth):
    source = "web" if auth.via == "session" else "api"
    batch = bottle.request.headers.get("X-Kmood-Outbox")
    try:
        saved = saving.create(services, conn, auth.user,
                              json_body(bottle.request, services.config), source)
    except ValidationError:
        OUTBOX.count(auth.user, batch, "refused")
        raise
    if saved.deleted:
        OUTBOX.count(auth.user, batch, "deleted")
        raise ApiError(410, "this entry was deleted after it was saved: it is not saved again",
                       code="deleted")
    OUTBOX.count(auth.user, batch, "new" if saved.created else "replayed")
    text = (dumps(saved.entry) if saved.entry is not None  # created: no second read
            else queries.get_entry_json(conn, auth.user.id, saved.entry_id))
    return json_text_response(text, 201 if saved.created else 200,
                              {"Location": f"/api/entries/{saved.entry_id}"})


@routes.get("/api/entries/<entry_id:id>")
def get_entry(conn, auth: Auth, entry_id: int):
    return json_text_response(queries.get_entry_json(conn, auth.user.id, entry_id))


@routes.patch("/api/entries/<entry_id:id>")
def patch_entry(services, conn, auth: Auth, entry_id: int):
    saving.update(services, conn, auth.user, entry_id, json_body(bottle.request, services.config))
    return json_text_response(queries.get_entry_json(conn, auth.user.id, entry_id))


@routes.delete("/api/entries/<entry_id:id>")
def delete_entry(services, conn, auth: Auth, entry_id: int):
    writes.delete_entry(conn, auth.user.id, entry_id, services.clock.now_ms())
    return bottle.HTTPResponse(status=204)


# --- mood labels --------------------------------------------------------------------------

def moods_json(conn, user_id: int) -> dict:
    labels = vocab.mood_labels(conn, user_id)
    return {"moods": [{"level": level, "label": labels[level]} for level in range(5, 0, -1)]}


@routes.get("/api/moods")
def get_moods(conn, auth: Auth):
    return json_response(moods_json(conn, auth.user.id))


@routes.patch("/api/moods/<level:id>")
def patch_mood(services, conn, auth: Auth, level: int):
    vocab.set_mood_label(conn, auth.user.id, level, json_body(bottle.request, services.config))
    return json_response(moods_json(conn, auth.user.id))


# --- activities, metrics and note templates: one set of routes over each vocabulary -------

@dataclass(frozen=True)
class Vocabulary:
    plural: str
    list: Callable
    create: Callable
    update: Callable
    delete: Callable


ACTIVITIES = Vocabulary("activities", vocab.list_activities, vocab.create_activity,
                        vocab.update_activity, vocab.delete_activity)
METRICS = Vocabulary("metrics", vocab.list_metrics, vocab.create_metric, vocab.update_metric,
                     vocab.delete_metric)
TEMPLATES = Vocabulary("templates", templates.list_templates, templates.create_template,
                       lambda conn, user_id, item_id, body, now_ms: templates.update_template(
                           conn, user_id, item_id, body), templates.delete_template)


def list_items(words: Vocabulary, conn, auth: Auth):
    return json_response({words.plural: words.list(conn, auth.user.id), "next_cursor": None})


def create_item(words: Vocabulary, services, conn, auth: Auth):
    data = json_body(bottle.request, services.config)
    with transaction(conn):
        created = words.create(conn, auth.user.id, data, services.clock.now_ms())
    return json_response(created, 201)


def patch_item(words: Vocabulary, services, conn, auth: Auth, item_id: int):
    data = json_body(bottle.request, services.config)
    with transaction(conn):
        updated = words.update(conn, auth.user.id, item_id, data, services.clock.now_ms())
    return json_response(updated)


def delete_item(words: Vocabulary, conn, auth: Auth, item_id: int):
    words.delete(conn, auth.user.id, item_id)
    return bottle.HTTPResponse(status=204)


for words in (ACTIVITIES, METRICS, TEMPLATES):
    routes.get(f"/api/{words.plural}", name=f"list_{words.plural}")(functools.partial(list_items, words))
    routes.post(f"/api/{words.plural}", name=f"create_{words.plural}")(functools.partial(create_item, words))
    routes.patch(f"/api/{words.plural}/<item_id:id>",
                 name=f"patch_{words.plural}")(functools.partial(patch_item, words))
    routes.delete(f"/api/{words.plural}/<item_id:id>",
                  name=f"delete_{words.plural}")(functools.partial(delete_item, words))


@routes.post("/api/activities/bulk")
def change_activities(services, conn, auth: Auth):
    data = json_body(bottle.request, services.config)
    with transaction(conn):
        changed = vocab.change_activities(conn, auth.user.id, data, services.clock.now_ms())
    return json_response(changed)


# --- now playing --------------------------------------------------------------------------

@routes.get("/api/now-playing")
def get_now_playing(services, conn, auth: Auth):
    me = users.profile(conn, auth.user.id)
    return json_response(now_playing(services.listenbrainz, services.lastfm,
                                     me["listenbrainz_user"], me["lastfm_user"],
                                     services.config.now_playing_timeout_ms))


# --- stats --------------------------------------------------------------------------------

def today_for(services, user) -> date:
    return local_today(services.clock, user.timezone)


@routes.get("/api/stats/summary")
def stats_summary(services, conn, auth: Auth):
    flt = queries.parse_filter(query_params(bottle.request))
    return json_response(stats.summary(conn, auth.user.id, today_for(services, auth.user), flt))


@routes.get("/api/stats/calendar")
def stats_calendar(services, conn, auth: Auth):
    year = parse_int_param(query_params(bottle.request).get("year"), "year", MIN_YEAR,
                           MAX_YEAR, default=today_for(services, auth.user).year)
    return json_response(stats.calendar(conn, auth.user.id, year))


def filtered_stats(compute: Callable, conn, auth: Auth):
    """A stats route over the entry filters (from, to, mood, activity, q)."""
    flt = queries.parse_filter(query_params(bottle.request))
    return json_response(compute(conn, auth.user.id, flt))


@routes.get("/api/insights")
def insights_json(services, conn, auth: Auth):
    """A range's insights: kept ones at once, others computed through the insights gate (one
    per person at a time, a few in all), else 429/503 with Retry-After."""
    today = today_for(services, auth.user)
    flt = queries.parse_filter({k: query_params(bottle.request).get(k) for k in ("from", "to")})
    date_from, date_to = insights.full_range(conn, auth.user.id, flt.date_from, flt.date_to,
                                             today)
    return json_response(insights.cached_insights(
        conn, services.insight_cache, auth.user.id, date_from, date_to, today,
        insights.thresholds_from(services.config), services.insight_gate))


for path, compute in (("weekday", stats.by_weekday_and_hour), ("weather", stats.weather_impact),
                      ("places", stats.place_impact), ("music", stats.music_impact),
                      ("activities", stats.activity_impact)):
    routes.get(f"/api/stats/{path}", name=f"stats_{path}")(
        functools.partial(filtered_stats, compute))
