"""Your data in and out: `POST /api/import/daylio` and `GET /api/export`, and the import and
export page under settings — upload, read the dry-run report (with a level picker for each
unknown mood name), confirm; download everything as JSON or CSV."""

from __future__ import annotations

from zoneinfo import ZoneInfo

import bottle

from kmood_lib.core.db import transaction
from kmood_lib.core.text import name_key
from kmood_lib.journal import vocab
from kmood_lib.portability import export, importer
from kmood_lib.portability.daylio.moods import parse_mood_map
from kmood_lib.portability.daylio.plan import DaylioFormatError
from kmood_lib.web.auth import Auth
from kmood_lib.web.http import ApiError, Params, json_response, multipart, query_params
from kmood_lib.web.settings import not_found, settings_page
from kmood_lib.web.views import FormError, handle_form

FILE_HINT = "a Daylio CSV export or .daylio backup"
MAX_MAPPED = 500  # mood names one confirm may map


def upload_of(request: bottle.BaseRequest) -> tuple[Params, bytes | None]:
    content_type = (request.content_type or "").split(";")[0].strip().lower()
    if content_type != "multipart/form-data":
        raise ApiError(415, "send the file as multipart/form-data, in the field `file`")
    fields, files = multipart(request)
    return fields, files.get("file") or None


def mood_map_field(value: str | None) -> dict[str, int]:
    try:
        return parse_mood_map(value or "")
    except ValueError as exc:
        raise ApiError(422, str(exc), {"mood_map": str(exc)}) from None


def register(app: bottle.Bottle, services) -> None:
    config, clock = services.config, services.clock

    @app.post("/api/import/daylio", max_body="upload")
    def api_import(conn, auth: Auth):
        fields, data = upload_of(bottle.request)
        if data is None:
            raise ApiError(422, f"no file: send {FILE_HINT} in the field `file`",
                           {"file": "required"})
        mood_map = mood_map_field(fields.get("mood_map"))
        dry_run = fields.get("dry_run", "0").strip().lower()
        if dry_run not in ("0", "1", "true", "false"):
            raise ApiError(422, "dry_run must be 0, 1, true or false", {"dry_run": dry_run})
        try:
            report = importer.import_file(conn, auth.user.id, ZoneInfo(auth.user.timezone),
                                          data, mood_map, clock.now_ms(),
                                          dry_run=dry_run in ("1", "true"))
        except DaylioFormatError as exc:
            raise ApiError(422, str(exc), {"file": str(exc)}) from None
        except importer.ImportRefused as exc:
            raise ApiError(422, exc.report["message"], {"file": exc.report["message"]},
                           extra={"report": exc.report}) from None
        return json_response(report)

    @app.get("/api/export")
    def api_export(conn, auth: Auth):
        wanted = query_params(bottle.request).get("format", "json")
        if wanted not in ("json", "csv"):
            raise ApiError(422, "format must be json or csv", {"format": "json or csv"})
        return download(conn, auth, wanted)

    def download(conn, auth: Auth, wanted: str) -> bottle.HTTPResponse:
        """The whole journal as a file: one read snapshot, so it is consistent."""
        with transaction(conn, immediate=False):
            body = (export.export_json(conn, auth.user.id, clock.now_ms()) if wanted == "json"
                    else export.export_csv(conn, auth.user.id))
        day = clock.now().date().isoformat()
        kind = "application/json" if wanted == "json" else "text/csv"
        return bottle.HTTPResponse(body.encode("utf-8"), headers={
            "Content-Type": f"{kind}; charset=utf-8", "Cache-Control": "no-store",
            "Content-Disposition": f'attachment; filename="kmood-{day}.{wanted}"'})

    # --- pages ----------------------------------------------------------------------------

    def upload_page(conn, auth: Auth, status=200, fields=None, errors=None, **_):
        return settings_page("import", auth, status, fields=fields or {}, errors=errors or {},
                             max_mb=config.max_upload_bytes // (1024 * 1024))

    @app.get("/settings/import")
    def import_start(conn, auth: Auth):
        return upload_page(conn, auth)

    @app.post("/settings/import", max_body="upload")
    def import_upload(conn, auth: Auth):
        def act(fields: Params) -> str:
            data = multipart(bottle.request)[1].get("file")
            if not data:
                raise FormError({"File": f"choose {FILE_HINT}"})
            try:
                mood_map = parse_mood_map(fields.get("mood_map") or "")
            except ValueError as exc:
                raise FormError({"Mood map": str(exc)}) from None
            token = importer.stash_upload(conn, auth.user.id, data, mood_map, clock.now_ms())
            return f"/settings/import/{token}"

        return handle_form(lambda **kw: upload_page(conn, auth, **kw), act,
                           config.max_upload_bytes)

    def report_page(conn, auth: Auth, token: str, status=200, fields=None, errors=None, **_):
        pending = importer.stashed_upload(conn, auth.user.id, token)
        if pending is None:
            raise not_found("upload (it may be more than a day old: upload the file again)")
        if pending["report"] is not None:
            return settings_page("import_report", auth, status, section="import", token=token,
                                 report=pending["report"], done=True, error=None)
        error = None
        report = None
        try:
            report = importer.import_file(conn, auth.user.id, ZoneInfo(auth.user.timezone),
                                          pending["data"], pending["mood_map"], clock.now_ms(),
                                          dry_run=True)
        except DaylioFormatError as exc:
            error = str(exc)
        except importer.ImportRefused as exc:
            report = exc.report
        return settings_page("import_report", auth, status, section="import", token=token,
                             report=report, done=False, error=error, fields=fields or {},
                             errors=errors or {}, labels=vocab.mood_labels(conn, auth.user.id))

    @app.get("/settings/import/<token:token>")
    def import_report(conn, auth: Auth, token: str):
        return report_page(conn, auth, token)

    @app.post("/settings/import/<token:token>")
    def import_confirm(conn, auth: Auth, token: str):
        def act(fields: Params) -> str:
            pending = importer.stashed_upload(conn, auth.user.id, token)
            if pending is None:
                raise not_found("upload")
            if pending["report"] is not None:
                return f"/settings/import/{token}"  # a repeated confirm: already done
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
                raise FormError({"Moods": f"choose a level for {', '.join(unmapped)}"})
            try:
                report = importer.import_file(conn, auth.user.id, ZoneInfo(auth.user.timezone),
                                              pending["data"], mood_map, clock.now_ms())
            except DaylioFormatError as exc:
                raise FormError({"File": str(exc)}) from None
            except importer.ImportRefused as exc:
                raise FormError({"File": exc.report["message"]}) from None
            importer.finish_upload(conn, auth.user.id, token, report)
            return f"/settings/import/{token}"

        return handle_form(lambda **kw: report_page(conn, auth, token, **kw), act,
                           config.max_body_bytes)

