"""Settings pages for activities and their groups: the list with its bulk actions, one
activity's own page, adding, renaming, giving an icon, archiving and deleting (one or many,
after asking); and the answer to the starter set a new person's log page offers."""

from __future__ import annotations

import itertools
import urllib.parse

import bottle

from kmood_lib.core.db import transaction
from kmood_lib.journal import starter, vocab
from kmood_lib.web.authentication import Auth
from kmood_lib.web.http import Params, query_params
from kmood_lib.web.rendering import form_fields, redirect, settings_page, words
from kmood_lib.web.routing import Routes

routes = Routes()

def activities_page(conn, auth: Auth, fields=None, errors=None, status=200):
    """Every activity under its group, each with a box to select it for the actions at the
    bottom (move to a group, archive, restore, delete) and a link to its own page."""
    activities = vocab.list_activities(conn, auth.user.id)
    by_group = [(group, list(members)) for group, members
                in itertools.groupby(activities, key=lambda a: a["group"])]
    selected = set(fields.getall("ids")) if isinstance(fields, Params) else set()
    return settings_page("activities", auth, status, activities=activities, by_group=by_group,
                         groups=vocab.list_groups(conn, auth.user.id), selected=selected,
                         fields=fields or {}, errors=errors or {},
                         scripts=("activities.js",) if activities else ())


def activity_body(fields: Params) -> dict:
    """The add or edit form as the API's body; the edit form's icon is the one typed, else
    the one picked from the short list (none: no icon)."""
    body = {"name": fields.get("name", ""), "group": fields.get("group", "").strip() or None}
    if "icon" in fields or "icon_pick" in fields:
        body["icon"] = fields.get("icon", "").strip() or fields.get("icon_pick", "") or None
    return body


@routes.get("/settings/activities")
def activities(conn, auth: Auth):
    return activities_page(conn, auth)


@routes.post("/settings/activities", form=activities_page)
def add_activity(services, conn, auth: Auth):
    fields = form_fields(bottle.request, services.config)
    with transaction(conn):
        vocab.create_activity(conn, auth.user.id, activity_body(fields), services.clock.now_ms())
    return redirect("/settings/activities", "created")


@routes.get("/settings/activities/<item_id:id>")
def activity_page(conn, auth: Auth, item_id: int, fields=None, errors=None, status=200):
    """One activity: rename it, move it to a group, archive or restore it, delete it."""
    activity = vocab.get_activity(conn, auth.user.id, item_id)
    return settings_page("activity", auth, status, section="activities", activity=activity,
                         groups=vocab.list_groups(conn, auth.user.id),
                         fields=fields or {"name": activity["name"],
                                           "group": activity["group"] or "",
                                           "icon_pick": activity["icon"] or ""},
                         icon_choices=icon_choices(activity["icon"]), errors=errors or {})


def icon_choices(current: str | None) -> list[str]:
    """The short list to pick an icon from, with the activity's own first when it is not in it."""
    return ([current] if current and current not in starter.ICON_CHOICES else []) + list(
        starter.ICON_CHOICES)


@routes.post("/settings/activities/<item_id:id>", form=activity_page)
def change_activity(services, conn, auth: Auth, item_id: int):
    fields = form_fields(bottle.request, services.config)
    with transaction(conn):
        vocab.update_activity(conn, auth.user.id, item_id, activity_body(fields),
                              services.clock.now_ms())
    return redirect("/settings/activities", "saved")


@routes.get("/settings/activities/<item_id:id>/delete")
def confirm_delete_activity(conn, auth: Auth, item_id: int):
    activity = vocab.get_activity(conn, auth.user.id, item_id)
    i18n = words(auth)
    _, n_ = i18n.gettext, i18n.ngettext
    return settings_page(
        "confirm", auth, what="activity", subject=activity["name"], i18n=i18n,
        action=f"/settings/activities/{item_id}/delete", back="/settings/activities",
        consequences=[
            n_("It is removed from {n} entry; the entry itself stays, with its mood, notes and"
               " other activities.",
               "It is removed from {n} entries; the entries themselves stay, with their mood,"
               " notes and other activities.", activity["entries"]),
            _("To stop seeing it on the log form but keep it on those entries, archive it"
              " instead.")])


@routes.post("/settings/activities/<item_id:id>/delete")
def delete_activity(conn, auth: Auth, item_id: int):
    vocab.delete_activity(conn, auth.user.id, item_id)
    return redirect("/settings/activities", "removed")


def chosen_activities(fields: Params) -> list[int]:
    """The activity ids a form selected (anything else is not an id: refused by the domain)."""
    return [int(raw) if raw.isascii() and raw.isdigit() and len(raw) < 19 else raw
            for raw in fields.getall("ids")]


BULK_NOTICES = {"archive": "activities_archived", "restore": "activities_restored",
                "delete": "activities_deleted"}


@routes.post("/settings/activities/bulk", form=activities_page)
def change_activities(services, conn, auth: Auth):
    """The actions under the list: a move, archive or restore happens at once; a delete
    first asks, on a page that counts what it takes with it."""
    fields = form_fields(bottle.request, services.config)
    action = fields.get("action", "")
    body = {"ids": chosen_activities(fields), "action": action}
    if action == "group":
        body["group"] = fields.get("to_group", "").strip() or None
    if action == "delete":
        ids, _, _ = vocab.check_bulk(body)
        vocab.activities_reach(conn, auth.user.id, ids)
        query = urllib.parse.urlencode([("ids", i) for i in ids])
        return redirect(f"/settings/activities/delete?{query}")
    with transaction(conn):
        changed = vocab.change_activities(conn, auth.user.id, body, services.clock.now_ms())
    done = BULK_NOTICES.get(action) or ("activities_grouped" if changed["group"]
                                        else "activities_ungrouped")
    return redirect("/settings/activities", done, changed["activities"])


def bulk_ids(params: Params) -> list[int]:
    ids, _, _ = vocab.check_bulk({"ids": chosen_activities(params), "action": "delete"})
    return ids


@routes.get("/settings/activities/delete")
def confirm_delete_activities(conn, auth: Auth):
    ids = bulk_ids(query_params(bottle.request))
    reach = vocab.activities_reach(conn, auth.user.id, ids)
    names = [a["name"] for a in vocab.list_activities(conn, auth.user.id) if a["id"] in ids]
    i18n = words(auth)
    _, n_ = i18n.gettext, i18n.ngettext
    return settings_page(
        "confirm", auth, section="activities", what="activities", count=reach["activities"],
        subject=None, names=names, action="/settings/activities/delete", i18n=i18n,
        back="/settings/activities", hidden=[("ids", i) for i in ids],
        consequences=[
            n_("They are removed from {n} entry (an entry with several of them counts once);"
               " the entry itself stays, with its mood, notes and other activities.",
               "They are removed from {n} entries (an entry with several of them counts"
               " once); the entries themselves stay, with their mood, notes and other"
               " activities.", reach["entries"]),
            _("To stop seeing them on the log form but keep them on those entries, archive"
              " them instead.")])


@routes.post("/settings/activities/delete")
def delete_activities(services, conn, auth: Auth):
    fields = form_fields(bottle.request, services.config)
    with transaction(conn):
        changed = vocab.change_activities(conn, auth.user.id, {
            "ids": bulk_ids(fields), "action": "delete"}, services.clock.now_ms())
    return redirect("/settings/activities", "activities_deleted", changed["activities"])


@routes.post("/settings/activities/<item_id:id>/archive", form=activities_page)
def archive_activity(services, conn, auth: Auth, item_id: int):
    fields = form_fields(bottle.request, services.config)
    with transaction(conn):
        vocab.update_activity(conn, auth.user.id, item_id,
                              {"archived": fields.get("archived") == "1"}, services.clock.now_ms())
    return redirect("/settings/activities", "saved")


@routes.post("/settings/groups/<item_id:id>", form=activities_page)
def rename_group(services, conn, auth: Auth, item_id: int):
    fields = form_fields(bottle.request, services.config)
    vocab.rename_group(conn, auth.user.id, item_id, {"name": fields.get("name", "")})
    return redirect("/settings/activities", "saved")


@routes.post("/settings/groups/<item_id:id>/delete")
def delete_group(conn, auth: Auth, item_id: int):
    vocab.delete_group(conn, auth.user.id, item_id)
    return redirect("/settings/activities", "removed")


@routes.post("/activities/starter")
def answer_starter(services, conn, auth: Auth):
    """The log page's starter set: "Add them" takes the ones ticked (all, unless the list was
    opened and some unticked), "No thanks" none; either way it is not offered again."""
    fields = form_fields(bottle.request, services.config)
    names = fields.getall("take") if fields.get("answer") == "take" else []
    with transaction(conn):
        made = starter.answer(conn, auth.user.id, names, services.clock.now_ms())
    if fields.get("answer") == "take" and made:
        return redirect("/", "activities_started", made)
    return redirect("/", "activities_skipped")
