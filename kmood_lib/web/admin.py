"""Admin pages: the household (add a member, reset a password, delete an account) and the job
queue (counts, oldest waiting, retrying and exhausted jobs, retry buttons)."""

from __future__ import annotations

import bottle

from kmood_lib.accounts import users
from kmood_lib.cli.queue import RETRY_MESSAGES
from kmood_lib.queue import heartbeat, jobs
from kmood_lib.web.auth import Auth
from kmood_lib.web.http import Params
from kmood_lib.web.settings import as_form_error, domain_form, not_found, settings_page
from kmood_lib.web.views import FormError, handle_form, redirect


def register(app: bottle.Bottle, services) -> None:
    config = services.config
    clock = services.clock

    def post(show, act):
        return domain_form(show, act, config.max_body_bytes)

    # --- household ------------------------------------------------------------------------

    def users_page(conn, auth: Auth, status=200, fields=None, errors=None, **_):
        return settings_page("users", auth, status, people=users.list_users(conn),
                             fields=fields or {}, errors=errors or {})

    def member(conn, user_id: int) -> users.User:
        found = users.get_user(conn, user_id)
        if found is None:
            raise not_found("account")
        return found

    @app.get("/settings/users", auth="admin")
    def household(conn, auth: Auth):
        return users_page(conn, auth)

    @app.post("/settings/users", auth="admin")
    def add_member(conn, auth: Auth):
        def act(fields: Params) -> str:
            users.create_user(conn, fields.get("username", "").strip(),
                              fields.get("password", ""), now_ms=clock.now_ms(),
                              hasher=services.hasher,
                              timezone=fields.get("timezone") or auth.user.timezone,
                              admin=bool(fields.get("admin")))
            return "/settings/users?done=created"

        return post(lambda **kw: users_page(conn, auth, **kw), act)

    @app.post("/settings/users/<user_id:id>/password", auth="admin")
    def reset_password(conn, auth: Auth, user_id: int):
        person = member(conn, user_id)

        def act(fields: Params) -> str:
            password = users.validate_password(fields.get("password", ""))
            users.reset_password(conn, person.id, services.hasher.hash(password),
                                 clock.now_ms())
            return "/settings/users?done=saved"

        return post(lambda **kw: users_page(conn, auth, **kw), act)

    @app.get("/settings/users/<user_id:id>/delete", auth="admin")
    def confirm_delete_member(conn, auth: Auth, user_id: int):
        person = member(conn, user_id)
        held = users.holdings(conn, person.id)
        return settings_page("confirm", auth, what="account", subject=person.username,
                             action=f"/settings/users/{person.id}/delete",
                             back="/settings/users", consequences=[
                                 f"{held['entries']} entries, {held['activities']} activities, "
                                 f"{held['metrics']} metrics and {held['tokens']} API tokens of "
                                 f"{person.username} are deleted for good.",
                                 f"{person.username} is logged out everywhere and can no longer "
                                 "log in. Export their data first if it should be kept."])

    @app.post("/settings/users/<user_id:id>/delete", auth="admin")
    def delete_member(conn, auth: Auth, user_id: int):
        person = member(conn, user_id)
        if person.id == auth.user.id:
            return users_page(conn, auth, 409, errors={
                "Account": "you cannot delete your own account here"})
        try:
            users.delete_user(conn, person.id)
        except users.AccountError as exc:
            return users_page(conn, auth, 409, errors=as_form_error(exc).errors)
        return redirect("/settings/users", "removed")

    # --- the job queue --------------------------------------------------------------------

    def jobs_page(conn, auth: Auth, status=200, errors=None):
        now_ms = clock.now_ms()
        return settings_page("jobs", auth, status, summary=heartbeat.queue_summary(
                                 conn, now_ms, services.config.worker_stale_s),
                             kinds=services.job_kinds.names(),
                             troubled=jobs.list_jobs(conn, "retrying", limit=100)
                             + jobs.list_jobs(conn, "exhausted", limit=100),
                             errors=errors or {})

    @app.get("/admin/jobs", auth="admin")
    def queue(conn, auth: Auth):
        return jobs_page(conn, auth)

    @app.post("/admin/jobs/<job_id:id>/retry", auth="admin")
    def retry_job(conn, auth: Auth, job_id: int):
        outcome = jobs.retry(conn, job_id, clock.now_ms())
        if outcome == "not_found":
            raise not_found("job")
        if outcome != "retried":
            message = RETRY_MESSAGES.get(outcome, "job {id} is " + outcome).format(id=job_id)
            return jobs_page(conn, auth, 409, {"Job": message})
        services.relay.wake()
        return redirect("/admin/jobs", "retried")

    @app.post("/admin/jobs/retry", auth="admin")
    def retry_kind(conn, auth: Auth):
        def act(fields: Params) -> str:
            kind = fields.get("kind", "")
            if kind not in services.job_kinds.names():
                raise FormError({"Kind": f"no job kind {kind!r}"})
            jobs.retry_exhausted(conn, kind, clock.now_ms())
            services.relay.wake()
            return "/admin/jobs?done=retried"

        return handle_form(lambda **kw: jobs_page(conn, auth, kw.get("status", 422),
                                                  kw.get("errors")), act, config.max_body_bytes)
