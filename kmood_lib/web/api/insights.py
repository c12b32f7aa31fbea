"""The JSON route for a range's insights, kept by journal version and computed behind a gate."""

from __future__ import annotations

import bottle

from kmood_lib.core.timezones import local_today
from kmood_lib.journal import insights, queries
from kmood_lib.web.authentication import Auth
from kmood_lib.web.http import json_response, query_params
from kmood_lib.web.routing import Routes

routes = Routes()


@routes.get("/api/insights")
def insights_json(services, conn, auth: Auth):
    """A range's insights: kept ones at once, others computed through the insights gate (one
    per person at a time, a few in all), else 429/503 with Retry-After."""
    today = local_today(services.clock, auth.user.timezone)
    flt = queries.parse_filter({k: query_params(bottle.request).get(k) for k in ("from", "to")})
    date_from, date_to = insights.full_range(conn, auth.user.id, flt.date_from, flt.date_to,
                                             today)
    return json_response(insights.cached_insights(
        conn, services.insight_cache, auth.user.id, date_from, date_to, today,
        insights.thresholds_from(services.config), services.insight_gate))
