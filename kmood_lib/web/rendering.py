"""How a route answers with a page: a template inside the layout (with template_helpers as
`helpers`), the settings pages' frame, redirects after a form (POST -> 303 -> GET) and the
notices they ask for, and the fields a form posted."""

from __future__ import annotations

import functools
import urllib.parse
from pathlib import Path

import bottle

from kmood_lib.core.errors import ValidationError
from kmood_lib.core.i18n import N_, Phrase, Translator
from kmood_lib.queue import heartbeat
from kmood_lib.web import template_helpers
from kmood_lib.web.http import Params, cookie, form_params, query_params

HERE = Path(__file__).resolve().parent
TEMPLATES = [str(HERE / "templates")]


def n_(singular: str, plural: str) -> tuple[str, str]:
    """Marks a message with a plural where it is defined (a Translator's ngettext says it)."""
    return singular, plural


# Messages a redirect may ask for by key (`?done=logged`): fixed text, never echoed input; a
# pair is said for the count the redirect gives (`?done=activities_archived&n=3`).
NOTICES = {
    "logged": N_("Entry logged."),
    "queued": N_("Saved on this device: k-mood could not take it just now. It is sent as soon"
                 " as it can be."),
    "saved": N_("Saved."),
    "deleted": N_("Entry deleted."),
    "deleted_before": N_("Not saved: this entry was deleted after it was first saved, so it is"
                         " not brought back."),
    "password": N_("Password changed; your other sessions were logged out."),
    "password_tokens": N_("Password changed; your other sessions were logged out and your API"
                          " tokens revoked (make new ones under API tokens)."),
    "reset": N_("Password set; their sessions ended and their API tokens were revoked."),
    "created": N_("Created."),
    "removed": N_("Removed."),
    "linked": N_("Linked: the sign-in proxy now signs them in to this account."),
    "passkey_removed": N_("Passkey removed."),
    "passkey_added": N_("Passkey added: sign in with it from the login page."),
    "password_off": N_("Your password is off: you sign in with a passkey or single sign-on."),
    "sso_member_linked": N_("Linked: single sign-on now signs them in to this account."),
    "sso_linked": N_("Linked: you can now sign in here with single sign-on."),
    "sso_taken": N_("Not linked: that account at the sign-in provider is linked to another"
                    " k-mood account already."),
    "sso_already": N_("Not linked: your k-mood account is linked to another account at the"
                      " sign-in provider; an admin can unlink it in Household."),
    "unlinked": N_("Unlinked: the sign-in proxy no longer signs them in to this account; their"
                   " sessions ended and their API tokens were revoked."),
    "cancelled": N_("Import cancelled; the file is gone."),
    "retried": N_("Queued to run again."),
    "switched_on": N_("Switched on."),
    "switched_off": N_("Switched off."),
    "activities_grouped": n_("Moved {n} activity to the group.",
                             "Moved {n} activities to the group."),
    "activities_ungrouped": n_("Took {n} activity out of its group.",
                               "Took {n} activities out of their groups."),
    "activities_archived": n_("Archived {n} activity: hidden from the log form, kept on its"
                              " entries.",
                              "Archived {n} activities: hidden from the log form, kept on"
                              " their entries."),
    "activities_restored": n_("Restored {n} activity to the log form.",
                              "Restored {n} activities to the log form."),
    "activities_deleted": n_("Deleted {n} activity; its entries stay.",
                             "Deleted {n} activities; their entries stay."),
    "activities_started": n_("Added {n} activity with its icon: tick it when you log. Change it"
                             " under Settings → Activities.",
                             "Added {n} activities with their icons: tick them when you log."
                             " Change them under Settings → Activities."),
    "activities_skipped": N_("No starter set: type your own activities when you log."),
    "photos_added": n_("Added {n} photo, without its location or other metadata.",
                       "Added {n} photos, without their location or other metadata."),
    "photo_removed": N_("Photo removed."),
    "link_revoked": N_("Link revoked: it shows nothing from now on."),
    "device_removed": N_("Removed: this device gets no more reminders."),
}


def plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def notice(params: Params, words: Translator) -> str | None:
    """The fixed text a redirect asked for, in the person's language; a count in it is a
    number read back, never text."""
    said = NOTICES.get(params.get("done") or "")
    if said is None or isinstance(said, str):
        return said and words.gettext(said)
    raw = params.get("n") or ""
    if not (raw.isascii() and raw.isdigit() and len(raw) <= 6):
        return None
    return words.ngettext(*said, int(raw))


class Html(str):
    """Text that is HTML already, its values escaped (a Translator's html()): a template shows
    it as it is (`__html__`, as MarkupSafe spells it), anything else escaped."""

    def __html__(self) -> str:
        return str(self)


def said_html(words: Translator, text: str, /, **values) -> Html:
    """`text` in the person's language as HTML (`said_html` of the templates, for refusals and
    import reports): a Phrase's own text values are what was sent (a name, a date from a file),
    each isolated as the person's text (<bdi dir="auto">, SPEC §10); a Phrase among them is said
    too; the values given here are the page's own (Html kept as it is, text escaped)."""
    plural, n = None, None
    if isinstance(text, Phrase):
        sent = {}
        for name, value in text.values.items():
            if isinstance(value, Phrase):
                sent[name] = said_html(words, value)
            elif isinstance(value, str):
                sent[name] = Html(f'<bdi dir="auto">{bottle.html_escape(value)}</bdi>')
            else:
                sent[name] = value
        plural = getattr(text, "plural", None)
        if plural is not None:
            n = sent.pop("n")
        text, values = text.message, {**sent, **values}
    values = {name: value if isinstance(value, Html) else bottle.html_escape(str(value))
              for name, value in values.items()}
    if plural is not None:  # the form for n, its other placeholders left to fill below
        said = words.ngettext(text, plural, n, **{name: "{" + name + "}" for name in values})
    else:
        said = words.gettext(text)
    said = bottle.html_escape(said)
    return Html(said.format(**values) if values else said)


SECTIONS = [("profile", "/settings", N_("Profile")),
            ("moods", "/settings/moods", N_("Mood labels")),
            ("activities", "/settings/activities", N_("Activities")),
            ("metrics", "/settings/metrics", N_("Metrics")),
            ("templates", "/settings/templates", N_("Note templates")),
            ("tokens", "/settings/tokens", N_("API tokens")),
            ("sharing", "/settings/sharing", N_("Sharing")),
            ("reminders", "/settings/reminders", N_("Reminders")),
            ("import", "/settings/import", N_("Import & export"))]
ADMIN_SECTIONS = [("users", "/settings/users", N_("Household")),
                  ("jobs", "/admin/jobs", N_("Jobs"))]

# This browser's language when no one is logged in: set by the login page's language switch.
LANGUAGE_COOKIE = "kmood_language"


class FormError(ValidationError):
    """A form that cannot be accepted, in the page's own words: `fields` maps what a person
    sees beside the form (N_("Current password")) to the message (N_ or a Phrase), both said
    in the person's language."""

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


def words(auth) -> Translator:
    """The Translator of the person a route answers (for what a page builds in Python)."""
    return translator(bottle.request, auth.user)


def render(name: str, status: int = 200, headers: dict | None = None, **values
           ) -> bottle.HTTPResponse:
    """A template inside layout.tpl; never cached (pages carry CSRF tokens and private data).
    Every template has the request's Translator as `i18n`, with `_` (its gettext, a Phrase
    said in full), `n_` (its ngettext), `_html` (a message with markup of its own) and
    `said_html` (a refusal or report line, what was sent in it isolated) for the words."""
    values.setdefault("user", None)
    values.setdefault("helpers", template_helpers)
    words = values.setdefault("i18n", translator(bottle.request, values["user"]))
    values.setdefault("_", words.gettext)
    values.setdefault("n_", words.ngettext)
    values.setdefault("_html", words.html)
    values.setdefault("said_html", functools.partial(said_html, words))
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
    words = values.pop("i18n", None) or translator(bottle.request, auth.user)
    return render(name, status, user=auth.user, csrf_token=auth.csrf_token or "", active=active,
                  notice=notice(query_params(bottle.request), words),
                  worker_missing=worker_missing, i18n=words, **values)


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
