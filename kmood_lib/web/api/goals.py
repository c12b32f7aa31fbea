"""JSON routes for goals and their check-ins (progress is counted, see journal.goals)."""

from __future__ import annotations

import bottle

from kmood_lib.core.db import transaction
from kmood_lib.core.errors import ValidationError
from kmood_lib.core.i18n import Phrase
from kmood_lib.core.timezones import local_today
from kmood_lib.journal import goals
from kmood_lib.web.authentication import Auth
from kmood_lib.web.http import json_body, json_response, query_params
from kmood_lib.web.routing import Routes

routes = Routes()


@routes.get("/api/goals")
def list_goals(services, conn, auth: Auth):
    wanted = query_params(bottle.request).get("archived", "1")
    if wanted not in ("0", "1"):
        raise ValidationError({"archived": Phrase("must be 0 or 1")})
    return json_response({"goals": goals.list_goals(conn, auth.user.id,
                                                    local_today(services.clock, auth.user.timezone),
                                                    archived=wanted == "1")})


@routes.post("/api/goals")
def create_goal(services, conn, auth: Auth):
    body = json_body(bottle.request, services.config)
    with transaction(conn):
        made = goals.create_goal(conn, auth.user.id, body, local_today(services.clock, auth.user.timezone),
                                 services.clock.now_ms())
    return json_response(made, 201)


@routes.get("/api/goals/<goal_id:id>")
def get_goal(services, conn, auth: Auth, goal_id: int):
    return json_response(goals.get_goal(conn, auth.user.id, goal_id,
                                        local_today(services.clock, auth.user.timezone)))


@routes.patch("/api/goals/<goal_id:id>")
def patch_goal(services, conn, auth: Auth, goal_id: int):
    body = json_body(bottle.request, services.config)
    with transaction(conn):
        changed = goals.update_goal(conn, auth.user.id, goal_id, body,
                                    local_today(services.clock, auth.user.timezone), services.clock.now_ms())
    return json_response(changed)


@routes.delete("/api/goals/<goal_id:id>")
def delete_goal(conn, auth: Auth, goal_id: int):
    goals.delete_goal(conn, auth.user.id, goal_id)
    return bottle.HTTPResponse(status=204)


@routes.get("/api/goals/<goal_id:id>/checkins")
def list_checkins(services, conn, auth: Auth, goal_id: int):
    today = local_today(services.clock, auth.user.timezone)
    goals.get_goal(conn, auth.user.id, goal_id, today)  # another person's: a 404 first
    return json_response({"checkins": [r[0] for r in conn.execute(
        "SELECT local_date FROM goal_checkins WHERE goal_id = ? ORDER BY local_date",
        (goal_id,))]})


@routes.post("/api/goals/<goal_id:id>/checkins")
def post_checkin(services, conn, auth: Auth, goal_id: int):
    """{"date": "YYYY-MM-DD" (default today), "done": true (false takes it back)}."""
    body = json_body(bottle.request, services.config)
    today = local_today(services.clock, auth.user.timezone)
    unknown = set(body) - {"date", "done"}
    if unknown:
        raise ValidationError({name: Phrase("unknown field") for name in unknown})
    if not isinstance(body.get("done", True), bool):
        raise ValidationError({"done": Phrase("must be true or false")})
    with transaction(conn):
        goal = goals.check_in(conn, auth.user.id, goal_id, body.get("date", today.isoformat()),
                              today, services.clock.now_ms(), body.get("done", True))
    return json_response(goal)
