"""Your data in and out over the API: `POST /api/import/daylio` (a Daylio CSV export, a
.daylio backup or k-mood's own JSON; a dry run reports without writing) and `GET /api/export`."""

from __future__ import annotations

import tempfile
from zoneinfo import ZoneInfo

import bottle

from kmood_lib.core.db import transaction
from kmood_lib.core.errors import ValidationError
from kmood_lib.core.i18n import Phrase
from kmood_lib.portability import export, importer
from kmood_lib.portability.daylio.moods import parse_mood_map
from kmood_lib.web.authentication import Auth
from kmood_lib.web.http import ApiError, is_multipart, json_response, multipart, query_params
from kmood_lib.web.routing import Routes

routes = Routes()



def mood_map_field(value: str | None) -> dict[str, int]:
    try:
        return parse_mood_map(value or "")
    except ValueError as exc:
        raise ValidationError({"mood_map": exc.args[0]}, exc.args[0]) from None


@routes.post("/api/import/daylio", max_body="upload")
def import_file(services, conn, auth: Auth):
    request = bottle.request
    if not is_multipart(request):
        raise ApiError(415, Phrase("send the file as multipart/form-data, in the field {field}",
                                   field="`file`"))
    fields, files = multipart(request)
    data = files.get("file") or None
    if data is None:
        raise ValidationError({"file": Phrase("required")},
                              Phrase("no file: send a Daylio CSV export or .daylio backup in the"
                                     " field {field}", field="`file`"))
    mood_map = mood_map_field(fields.get("mood_map"))
    dry_run = fields.get("dry_run", "0").strip().lower()
    if dry_run not in ("0", "1", "true", "false"):
        raise ValidationError({"dry_run": dry_run}, Phrase("dry_run must be 0, 1, true or false"))
    return json_response(importer.import_file(conn, auth.user.id, ZoneInfo(auth.user.timezone),
                                              data, mood_map, services.clock,
                                              dry_run=dry_run in ("1", "true"),
                                              **importer.settings_of(services)))


@routes.get("/api/export")
def export_file(services, conn, auth: Auth):
    wanted = query_params(bottle.request).get("format", "json")
    if wanted not in ("json", "csv", "zip"):
        raise ValidationError({"format": Phrase("json, zip or csv")},
                              Phrase("format must be json, zip or csv"))
    return download(services, conn, auth, wanted)


ZIP_CHUNK = 1024 * 1024


def download(services, conn, auth: Auth, wanted: str) -> bottle.HTTPResponse:
    """The whole journal as a file: one read snapshot, so it is consistent. The ZIP (with
    the photos) is written to a temporary file and sent from it in chunks."""
    clock = services.clock
    day = clock.now().date().isoformat()
    if wanted == "zip":
        spool = tempfile.TemporaryFile()
        try:
            with transaction(conn, immediate=False):
                export.export_zip(conn, auth.user.id, clock.now_ms(), spool)
            size = spool.tell()
            spool.seek(0)
        except BaseException:
            spool.close()
            raise
        return bottle.HTTPResponse(_chunks(spool), headers={
            "Content-Type": "application/zip", "Content-Length": str(size),
            "Cache-Control": "no-store",
            "Content-Disposition": f'attachment; filename="kmood-{day}.zip"'})
    with transaction(conn, immediate=False):
        body = (export.export_json(conn, auth.user.id, clock.now_ms()) if wanted == "json"
                else export.export_csv(conn, auth.user.id))
    kind = "application/json" if wanted == "json" else "text/csv"
    return bottle.HTTPResponse(body.encode("utf-8"), headers={
        "Content-Type": f"{kind}; charset=utf-8", "Cache-Control": "no-store",
        "Content-Disposition": f'attachment; filename="kmood-{day}.{wanted}"'})


def _chunks(spool):
    """A spooled file, sent a chunk at a time and closed (deleted) when done or abandoned."""
    try:
        while chunk := spool.read(ZIP_CHUNK):
            yield chunk
    finally:
        spool.close()
