"""k-mood web server (Bottle on waitress) and admin CLI: serve, migrate, create-user, users,
import-daylio, import-json, export, backup, doctor."""

from __future__ import annotations

import os
import sys

from kmood_lib.cli.commands import build_parser, carried_out_by
from kmood_lib.cli.runner import run_main


def main(argv=None, environ=None, bootstrap_kwargs: dict | None = None) -> int:
    environ = os.environ if environ is None else environ

    def command(args, config):
        carry_out = carried_out_by(args.command)
        if args.command in (None, "serve"):
            return carry_out(args, config, bootstrap_kwargs)
        if args.command == "doctor":
            return carry_out(args, config, environ)
        return carry_out(args, config)

    return run_main("kmood.py", argv, environ, build_parser(), command)


if __name__ == "__main__":
    sys.exit(main())
