"""What both entry points share: exit codes, config loading, and turning errors into messages."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Callable, Mapping

from kmood_lib.core.config import Config, ConfigError, MissingDependency
from kmood_lib.core.db import DatabaseOpenError
from kmood_lib.core.logs import configure_logging
from kmood_lib.core.migrate import MigrationError

EXIT_OK, EXIT_USAGE, EXIT_DB_REFUSED = 0, 2, 3

log = logging.getLogger(__name__)


class UsageError(Exception):
    """A command-line request that cannot be carried out (exit code 2)."""


def run_main(prog: str, argv, environ: Mapping[str, str] | None,
             parser: argparse.ArgumentParser, command: Callable[[argparse.Namespace, Config], int]
             ) -> int:
    """Parse args and config, run `command`, and map the error families to exit codes."""
    environ = os.environ if environ is None else environ
    args = parser.parse_args(argv)  # argparse exits 2 with a usage message itself
    try:
        config = Config.from_env(environ)
    except ConfigError as exc:
        print(f"{prog}: configuration error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    configure_logging(config.log_level)
    warn_unknown_variables(environ)
    try:
        return command(args, config)
    except MigrationError as exc:
        print(f"{prog}: refusing to start: {exc}", file=sys.stderr)
        return EXIT_DB_REFUSED
    except (UsageError, DatabaseOpenError, MissingDependency) as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return EXIT_USAGE


def warn_unknown_variables(environ: Mapping[str, str]) -> None:
    """A misspelt KMOOD_* variable would silently do nothing; say so in the log."""
    import dataclasses

    known = {f.metadata["env"] for f in dataclasses.fields(Config)}
    for name in sorted(environ):
        if name.startswith("KMOOD_") and name not in known and not name.startswith("KMOOD_TEST_"):
            log.warning("ignoring unknown environment variable %s", name)
