"""The web application: one explicit Bottle app built from the services by make_app(), with
every route module's table installed under the plugins (conn, auth, services, errors)."""

from __future__ import annotations

import logging
import sqlite3

import bottle

from kmood_lib.core.db import ConnectionPerThread
from kmood_lib.core.i18n import Translator
from kmood_lib.web import http
from kmood_lib.web.api import (
    accounts,
    activities,
    entries,
    goals,
    insights,
    jobs,
    metrics,
    moods,
    note_templates,
    now_playing,
    openapi,
    photos,
    portability,
    push,
    reminders,
    stats,
)
from kmood_lib.web.authentication import SESSION_COOKIE, identify
from kmood_lib.web.middleware import with_compression, with_security_headers
from kmood_lib.web.pages import activities as activity_pages
from kmood_lib.web.pages import (
    admin,
    insight,
    journal,
    passkeys,
    public,
    report,
    settings,
    single_sign_on,
)
from kmood_lib.web.pages import goals as goal_pages
from kmood_lib.web.pages import metrics as metric_pages
from kmood_lib.web.pages import note_templates as note_template_pages
from kmood_lib.web.pages import photos as photo_pages
from kmood_lib.web.pages import portability as portability_pages
from kmood_lib.web.pages import reminders as reminder_pages
from kmood_lib.web.plugins import AuthPlugin, ErrorPlugin, RequestPlugin
from kmood_lib.web.rendering import translator

log = logging.getLogger(__name__)

ROUTE_MODULES = (accounts, entries, moods, activities, metrics, note_templates, now_playing, stats,
                 insights, photos, goals, jobs, reminders, push, portability, openapi, public, journal,
                 photo_pages, goal_pages, insight, settings, activity_pages, metric_pages,
                 note_template_pages, portability_pages, reminder_pages, admin, single_sign_on,
                 passkeys, report)


class BuiltOnceRouter(bottle.Router):
    """Bottle's router, whose combined pattern per method is compiled once when every route is
    in (`finish`), not again after each of the ~150 routes (a quadratic 10 ms per app)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._building: set[str] | None = set()

    def _compile(self, method):
        if self._building is None:
            super()._compile(method)
        else:
            self._building.add(method)

    def finish(self) -> None:
        methods, self._building = self._building or set(), None
        for method in methods:
            super()._compile(method)


def make_app(services) -> bottle.Bottle:
    """Build the Bottle app: one database connection per server thread, JSON errors under /api."""
    app = bottle.Bottle(catchall=True)
    app.__dict__["router"] = BuiltOnceRouter()  # (Bottle refuses to set an attribute twice)
    app.config["json.enable"] = False
    app.config["kmood.services"] = services
    pool = ConnectionPerThread(services.connect)
    app.config["kmood.pool"] = pool
    app.default_error_handler = error_page
    # `<name:id>`: an object id as SQLite stores it; anything longer or not ASCII digits is no
    # route (404), never an int too big to bind (Bottle's own `int` also takes '-5' and '٣').
    app.router.add_filter("id", lambda conf: (r"[0-9]{1,18}", int, str))
    # `<name:mbid>`: a MusicBrainz identifier, lower-case as MusicBrainz writes it.
    app.router.add_filter("mbid", lambda conf: (
        r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", None, None))
    # `<name:day>`: a local day as YYYY-MM-DD (the route checks that it is a real date).
    app.router.add_filter("day", lambda conf: (r"[0-9]{4}-[0-9]{2}-[0-9]{2}", None, None))
    # `<name:token>`: a random URL-safe token of 18 bytes (a pending upload's).
    app.router.add_filter("token", lambda conf: (r"[A-Za-z0-9_-]{24}", None, None))
    # `<name:link>`: a shared report's link, its id and its secret (journal.sharing.LINK).
    app.router.add_filter("link", lambda conf: (r"[1-9][0-9]{0,17}\.[A-Za-z0-9_-]{43}", None, None))
    # Installed outermost first: the request plugin wraps the auth plugin, which wraps the
    # error plugin, which wraps the route itself.
    app.install(RequestPlugin(services, pool))
    app.install(AuthPlugin(services, pool))
    app.install(ErrorPlugin(services))
    for module in ROUTE_MODULES:
        module.routes.install(app)
    app.router.finish()
    return app


def error_page(res: bottle.HTTPError) -> str:
    """Bottle's error pages (http.error_page) in the request's language."""
    return http.error_page(res, error_language(bottle.request, res.status_code))


def error_language(request: bottle.BaseRequest, status: int) -> Translator | None:
    """The language rendering.translator picks for the request, with the person found by their
    session cookie (the routes' plugins may not have run: no route matched); after a 500 not
    (what failed may be the database), and None — English — when it cannot be known."""
    if http.is_json_path(request.path):
        return None  # the JSON errors are English
    try:
        user = None
        if status < 500 and http.cookie(request, SESSION_COOKIE):
            pool = request.app.config["kmood.pool"]
            try:
                user = identify(pool.get(), request, request.app.config["kmood.services"],
                                proxy=False).user  # only looking: no sign-in on an error page
            finally:
                pool.release()
        return translator(request, user)
    except (sqlite3.Error, bottle.HTTPResponse) as exc:  # busy, a malformed header...
        log.info("an error page in English on %s: %s", request.path, exc)
        return None


def make_wsgi(services):
    """The WSGI callable the server runs: the app wrapped in the security-header and the
    compression middleware."""
    app = make_app(services)
    wsgi = with_compression(with_security_headers(app))
    wsgi.bottle = app
    return wsgi
