"""Admin routes for the queue: list, summary, deliberate retry; Prometheus `/metrics`."""

from __future__ import annotations

import json

import bottle

from kmood_lib import jobs
from kmood_lib.clock import ms_to_iso
from kmood_lib.web.http import ApiError, json_response

RETRY_ERRORS = {
    "not_found": (404, "no such job"),
    "running": (409, "the job is running; it cannot be retried now"),
    "conflict": (409, "a live job with the same kind and key exists; nothing changed"),
}


def job_json(row: dict) -> dict:
    try:
        payload = json.loads(row["payload"])
    except (TypeError, ValueError):
        payload = row["payload"]  # shown as stored: an unreadable payload stays visible
    out = {**row, "payload": payload}
    for name in ("run_after", "lease_until", "created_at", "updated_at", "finished_at"):
        value = row[name]
        out[name] = ms_to_iso(value) if isinstance(value, int) else value
    return out


def _label(value: object) -> str:
    return str(value).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def prometheus_text(conn, now_ms: int) -> str:
    summary = jobs.summary(conn, now_ms)
    lines = ["# HELP kmood_jobs Jobs in the queue by kind and status.",
             "# TYPE kmood_jobs gauge"]
    for kind, counts in summary["counts"].items():
        for status, n in counts.items():
            lines.append(f'kmood_jobs{{kind="{_label(kind)}",status="{_label(status)}"}} {n}')
    age = summary["oldest_waiting_age_s"]
    lines += ["# HELP kmood_jobs_oldest_waiting_age_seconds Age of the oldest queued or "
              "retrying job (0 when none).",
              "# TYPE kmood_jobs_oldest_waiting_age_seconds gauge",
              f"kmood_jobs_oldest_waiting_age_seconds {0 if age is None else age}"]
    entries = conn.execute("SELECT count(*) FROM entries").fetchone()[0]
    users = conn.execute("SELECT count(*) FROM users").fetchone()[0]
    lines += ["# HELP kmood_entries Mood entries stored.", "# TYPE kmood_entries gauge",
              f"kmood_entries {entries}",
              "# HELP kmood_users User accounts.", "# TYPE kmood_users gauge", f"kmood_users {users}"]
    return "\n".join(lines) + "\n"


def register(app: bottle.Bottle, services) -> None:
    clock = services.clock

    @app.get("/api/jobs", auth="admin")
    def list_jobs(conn):
        query = bottle.request.query
        status, kind = query.get("status") or None, query.get("kind") or None
        if status and status not in jobs.STATUSES:
            raise ApiError(422, "unknown status", {"status": f"one of {', '.join(jobs.STATUSES)}"})
        limit_raw, cursor = query.get("limit") or "100", query.get("cursor") or None
        if not limit_raw.isdigit() or not 1 <= int(limit_raw) <= 500:
            raise ApiError(422, "bad limit", {"limit": "an integer from 1 to 500"})
        if cursor is not None and not cursor.isdigit():
            raise ApiError(422, "bad cursor", {"cursor": "not a cursor this server handed out"})
        limit = int(limit_raw)
        rows = jobs.list_jobs(conn, status, kind, limit + 1, int(cursor) if cursor else None)
        next_cursor = str(rows[limit - 1]["id"]) if len(rows) > limit else None
        return json_response({"jobs": [job_json(r) for r in rows[:limit]],
                              "next_cursor": next_cursor})

    @app.get("/api/jobs/summary", auth="admin")
    def summary(conn):
        return json_response({**jobs.summary(conn, clock.now_ms()),
                              "kinds": services.job_kinds.names()})

    @app.post("/api/jobs/<job_id:int>/retry", auth="admin")
    def retry_one(conn, job_id: int):
        outcome = jobs.retry(conn, job_id, clock.now_ms())
        if outcome != "retried":
            status, message = RETRY_ERRORS[outcome]
            raise ApiError(status, message)
        return json_response(job_json(jobs.list_jobs(conn, before_id=job_id + 1, limit=1)[0]))

    @app.post("/api/jobs/retry", auth="admin")
    def retry_kind(conn):
        kind = bottle.request.query.get("kind")
        if not kind:
            raise ApiError(422, "say which kind", {"kind": "required"})
        return json_response({"kind": kind,
                              "retried": jobs.retry_exhausted(conn, kind, clock.now_ms())})

    @app.get("/metrics", auth="admin")
    def metrics(conn):
        response = bottle.HTTPResponse(prometheus_text(conn, clock.now_ms()))
        response.content_type = "text/plain; version=0.0.4; charset=utf-8"
        return response
