"""k-mood background worker: one plain loop that owns all background work, plus its queue CLI."""

from __future__ import annotations

import argparse
import logging
import signal
import sys

from kmood_lib.bootstrap import bootstrap
from kmood_lib.cli import queue as queue_cli
from kmood_lib.cli.runner import EXIT_OK, EXIT_USAGE, UsageError, run_main
from kmood_lib.core.config import Config
from kmood_lib.core.validation import MAX_ID
from kmood_lib.queue import heartbeat, jobs, sweeps
from kmood_lib.worker import StopSignal, Worker

log = logging.getLogger("kmood_worker")


def job_id(raw: str) -> int:
    if not raw.isascii() or not raw.isdigit() or not 1 <= int(raw) <= MAX_ID:
        raise argparse.ArgumentTypeError(f"a job id is a whole number from 1 to {MAX_ID}")
    return int(raw)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kmood_worker.py",
        description="k-mood background worker: enrichment, reminders, session cleanup, pruning. "
        "Settings come from KMOOD_* environment variables (see README).",
    )
    parser.add_argument("--once", action="store_true",
                        help="run one iteration and exit (for cron and tests)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
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
    return parser


def cmd_jobs(args, config: Config, bootstrap_kwargs: dict | None = None) -> int:
    services = bootstrap(config, **(bootstrap_kwargs or {}))
    conn = services.connect()
    now_ms = services.clock.now_ms()
    try:
        if args.action in (None, "summary"):
            print(queue_cli.format_summary(heartbeat.queue_summary(conn, now_ms,
                                                                   config.worker_stale_s)))
        elif args.action == "list":
            print(queue_cli.format_list(jobs.list_jobs(conn, args.status, args.kind,
                                                       max(1, args.limit))))
        elif args.action == "retry" and args.kind:
            if args.kind not in services.job_kinds.names():
                raise UsageError(f"jobs retry: no job kind {args.kind!r}; known kinds: "
                                 f"{', '.join(services.job_kinds.names()) or '(none)'}")
            print(f"re-queued {jobs.retry_exhausted(conn, args.kind, now_ms)} exhausted "
                  f"{args.kind} job(s)")
        elif args.action == "retry":
            outcome = jobs.retry(conn, args.id, now_ms)
            print(queue_cli.RETRY_MESSAGES.get(outcome, "job {id} is " + outcome).format(
                id=args.id))
            return EXIT_USAGE if outcome == "not_found" else EXIT_OK
        elif args.action == "sweep":
            inserted = sweeps.sweep_all(conn, services.job_kinds, now_ms, config.sweep_limit,
                                      jobs.Policy.from_config(config))
            print(f"sweep enqueued {sum(inserted.values())} job(s)"
                  + "".join(f"\n  {kind}: {n}" for kind, n in inserted.items()))
    finally:
        conn.close()
    return EXIT_OK


def cmd_run(args, config: Config, bootstrap_kwargs: dict | None = None) -> int:
    services = bootstrap(config, **(bootstrap_kwargs or {}))
    stop = StopSignal()  # set from signal handlers: must take no lock (see StopSignal)
    worker = Worker(services, stop)

    def request_stop(signum, frame):
        log.info("worker received signal %d: finishing the job in hand, then stopping", signum)
        stop.set()

    signal.signal(signal.SIGTERM, request_stop)
    signal.signal(signal.SIGINT, request_stop)
    if not args.once:  # a relay message pokes the idle loop: the next iteration starts at once
        services.relay.start(f"k-mood worker {worker.worker_id}", on_message=stop.poke)
    try:
        if args.once:
            worker.run_once()
        else:
            worker.run_forever()
    finally:
        services.relay.close()
        worker.close()
    return EXIT_OK


def main(argv=None, environ=None, bootstrap_kwargs: dict | None = None) -> int:
    def command(args, config):
        if args.command == "jobs":
            return cmd_jobs(args, config, bootstrap_kwargs)
        return cmd_run(args, config, bootstrap_kwargs)

    return run_main("kmood_worker.py", argv, environ, build_parser(), command)


if __name__ == "__main__":
    sys.exit(main())
