"""Operators' routes: the queue (list, summary, deliberate retry), Prometheus `/metrics`, and
the public `/healthz`."""

from __future__ import annotations

import json
import logging

import bottle

from kmood_lib.core.clock import ms_to_iso
from kmood_lib.core.errors import Conflict, NotFound, ValidationError
from kmood_lib.core.i18n import Phrase
from kmood_lib.core.memory import resident_bytes
from kmood_lib.core.validation import MAX_ID, parse_int_param
from kmood_lib.queue import heartbeat, jobs
from kmood_lib.web.http import json_response, query_params
from kmood_lib.web.routing import Routes

log = logging.getLogger(__name__)
routes = Routes()


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


def cache_lines(caches: dict[str, dict]) -> list[str]:
    """Each answer cache's bytes, answers, budget and lookups (VersionedCache.stats())."""
    lines = []
    for name, what, kind, value in (
            ("kmood_cache_bytes", "Bytes of answers kept (key, answer and bookkeeping, as"
             " measured).", "gauge", lambda c: c["bytes"]),
            ("kmood_cache_entries", "Answers kept.", "gauge", lambda c: c["entries"]),
            ("kmood_cache_max_bytes", "The cache's share of KMOOD_CACHE_MAX_BYTES.", "gauge",
             lambda c: c["max_bytes"])):
        lines += [f"# HELP {name} {what}", f"# TYPE {name} {kind}"]
        lines += [f'{name}{{cache="{_label(cache)}"}} {value(c)}' for cache, c in caches.items()]
    lines += ["# HELP kmood_cache_lookups_total Answers found kept, or computed.",
              "# TYPE kmood_cache_lookups_total counter"]
    for cache, c in caches.items():
        lines += [f'kmood_cache_lookups_total{{cache="{_label(cache)}",result="{result}"}}'
                  f" {c[result]}" for result in ("found", "computed")]
    return lines


def gate_lines(gate: dict) -> list[str]:
    """The insights gate's state and counters (ComputeGate.stats())."""
    lines = []
    for name, what, kind, value in (
            ("running", "Insights computations running now.", "gauge", gate["running"]),
            ("running_peak", "The most insights computations that ran at once since start.",
             "gauge", gate["peak"]),
            ("running_max", "Insights computations allowed at once (KMOOD_INSIGHTS_CONCURRENCY).",
             "gauge", gate["max_running"]),
            ("waiting", "Requests waiting for an insights computation of the same range.",
             "gauge", gate["waiting"]),
            ("computed_total", "Insights computations finished.", "counter", gate["computed"]),
            ("shared_total", "Requests answered by another request's computation.", "counter",
             gate["shared"])):
        lines += [f"# HELP kmood_insights_{name} {what}", f"# TYPE kmood_insights_{name} {kind}",
                  f"kmood_insights_{name} {value}"]
    lines += ["# HELP kmood_insights_refused_total Insights requests refused: the person's other"
              " range computing (person, 429), enough waiting (waiting, 429), the server's"
              " limit reached (server, 503).", "# TYPE kmood_insights_refused_total counter"]
    lines += [f'kmood_insights_refused_total{{reason="{reason}"}} {n}'
              for reason, n in gate["refused"].items()]
    return lines


def group_commit_lines(stats: dict) -> list[str]:
    """How the request path's saves were committed together (GroupCommit.stats())."""
    lines = []
    for name, what, kind, value in (
            ("groups_total", "Transactions that committed (or failed) a group of saves.",
             "counter", stats["groups"]),
            ("writes_total", "Saves committed (or failed) in those groups.", "counter",
             stats["writes"]),
            ("largest", "The most saves one group held since start.", "gauge",
             stats["largest"]),
            ("waiting", "Saves waiting for the next group now.", "gauge", stats["pending"])):
        lines += [f"# HELP kmood_group_commit_{name} {what}",
                  f"# TYPE kmood_group_commit_{name} {kind}", f"kmood_group_commit_{name} {value}"]
    return lines


def memory_lines(budget: dict, resident_bytes: int | None) -> list[str]:
    """The photo memory budget (MemoryBudget.stats()) and the process's resident memory."""
    lines = []
    for name, what, kind, value in (
            ("reserved_bytes", "Memory reserved by photos being read now.", "gauge",
             budget["used"]),
            ("reserved_peak_bytes", "The most memory photos being read held at once since"
             " start.", "gauge", budget["peak"]),
            ("max_bytes", "KMOOD_PHOTO_MEMORY_BYTES.", "gauge", budget["total"]),
            ("waiting", "Photos waiting for memory to be read.", "gauge", budget["waiting"])):
        lines += [f"# HELP kmood_photo_memory_{name} {what}",
                  f"# TYPE kmood_photo_memory_{name} {kind}", f"kmood_photo_memory_{name} {value}"]
    lines += ["# HELP kmood_photo_memory_refused_total Photos refused for memory: needing more"
              " than the whole budget (too_large, 413) or finding the queue full or the wait"
              " over (busy, 503).", "# TYPE kmood_photo_memory_refused_total counter"]
    lines += [f'kmood_photo_memory_refused_total{{reason="{reason}"}} {budget[key]}'
              for reason, key in (("too_large", "refused_large"), ("busy", "refused_busy"))]
    if resident_bytes is not None:
        lines += ["# HELP process_resident_memory_bytes Resident memory of the server process.",
                  "# TYPE process_resident_memory_bytes gauge",
                  f"process_resident_memory_bytes {resident_bytes}"]
    return lines


def prometheus_text(conn, now_ms: int, stale_s: float, relay_stats: dict | None = None,
                    caches: dict[str, dict] | None = None, gate: dict | None = None,
                    memory: list[str] | None = None) -> str:
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
    lines += (cache_lines(caches) if caches else []) + (gate_lines(gate) if gate else [])
    return "\n".join(lines + (memory or [])) + "\n"


@routes.get("/api/jobs", auth="admin")
def list_jobs(conn):
    query = query_params(bottle.request)
    status, kind = query.get("status") or None, query.get("kind") or None
    if status and status not in jobs.STATUSES:
        raise ValidationError({"status": Phrase("one of {names}", names=", ".join(jobs.STATUSES))},
                              Phrase("unknown status"))
    limit = parse_int_param(query.get("limit"), "limit", 1, 500, default=100)
    cursor = parse_int_param(query.get("cursor"), "cursor", 1, MAX_ID)
    rows = jobs.list_jobs(conn, status, kind, limit + 1, cursor)
    next_cursor = str(rows[limit - 1]["id"]) if len(rows) > limit else None
    return json_response({"jobs": [job_json(r) for r in rows[:limit]],
                          "next_cursor": next_cursor})


@routes.get("/api/jobs/summary", auth="admin")
def summary(services, conn):
    return json_response({**heartbeat.queue_summary(conn, services.clock.now_ms(),
                                                    services.config.worker_stale_s),
                          "kinds": services.job_kinds.names()})


@routes.post("/api/jobs/<job_id:id>/retry", auth="admin")
def retry_one(services, conn, job_id: int):
    outcome = jobs.retry(conn, job_id, services.clock.now_ms())
    if outcome == "not_found":
        raise NotFound("job")
    if outcome != "retried":
        why = jobs.RETRY_MESSAGES.get(outcome, "job {id} is " + outcome)
        raise Conflict(Phrase(why, id=job_id))
    services.relay.wake()
    return json_response(job_json(jobs.list_jobs(conn, before_id=job_id + 1, limit=1)[0]))


@routes.post("/api/jobs/retry", auth="admin")
def retry_kind(services, conn):
    kind = query_params(bottle.request).get("kind")
    if not kind:
        raise ValidationError({"kind": Phrase("required")}, Phrase("say which kind"))
    if kind not in services.job_kinds.names():
        names = ", ".join(services.job_kinds.names())
        raise ValidationError(
            {"kind": Phrase("one of {names}", names=names) if names else Phrase("one of (none)")},
            Phrase("no job kind {kind}", kind=repr(kind)))
    retried = jobs.retry_exhausted(conn, kind, services.clock.now_ms())
    services.relay.wake()
    return json_response({"kind": kind, "retried": retried})


@routes.get("/metrics", auth="admin")
def metrics(services, conn):
    caches = {"insights": services.insight_cache.stats(),
              "stats": services.stats_cache.stats(), "entries": services.entries_cache.stats()}
    response = bottle.HTTPResponse(prometheus_text(conn, services.clock.now_ms(),
                                                   services.config.worker_stale_s,
                                                   services.relay.stats(), caches,
                                                   services.insight_gate.stats(),
                                                   group_commit_lines(services.group_commit.stats())
                                                   + memory_lines(services.photo_budget.stats(),
                                                                  resident_bytes())))
    response.content_type = "text/plain; version=0.0.4; charset=utf-8"
    return response


@routes.get("/healthz", auth="public")
def healthz(services, conn):
    """Cheap and public: the database answers, and whether any worker has beaten lately.
    No worker is `degraded` with HTTP 200 (a container is not restarted for it) unless
    `?strict=1` asks for 503, as monitors that page on it want."""
    strict = query_params(bottle.request).get("strict") in ("1", "true")
    try:
        worker = heartbeat.health(conn, services.clock.now_ms(), services.config.worker_stale_s)
    except Exception as exc:  # any database failure means "not healthy"
        log.warning("health check failed: %s", exc)
        return json_response({"status": "unavailable", "database": "error", "error": str(exc)},
                             503)
    status = "ok" if worker["alive"] else "degraded"
    return json_response({"status": status, "database": "ok", "worker": worker},
                         503 if strict and status != "ok" else 200)
