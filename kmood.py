"""k-mood web server (Bottle on waitress) and admin CLI: serve, migrate, create-user, users,
import-daylio, import-json, export, backup, doctor."""

from __future__ import annotations

import argparse
import getpass
import logging
import os
import signal
import socket
import sys

from kmood_lib.accounts import users
from kmood_lib.bootstrap import bootstrap
from kmood_lib.cli import portability as portability_cli
from kmood_lib.cli.runner import EXIT_OK, EXIT_USAGE, UsageError, run_main
from kmood_lib.core.config import Config
from kmood_lib.core.text import TextError, decode_utf8

log = logging.getLogger("kmood")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kmood.py",
        description="k-mood web server and admin commands. Settings come from KMOOD_* "
        "environment variables (see README).",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.add_parser("serve", help="run the web server (the default)",
                   description="Run the web server on KMOOD_HOST:KMOOD_PORT. Background work "
                   "runs in kmood_worker.py.")
    sub.add_parser("migrate", help="apply database migrations and exit",
                   description="Bring the database at KMOOD_DB to this build's schema.")
    create = sub.add_parser("create-user", help="create a user (the first user is an admin)",
                            description="Create a user. The first user ever created is an admin.")
    create.add_argument("name", help="username")
    create.add_argument("--admin", action="store_true", help="make the user an admin")
    create.add_argument("--password-stdin", action="store_true",
                        help="read the password from the first line of standard input")
    create.add_argument("--timezone", default="UTC", help="IANA timezone (default UTC)")
    people = sub.add_parser("users", help="list accounts, reset a password, delete an account",
                            description="Manage the accounts of this server.")
    actions = people.add_subparsers(dest="action", metavar="ACTION", required=True)
    actions.add_parser("list", help="every account with its entry count")
    reset = actions.add_parser("reset-password",
                               help="set a new password; ends all of that user's sessions")
    reset.add_argument("name", help="username")
    reset.add_argument("--password-stdin", action="store_true",
                       help="read the password from the first line of standard input")
    delete = actions.add_parser("delete", help="delete an account with all its data")
    delete.add_argument("name", help="username")
    delete.add_argument("--yes", action="store_true",
                        help="really delete (without it, only say what would go)")
    portability_cli.add_parser(sub)
    doctor = sub.add_parser("doctor", help="check the deployment and say what is wrong",
                            description="One line per check (ok / warn / fail, with a hint): "
                            "configuration, the database file, migrations, the worker "
                            "heartbeat and the queue. Changes nothing: the database is opened "
                            "read-only. Exits 1 when any check fails.")
    doctor.add_argument("--network", action="store_true",
                        help="also send one request to each configured upstream (and NATS)")
    return parser


def cmd_serve(args, config: Config, bootstrap_kwargs: dict | None = None) -> int:
    import waitress

    from kmood_lib.web import make_wsgi

    services = bootstrap(config, **(bootstrap_kwargs or {}))
    wsgi = make_wsgi(services)
    try:
        # waitress reads a whole body before the app runs, so its own (plain-text) 413 sits at
        # the upload limit; every other route refuses a larger Content-Length itself (JSON 413).
        server = waitress.create_server(
            wsgi, host=config.host, port=config.port, threads=config.threads,
            max_request_body_size=max(config.max_body_bytes, config.max_upload_bytes) + 65536,
            ident="k-mood",
        )
    except (OSError, ValueError) as exc:  # address in use, unknown host, privileged port
        raise UsageError(f"cannot listen on {config.host}:{config.port}: "
                         f"{getattr(exc, 'strerror', None) or exc}") from None

    def stop(signum, frame):
        raise SystemExit(0)

    services.relay.start(f"k-mood server {socket.gethostname()}:{os.getpid()}")

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    log.info("serving on http://%s:%s with %d threads", server.effective_host,
             server.effective_port, config.threads)
    log.info("background work (enrichment, reminders, session cleanup) runs in kmood_worker.py; "
             "this process does none of it: run kmood_worker.py beside it")
    try:
        server.run()  # returns after SystemExit from the handler, once in-flight requests end
    finally:
        server.close()
        services.relay.close()
        wsgi.bottle.config["kmood.pool"].close_all()
        wsgi.bottle.config["kmood.entry_writes"].close()
        services.close_writer()
    log.info("server stopped")
    return EXIT_OK


def cmd_migrate(args, config: Config) -> int:
    from kmood_lib.bootstrap import run_migrations

    services = bootstrap(config, migrate=False)
    applied = run_migrations(services)
    print(f"applied {len(applied)} migration(s)" if applied else "database is up to date")
    return EXIT_OK


def read_password(from_stdin: bool) -> str:
    if from_stdin:
        raw = sys.stdin.buffer.readline()
        if not raw:
            raise UsageError("--password-stdin: no password on standard input")
        try:
            return decode_utf8(raw, "the password on standard input").rstrip("\r\n")
        except TextError as exc:
            raise UsageError(f"--password-stdin: {exc}") from None
    if not sys.stdin.isatty():
        raise UsageError("no terminal to ask for a password: use --password-stdin")
    first = getpass.getpass("Password: ")
    if first != getpass.getpass("Repeat password: "):
        raise UsageError("the passwords differ")
    return first


def cmd_create_user(args, config: Config) -> int:
    services = bootstrap(config)
    password = read_password(args.password_stdin)
    conn = services.connect()
    try:
        user = users.create_user(
            conn, args.name, password, now_ms=services.clock.now_ms(),
            hasher=services.hasher, timezone=args.timezone, admin=args.admin,
        )
    except users.AccountError as exc:
        raise UsageError(f"create-user: {exc}") from None
    finally:
        conn.close()
    print(f"created user {user.username} (id {user.id}{', admin' if user.is_admin else ''})")
    return EXIT_OK


def cmd_users(args, config: Config) -> int:
    services = bootstrap(config)
    conn = services.connect()
    try:
        if args.action == "list":
            for person in users.list_users(conn):
                print(f"{person['username']:<24} {'admin' if person['is_admin'] else 'member':<7}"
                      f" {person['entries']:>7} entries  {person['timezone']}")
            return EXIT_OK
        person = users.find_user(conn, args.name)
        if person is None:
            raise UsageError(f"users {args.action}: no user {args.name!r}")
        if args.action == "reset-password":
            password = read_password(args.password_stdin)
            try:
                users.validate_password(password)
            except users.AccountError as exc:
                raise UsageError(f"users reset-password: {exc}") from None
            ended = users.reset_password(conn, person.id, services.hasher.hash(password),
                                         services.clock.now_ms())
            print(f"password of {person.username} changed; {ended} session(s) ended")
            return EXIT_OK
        held = users.holdings(conn, person.id)
        what = (f"{person.username}: {held['entries']} entries, {held['activities']} activities,"
                f" {held['metrics']} metrics, {held['tokens']} API tokens")
        if not args.yes:
            print(f"would delete {what}; run again with --yes to delete")
            return EXIT_USAGE
        try:
            users.delete_user(conn, person.id)
        except users.AccountError as exc:
            raise UsageError(f"users delete: {exc}") from None
        print(f"deleted {what}")
        return EXIT_OK
    finally:
        conn.close()


def cmd_import_daylio(args, config: Config) -> int:
    return portability_cli.cmd_import_daylio(args, bootstrap(config))


def cmd_import_json(args, config: Config) -> int:
    return portability_cli.cmd_import_json(args, bootstrap(config))


def cmd_export(args, config: Config) -> int:
    return portability_cli.cmd_export(args, bootstrap(config))


COMMANDS = {None: cmd_serve, "serve": cmd_serve, "migrate": cmd_migrate,
            "create-user": cmd_create_user, "users": cmd_users,
            "import-daylio": cmd_import_daylio, "import-json": cmd_import_json,
            "export": cmd_export, "backup": portability_cli.cmd_backup}


def cmd_doctor(args, config: Config, environ) -> int:
    from kmood_lib.cli import doctor
    from kmood_lib.core.clock import SystemClock

    checks = doctor.run(config, environ, SystemClock().now_ms(), network=args.network)
    for check in checks:
        print(check.line())
    failed = [c.name for c in checks if c.level == doctor.FAIL]
    warned = sum(c.level == doctor.WARN for c in checks)
    print(f"doctor: {len(failed)} failed ({', '.join(dict.fromkeys(failed))}), {warned} warning(s)"
          if failed else f"doctor: no failures, {warned} warning(s)")
    return EXIT_DOCTOR_FAILED if failed else EXIT_OK


EXIT_DOCTOR_FAILED = 1


def main(argv=None, environ=None, bootstrap_kwargs: dict | None = None) -> int:
    environ = os.environ if environ is None else environ

    def command(args, config):
        if args.command in (None, "serve"):
            return cmd_serve(args, config, bootstrap_kwargs)
        if args.command == "doctor":
            return cmd_doctor(args, config, environ)
        return COMMANDS[args.command](args, config)

    return run_main("kmood.py", argv, environ, build_parser(), command)


if __name__ == "__main__":
    sys.exit(main())
