"""Admin routes for the queue: list, summary, deliberate retry; Prometheus `/metrics`."""

from __future__ import annotations

import json

import bottle

from kmood_lib.core.clock import ms_to_iso
from kmood_lib.core.validation import MAX_ID, ValidationError, parse_int_param
from kmood_lib.queue import heartbeat, jobs
from kmood_lib.web.http import ApiError, json_response, query_params

RETRY_ERRORS = {
    "not_found": (404, "no such job"),
    "running": (409, "the job is running; it cannot be retried now"),
    "queued": (409, "the job is already queued; it runs as soon as a worker is free"),
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


def prometheus_text(conn, now_ms: int, stale_s: float, relay_stats: dict | None = None) -> str:
    summary = heartbeat.queue_summary(conn, now_ms, stale_s)
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
    workers = summary["workers"]
    beat_age = workers["last_beat_age_s"]
    lines += ["# HELP kmood_workers_alive Worker processes whose heartbeat is fresher than "
              "KMOOD_WORKER_STALE_S.",
              "# TYPE kmood_workers_alive gauge", f"kmood_workers_alive {workers['alive']}",
              "# HELP kmood_worker_last_beat_age_seconds Age of the newest worker heartbeat "
              "(+Inf when no worker ever beat).",
              "# TYPE kmood_worker_last_beat_age_seconds gauge",
              f"kmood_worker_last_beat_age_seconds {'+Inf' if beat_age is None else beat_age}"]
    if relay_stats:
        lines += ["# HELP kmood_relay_connected Whether this server's NATS relay is connected.",
                  "# TYPE kmood_relay_connected gauge",
                  f"kmood_relay_connected {int(relay_stats['connected'])}"]
        for name, what in (("published", "handed to NATS"),
                           ("dropped", "dropped (NATS not connected, or the buffer full)")):
            lines += [f"# HELP kmood_relay_{name}_total Relay messages {what}.",
                      f"# TYPE kmood_relay_{name}_total counter",
                      f"kmood_relay_{name}_total {relay_stats[name]}"]
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
        query = query_params(bottle.request)
        status, kind = query.get("status") or None, query.get("kind") or None
        if status and status not in jobs.STATUSES:
            raise ApiError(422, "unknown status", {"status": f"one of {', '.join(jobs.STATUSES)}"})
        try:
            limit = parse_int_param(query.get("limit"), "limit", 1, 500, default=100)
            cursor = parse_int_param(query.get("cursor"), "cursor", 1, MAX_ID)
        except ValidationError as exc:
            raise ApiError(422, "invalid input: " + ", ".join(exc.fields), exc.fields) from None
        rows = jobs.list_jobs(conn, status, kind, limit + 1, cursor)
        next_cursor = str(rows[limit - 1]["id"]) if len(rows) > limit else None
        return json_response({"jobs": [job_json(r) for r in rows[:limit]],
                              "next_cursor": next_cursor})

    @app.get("/api/jobs/summary", auth="admin")
    def summary(conn):
        return json_response({**heartbeat.queue_summary(conn, clock.now_ms(),
                                                        services.config.worker_stale_s),
                              "kinds": services.job_kinds.names()})

    @app.post("/api/jobs/<job_id:id>/retry", auth="admin")
    def retry_one(conn, job_id: int):
        outcome = jobs.retry(conn, job_id, clock.now_ms())
        if outcome != "retried":
            status, message = RETRY_ERRORS.get(outcome, (409, f"the job is {outcome}"))
            raise ApiError(status, message)
        services.relay.wake()
        return json_response(job_json(jobs.list_jobs(conn, before_id=job_id + 1, limit=1)[0]))

    @app.post("/api/jobs/retry", auth="admin")
    def retry_kind(conn):
        kind = query_params(bottle.request).get("kind")
        if not kind:
            raise ApiError(422, "say which kind", {"kind": "required"})
        if kind not in services.job_kinds.names():
            raise ApiError(422, f"no job kind {kind!r}",
                           {"kind": f"one of {', '.join(services.job_kinds.names()) or '(none)'}"})
        retried = jobs.retry_exhausted(conn, kind, clock.now_ms())
        services.relay.wake()
        return json_response({"kind": kind, "retried": retried})

    @app.get("/metrics", auth="admin")
    def metrics(conn):
        response = bottle.HTTPResponse(prometheus_text(conn, clock.now_ms(),
                                                       services.config.worker_stale_s,
                                                       services.relay.stats()))
        response.content_type = "text/plain; version=0.0.4; charset=utf-8"
        return response
