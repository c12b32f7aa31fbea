"""`kmood_worker.py jobs [summary | list | retry | sweep]`: the queue from the command line, as
plain text."""

from __future__ import annotations

import argparse

from kmood_lib.bootstrap import bootstrap
from kmood_lib.cli.runner import EXIT_OK, EXIT_USAGE, UsageError
from kmood_lib.core.clock import ms_to_iso
from kmood_lib.core.config import Config
from kmood_lib.core.validation import MAX_ID
from kmood_lib.queue import heartbeat, jobs, sweeps


def job_id(raw: str) -> int:
    if not raw.isascii() or not raw.isdigit() or not 1 <= int(raw) <= MAX_ID:
        raise argparse.ArgumentTypeError(f"a job id is a whole number from 1 to {MAX_ID}")
    return int(raw)


def add_parser(sub) -> None:
    queue = sub.add_parser("jobs", help="inspect and steer the job queue",
                           description="Without an action: counts by kind and status and the "
                           "age of the oldest waiting job.")
    actions = queue.add_subparsers(dest="action", metavar="ACTION")
    listing = actions.add_parser("list", help="list jobs with attempts and last error")
    listing.add_argument("--status", choices=jobs.STATUSES)
    listing.add_argument("--kind")
    listing.add_argument("--limit", type=int, default=50)
    retry = actions.add_parser("retry", help="re-run one job now, or every exhausted job of a kind")
    target = retry.add_mutually_exclusive_group(required=True)
    target.add_argument("id", nargs="?", type=job_id, help="job id")
    target.add_argument("--kind", help="retry all exhausted jobs of this kind")
    actions.add_parser("sweep", help="run every sweep once now")
    actions.add_parser("summary", help="the default: counts and the oldest waiting job")


def cmd_jobs(args, config: Config, bootstrap_kwargs: dict | None = None) -> int:
    services = bootstrap(config, **(bootstrap_kwargs or {}))
    conn = services.connect()
    now_ms = services.clock.now_ms()
    try:
        if args.action in (None, "summary"):
            print(format_summary(heartbeat.queue_summary(conn, now_ms, config.worker_stale_s)))
        elif args.action == "list":
            print(format_list(jobs.list_jobs(conn, args.status, args.kind, max(1, args.limit))))
        elif args.action == "retry" and args.kind:
            if args.kind not in services.job_kinds.names():
                raise UsageError(f"jobs retry: no job kind {args.kind!r}; known kinds: "
                                 f"{', '.join(services.job_kinds.names()) or '(none)'}")
            print(f"re-queued {jobs.retry_exhausted(conn, args.kind, now_ms)} exhausted "
                  f"{args.kind} job(s)")
        elif args.action == "retry":
            outcome = jobs.retry(conn, args.id, now_ms)
            print(jobs.RETRY_MESSAGES.get(outcome, "job {id} is " + outcome).format(id=args.id))
            return EXIT_USAGE if outcome == "not_found" else EXIT_OK
        elif args.action == "sweep":
            inserted = sweeps.sweep_all(conn, services.job_kinds, now_ms, config.sweep_limit,
                                        jobs.Policy.from_config(config))
            print(f"sweep enqueued {sum(inserted.values())} job(s)"
                  + "".join(f"\n  {kind}: {n}" for kind, n in inserted.items()))
    finally:
        conn.close()
    return EXIT_OK


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
