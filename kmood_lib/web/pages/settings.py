"""Settings pages: profile and password, mood labels, activities and groups, metrics, API
tokens — plain forms over the same domain functions as the JSON API."""

from __future__ import annotations

import functools
import itertools
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass

import bottle

from kmood_lib.accounts import auth as auth_store
from kmood_lib.accounts import users
from kmood_lib.core.db import transaction
from kmood_lib.core.errors import NotFound, ValidationError
from kmood_lib.core.timezones import canonical_zones
from kmood_lib.journal import storage, templates, vocab
from kmood_lib.web.auth import Auth
from kmood_lib.web.http import Params, query_params
from kmood_lib.web.routing import Routes
from kmood_lib.web.views import FormError, form_fields, plural, redirect, settings_page

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


# --- profile, integrations and password -----------------------------------------------------

def profile_page(services, conn, auth: Auth, fields=None, errors=None, status=200):
    me = users.profile(conn, auth.user.id)
    return settings_page("profile", auth, status, me=me, zones=canonical_zones(),
                         storage=storage.summary(conn, auth.user.id,
                                                 services.config.storage_quota_bytes),
                         megabytes=storage.megabytes, fields=fields or {},
                         errors=errors or {}, scripts=("settings.js",))


@routes.get("/settings")
def profile(services, conn, auth: Auth):
    return profile_page(services, conn, auth)


@routes.post("/settings/profile", form=profile_page)
def save_profile(services, conn, auth: Auth):
    fields = form_fields(bottle.request, services.config)
    changes = {"timezone": fields.get("timezone", ""),
               "listenbrainz_user": fields.get("listenbrainz_user", "").strip(),
               "lastfm_user": fields.get("lastfm_user", "").strip()}
    users.update_settings(conn, auth.user.id, users.validate_settings(changes),
                          services.clock.now_ms())
    return redirect("/settings", "saved")


@routes.post("/settings/password", form=profile_page)
def change_password(services, conn, auth: Auth):
    fields = form_fields(bottle.request, services.config)
    old, new = fields.get("old_password", ""), fields.get("new_password", "")
    if len(old) > users.MAX_PASSWORD_LENGTH or users.authenticate(
            conn, auth.user.username, old, services.hasher) is None:
        raise FormError({"Current password": "is not right"})
    if new != fields.get("repeat_password"):
        raise FormError({"New password": "the two entries differ"})
    users.validate_password(new, "new_password")
    ended = auth_store.change_password(
        conn, auth.user.id, services.hasher.hash(new), services.clock.now_ms(),
        keep_session_id=auth.session.id if auth.session else None,
        revoke_tokens=fields.get("revoke_api_tokens") == "1")
    return redirect("/settings", "password_tokens" if ended["api_tokens_revoked"] else "password")


# --- mood labels --------------------------------------------------------------------------

def moods_page(conn, auth: Auth, fields=None, errors=None, status=200):
    return settings_page("moods", auth, status, labels=vocab.mood_labels(conn, auth.user.id),
                         fields=fields or {}, errors=errors or {})


@routes.get("/settings/moods")
def moods(conn, auth: Auth):
    return moods_page(conn, auth)


@routes.post("/settings/moods", form=moods_page)
def save_moods(services, conn, auth: Auth):
    fields = form_fields(bottle.request, services.config)
    with transaction(conn):
        for level in range(1, 6):
            try:
                vocab.set_mood_label(conn, auth.user.id, level,
                                     {"label": fields.get(f"label_{level}", "")})
            except ValidationError as exc:
                raise FormError({f"Level {level}": exc.fields["label"]}) from None
    return redirect("/settings/moods", "saved")


# --- activities and metrics: one set of pages over each vocabulary --------------------------

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


def activity_page(conn, auth: Auth, item_id: int, fields=None, errors=None, status=200):
    """One activity: rename it, move it to a group, archive or restore it, delete it."""
    activity = vocab.get_activity(conn, auth.user.id, item_id)
    return settings_page("activity", auth, status, section="activities", activity=activity,
                         groups=vocab.list_groups(conn, auth.user.id),
                         fields=fields or {"name": activity["name"],
                                           "group": activity["group"] or ""},
                         errors=errors or {})


def metrics_page(conn, auth: Auth, fields=None, errors=None, status=200):
    return settings_page("metrics", auth, status, metrics=vocab.list_metrics(conn, auth.user.id),
                         fields=fields or {}, errors=errors or {})


def activity_body(fields: Params) -> dict:
    return {"name": fields.get("name", ""), "group": fields.get("group", "").strip() or None}


def metric_body(fields: Params) -> dict:
    return {"name": fields.get("name", ""), "unit": fields.get("unit", "").strip(),
            "min": optional_number(fields.get("min")), "max": optional_number(fields.get("max"))}


def activity_consequences(conn, activity: dict) -> list[str]:
    n = activity["entries"]
    return [f"It is removed from {n} entr{'y' if n == 1 else 'ies'}; the entries themselves "
            "stay, with their mood, notes and other activities.",
            "To stop seeing it on the log form but keep it on those entries, archive it "
            "instead."]


def metric_consequences(conn, metric: dict) -> list[str]:
    used = conn.execute("SELECT count(*) FROM entry_metrics WHERE metric_id = ?",
                        (metric["id"],)).fetchone()[0]
    return [f"Its {used} recorded value{' is' if used == 1 else 's are'} deleted with it;"
            " the entries themselves stay."]


@dataclass(frozen=True)
class VocabularyPages:
    """What the list, add, change and delete pages of one vocabulary are made of."""

    plural: str
    singular: str
    page: Callable  # (conn, auth, fields, errors, status) -> the list page with its forms
    body: Callable[[Params], dict]  # the form's fields as the API's JSON body
    create: Callable
    update: Callable
    get: Callable
    delete: Callable
    consequences: Callable[..., list[str]]  # what deleting one takes with it, in words
    item_page: Callable | None = None  # one item's own page, when the list has no forms

    @property
    def base(self) -> str:
        return f"/settings/{self.plural}"


ACTIVITIES = VocabularyPages("activities", "activity", activities_page, activity_body,
                             vocab.create_activity, vocab.update_activity, vocab.get_activity,
                             vocab.delete_activity, activity_consequences, activity_page)
METRICS = VocabularyPages("metrics", "metric", metrics_page, metric_body, vocab.create_metric,
                          vocab.update_metric, vocab.get_metric, vocab.delete_metric,
                          metric_consequences)


def list_page(words: VocabularyPages, conn, auth: Auth):
    return words.page(conn, auth)


def add_item(words: VocabularyPages, services, conn, auth: Auth):
    fields = form_fields(bottle.request, services.config)
    with transaction(conn):
        words.create(conn, auth.user.id, words.body(fields), services.clock.now_ms())
    return redirect(words.base, "created")


def change_item(words: VocabularyPages, services, conn, auth: Auth, item_id: int):
    fields = form_fields(bottle.request, services.config)
    with transaction(conn):
        words.update(conn, auth.user.id, item_id, words.body(fields), services.clock.now_ms())
    return redirect(words.base, "saved")


def confirm_delete(words: VocabularyPages, conn, auth: Auth, item_id: int):
    item = words.get(conn, auth.user.id, item_id)
    return settings_page("confirm", auth, what=words.singular, subject=item["name"],
                         action=f"{words.base}/{item_id}/delete", back=words.base,
                         consequences=words.consequences(conn, item))


def delete_item(words: VocabularyPages, conn, auth: Auth, item_id: int):
    words.delete(conn, auth.user.id, item_id)
    return redirect(words.base, "removed")


def declare(words: VocabularyPages) -> None:
    """The five routes of one vocabulary's pages, each bound to it."""
    def bind(route: Callable) -> Callable:
        return functools.partial(route, words)

    routes.get(words.base, name=f"{words.plural}_page")(bind(list_page))
    routes.post(words.base, name=f"{words.plural}_add", form=words.page)(bind(add_item))
    if words.item_page is not None:
        routes.get(f"{words.base}/<item_id:id>", name=f"{words.plural}_item")(words.item_page)
    routes.post(f"{words.base}/<item_id:id>", name=f"{words.plural}_change",
                form=words.item_page or words.page)(bind(change_item))
    routes.get(f"{words.base}/<item_id:id>/delete",
               name=f"{words.plural}_confirm")(bind(confirm_delete))
    routes.post(f"{words.base}/<item_id:id>/delete",
                name=f"{words.plural}_delete")(bind(delete_item))


def templates_page(conn, auth: Auth, fields=None, errors=None, status=200):
    return settings_page("templates", auth, status,
                         templates=templates.list_templates(conn, auth.user.id),
                         fields=fields or {}, errors=errors or {})


def template_body(fields: Params) -> dict:
    return {"name": fields.get("name", ""), "note_title": fields.get("note_title", ""),
            "note": fields.get("note", "").replace("\r\n", "\n")}


TEMPLATES = VocabularyPages(
    "templates", "template", templates_page, template_body, templates.create_template,
    lambda conn, user_id, item_id, body, now_ms: templates.update_template(
        conn, user_id, item_id, body),
    templates.get_template, templates.delete_template,
    lambda conn, item: ["Entries written from it keep their title and note."])


declare(ACTIVITIES)
declare(METRICS)
declare(TEMPLATES)


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
    n, entries = reach["activities"], reach["entries"]
    return settings_page(
        "confirm", auth, section="activities", what=plural(n, "activity", "activities"),
        subject=None, names=names, action="/settings/activities/delete",
        back="/settings/activities", hidden=[("ids", i) for i in ids],
        consequences=[
            f"They are removed from {plural(entries, 'entry', 'entries')} (an entry with"
            " several of them counts once); the entries themselves stay, with their mood,"
            " notes and other activities.",
            "To stop seeing them on the log form but keep them on those entries, archive"
            " them instead."])


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


# --- API tokens ---------------------------------------------------------------------------

def tokens_page(conn, auth: Auth, fields=None, errors=None, status=200, new_token=None):
    return settings_page("tokens", auth, status,
                         tokens=auth_store.list_api_tokens(conn, auth.user.id),
                         new_token=new_token, fields=fields or {}, errors=errors or {})


@routes.get("/settings/tokens")
def tokens(conn, auth: Auth):
    return tokens_page(conn, auth)


@routes.post("/settings/tokens", form=tokens_page)
def create_token(services, conn, auth: Auth):
    """Answered with the page itself (no redirect): the only time the token is shown."""
    fields = form_fields(bottle.request, services.config)
    created = auth_store.create_api_token(conn, auth.user.id, fields.get("name", ""),
                                          services.clock.now_ms())
    return tokens_page(conn, auth, status=201, new_token=created)


@routes.post("/settings/tokens/<item_id:id>/revoke")
def revoke_token(services, conn, auth: Auth, item_id: int):
    if not auth_store.revoke_api_token(conn, auth.user.id, item_id, services.clock.now_ms()):
        raise NotFound("token")
    return redirect("/settings/tokens", "removed")
