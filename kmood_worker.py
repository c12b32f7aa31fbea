"""k-mood background worker: one plain loop that owns all background work, plus its queue CLI."""

from __future__ import annotations

import argparse
import logging
import signal
import sys

from kmood_lib.bootstrap import bootstrap
from kmood_lib.cli import queue
from kmood_lib.cli.runner import EXIT_OK, run_main
from kmood_lib.core.config import Config
from kmood_lib.core.signals import StopSignal
from kmood_lib.worker.context import close_worker, open_worker
from kmood_lib.worker.loop import run_forever, run_once

log = logging.getLogger("kmood_worker")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kmood_worker.py",
        description="k-mood background worker: enrichment, reminders, session cleanup, pruning. "
        "Settings come from KMOOD_* environment variables (see docs/configuration.md).",
    )
    parser.add_argument("--once", action="store_true",
                        help="run one iteration and exit (for cron and tests)")
    queue.add_parser(parser.add_subparsers(dest="command", metavar="COMMAND"))
    return parser


def cmd_run(args, config: Config, bootstrap_kwargs: dict | None = None) -> int:
    services = bootstrap(config, **(bootstrap_kwargs or {}))
    stop = StopSignal()  # set from signal handlers: must take no lock (see StopSignal)
    worker = open_worker(services, stop)

    def request_stop(signum, frame):
        log.info("worker received signal %d: finishing the job in hand, then stopping", signum)
        stop.set()

    signal.signal(signal.SIGTERM, request_stop)
    signal.signal(signal.SIGINT, request_stop)
    if not args.once:  # a relay message pokes the idle loop: the next iteration starts at once
        services.relay.start(f"k-mood worker {worker.worker_id}", on_message=stop.poke)
    try:
        if args.once:
            run_once(worker, services.clock.now_ms())
        else:
            run_forever(worker)
    finally:
        services.relay.close()
        close_worker(worker)
    return EXIT_OK


def main(argv=None, environ=None, bootstrap_kwargs: dict | None = None) -> int:
    def command(args, config):
        if args.command == "jobs":
            return queue.cmd_jobs(args, config, bootstrap_kwargs)
        return cmd_run(args, config, bootstrap_kwargs)

    return run_main("kmood_worker.py", argv, environ, build_parser(), command)


if __name__ == "__main__":
    sys.exit(main())
