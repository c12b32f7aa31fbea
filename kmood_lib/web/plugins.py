"""The plugins every route runs through, outermost first:

1. `RequestPlugin` refuses an oversized body before anything reads it, lends the thread's
   database connection (`conn`) and hands it back clean, and injects `services`;
2. `AuthPlugin` authenticates (routes say `auth="public" | "user" | "admin"`, default "user",
   so a route added without a thought is protected), checks the CSRF token of
   cookie-authenticated unsafe requests (Bearer requests need none) and injects `auth`;
3. `ErrorPlugin` turns the domain's errors into answers — the JSON error shape under /api; on
   a page, the form re-rendered with the message and what was typed when the route names its
   `form`, else an error page — and so the storage's refusals too (busy past the timeout: 503
   with Retry-After; a full disk: 507), logged at most once a minute.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import logging
import re
import sqlite3

import bottle

from kmood_lib.core.db import storage_error
from kmood_lib.core.errors import DomainError, NotFound
from kmood_lib.core.i18n import N_, Phrase
from kmood_lib.core.logs import EveryInterval
from kmood_lib.web.authentication import (
    UNSAFE_METHODS,
    csrf_ok,
    identify,
    login_redirect,
    set_session_cookie,
)
from kmood_lib.web.http import ApiError, form_params, is_json_path, logged_path
from kmood_lib.web.rendering import worker_alive

log = logging.getLogger(__name__)

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


PHOTO_FORM_BYTES = 1024 * 1024  # the rest of a form that carries photos


def photos_body_bytes(config) -> int:
    """The largest body that carries an entry's photos: each at its limit, and the form."""
    return config.photos_per_entry * config.photo_max_bytes + PHOTO_FORM_BYTES


def body_limit(route: bottle.Route, config) -> int:
    """KMOOD_MAX_UPLOAD_BYTES for routes that say `max_body="upload"`, room for an entry's
    photos for `max_body="photos"`, else KMOOD_MAX_BODY_BYTES; waitress itself only stops
    bodies past the largest."""
    wanted = route.config.get("max_body")
    if wanted == "photos":
        return photos_body_bytes(config)
    return config.max_upload_bytes if wanted == "upload" else config.max_body_bytes


def wanted(route: bottle.Route) -> set[str]:
    """The parameters the route's own function takes (plugins inject only those)."""
    return set(inspect.signature(route.callback).parameters)


def refusal(request: bottle.BaseRequest, status: int, message: str, **api) -> bottle.HTTPResponse:
    """An answer the plugins give before the route runs: JSON under /api, a page elsewhere."""
    if is_json_path(request.path):
        return ApiError(status, message, **api)
    return bottle.HTTPError(status, message, headers=api.get("headers"))


class RequestPlugin:
    """Body limit, the thread's connection as `conn`, and `services`, around every route."""

    name = "kmood_request"
    api = 2

    def __init__(self, services, pool):
        self.services, self.pool = services, pool

    def apply(self, callback, route):
        limit = body_limit(route, self.services.config)
        params = wanted(route)
        services, pool = self.services, self.pool

        def wrapper(*args, **kwargs):
            request = bottle.request
            if _CONTROL.search(request.environ.get("PATH_INFO", "")):
                # Bottle's route patterns end in `$`, which also matches before a final line
                # feed: /covers/<mbid>%0a would be the cover. No route holds such a character.
                raise refusal(request, 404, "Not found")
            if request.content_length > limit:  # first: before anything reads the body
                raise refusal(request, 413, f"body larger than {limit} bytes")
            try:
                if "conn" in params:
                    kwargs["conn"] = pool.get()
                if "services" in params:
                    kwargs["services"] = services
                return callback(*args, **kwargs)
            finally:
                pool.release()

        return wrapper


class AuthPlugin:
    """Who is asking, whether they may, and `auth` for the routes that take it."""

    name = "kmood_auth"
    api = 2

    def __init__(self, services, pool):
        self.services, self.pool = services, pool

    def apply(self, callback, route):
        level = route.config.get("auth", "user")
        if level not in ("public", "user", "admin"):
            raise ValueError(f"route {route.rule}: auth must be public, user or admin")
        check_csrf = route.config.get("csrf", True)
        config = self.services.config
        limit = body_limit(route, config)
        wants_auth = "auth" in wanted(route)
        services, pool = self.services, self.pool

        def wrapper(*args, **kwargs):
            request = bottle.request
            if level == "public" and not wants_auth:
                return callback(*args, **kwargs)
            conn = pool.get()
            try:
                who = identify(conn, request, services)
                if level != "public":
                    if who.user is None:
                        if is_json_path(request.path):
                            if who.unlinked is not None:
                                raise ApiError(403, Phrase(
                                    "no k-mood account is linked to the sign-in proxy's user"
                                    " {name}; an admin links it in Household",
                                    name=repr(who.unlinked.subject)), code="not_linked")
                            raise ApiError(401, "log in or send an API token")
                        raise login_redirect(request)
                    if level == "admin" and not who.user.is_admin:
                        raise refusal(request, 403, Phrase("this needs an admin"))
                if (check_csrf and who.via in ("session", "proxy")
                        and request.method in UNSAFE_METHODS
                        and (who.session is None
                             or not csrf_ok(request, who.session.csrf_token, limit))):
                    if is_json_path(request.path):
                        raise ApiError(403, "missing or wrong CSRF token (X-CSRF-Token header)",
                                       code="csrf")
                    raise bottle.HTTPError(403, Phrase("missing or wrong CSRF token; reload the"
                                                       " page"))
            except ApiError as exc:  # a malformed header or form: a page answers with a page
                raise exc if is_json_path(request.path) else exc.as_page() from None
            if who.user is not None and who.user.is_admin:  # read only if a page renders
                who = dataclasses.replace(who, worker_alive=functools.partial(
                    worker_alive, conn, services))
            if wants_auth:
                kwargs["auth"] = who
            if who.new_session is None:
                return callback(*args, **kwargs)
            try:  # signed in by the proxy just now: the answer carries the session's cookie
                answer = callback(*args, **kwargs)
            except bottle.HTTPResponse as raised:
                set_session_cookie(raised, who.new_session.token, config)
                raise
            set_session_cookie(answer if isinstance(answer, bottle.HTTPResponse)
                               else bottle.response, who.new_session.token, config)
            return answer

        return wrapper


# The fields a refusal names, as the settings forms call them (translated where shown, in
# _errors.tpl); a field named nowhere here is shown by its own name, made readable.
FIELD_LABELS = {
    "name": N_("Name"), "group": N_("Group"), "icon": N_("Icon"), "archived": N_("Archived"),
    "ids": N_("Activities"), "action": N_("Action"), "to_group": N_("Group"),
    "unit": N_("Unit"), "min": N_("Lowest"), "max": N_("Highest"),
    "note_title": N_("Title"), "note": N_("Note"), "label": N_("Label"),
    "time": N_("Time"), "timezone": N_("Time zone"), "weekdays": N_("Days"),
    "channel": N_("Send with"), "url": N_("Address"), "token": N_("Token"),
    "title": N_("Title"), "message": N_("Message"), "skip_if_logged": N_("Skip"),
    "enabled": N_("On"), "username": N_("User name"), "password": N_("Password"),
    "new_password": N_("New password"), "language": N_("Language"),
    "listenbrainz_user": N_("ListenBrainz user name"), "lastfm_user": N_("Last.fm user name"),
    "email": N_("Email address"),
    "file": N_("File"), "mood_map": N_("Mood map"), "account": N_("Account"), "job": N_("Job"),
    "kind": N_("Kind"), "subject": N_("Sign-in proxy user name"),
}
ERROR = N_("Error")


def form_errors(exc: DomainError) -> dict[str, str]:
    """A refusal as the messages a form shows beside itself, by the fields' names on the form
    (said in the person's language by _errors.tpl, as are the messages)."""
    if getattr(exc, "labelled", False):
        return dict(exc.fields)
    if exc.fields:
        return {FIELD_LABELS.get(name) or name.replace("_", " ").capitalize(): message
                for name, message in exc.fields.items()}
    return {ERROR: exc.message}


# What a page says for an object that is not there (or is someone else's), by its kind.
NOT_FOUND = {
    "account": N_("No such account"), "activity": N_("No such activity"),
    "day": N_("No such day"), "device": N_("No such device"),
    "entry": N_("No such entry"), "goal": N_("No such goal"),
    "group": N_("No such group"), "job": N_("No such job"), "metric": N_("No such metric"),
    "mood": N_("No such mood"), "photo": N_("No such photo"),
    "reminder": N_("No such reminder"), "sign-in": N_("No such linked sign-in"),
    "shared report": N_("No such shared report"),
    "template": N_("No such template"),
    "token": N_("No such token"), "upload": N_("No such upload"),
    "voice memo": N_("No such voice memo"), "year": N_("No such year"),
}


def page_error(exc: DomainError) -> bottle.HTTPError:
    """A refusal with no form to show it on: an error page with its status and headers (its
    message a Phrase, for the error page to say in the person's language)."""
    message = exc.message
    if isinstance(exc, NotFound):
        what = NOT_FOUND.get(exc.kind) or f"No such {exc.kind}"
        missing = Phrase(what)
        message = (Phrase("{missing} ({detail}).", missing=missing, detail=exc.detail)
                   if exc.detail else Phrase("{missing}.", missing=missing))
    return bottle.HTTPError(exc.status, message, headers=exc.headers or None)


def api_error(exc: DomainError) -> ApiError:
    return ApiError(exc.status, exc.message, exc.fields, code=exc.code,
                    headers=exc.headers or None, extra=exc.extra or None)


class ErrorPlugin:
    """Domain errors -> answers, the one place that decides them.

    A page route that names `form=<page function>` has a refused POST answered with that page
    again (status of the error, what was typed kept, the messages beside the form); the page
    function takes `fields`, `errors` and `status` and any of the route's own arguments, and
    `labels=<function>` may name the form's own field labels. HTTP-level refusals (ApiError)
    raised while a page route runs become pages too.
    """

    name = "kmood_errors"
    api = 2

    def __init__(self, services):
        self.services = services
        self.storage_log = EveryInterval()  # a full disk fails every request: one line a minute

    def apply(self, callback, route):
        show = route.config.get("form")
        labels = route.config.get("labels", form_errors)
        limit = body_limit(route, self.services.config)
        takes = set(inspect.signature(show).parameters) if show is not None else set()
        if show is not None and not {"fields", "errors", "status"} <= takes:
            raise ValueError(f"route {route.rule}: its form page must take fields, errors, status")

        def answer(exc: DomainError, kwargs: dict):
            # The answer outlives the request in Bottle's thread-locals, and this error's
            # frames hold whatever the refused request had read (an upload): let them go.
            exc.__traceback__ = None
            request = bottle.request
            if is_json_path(request.path):
                raise api_error(exc) from None
            if show is None or request.method != "POST" or isinstance(exc, NotFound):
                raise page_error(exc) from None
            page = show(**{name: value for name, value in kwargs.items() if name in takes},
                        fields=form_params(request, limit), errors=labels(exc),
                        status=exc.status)
            for name, value in exc.headers.items():
                page.set_header(name, value)
            return page

        def wrapper(*args, **kwargs):
            try:
                return callback(*args, **kwargs)
            except DomainError as exc:
                return answer(exc, kwargs)
            except sqlite3.Error as exc:
                refusal = storage_error(exc)
                if refusal is None:
                    raise
                if held := self.storage_log.due():
                    log.error("%s %s: %s (%d such refusal(s) since the last line; at most one"
                              " line a minute)", bottle.request.method,
                              logged_path(bottle.request.path),
                              exc, held)
                return answer(refusal, kwargs)
            except ApiError as exc:
                if is_json_path(bottle.request.path):
                    raise
                raise exc.as_page() from None

        return wrapper
