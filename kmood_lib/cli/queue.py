"""Plain-text views of the queue for `kmood_worker.py jobs ...`."""

from __future__ import annotations

from kmood_lib.core.clock import ms_to_iso

RETRY_MESSAGES = {
    "retried": "job {id} re-queued to run now",
    "not_found": "no job {id}",
    "running": "job {id} is running; it cannot be retried now",
    "queued": "job {id} is already queued; it runs as soon as a worker is free",
    "conflict": "job {id} not retried: a live job with the same kind and key exists",
}


def format_summary(summary: dict) -> str:
    lines = [f"{'kind':<20} {'queued':>7} {'running':>8} {'retrying':>9} {'done':>7} "
             f"{'exhausted':>10}"]
    for kind, counts in summary["counts"].items():
        lines.append(f"{kind:<20} " + " ".join(
            f"{counts.get(s, 0):>{w}}" for s, w in (("queued", 7), ("running", 8),
                                                     ("retrying", 9), ("done", 7),
                                                     ("exhausted", 10))))
        other = {s: n for s, n in counts.items()
                 if s not in ("queued", "running", "retrying", "done", "exhausted")}
        if other:
            lines.append(f"{'':<20} other statuses: {other}")
    if not summary["counts"]:
        lines.append("(no jobs)")
    age = summary["oldest_waiting_age_s"]
    lines.append("oldest waiting job: " + ("none" if age is None else f"{age:.1f} s old"))
    if "workers" in summary:
        lines += format_workers(summary["workers"])
    return "\n".join(lines)


def format_workers(report: dict) -> list[str]:
    age = report["last_beat_age_s"]
    lines = [f"workers alive: {report['alive']}" + (
        " (no worker has ever beaten: start kmood_worker.py)" if age is None else
        f" (newest heartbeat {age:.1f} s ago; stale after {report['stale_after_s']:g} s)")]
    for w in report["workers"]:
        lines.append(f"  {w['id']}  {'alive' if w['alive'] else 'STALE'}  v{w['version']}  "
                     f"in {w['step']} for {w['step_age_s']:.1f} s, last beat "
                     f"{w['last_beat_age_s']:.1f} s ago, {w['jobs_done']} done, "
                     f"{w['jobs_failed']} failed since {w['started_at']}")
    return lines


def format_list(rows: list[dict]) -> str:
    if not rows:
        return "(no jobs)"
    lines = [f"{'id':>7} {'kind':<16} {'status':<10} {'tries':>5}  {'updated':<24} key / last error"]
    for row in rows:
        updated = ms_to_iso(row["updated_at"]) if isinstance(row["updated_at"], int) else str(
            row["updated_at"])
        lines.append(f"{row['id']:>7} {str(row['kind']):<16} {str(row['status']):<10} "
                     f"{row['attempts']:>2}/{row['max_attempts']:<2}  {updated:<24} {row['key']}")
        if row["last_error"]:
            lines.append(f"{'':>7} last error: {row['last_error']}")
    return "\n".join(lines)
