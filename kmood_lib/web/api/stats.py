"""JSON routes for stats: the summary, a year's calendar, and mood by weekday and hour,
weather, places, music and activities, each over the entry filters."""

from __future__ import annotations

import bottle

from kmood_lib.core.timezones import local_today
from kmood_lib.core.validation import MAX_YEAR, MIN_YEAR, parse_int_param
from kmood_lib.journal import queries, stats
from kmood_lib.journal.evidence import evidence_from
from kmood_lib.web.authentication import Auth
from kmood_lib.web.http import json_response, query_params
from kmood_lib.web.routing import Routes

routes = Routes()


def entry_filter():
    """The entry filters (from, to, mood, activity, q) the request asks for."""
    return queries.parse_filter(query_params(bottle.request))


@routes.get("/api/stats/summary")
def stats_summary(services, conn, auth: Auth):
    today = local_today(services.clock, auth.user.timezone)
    return json_response(stats.summary(conn, auth.user.id, today, entry_filter()))


@routes.get("/api/stats/calendar")
def stats_calendar(services, conn, auth: Auth):
    year = parse_int_param(query_params(bottle.request).get("year"), "year", MIN_YEAR, MAX_YEAR,
                           default=local_today(services.clock, auth.user.timezone).year)
    return json_response(stats.calendar(conn, auth.user.id, year))


@routes.get("/api/stats/weekday")
def stats_weekday(conn, auth: Auth):
    return json_response(stats.by_weekday_and_hour(conn, auth.user.id, entry_filter()))


@routes.get("/api/stats/weather")
def stats_weather(conn, auth: Auth):
    return json_response(stats.weather_impact(conn, auth.user.id, entry_filter()))


@routes.get("/api/stats/places")
def stats_places(conn, auth: Auth):
    return json_response(stats.place_impact(conn, auth.user.id, entry_filter()))


@routes.get("/api/stats/music")
def stats_music(conn, auth: Auth):
    return json_response(stats.music_impact(conn, auth.user.id, entry_filter()))


@routes.get("/api/stats/activities")
def stats_activities(services, conn, auth: Auth):
    return json_response(stats.activity_impact(conn, auth.user.id, entry_filter(),
                                               evidence_from(services.config)))
