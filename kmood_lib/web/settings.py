"""Settings pages: profile and password, mood labels, activities and groups, metrics,
integrations, API tokens — plain forms over the same domain functions as the JSON API."""

from __future__ import annotations

import bottle

from kmood_lib.accounts import auth as auth_store
from kmood_lib.accounts import users
from kmood_lib.core.db import transaction
from kmood_lib.core.timezones import canonical_zones
from kmood_lib.core.validation import ValidationError
from kmood_lib.journal import vocab
from kmood_lib.web.auth import Auth
from kmood_lib.web.http import Params
from kmood_lib.web.views import FormError, form, handle_form, page, redirect

SECTIONS = [("profile", "/settings", "Profile"), ("moods", "/settings/moods", "Mood labels"),
            ("activities", "/settings/activities", "Activities"),
            ("metrics", "/settings/metrics", "Metrics"), ("tokens", "/settings/tokens", "API tokens"),
            ("reminders", "/settings/reminders", "Reminders"),
            ("import", "/settings/import", "Import & export")]
ADMIN_SECTIONS = [("users", "/settings/users", "Household"), ("jobs", "/admin/jobs", "Jobs")]


def sections_for(user) -> list[tuple[str, str, str]]:
    return SECTIONS + (ADMIN_SECTIONS if user.is_admin else [])


def as_form_error(exc: Exception) -> FormError:
    """Domain errors -> the messages a settings page shows next to its form."""
    if isinstance(exc, ValidationError):
        return FormError({name.capitalize(): message for name, message in exc.fields.items()})
    fields = getattr(exc, "fields", None) or {}
    if fields:
        return FormError({name.replace("_", " ").capitalize(): message
                          for name, message in fields.items()})
    return FormError({(getattr(exc, "field", None) or "Error").replace("_", " ").capitalize():
                      str(exc)})


def settings_page(name: str, auth: Auth, status: int = 200, **values) -> bottle.HTTPResponse:
    values.setdefault("errors", {})
    values.setdefault("fields", {})
    section = values.pop("section", name)
    return page(f"settings_{name}.tpl", auth, active="settings", section=section,
                sections=sections_for(auth.user), status=status, **values)


def not_found(what: str) -> bottle.HTTPError:
    return bottle.HTTPError(404, f"No such {what}.")


def optional_number(raw: str | None):
    """A bound typed into a form: empty is none, else a number (or the text, to be refused)."""
    text = (raw or "").strip().replace(",", ".")
    if not text:
        return None
    try:
        return float(text)
    except ValueError:
        return raw


def domain_form(show, act, max_bytes: int) -> bottle.HTTPResponse:
    """handle_form for settings and admin pages: the domain's errors (bad values, account
    rules) are shown on the page; an object of someone else's is a 404."""
    def guarded(fields: Params) -> str:
        try:
            return act(fields)
        except (ValidationError, users.AccountError) as exc:
            raise as_form_error(exc) from None
        except vocab.NotFound as exc:
            raise not_found(exc.args[0].split()[0]) from None

    return handle_form(show, guarded, max_bytes)


def register(app: bottle.Bottle, services) -> None:
    config = services.config
    max_body = config.max_body_bytes
    clock = services.clock

    def post(show, act):
        return domain_form(show, act, max_body)

    # --- profile, integrations and password -------------------------------------------------

    def profile_page(conn, auth: Auth, status=200, fields=None, errors=None, **_):
        me = users.profile(conn, auth.user.id)
        return settings_page("profile", auth, status, me=me, zones=canonical_zones(),
                             fields=fields or {}, errors=errors or {}, scripts=("settings.js",))

    @app.get("/settings")
    def profile(conn, auth: Auth):
        return profile_page(conn, auth)

    @app.post("/settings/profile")
    def save_profile(conn, auth: Auth):
        def act(fields: Params) -> str:
            changes = {"timezone": fields.get("timezone", ""),
                       "listenbrainz_user": fields.get("listenbrainz_user", "").strip(),
                       "lastfm_user": fields.get("lastfm_user", "").strip()}
            users.update_settings(conn, auth.user.id, users.validate_settings(changes),
                                  clock.now_ms())
            return "/settings?done=saved"

        return post(lambda **kw: profile_page(conn, auth, **kw), act)

    @app.post("/settings/password")
    def change_password(conn, auth: Auth):
        def act(fields: Params) -> str:
            old, new = fields.get("old_password", ""), fields.get("new_password", "")
            if len(old) > users.MAX_PASSWORD_LENGTH or users.authenticate(
                    conn, auth.user.username, old, services.hasher) is None:
                raise FormError({"Current password": "is not right"})
            if new != fields.get("repeat_password"):
                raise FormError({"New password": "the two entries differ"})
            users.validate_password(new, "new_password")
            new_hash = services.hasher.hash(new)
            with transaction(conn):
                users.set_password_hash(conn, auth.user.id, new_hash, clock.now_ms())
                auth_store.delete_other_sessions(conn, auth.user.id,
                                                 auth.session.id if auth.session else None)
            return "/settings?done=password"

        return post(lambda **kw: profile_page(conn, auth, **kw), act)

    # --- mood labels ----------------------------------------------------------------------

    def moods_page(conn, auth: Auth, status=200, fields=None, errors=None, **_):
        return settings_page("moods", auth, status, labels=vocab.mood_labels(conn, auth.user.id),
                             fields=fields or {}, errors=errors or {})

    @app.get("/settings/moods")
    def moods(conn, auth: Auth):
        return moods_page(conn, auth)

    @app.post("/settings/moods")
    def save_moods(conn, auth: Auth):
        def act(fields: Params) -> str:
            with transaction(conn):
                for level in range(1, 6):
                    try:
                        vocab.set_mood_label(conn, auth.user.id, level,
                                             {"label": fields.get(f"label_{level}", "")})
                    except ValidationError as exc:
                        raise FormError({f"Level {level}": exc.fields["label"]}) from None
            return "/settings/moods?done=saved"

        return post(lambda **kw: moods_page(conn, auth, **kw), act)

    # --- activities and groups --------------------------------------------------------------

    def activities_page(conn, auth: Auth, status=200, fields=None, errors=None, **_):
        return settings_page("activities", auth, status,
                             activities=vocab.list_activities(conn, auth.user.id),
                             groups=vocab.list_groups(conn, auth.user.id),
                             fields=fields or {}, errors=errors or {})

    def vocabulary_pages(plural: str, singular: str, show, body_of, create, update, get,
                         delete, consequences) -> None:
        """The list page, add, change, and delete-with-confirmation of one vocabulary."""
        base = f"/settings/{plural}"

        def write(conn, auth: Auth, done: str, change) -> bottle.HTTPResponse:
            def act(fields: Params) -> str:
                with transaction(conn):
                    change(fields)
                return f"{base}?done={done}"

            return post(lambda **kw: show(conn, auth, **kw), act)

        @app.get(base, name=f"{plural}_page")
        def listing(conn, auth: Auth):
            return show(conn, auth)

        @app.post(base, name=f"{plural}_add")
        def add(conn, auth: Auth):
            return write(conn, auth, "created", lambda fields: create(
                conn, auth.user.id, body_of(fields), clock.now_ms()))

        @app.post(f"{base}/<item_id:id>", name=f"{plural}_change")
        def change(conn, auth: Auth, item_id: int):
            return write(conn, auth, "saved", lambda fields: update(
                conn, auth.user.id, item_id, body_of(fields), clock.now_ms()))

        @app.get(f"{base}/<item_id:id>/delete", name=f"{plural}_confirm")
        def confirm(conn, auth: Auth, item_id: int):
            try:
                item = get(conn, auth.user.id, item_id)
            except vocab.NotFound:
                raise not_found(singular) from None
            return settings_page("confirm", auth, what=singular, subject=item["name"],
                                 action=f"{base}/{item_id}/delete", back=base,
                                 consequences=consequences(conn, item))

        @app.post(f"{base}/<item_id:id>/delete", name=f"{plural}_delete")
        def remove(conn, auth: Auth, item_id: int):
            try:
                delete(conn, auth.user.id, item_id)
            except vocab.NotFound:
                raise not_found(singular) from None
            return redirect(base, "removed")

    def group_of(fields: Params) -> str | None:
        return fields.get("group", "").strip() or None

    def activity_consequences(conn, activity: dict) -> list[str]:
        n = activity["entries"]
        return [f"It is removed from {n} entr{'y' if n == 1 else 'ies'}; the entries themselves "
                "stay, with their mood, notes and other activities.",
                "To stop seeing it on the log form but keep it on those entries, archive it "
                "instead."]

    vocabulary_pages("activities", "activity", activities_page,
                     lambda fields: {"name": fields.get("name", ""), "group": group_of(fields)},
                     vocab.create_activity, vocab.update_activity, vocab.get_activity,
                     vocab.delete_activity, activity_consequences)

    @app.post("/settings/activities/<item_id:id>/archive")
    def archive_activity(conn, auth: Auth, item_id: int):
        def act(fields: Params) -> str:
            with transaction(conn):
                vocab.update_activity(conn, auth.user.id, item_id,
                                      {"archived": fields.get("archived") == "1"}, clock.now_ms())
            return "/settings/activities?done=saved"

        return post(lambda **kw: activities_page(conn, auth, **kw), act)

    @app.post("/settings/groups/<item_id:id>")
    def rename_group(conn, auth: Auth, item_id: int):
        def act(fields: Params) -> str:
            vocab.rename_group(conn, auth.user.id, item_id, {"name": fields.get("name", "")})
            return "/settings/activities?done=saved"

        return post(lambda **kw: activities_page(conn, auth, **kw), act)

    @app.post("/settings/groups/<item_id:id>/delete")
    def delete_group(conn, auth: Auth, item_id: int):
        try:
            vocab.delete_group(conn, auth.user.id, item_id)
        except vocab.NotFound:
            raise not_found("group") from None
        return redirect("/settings/activities", "removed")

    # --- metrics --------------------------------------------------------------------------

    def metrics_page(conn, auth: Auth, status=200, fields=None, errors=None, **_):
        return settings_page("metrics", auth, status, metrics=vocab.list_metrics(conn, auth.user.id),
                             fields=fields or {}, errors=errors or {})

    def metric_body(fields: Params) -> dict:
        return {"name": fields.get("name", ""), "unit": fields.get("unit", "").strip(),
                "min": optional_number(fields.get("min")),
                "max": optional_number(fields.get("max"))}

    def metric_consequences(conn, metric: dict) -> list[str]:
        used = conn.execute("SELECT count(*) FROM entry_metrics WHERE metric_id = ?",
                            (metric["id"],)).fetchone()[0]
        return [f"Its {used} recorded value{' is' if used == 1 else 's are'} deleted with it;"
                " the entries themselves stay."]

    vocabulary_pages("metrics", "metric", metrics_page, metric_body, vocab.create_metric,
                     vocab.update_metric, vocab.get_metric, vocab.delete_metric,
                     metric_consequences)

    # --- API tokens -----------------------------------------------------------------------

    def tokens_page(conn, auth: Auth, status=200, fields=None, errors=None, new_token=None, **_):
        return settings_page("tokens", auth, status,
                             tokens=auth_store.list_api_tokens(conn, auth.user.id),
                             new_token=new_token, fields=fields or {}, errors=errors or {})

    @app.get("/settings/tokens")
    def tokens(conn, auth: Auth):
        return tokens_page(conn, auth)

    @app.post("/settings/tokens")
    def create_token(conn, auth: Auth):
        """Answered with the page itself (no redirect): the only time the token is shown."""
        fields = form(max_body)
        try:
            created = auth_store.create_api_token(conn, auth.user.id, fields.get("name", ""),
                                                  clock.now_ms())
        except users.AccountError as exc:
            return tokens_page(conn, auth, 422, fields, as_form_error(exc).errors)
        return tokens_page(conn, auth, 201, new_token=created)

    @app.post("/settings/tokens/<item_id:id>/revoke")
    def revoke_token(conn, auth: Auth, item_id: int):
        if not auth_store.revoke_api_token(conn, auth.user.id, item_id, clock.now_ms()):
            raise not_found("token")
        return redirect("/settings/tokens", "removed")
