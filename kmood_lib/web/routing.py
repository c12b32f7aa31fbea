"""Routes as plain module-level functions: each route module declares its table with a `Routes`
(like a blueprint), and make_app installs every table on the one explicit Bottle app.

A route's config travels with it to the plugins: `auth="public" | "user" | "admin"`,
`csrf=False`, `max_body="upload"` (or `"photos"`), and `form=<page function>` — the page a refused form post
is re-rendered on (see plugins.ErrorPlugin).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import bottle


@dataclass(frozen=True)
class Route:
    method: str
    path: str
    callback: Callable
    config: dict = field(default_factory=dict)


class Routes:
    """One module's route table, filled by decorators when the module is imported."""

    def __init__(self):
        self.table: list[Route] = []

    def route(self, method: str, path: str, **config) -> Callable[[Callable], Callable]:
        def declare(callback: Callable) -> Callable:
            self.table.append(Route(method, path, callback, config))
            return callback

        return declare

    def get(self, path: str, **config):
        return self.route("GET", path, **config)

    def post(self, path: str, **config):
        return self.route("POST", path, **config)

    def patch(self, path: str, **config):
        return self.route("PATCH", path, **config)

    def put(self, path: str, **config):
        return self.route("PUT", path, **config)

    def delete(self, path: str, **config):
        return self.route("DELETE", path, **config)

    def install(self, app: bottle.Bottle) -> None:
        for route in self.table:
            config = dict(route.config)
            name = config.pop("name", None) or getattr(route.callback, "__name__", None)
            app.route(route.path, route.method, route.callback, name=name, **config)
