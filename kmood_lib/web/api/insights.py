"""The JSON route for a range's insights: a standard range as the worker stored it (at once,
marked `updating` while a newer one is on its way), any other computed on demand, kept by
journal version and behind a gate."""

from __future__ import annotations

import bottle

from kmood_lib.core.errors import ValidationError
from kmood_lib.core.i18n import Phrase
from kmood_lib.core.timezones import local_today
from kmood_lib.enrich.insights import standard_insights
from kmood_lib.journal import insight_store, insights, queries
from kmood_lib.web.authentication import Auth
from kmood_lib.web.http import json_response, query_params
from kmood_lib.web.routing import Routes

routes = Routes()


@routes.get("/api/insights")
def insights_json(services, conn, auth: Auth):
    """A standard range (`range`, or no dates: all time) as stored; dates computed through the
    insights gate (one per person at a time, a few in all), else 429/503 with Retry-After."""
    today = local_today(services.clock, auth.user.timezone)
    params = query_params(bottle.request)
    key = params.get("range")
    if key is not None and key not in insight_store.STANDARD:
        raise ValidationError({"range": Phrase("must be one of {choices}",
                                               choices=", ".join(insight_store.STANDARD))})
    flt = queries.parse_filter({k: params.get(k) for k in ("from", "to")})
    if key is not None and (flt.date_from or flt.date_to):
        raise ValidationError({"range": Phrase("give a range or dates (from, to), not both")})
    if not (flt.date_from or flt.date_to):
        return json_response(standard_insights(services, conn, auth.user.id, key or "all",
                                               today))
    date_from, date_to = insights.full_range(conn, auth.user.id, flt.date_from, flt.date_to,
                                             today)
    return json_response({**insights.cached_insights(
        conn, services.insight_cache, auth.user.id, date_from, date_to, today,
        insights.thresholds_from(services.config), services.insight_gate),
        "updating": False, "outdated": False, "computed_at": None})
