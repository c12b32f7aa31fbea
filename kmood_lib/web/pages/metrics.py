"""Settings pages for metrics (numbers kept with an entry): the list with its forms, adding,
changing and deleting one (after asking)."""

from __future__ import annotations

import bottle

from kmood_lib.core.db import transaction
from kmood_lib.journal import vocab
from kmood_lib.web.authentication import Auth
from kmood_lib.web.http import Params
from kmood_lib.web.rendering import form_fields, redirect, settings_page, words
from kmood_lib.web.routing import Routes

routes = Routes()


def optional_number(raw: str | None):
    """A bound typed into a form: empty is none, else a number (or the text, to be refused)."""
    text = (raw or "").strip().replace(",", ".")
    if not text:
        return None
    try:
        return float(text)
    except ValueError:
        return raw


def metrics_page(conn, auth: Auth, fields=None, errors=None, status=200):
    return settings_page("metrics", auth, status, metrics=vocab.list_metrics(conn, auth.user.id),
                         fields=fields or {}, errors=errors or {})


def metric_body(fields: Params) -> dict:
    return {"name": fields.get("name", ""), "unit": fields.get("unit", "").strip(),
            "min": optional_number(fields.get("min")), "max": optional_number(fields.get("max"))}


@routes.get("/settings/metrics")
def metrics(conn, auth: Auth):
    return metrics_page(conn, auth)


@routes.post("/settings/metrics", form=metrics_page)
def add_metric(services, conn, auth: Auth):
    fields = form_fields(bottle.request, services.config)
    with transaction(conn):
        vocab.create_metric(conn, auth.user.id, metric_body(fields), services.clock.now_ms())
    return redirect("/settings/metrics", "created")


@routes.post("/settings/metrics/<item_id:id>", form=metrics_page)
def change_metric(services, conn, auth: Auth, item_id: int):
    fields = form_fields(bottle.request, services.config)
    with transaction(conn):
        vocab.update_metric(conn, auth.user.id, item_id, metric_body(fields),
                            services.clock.now_ms())
    return redirect("/settings/metrics", "saved")


@routes.get("/settings/metrics/<item_id:id>/delete")
def confirm_delete_metric(conn, auth: Auth, item_id: int):
    metric = vocab.get_metric(conn, auth.user.id, item_id)
    used = conn.execute("SELECT count(*) FROM entry_metrics WHERE metric_id = ?",
                        (metric["id"],)).fetchone()[0]
    i18n = words(auth)
    n_ = i18n.ngettext
    return settings_page(
        "confirm", auth, what="metric", subject=metric["name"], i18n=i18n,
        action=f"/settings/metrics/{item_id}/delete", back="/settings/metrics",
        consequences=[n_("Its {n} recorded value is deleted with it; the entries themselves"
                         " stay.",
                         "Its {n} recorded values are deleted with it; the entries themselves"
                         " stay.", used)])


@routes.post("/settings/metrics/<item_id:id>/delete")
def delete_metric(conn, auth: Auth, item_id: int):
    vocab.delete_metric(conn, auth.user.id, item_id)
    return redirect("/settings/metrics", "removed")
