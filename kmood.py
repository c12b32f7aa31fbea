"""k-mood web server (Bottle on waitress) and admin CLI: serve, migrate, create-user, users,
import-daylio, import-json, export, backup, doctor."""

from __future__ import annotations

import argparse
import os
import sys

from kmood_lib.cli import doctor, portability, serve, users
from kmood_lib.cli.runner import run_main

COMMANDS = {"migrate": serve.cmd_migrate, "create-user": users.cmd_create_user,
            "users": users.cmd_users, "import-daylio": portability.cmd_import_daylio,
            "import-json": portability.cmd_import_json, "export": portability.cmd_export,
            "backup": portability.cmd_backup}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kmood.py",
        description="k-mood web server and admin commands. Settings come from KMOOD_* "
        "environment variables (see docs/configuration.md).",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for face in (serve, users, portability, doctor):
        face.add_parser(sub)
    return parser


def main(argv=None, environ=None, bootstrap_kwargs: dict | None = None) -> int:
    environ = os.environ if environ is None else environ

    def command(args, config):
        if args.command in (None, "serve"):
            return serve.cmd_serve(args, config, bootstrap_kwargs)
        if args.command == "doctor":
            return doctor.cmd_doctor(args, config, environ)
        return COMMANDS[args.command](args, config)

    return run_main("kmood.py", argv, environ, build_parser(), command)


if __name__ == "__main__":
    sys.exit(main())
