"""Goals as pages: the list with this period's progress, streaks and a strip of the last
periods, a form for a new goal, one goal's page, and one-tap check-off (also on the log
page). Plain forms: they work without JavaScript."""

from __future__ import annotations

import bottle

from kmood_lib.core.db import transaction
from kmood_lib.core.errors import DomainError
from kmood_lib.core.i18n import N_
from kmood_lib.core.timezones import local_today
from kmood_lib.journal import goals, vocab
from kmood_lib.web.authentication import Auth
from kmood_lib.web.http import Params
from kmood_lib.web.rendering import form_fields, page, redirect, translator
from kmood_lib.web.routing import Routes

routes = Routes()

BACK = {"/": "/", "/goals": "/goals"}  # where a check-off may send the person back to
DELETE_CONSEQUENCES = (N_("Its check-ins go with it; your entries stay as they are."),
                       N_("To stop seeing it but keep its history, archive it instead."))


def goals_page(services, conn, auth: Auth, fields=None, errors=None, status=200):
    today = local_today(services.clock, auth.user.timezone)
    return page("goals.tpl", auth, active="log", status=status,
                goals=goals.list_goals(conn, auth.user.id, today), today=today,
                activities=[a["name"] for a in vocab.list_activities(conn, auth.user.id)
                            if not a["archived"]],
                fields=fields or {"period": "week"}, errors=errors or {})


def goal_page(services, conn, auth: Auth, goal_id: int, fields=None, errors=None, status=200):
    today = local_today(services.clock, auth.user.timezone)
    goal = goals.get_goal(conn, auth.user.id, goal_id, today)
    shown = fields or {"name": goal["name"], "activity": goal["activity"] or "",
                       "period": goal["period"], "target": str(goal["target"]),
                       "start_date": goal["start_date"],
                       "archived": "1" if goal["archived"] else ""}
    return page("goal.tpl", auth, active="log", status=status, goal=goal, fields=shown,
                errors=errors or {},
                activities=[a["name"] for a in vocab.list_activities(conn, auth.user.id)])


def goal_body(fields: Params, editing: bool) -> dict:
    """The form's fields as the API's JSON body (a target that is not a number is refused by
    the domain with the same words); a new goal left without a start starts today."""
    raw = fields.get("target", "").strip()
    body = {"name": fields.get("name", ""), "activity": fields.get("activity", "") or None,
            "period": fields.get("period", ""),
            "target": int(raw) if raw.isascii() and raw.isdigit() and len(raw) < 4 else raw,
            "start_date": fields.get("start_date", "").strip()}
    if editing:
        body["archived"] = fields.get("archived") == "1"
    elif not body["start_date"]:
        del body["start_date"]
    return body


def goal_form_errors(exc: DomainError) -> dict[str, str]:
    """A refused goal by the form's own field names: each message is shown beside its field
    (a refusal of no one field above the form), in the page's language (the form's template
    says each through the catalogue: a Phrase brings its values)."""
    return dict(exc.fields) or {"goal": exc.message}


@routes.get("/goals")
def goals_list(services, conn, auth: Auth):
    return goals_page(services, conn, auth)


@routes.post("/goals", form=goals_page, labels=goal_form_errors)
def goals_add(services, conn, auth: Auth):
    fields = form_fields(bottle.request, services.config)
    with transaction(conn):
        goals.create_goal(conn, auth.user.id, goal_body(fields, False),
                          local_today(services.clock, auth.user.timezone),
                          services.clock.now_ms())
    return redirect("/goals", "created")


@routes.get("/goals/<goal_id:id>")
def goal_show(services, conn, auth: Auth, goal_id: int):
    return goal_page(services, conn, auth, goal_id)


@routes.post("/goals/<goal_id:id>", form=goal_page, labels=goal_form_errors)
def goal_change(services, conn, auth: Auth, goal_id: int):
    fields = form_fields(bottle.request, services.config)
    with transaction(conn):
        goals.update_goal(conn, auth.user.id, goal_id, goal_body(fields, True),
                          local_today(services.clock, auth.user.timezone),
                          services.clock.now_ms())
    return redirect("/goals", "saved")


@routes.post("/goals/<goal_id:id>/checkin")
def goal_checkin(services, conn, auth: Auth, goal_id: int):
    """Today checked off (done=1) or taken back (done=0), then back where it was tapped."""
    fields = form_fields(bottle.request, services.config)
    today = local_today(services.clock, auth.user.timezone)
    with transaction(conn):
        goals.check_in(conn, auth.user.id, goal_id, today.isoformat(), today,
                       services.clock.now_ms(), fields.get("done", "1") != "0")
    return redirect(BACK.get(fields.get("back", ""), "/goals") + "#goals")


@routes.get("/goals/<goal_id:id>/delete")
def goal_confirm_delete(services, conn, auth: Auth, goal_id: int):
    goal = goals.get_goal(conn, auth.user.id, goal_id,
                          local_today(services.clock, auth.user.timezone))
    i18n = translator(bottle.request, auth.user)
    return page("settings_confirm.tpl", auth, active="log", what="goal", subject=goal["name"],
                action=f"/goals/{goal_id}/delete", back=f"/goals/{goal_id}", i18n=i18n,
                consequences=[i18n.gettext(line) for line in DELETE_CONSEQUENCES])


@routes.post("/goals/<goal_id:id>/delete")
def goal_delete(conn, auth: Auth, goal_id: int):
    goals.delete_goal(conn, auth.user.id, goal_id)
    return redirect("/goals", "removed")
