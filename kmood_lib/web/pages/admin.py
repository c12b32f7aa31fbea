"""Admin pages: the household (add a member, reset a password, delete an account) and the job
queue (counts, oldest waiting, retrying and exhausted jobs, retry buttons)."""

from __future__ import annotations

import bottle

from kmood_lib.accounts import auth as auth_store
from kmood_lib.accounts import users
from kmood_lib.core.errors import Conflict, NotFound
from kmood_lib.queue import heartbeat, jobs
from kmood_lib.web.authentication import Auth
from kmood_lib.web.rendering import FormError, form_fields, redirect, settings_page
from kmood_lib.web.routing import Routes

routes = Routes()


# --- household ----------------------------------------------------------------------------

def users_page(conn, auth: Auth, fields=None, errors=None, status=200):
    return settings_page("users", auth, status, people=users.list_users(conn),
                         fields=fields or {}, errors=errors or {})


def member(conn, user_id: int) -> users.User:
    found = users.get_user(conn, user_id)
    if found is None:
        raise NotFound("account")
    return found


@routes.get("/settings/users", auth="admin")
def household(conn, auth: Auth):
    return users_page(conn, auth)


@routes.post("/settings/users", auth="admin", form=users_page)
def add_member(services, conn, auth: Auth):
    fields = form_fields(bottle.request, services.config)
    users.create_user(conn, fields.get("username", "").strip(), fields.get("password", ""),
                      now_ms=services.clock.now_ms(), hasher=services.hasher,
                      timezone=fields.get("timezone") or auth.user.timezone,
                      admin=bool(fields.get("admin")))
    return redirect("/settings/users", "created")


@routes.post("/settings/users/<user_id:id>/password", auth="admin", form=users_page)
def reset_password(services, conn, auth: Auth, user_id: int):
    person = member(conn, user_id)
    password = users.validate_password(form_fields(bottle.request, services.config).get(
        "password", ""))
    auth_store.change_password(conn, person.id, services.hasher.hash(password),
                               services.clock.now_ms())
    return redirect("/settings/users", "reset")


@routes.get("/settings/users/<user_id:id>/delete", auth="admin")
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


@routes.post("/settings/users/<user_id:id>/delete", auth="admin", form=users_page)
def delete_member(conn, auth: Auth, user_id: int):
    person = member(conn, user_id)
    if person.id == auth.user.id:
        raise Conflict("you cannot delete your own account here",
                       {"account": "you cannot delete your own account here"})
    users.delete_user(conn, person.id)
    return redirect("/settings/users", "removed")


# --- the job queue ------------------------------------------------------------------------

def jobs_page(services, conn, auth: Auth, fields=None, errors=None, status=200):
    return settings_page("jobs", auth, status, summary=heartbeat.queue_summary(
                             conn, services.clock.now_ms(), services.config.worker_stale_s),
                         kinds=services.job_kinds.names(), statuses=jobs.STATUSES,
                         troubled=jobs.list_jobs(conn, "retrying", limit=100)
                         + jobs.list_jobs(conn, "exhausted", limit=100),
                         errors=errors or {})


@routes.get("/admin/jobs", auth="admin")
def queue(services, conn, auth: Auth):
    return jobs_page(services, conn, auth)


@routes.post("/admin/jobs/<job_id:id>/retry", auth="admin", form=jobs_page)
def retry_job(services, conn, auth: Auth, job_id: int):
    outcome = jobs.retry(conn, job_id, services.clock.now_ms())
    if outcome == "not_found":
        raise NotFound("job")
    if outcome != "retried":
        message = jobs.RETRY_MESSAGES.get(outcome, "job {id} is " + outcome).format(id=job_id)
        raise Conflict(message, {"job": message})
    services.relay.wake()
    return redirect("/admin/jobs", "retried")


@routes.post("/admin/jobs/retry", auth="admin", form=jobs_page)
def retry_kind(services, conn, auth: Auth):
    kind = form_fields(bottle.request, services.config).get("kind", "")
    if kind not in services.job_kinds.names():
        raise FormError({"Kind": f"no job kind {kind!r}"})
    jobs.retry_exhausted(conn, kind, services.clock.now_ms())
    services.relay.wake()
    return redirect("/admin/jobs", "retried")
