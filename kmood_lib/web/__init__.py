"""The web application: an explicit Bottle app built from the services by make_app()."""

from __future__ import annotations

import logging

import bottle

from kmood_lib.bootstrap import Services
from kmood_lib.core.db import ConnectionPerThread
from kmood_lib.journal.saving import EntryWrites
from kmood_lib.queue import heartbeat
from kmood_lib.web import (
    admin,
    api_accounts,
    api_entries,
    api_jobs,
    api_reminders,
    http,
    insight,
    journal,
    openapi,
    pages,
    portability,
    reminder_pages,
    settings,
)
from kmood_lib.web.auth import AuthPlugin

ROUTE_MODULES = (api_accounts, api_entries, api_jobs, api_reminders, openapi, pages, journal,
                 insight, settings, portability, reminder_pages, admin)

log = logging.getLogger(__name__)


def make_app(services: Services) -> bottle.Bottle:
    """Build the Bottle app: one database connection per server thread, JSON errors under /api."""
    app = bottle.Bottle(catchall=True)
    app.config["json.enable"] = False
    app.config["kmood.services"] = services
    pool = ConnectionPerThread(services.connect)
    app.config["kmood.pool"] = pool
    app.default_error_handler = http.error_page
    # `<name:id>`: an object id as SQLite stores it; anything longer or not ASCII digits is no
    # route (404), never an int too big to bind (Bottle's own `int` also takes '-5' and '٣').
    app.router.add_filter("id", lambda conf: (r"[0-9]{1,18}", int, str))
    # `<name:mbid>`: a MusicBrainz identifier, lower-case as MusicBrainz writes it.
    app.router.add_filter("mbid", lambda conf: (
        r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", None, None))
    # `<name:token>`: a random URL-safe token of 18 bytes (a pending upload's).
    app.router.add_filter("token", lambda conf: (r"[A-Za-z0-9_-]{24}", None, None))
    app.install(AuthPlugin(services, pool))
    app.config["kmood.entry_writes"] = EntryWrites(services)

    @app.get("/healthz", auth="public")
    def healthz():
        """Cheap and public: the database answers, and whether any worker has beaten lately.
        No worker is `degraded` with HTTP 200 (a container is not restarted for it) unless
        `?strict=1` asks for 503, as monitors that page on it want."""
        strict = http.query_params(bottle.request).get("strict") in ("1", "true")
        try:
            worker = heartbeat.health(pool.get(), services.clock.now_ms(),
                                      services.config.worker_stale_s)
        except Exception as exc:  # any database failure means "not healthy"
            log.warning("health check failed: %s", exc)
            return http.json_response({"status": "unavailable", "database": "error",
                                       "error": str(exc)}, 503)
        status = "ok" if worker["alive"] else "degraded"
        return http.json_response({"status": status, "database": "ok", "worker": worker},
                                  503 if strict and status != "ok" else 200)

    for module in ROUTE_MODULES:
        module.register(app, services)
    return app


def make_wsgi(services: Services):
    """The WSGI callable the server runs: the app wrapped in the security-header middleware."""
    app = make_app(services)
    wsgi = http.with_security_headers(app)
    wsgi.bottle = app
    return wsgi
