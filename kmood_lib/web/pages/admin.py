"""Admin pages: the household (add a member, reset a password, delete an account) and the job
queue (counts, oldest waiting, retrying and exhausted jobs, retry buttons)."""

from __future__ import annotations

import functools

import bottle

from kmood_lib.accounts import auth as auth_store
from kmood_lib.accounts import identities, users
from kmood_lib.core.errors import Conflict, NotFound
from kmood_lib.core.i18n import N_, Phrase, Translator
from kmood_lib.queue import heartbeat, jobs
from kmood_lib.web.authentication import Auth, refuse_passwords, require_browser_session
from kmood_lib.web.login import single_sign_on_name
from kmood_lib.web.rendering import FormError, Html, form_fields, redirect, settings_page, words
from kmood_lib.web.routing import Routes

routes = Routes()


# --- household ----------------------------------------------------------------------------

def users_page(services, conn, auth: Auth, fields=None, errors=None, status=200):
    """The household: each member with their linked sign-ins (and, with a sign-in proxy
    configured, a form to link one: what its KMOOD_AUTH_HEADER says for them)."""
    return settings_page("users", auth, status, people=users.list_users(conn),
                         linked=identities.by_user(conn), proxy=services.config.auth_header,
                         single_sign_on=single_sign_on_name(services.config),
                         link_by_email=services.config.sso_link_by_email,
                         password_login=services.config.password_login,
                         fields=fields or {}, errors=errors or {})


def member(conn, user_id: int) -> users.User:
    found = users.get_user(conn, user_id)
    if found is None:
        raise NotFound("account")
    return found


@routes.get("/settings/users", auth="admin")
def household(services, conn, auth: Auth):
    return users_page(services, conn, auth)


@routes.post("/settings/users", auth="admin", form=users_page)
def add_member(services, conn, auth: Auth):
    """A new member: with a password, or (password sign-in off) with the name the sign-in
    proxy knows them by or their ID at the OpenID provider, linked at once."""
    require_browser_session(auth, services.clock.now_ms())
    config = services.config
    fields = form_fields(bottle.request, config)
    password, identity = fields.get("password", ""), None
    if not config.password_login:
        subject = identities.clean_subject(fields.get("subject", ""))
        if subject is None:
            raise users.AccountError(identities.SUBJECT_RULE, "subject")
        password = None
        identity = ((identities.PROXY, "", subject) if config.auth_header
                    else (identities.OIDC, config.oidc_issuer, subject))
    users.create_user(conn, fields.get("username", "").strip(), password,
                      now_ms=services.clock.now_ms(), hasher=services.hasher,
                      timezone=fields.get("timezone") or auth.user.timezone,
                      admin=bool(fields.get("admin")), identity=identity,
                      email=fields.get("email") or None,
                      mood_labels=users.default_mood_labels(words(auth).gettext))
    return redirect("/settings/users", "created")


@routes.post("/settings/users/<user_id:id>/password", auth="admin", form=users_page)
def reset_password(services, conn, auth: Auth, user_id: int):
    require_browser_session(auth, services.clock.now_ms())
    refuse_passwords(services.config)
    person = member(conn, user_id)
    if person.id == auth.user.id:  # (Settings asks for the current one)
        said = Phrase("change your own password in Settings")
        raise Conflict(said, {"password": said})
    password = users.validate_password(form_fields(bottle.request, services.config).get(
        "password", ""))
    auth_store.change_password(conn, person.id, services.hasher.hash(password),
                               services.clock.now_ms())
    return redirect("/settings/users", "reset")


@routes.get("/settings/users/<user_id:id>/delete", auth="admin")
def confirm_delete_member(conn, auth: Auth, user_id: int):
    person = member(conn, user_id)
    held = users.holdings(conn, person.id)
    i18n = words(auth)
    n_, _html = i18n.ngettext, i18n.html
    return settings_page("confirm", auth, what="account", subject=person.username, i18n=i18n,
                         action=f"/settings/users/{person.id}/delete",
                         back="/settings/users", consequences=[
                             Html(_html('{entries}, {activities}, {metrics} and {tokens} of'
                                        ' <bdi dir="auto">{name}</bdi> are deleted for good.',
                                        entries=n_("{n} entry", "{n} entries", held["entries"]),
                                        activities=n_("{n} activity", "{n} activities",
                                                      held["activities"]),
                                        metrics=n_("{n} metric", "{n} metrics", held["metrics"]),
                                        tokens=n_("{n} API token", "{n} API tokens",
                                                  held["tokens"]),
                                        name=person.username)),
                             Html(_html('<bdi dir="auto">{name}</bdi> is logged out everywhere'
                                        " and can no longer log in. Export their data first if"
                                        " it should be kept.", name=person.username))])


@routes.post("/settings/users/<user_id:id>/delete", auth="admin", form=users_page)
def delete_member(services, conn, auth: Auth, user_id: int):
    require_browser_session(auth, services.clock.now_ms())
    person = member(conn, user_id)
    if person.id == auth.user.id:
        said = Phrase("you cannot delete your own account here")
        raise Conflict(said, {"account": said})
    users.delete_user(conn, person.id)
    return redirect("/settings/users", "removed")


@routes.post("/settings/users/<user_id:id>/email", auth="admin", form=users_page)
def set_email(services, conn, auth: Auth, user_id: int):
    """A member's email address: only an admin sets it (single sign-on may link by it)."""
    require_browser_session(auth, services.clock.now_ms())
    person = member(conn, user_id)
    if person.id == auth.user.id:  # one's own: a way in (link by email), so a recent sign-in
        require_browser_session(auth, services.clock.now_ms(), fresh=True)
    users.set_email(conn, person.id, form_fields(bottle.request, services.config).get("email"),
                    services.clock.now_ms())
    return redirect("/settings/users", "saved")


@routes.post("/settings/users/<user_id:id>/identities", auth="admin", form=users_page)
def link_identity(services, conn, auth: Auth, user_id: int):
    """Link to this member's account the user name the sign-in proxy says for them, or
    (`method=oidc`) their ID at the OpenID provider."""
    require_browser_session(auth, services.clock.now_ms())
    config = services.config
    person = member(conn, user_id)
    if person.id == auth.user.id:  # a way into one's own account: a recent sign-in
        require_browser_session(auth, services.clock.now_ms(), fresh=True)
    fields = form_fields(bottle.request, config)
    method = fields.get("method") or identities.PROXY
    if method == identities.OIDC and config.oidc_issuer:
        identities.link(conn, person.id, identities.OIDC, config.oidc_issuer,
                        fields.get("subject", ""), services.clock.now_ms())
        return redirect("/settings/users", "sso_member_linked")
    if method != identities.PROXY or not config.auth_header:
        said = Phrase("no such way of signing in here")
        raise users.AccountError(said, "method")
    identities.link(conn, person.id, identities.PROXY, "", fields.get("subject", ""),
                    services.clock.now_ms())
    return redirect("/settings/users", "linked")


@routes.post("/settings/users/<user_id:id>/identities/<identity_id:id>/delete", auth="admin",
             form=users_page)
def unlink_identity(services, conn, auth: Auth, user_id: int, identity_id: int):
    """Unlink a member's proxy name: their sessions end and their API tokens are revoked.
    Never an admin's own here (it may be their only way in): from the shell, or by another
    admin."""
    require_browser_session(auth, services.clock.now_ms())
    person = member(conn, user_id)
    if person.id == auth.user.id:
        said = Phrase("you cannot unlink your own sign-in here")
        raise Conflict(said, {"subject": said})
    if identities.unlink(conn, person.id, identity_id, services.clock.now_ms()) is None:
        raise NotFound("sign-in")
    return redirect("/settings/users", "unlinked")


# --- the job queue ------------------------------------------------------------------------

# Why a job was not retried (jobs.RETRY_MESSAGES, said on the page in the person's language).
RETRY_REFUSALS = {
    "running": N_("job {id} is running; it cannot be retried now"),
    "queued": N_("job {id} is already queued; it runs as soon as a worker is free"),
    "conflict": N_("job {id} not retried: a live job with the same kind and key exists"),
}

# A job's status as the page says it.
STATUS_WORDS = {"queued": N_("queued"), "running": N_("running"), "retrying": N_("retrying"),
                "done": N_("done"), "exhausted": N_("exhausted")}


def duration(i18n: Translator, seconds: float) -> str:
    """A short duration in the person's language: '4 s', '3 min', '2 h 5 min', '3 days'."""
    _, n_ = i18n.gettext, i18n.ngettext
    s = int(seconds)
    if s < 90:
        return _("{n} s", n=i18n.number(s))
    if s < 3600:
        return _("{n} min", n=i18n.number(round(s / 60)))
    if s < 48 * 3600:
        hours, minutes = divmod(round(s / 60), 60)
        return (_("{hours} h {minutes} min", hours=i18n.number(hours),
                  minutes=i18n.number(minutes)) if minutes
                else _("{n} h", n=i18n.number(hours)))
    return n_("{n} day", "{n} days", round(s / 86400))


def jobs_page(services, conn, auth: Auth, fields=None, errors=None, status=200):
    i18n = words(auth)
    return settings_page("jobs", auth, status, summary=heartbeat.queue_summary(
                             conn, services.clock.now_ms(), services.config.worker_stale_s),
                         kinds=services.job_kinds.names(), statuses=jobs.STATUSES,
                         status_words=STATUS_WORDS, duration=functools.partial(duration, i18n),
                         troubled=jobs.list_jobs(conn, "retrying", limit=100)
                         + jobs.list_jobs(conn, "exhausted", limit=100),
                         errors=errors or {}, i18n=i18n)


@routes.get("/admin/jobs", auth="admin")
def queue(services, conn, auth: Auth):
    return jobs_page(services, conn, auth)


@routes.post("/admin/jobs/<job_id:id>/retry", auth="admin", form=jobs_page)
def retry_job(services, conn, auth: Auth, job_id: int):
    outcome = jobs.retry(conn, job_id, services.clock.now_ms())
    if outcome == "not_found":
        raise NotFound("job")
    if outcome != "retried":
        why = RETRY_REFUSALS.get(outcome) or "job {id} is " + outcome
        message = Phrase(why, id=job_id)
        raise Conflict(message, {"job": message})
    services.relay.wake()
    return redirect("/admin/jobs", "retried")


@routes.post("/admin/jobs/retry", auth="admin", form=jobs_page)
def retry_kind(services, conn, auth: Auth):
    kind = form_fields(bottle.request, services.config).get("kind", "")
    if kind not in services.job_kinds.names():
        raise FormError({N_("Kind"): Phrase("no job kind {kind}", kind=repr(kind))})
    jobs.retry_exhausted(conn, kind, services.clock.now_ms())
    services.relay.wake()
    return redirect("/admin/jobs", "retried")
