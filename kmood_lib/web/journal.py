"""The journal pages: log an entry (home), history, edit, delete — plain forms over the same
domain functions as the JSON API; they work without JavaScript."""

from __future__ import annotations

import urllib.parse
from zoneinfo import ZoneInfo

import bottle

from kmood_lib.core.validation import ValidationError
from kmood_lib.enrich.song_metadata import cover_of
from kmood_lib.journal import queries, stats, vocab, writes
from kmood_lib.web import entry_form
from kmood_lib.web.auth import Auth
from kmood_lib.web.http import Params, query_params
from kmood_lib.web.views import FormError, handle_form, page

HISTORY_PAGE = 30


def group_activities(activities: list[dict]) -> list[tuple[str | None, list[dict]]]:
    """[(group name or None, activities)], named groups first, as list_activities orders them."""
    groups: dict[str | None, list[dict]] = {}
    for activity in activities:
        groups.setdefault(activity["group"], []).append(activity)
    return list(groups.items())


def by_day(found: list[dict]) -> list[tuple[str, list[dict]]]:
    """Entries (newest first) grouped by their own local day."""
    days: dict[str, list[dict]] = {}
    for entry in found:
        days.setdefault(entry["occurred_at"][:10], []).append(entry)
    return list(days.items())


def not_found() -> bottle.HTTPError:
    return bottle.HTTPError(404, "No such entry.")


COVER_CACHE_S = 30 * 24 * 3600  # a release's cover never changes once stored


def register(app: bottle.Bottle, services) -> None:
    config = services.config
    saving = app.config["kmood.entry_writes"]

    @app.get("/covers/<release:mbid>")
    def cover(conn, auth: Auth, release: str):
        """A release's cover, stored by the worker: the browser never loads a third party."""
        found = cover_of(conn, auth.user.id, release)
        if found is None:
            raise bottle.HTTPError(404, "No cover for this release.")
        etag = f'"{release}"'
        headers = {"Cache-Control": f"private, max-age={COVER_CACHE_S}", "ETag": etag}
        if bottle.request.get_header("If-None-Match") == etag:
            return bottle.HTTPResponse(status=304, headers=headers)
        return bottle.HTTPResponse(found[1], headers={**headers, "Content-Type": found[0]})

    def local_now(user):
        return services.clock.now().astimezone(ZoneInfo(user.timezone))

    def vocabulary(conn, user_id: int, keep=None) -> dict:
        """Labels, activity chips and metrics for a form: archived activities are left out
        unless `keep` names them (an edited entry keeps the ones it has); None keeps all."""
        activities = [a for a in vocab.list_activities(conn, user_id)
                      if keep is None or not a["archived"] or a["name"] in keep]
        return {"labels": vocab.mood_labels(conn, user_id),
                "groups": group_activities(activities),
                "metrics": vocab.list_metrics(conn, user_id)}

    def save(conn, auth: Auth, fields: Params, entry_id: int | None = None) -> None:
        metrics = vocab.list_metrics(conn, auth.user.id)
        body = entry_form.entry_body(fields, metrics, creating=entry_id is None)
        try:
            if entry_id is None:
                saving.create(conn, auth.user, body, "web")
            else:
                saving.update(conn, auth.user, entry_id, body)
        except ValidationError as exc:
            raise FormError(entry_form.form_errors(exc.fields)) from None
        except vocab.NotFound:
            raise not_found() from None

    # --- log ------------------------------------------------------------------------------

    def home_page(conn, auth: Auth, fields: Params | None = None, errors=None, status=200):
        user = auth.user
        today = local_now(user).date()
        todays, _ = queries.list_entries(conn, user.id, queries.EntryFilter(
            date_from=today.isoformat(), date_to=today.isoformat()), 50, None)
        current, longest = stats.streaks(conn, user.id, today)
        values = entry_form.values_posted(fields) if fields is not None else (
            entry_form.values_new(local_now(user)))
        return page("home.tpl", auth, active="log", status=status, values=values,
                    errors=errors or {}, todays=todays, streak=current, longest=longest,
                    today=today.isoformat(), scripts=("log.js",),
                    **vocabulary(conn, user.id, keep=values.get("activities", set())))

    @app.get("/")
    def home(conn, auth: Auth):
        return home_page(conn, auth)

    @app.post("/entries")
    def log_entry(conn, auth: Auth):
        def act(fields: Params) -> str:
            save(conn, auth, fields)
            return "/?done=logged"

        return handle_form(lambda **kw: home_page(conn, auth, **kw), act, config.max_body_bytes)

    # --- history --------------------------------------------------------------------------

    @app.get("/entries")
    def history(conn, auth: Auth):
        query = query_params(bottle.request)
        moods = [m for m in query.getall("mood") if m]
        wanted = {"from": query.get("from", ""), "to": query.get("to", ""),
                  "mood": ",".join(moods), "activity": query.get("activity", ""),
                  "q": query.get("q", "")}
        errors = {}
        try:
            flt = queries.parse_filter(wanted)
            found, cursor = queries.list_entries(conn, auth.user.id, flt, HISTORY_PAGE,
                                                 query.get("cursor") or None)
        except ValidationError as exc:
            errors = {name.capitalize(): message for name, message in exc.fields.items()}
            found, cursor = [], None
        older = None
        if cursor:
            older = "/entries?" + urllib.parse.urlencode(
                [(k, v) for k, v in wanted.items() if v and k != "mood"]
                + [("mood", m) for m in moods] + [("cursor", cursor)])
        filtered = any(wanted.values())
        return page("history.tpl", auth, active="history", days=by_day(found), older=older,
                    today=local_now(auth.user).date().isoformat(),
                    wanted=wanted, moods=set(moods), errors=errors, filtered=filtered,
                    status=422 if errors else 200, **vocabulary(conn, auth.user.id))

    # --- edit and delete ------------------------------------------------------------------

    def load(conn, auth: Auth, entry_id: int) -> dict:
        try:
            return queries.get_entry(conn, auth.user.id, entry_id)
        except vocab.NotFound:
            raise not_found() from None

    def edit_page(conn, auth: Auth, entry_id: int, fields: Params | None = None, errors=None,
                  status=200):
        entry = load(conn, auth, entry_id)
        words = vocabulary(conn, auth.user.id, keep=set(entry["activities"]))
        values = entry_form.values_posted(fields) if fields is not None else (
            entry_form.values_of(entry, words["metrics"]))
        return page("edit.tpl", auth, active="history", status=status, entry=entry,
                    values=values, errors=errors or {}, **words)

    @app.get("/entries/<entry_id:id>/edit")
    def edit_form(conn, auth: Auth, entry_id: int):
        return edit_page(conn, auth, entry_id)

    @app.post("/entries/<entry_id:id>/edit")
    def edit_submit(conn, auth: Auth, entry_id: int):
        load(conn, auth, entry_id)

        def act(fields: Params) -> str:
            save(conn, auth, fields, entry_id)
            return f"/entries?done=saved#entry-{entry_id}"

        return handle_form(lambda **kw: edit_page(conn, auth, entry_id, **kw), act,
                           config.max_body_bytes)

    @app.get("/entries/<entry_id:id>/delete")
    def delete_form(conn, auth: Auth, entry_id: int):
        entry = load(conn, auth, entry_id)
        return page("delete.tpl", auth, active="history", entry=entry,
                    labels=vocab.mood_labels(conn, auth.user.id))

    @app.post("/entries/<entry_id:id>/delete")
    def delete_submit(conn, auth: Auth, entry_id: int):
        try:
            writes.delete_entry(conn, auth.user.id, entry_id)
        except vocab.NotFound:
            raise not_found() from None
        return bottle.HTTPResponse(status=303, headers={"Location": "/entries?done=deleted"})

