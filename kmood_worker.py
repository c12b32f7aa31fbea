"""k-mood background worker: one plain loop that owns all background work, plus its queue CLI."""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading

from kmood_lib.bootstrap import bootstrap
from kmood_lib.cli import EXIT_OK, run_main
from kmood_lib.config import Config
from kmood_lib.worker import Worker

log = logging.getLogger("kmood_worker")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kmood_worker.py",
        description="k-mood background worker: enrichment, reminders, session cleanup, pruning. "
        "Settings come from KMOOD_* environment variables (see README).",
    )
    parser.add_argument("--once", action="store_true",
                        help="run one iteration and exit (for cron and tests)")
    return parser


def cmd_run(args, config: Config, bootstrap_kwargs: dict | None = None) -> int:
    services = bootstrap(config, **(bootstrap_kwargs or {}))
    stop = threading.Event()
    worker = Worker(services, stop)

    def request_stop(signum, frame):
        log.info("worker received signal %d: finishing the job in hand, then stopping", signum)
        stop.set()

    signal.signal(signal.SIGTERM, request_stop)
    signal.signal(signal.SIGINT, request_stop)
    try:
        if args.once:
            worker.run_once()
        else:
            worker.run_forever()
    finally:
        worker.close()
    return EXIT_OK


def main(argv=None, environ=None, bootstrap_kwargs: dict | None = None) -> int:
    return run_main("kmood_worker.py", argv, environ, build_parser(),
                    lambda args, config: cmd_run(args, config, bootstrap_kwargs))


if __name__ == "__main__":
    sys.exit(main())
