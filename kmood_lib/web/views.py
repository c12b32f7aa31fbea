"""The one way to render a page and the one way to handle a form (POST -> 303 -> GET)."""

from __future__ import annotations

import urllib.parse
from collections.abc import Callable
from pathlib import Path

import bottle

from kmood_lib.web import ui
from kmood_lib.web.http import Params, form_params, query_params

HERE = Path(__file__).resolve().parent
TEMPLATES = [str(HERE / "templates")]

# Messages a redirect may ask for by key (`?done=logged`): fixed text, never echoed input.
NOTICES = {
    "logged": "Entry logged.",
    "saved": "Saved.",
    "deleted": "Entry deleted.",
    "password": "Password changed; your other sessions were logged out.",
    "created": "Created.",
    "removed": "Removed.",
    "retried": "Queued to run again.",
    "switched_on": "Switched on.",
    "switched_off": "Switched off.",
}


class FormError(Exception):
    """A form that cannot be accepted: `errors` maps field names to messages for the page."""

    def __init__(self, errors: dict[str, str]):
        super().__init__(", ".join(errors))
        self.errors = errors


def render(name: str, status: int = 200, headers: dict | None = None, **values
           ) -> bottle.HTTPResponse:
    """A template inside layout.tpl; never cached (pages carry CSRF tokens and private data)."""
    values.setdefault("user", None)
    values.setdefault("ui", ui)
    body = bottle.template(name, template_lookup=TEMPLATES, **values)
    response = bottle.HTTPResponse(body, status, headers)
    response.content_type = "text/html; charset=utf-8"
    response.set_header("Cache-Control", "no-store")
    return response


def page(name: str, auth, *, active: str | None = None, status: int = 200, **values
         ) -> bottle.HTTPResponse:
    """A page for a logged-in user: the layout gets the user, the CSRF token for its forms,
    the active tab and the notice a redirect asked for."""
    done = query_params(bottle.request).get("done")
    return render(name, status, user=auth.user, csrf_token=auth.csrf_token or "", active=active,
                  notice=NOTICES.get(done or ""), worker_missing=auth.worker_missing, **values)


def redirect(location: str, done: str | None = None) -> bottle.HTTPResponse:
    if done:
        location += ("&" if "?" in location else "?") + urllib.parse.urlencode({"done": done})
    return bottle.HTTPResponse(status=303, headers={"Location": location})


def form(max_bytes: int) -> Params:
    return form_params(bottle.request, max_bytes)


def handle_form(show: Callable[..., bottle.HTTPResponse], act: Callable[[Params], str],
                max_bytes: int) -> bottle.HTTPResponse:
    """POST handling for every form: `act(fields)` does the work and returns where to go
    (a 303); a FormError re-renders the form with its errors and what was typed (422)."""
    fields = form(max_bytes)
    try:
        return redirect(act(fields))
    except FormError as exc:
        return show(fields=fields, errors=exc.errors, status=422)
