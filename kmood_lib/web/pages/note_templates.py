"""Settings pages for note templates (a title and note to start an entry from): the list with
its forms, adding, changing and deleting one (after asking)."""

from __future__ import annotations

import bottle

from kmood_lib.core.db import transaction
from kmood_lib.journal import templates
from kmood_lib.web.authentication import Auth
from kmood_lib.web.http import Params
from kmood_lib.web.rendering import form_fields, redirect, settings_page, words
from kmood_lib.web.routing import Routes

routes = Routes()


def templates_page(conn, auth: Auth, fields=None, errors=None, status=200):
    return settings_page("templates", auth, status,
                         templates=templates.list_templates(conn, auth.user.id),
                         fields=fields or {}, errors=errors or {})


def template_body(fields: Params) -> dict:
    return {"name": fields.get("name", ""), "note_title": fields.get("note_title", ""),
            "note": fields.get("note", "").replace("\r\n", "\n")}


@routes.get("/settings/templates")
def note_templates(conn, auth: Auth):
    return templates_page(conn, auth)


@routes.post("/settings/templates", form=templates_page)
def add_template(services, conn, auth: Auth):
    fields = form_fields(bottle.request, services.config)
    with transaction(conn):
        templates.create_template(conn, auth.user.id, template_body(fields),
                                  services.clock.now_ms())
    return redirect("/settings/templates", "created")


@routes.post("/settings/templates/<item_id:id>", form=templates_page)
def change_template(services, conn, auth: Auth, item_id: int):
    fields = form_fields(bottle.request, services.config)
    with transaction(conn):
        templates.update_template(conn, auth.user.id, item_id, template_body(fields))
    return redirect("/settings/templates", "saved")


@routes.get("/settings/templates/<item_id:id>/delete")
def confirm_delete_template(conn, auth: Auth, item_id: int):
    template = templates.get_template(conn, auth.user.id, item_id)
    i18n = words(auth)
    _ = i18n.gettext
    return settings_page(
        "confirm", auth, what="template", subject=template["name"], i18n=i18n,
        action=f"/settings/templates/{item_id}/delete", back="/settings/templates",
        consequences=[_("Entries written from it keep their title and note.")])


@routes.post("/settings/templates/<item_id:id>/delete")
def delete_template(conn, auth: Auth, item_id: int):
    templates.delete_template(conn, auth.user.id, item_id)
    return redirect("/settings/templates", "removed")
