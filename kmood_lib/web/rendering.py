"""How a route answers with a page: a template inside the layout (with template_helpers as
`helpers`), the settings pages' frame, redirects after a form (POST -> 303 -> GET) and the
notices they ask for, and the fields a form posted."""

from __future__ import annotations

import urllib.parse
from pathlib import Path

import bottle

from kmood_lib.core.errors import ValidationError
from kmood_lib.core.i18n import N_, Translator
from kmood_lib.queue import heartbeat
from kmood_lib.web import template_helpers
from kmood_lib.web.http import Params, cookie, form_params, query_params

HERE = Path(__file__).resolve().parent
TEMPLATES = [str(HERE / "templates")]

# Messages a redirect may ask for by key (`?done=logged`): fixed text, never echoed input.
NOTICES = {
    "logged": "Entry logged.",
    "queued": "Saved on this device: k-mood could not take it just now. It is sent as soon as"
              " it can be.",
    "saved": "Saved.",
    "deleted": "Entry deleted.",
    "deleted_before": "Not saved: this entry was deleted after it was first saved, so it is"
                      " not brought back.",
    "password": "Password changed; your other sessions were logged out.",
    "password_tokens": "Password changed; your other sessions were logged out and your API"
                       " tokens revoked (make new ones under API tokens).",
    "reset": "Password set; their sessions ended and their API tokens were revoked.",
    "created": "Created.",
    "removed": "Removed.",
    "cancelled": "Import cancelled; the file is gone.",
    "retried": "Queued to run again.",
    "switched_on": "Switched on.",
    "switched_off": "Switched off.",
    "activities_grouped": "Moved {n} to the group.",
    "activities_ungrouped": "Took {n} out of their groups.",
    "activities_archived": "Archived {n}: hidden from the log form, kept on their entries.",
    "activities_restored": "Restored {n} to the log form.",
    "activities_deleted": "Deleted {n}; their entries stay.",
    "activities_started": "Added {n} with their icons: tick them when you log. Change them"
                          " under Settings → Activities.",
    "activities_skipped": "No starter set: type your own activities when you log.",
    "photos_added": "Added {n}, without their location or other metadata.",
    "photo_removed": "Photo removed.",
}
# What `{n}` counts in a notice (`?done=activities_archived&n=3`: "Archived 3 activities").
COUNTED = {"activities": ("activity", "activities"), "photos": ("photo", "photos")}


def plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def notice(params: Params) -> str | None:
    """The fixed text a redirect asked for; a count in it is a number read back, never text."""
    text = NOTICES.get(params.get("done") or "")
    if text is None or "{n}" not in text:
        return text
    raw = params.get("n") or ""
    if not (raw.isascii() and raw.isdigit() and len(raw) <= 6):
        return None
    one, many = COUNTED[(params.get("done") or "").split("_")[0]]
    return text.format(n=plural(int(raw), one, many))


SECTIONS = [("profile", "/settings", N_("Profile")),
            ("moods", "/settings/moods", N_("Mood labels")),
            ("activities", "/settings/activities", N_("Activities")),
            ("metrics", "/settings/metrics", N_("Metrics")),
            ("templates", "/settings/templates", N_("Note templates")),
            ("tokens", "/settings/tokens", N_("API tokens")),
            ("reminders", "/settings/reminders", N_("Reminders")),
            ("import", "/settings/import", N_("Import & export"))]
ADMIN_SECTIONS = [("users", "/settings/users", N_("Household")),
                  ("jobs", "/admin/jobs", N_("Jobs"))]

# This browser's language when no one is logged in: set by the login page's language switch.
LANGUAGE_COOKIE = "kmood_language"


class FormError(ValidationError):
    """A form that cannot be accepted, in the page's own words: `fields` maps what a person
    sees beside the form ("Current password") to the message, shown as they are."""

    labelled = True

    def __init__(self, errors: dict[str, str]):
        super().__init__(errors, "; ".join(f"{name}: {message}" for name, message in errors.items()))


def translator(request: bottle.BaseRequest, user) -> Translator:
    """The request's language (SPEC §13): the person's setting, else the one this browser
    chose on the login page, else the browser's Accept-Language, else KMOOD_DEFAULT_LANGUAGE."""
    services = request.app.config["kmood.services"]
    chosen = (user.language if user is not None else None) or cookie(request, LANGUAGE_COOKIE)
    return services.languages.choose(chosen, request.environ.get("HTTP_ACCEPT_LANGUAGE"),
                                     services.config.default_language)


def render(name: str, status: int = 200, headers: dict | None = None, **values
           ) -> bottle.HTTPResponse:
    """A template inside layout.tpl; never cached (pages carry CSRF tokens and private data).
    Every template has the request's Translator as `i18n`, with `_` (its gettext), `n_` (its
    ngettext) and `_html` (a message with markup of its own) for the words."""
    values.setdefault("user", None)
    values.setdefault("helpers", template_helpers)
    words = values.setdefault("i18n", translator(bottle.request, values["user"]))
    values.setdefault("_", words.gettext)
    values.setdefault("n_", words.ngettext)
    values.setdefault("_html", words.html)
    body = bottle.template(name, template_lookup=TEMPLATES, **values)
    response = bottle.HTTPResponse(body, status, headers)
    response.content_type = "text/html; charset=utf-8"
    response.set_header("Cache-Control", "no-store")
    return response


def worker_alive(conn, services) -> bool:
    """Whether a worker has beaten within KMOOD_WORKER_STALE_S (admins' pages say when not)."""
    return heartbeat.health(conn, services.clock.now_ms(), services.config.worker_stale_s)["alive"]


def page(name: str, auth, *, active: str | None = None, status: int = 200, **values
         ) -> bottle.HTTPResponse:
    """A page for a logged-in user: the layout gets the user, the CSRF token for its forms,
    the active tab, the notice a redirect asked for and, for an admin, whether no worker runs
    (the heartbeat is read here, so only a page that renders reads it)."""
    worker_missing = auth.worker_alive is not None and not auth.worker_alive()
    return render(name, status, user=auth.user, csrf_token=auth.csrf_token or "", active=active,
                  notice=notice(query_params(bottle.request)), worker_missing=worker_missing,
                  **values)


def redirect(location: str, done: str | None = None, n: int | None = None
             ) -> bottle.HTTPResponse:
    """303 to `location`, with the notice `done` (and the count `n` it shows) to say there."""
    if done:
        location, hash_, fragment = location.partition("#")
        asked = {"done": done} if n is None else {"done": done, "n": n}
        location += ("&" if "?" in location else "?") + urllib.parse.urlencode(asked)
        location += hash_ + fragment
    return bottle.HTTPResponse(status=303, headers={"Location": location})


def settings_page(name: str, auth, status: int = 200, **values) -> bottle.HTTPResponse:
    """A page under Settings: its template inside the settings navigation."""
    values.setdefault("errors", {})
    values.setdefault("fields", {})
    section = values.pop("section", name)
    sections = SECTIONS + (ADMIN_SECTIONS if auth.user.is_admin else [])
    return page(f"settings_{name}.tpl", auth, active="settings", section=section,
                sections=sections, status=status, **values)


def form_fields(request: bottle.BaseRequest, config) -> Params:
    """The fields a page's form posted (its body was checked against the route's limit)."""
    return form_params(request, config.max_body_bytes)
