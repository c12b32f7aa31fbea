"""Settings → Import & export: upload a file, read the dry-run report (with a level picker for
each unknown mood name), confirm; and the links that download everything as JSON or CSV."""

from __future__ import annotations

from zoneinfo import ZoneInfo

import bottle

from kmood_lib.core.errors import NotFound
from kmood_lib.core.i18n import N_, Phrase
from kmood_lib.core.text import name_key
from kmood_lib.journal import vocab
from kmood_lib.portability import importer, pending_imports
from kmood_lib.portability.daylio.moods import parse_mood_map
from kmood_lib.web.authentication import Auth
from kmood_lib.web.http import multipart
from kmood_lib.web.rendering import FormError, form_fields, redirect, settings_page
from kmood_lib.web.routing import Routes

routes = Routes()

CHOOSE_FILE = N_("choose a Daylio CSV export or .daylio backup")
MAX_MAPPED = 500  # mood names one confirm may map


def upload_page(services, auth: Auth, fields=None, errors=None, status=200):
    return settings_page("import", auth, status, fields=fields or {}, errors=errors or {},
                         max_mb=services.config.max_upload_bytes // (1024 * 1024))


@routes.get("/settings/import")
def import_start(services, auth: Auth):
    return upload_page(services, auth)


@routes.post("/settings/import", max_body="upload", form=upload_page)
def import_upload(services, conn, auth: Auth):
    """Read the file once, now: one that is not an export is refused here and never stored;
    a readable one is kept with its dry-run report (problems and unknown moods included)."""
    fields, files = multipart(bottle.request)
    data = files.get("file")
    if not data:
        raise FormError({N_("File"): CHOOSE_FILE})
    try:
        mood_map = parse_mood_map(fields.get("mood_map") or "")
    except ValueError as exc:
        raise FormError({N_("Mood map"): exc.args[0]}) from None
    now_ms = services.clock.now_ms()
    try:
        preview = importer.import_file(conn, auth.user.id, ZoneInfo(auth.user.timezone), data,
                                       mood_map, services.clock, dry_run=True,  # nothing restored
                                       **importer.settings_of(services))
    except importer.ImportRefused as exc:
        preview = exc.report
    token = pending_imports.stash_upload(conn, auth.user.id, data, mood_map, preview, now_ms)
    return redirect(f"/settings/import/{token}")


def pending_upload(conn, auth: Auth, token: str) -> dict:
    pending = pending_imports.stashed_upload(conn, auth.user.id, token)
    if pending is None:
        raise NotFound("upload", Phrase("it may be more than a day old, or replaced by a newer"
                                        " one: upload the file again"))
    return pending


def report_page(conn, auth: Auth, token: str, fields=None, errors=None, status=200):
    """The upload's dry-run report as it was read on arrival, or what the import did."""
    pending = pending_upload(conn, auth, token)
    if pending["report"] is not None:
        return settings_page("import_report", auth, status, section="import", token=token,
                             report=pending["report"], done=True)
    return settings_page("import_report", auth, status, section="import", token=token,
                         report=pending["preview"], done=False, fields=fields or {},
                         errors=errors or {}, labels=vocab.mood_labels(conn, auth.user.id))


@routes.get("/settings/import/<token:token>")
def import_report(conn, auth: Auth, token: str):
    return report_page(conn, auth, token)


@routes.post("/settings/import/<token:token>", form=report_page)
def import_confirm(services, conn, auth: Auth, token: str):
    pending = pending_upload(conn, auth, token)
    if pending["report"] is not None:
        return redirect(f"/settings/import/{token}")  # a repeated confirm: already done
    fields = form_fields(bottle.request, services.config)
    mood_map = dict(pending["mood_map"])
    unmapped = []
    for i in range(MAX_MAPPED):
        name, level = fields.get(f"map_name_{i}"), fields.get(f"map_level_{i}") or ""
        if name is None:
            break
        if level.isascii() and level.isdigit() and 1 <= int(level) <= 5:
            mood_map[name_key(name.strip())] = int(level)
        else:
            unmapped.append(repr(name))
    if unmapped:
        raise FormError({N_("Moods"): Phrase("choose a level for {names}",
                                             names=", ".join(unmapped))})
    report = importer.import_file(conn, auth.user.id, ZoneInfo(auth.user.timezone),
                                  pending_imports.stashed_file(conn, auth.user.id, token), mood_map,
                                  services.clock, **importer.settings_of(services))
    pending_imports.finish_upload(conn, auth.user.id, token, report)
    return redirect(f"/settings/import/{token}")


@routes.post("/settings/import/<token:token>/cancel")
def import_cancel(conn, auth: Auth, token: str):
    if not pending_imports.drop_upload(conn, auth.user.id, token):
        raise NotFound("upload")
    return redirect("/settings/import", "cancelled")
