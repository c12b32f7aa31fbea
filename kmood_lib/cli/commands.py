"""kmood.py's commands: the arguments of each, and the function that carries it out, named
rather than imported, so that a command loads only what it needs (create-user starts in
half the time it took when every command's modules were loaded for any of them)."""

from __future__ import annotations

import argparse
import importlib

# command -> "face:function" in kmood_lib/cli/
CARRIED_OUT_BY = {
    "serve": "serve:cmd_serve", "migrate": "serve:cmd_migrate",
    "create-user": "users:cmd_create_user", "users": "users:cmd_users",
    "import-daylio": "portability:cmd_import_daylio",
    "import-json": "portability:cmd_import_json", "export": "portability:cmd_export",
    "backup": "portability:cmd_backup", "doctor": "doctor:cmd_doctor",
}


def carried_out_by(command: str | None):
    """The function that carries out `command` (None: serve), its module loaded now."""
    face, name = CARRIED_OUT_BY[command or "serve"].split(":")
    return getattr(importlib.import_module(f"kmood_lib.cli.{face}"), name)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kmood.py",
        description="k-mood web server and admin commands. Settings come from KMOOD_* "
        "environment variables (see docs/configuration.md).",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for add in (serving, people, portability, doctor):
        add(sub)
    return parser


def serving(sub) -> None:
    sub.add_parser("serve", help="run the web server (the default)",
                   description="Run the web server on KMOOD_HOST:KMOOD_PORT. Background work "
                   "runs in kmood_worker.py.")
    sub.add_parser("migrate", help="apply database migrations and exit",
                   description="Bring the database at KMOOD_DB to this build's schema.")


def people(sub) -> None:
    create = sub.add_parser("create-user", help="create a user (the first user is an admin)",
                            description="Create a user. The first user ever created is an admin.")
    create.add_argument("name", help="username")
    create.add_argument("--admin", action="store_true", help="make the user an admin")
    create.add_argument("--password-stdin", action="store_true",
                        help="read the password from the first line of standard input")
    create.add_argument("--timezone", default="UTC", help="IANA timezone (default UTC)")
    create.add_argument("--proxy-name", metavar="NAME",
                        help="the name the sign-in proxy (KMOOD_AUTH_HEADER) knows them by,"
                        " linked at once; no password is asked for")
    people = sub.add_parser("users", help="list accounts, reset a password, link a sign-in"
                            " proxy's name, delete an account",
                            description="Manage the accounts of this server.")
    actions = people.add_subparsers(dest="action", metavar="ACTION", required=True)
    actions.add_parser("list", help="every account with its entry count")
    reset = actions.add_parser("reset-password",
                               help="set a new password; ends all of that user's sessions")
    reset.add_argument("name", help="username")
    reset.add_argument("--password-stdin", action="store_true",
                       help="read the password from the first line of standard input")
    link = actions.add_parser("link", help="link the name a sign-in proxy (KMOOD_AUTH_HEADER)"
                              " says for this user, or with --oidc their ID at the OpenID"
                              " provider (KMOOD_OIDC_ISSUER), to their account")
    link.add_argument("name", help="username")
    link.add_argument("subject", help="what the proxy's header holds for them, exactly; with"
                      " --oidc, the ID k-mood's login page showed them (the provider's sub)")
    link.add_argument("--oidc", action="store_true",
                      help="link an ID at the OpenID provider, not a proxy name")
    unlink = actions.add_parser("unlink", help="unlink the user's sign-in proxy name (or with"
                                " --oidc, their ID at the OpenID provider); ends their sessions")
    unlink.add_argument("name", help="username")
    unlink.add_argument("--oidc", action="store_true",
                        help="unlink their ID at the OpenID provider, not a proxy name")
    delete = actions.add_parser("delete", help="delete an account with all its data")
    delete.add_argument("name", help="username")
    delete.add_argument("--yes", action="store_true",
                        help="really delete (without it, only say what would go)")


def portability(sub) -> None:
    cmd = sub.add_parser("import-daylio", help="import a Daylio CSV export or .daylio backup",
                         description="Import a Daylio CSV export or .daylio backup into a "
                         "user's journal: all of it or nothing; importing it again adds nothing.")
    cmd.add_argument("file", help="the CSV or .daylio file")
    cmd.add_argument("--user", required=True, help="whose journal")
    cmd.add_argument("--mood-map", help='levels for mood names: JSON {"sad": 2} or sad=2,ok=3')
    cmd.add_argument("--mood-map-file", help="a JSON file holding the mood map")
    cmd.add_argument("--dry-run", action="store_true", help="report without writing anything")
    back = sub.add_parser("import-json", help="import a k-mood JSON export",
                          description="Import k-mood's own JSON export into a user's journal, "
                          "on this or a fresh database: all of it or nothing; again adds nothing.")
    back.add_argument("file", help="the JSON export")
    back.add_argument("--user", required=True, help="whose journal")
    back.add_argument("--dry-run", action="store_true", help="report without writing anything")
    out = sub.add_parser("export", help="export a user's journal as JSON, ZIP or Daylio-style"
                         " CSV", description="Write everything of one user: k-mood's JSON "
                         "(imports back with import-json), the ZIP of it with the photos "
                         "(imports back the same way; needs --output) or a CSV in Daylio's "
                         "newest layout.")
    out.add_argument("--user", required=True, help="whose journal")
    out.add_argument("--format", choices=("json", "zip", "csv"), default="json")
    out.add_argument("-o", "--output", help="the file to write (default: standard output)")
    copy = sub.add_parser("backup", help="copy the database while it is in use",
                          description="Take a consistent copy of the database with SQLite's "
                          "online backup, while server and worker keep running, and check it.")
    copy.add_argument("dest", help="the file to write (or a directory: a timestamped file in it)")


def doctor(sub) -> None:
    doctor = sub.add_parser("doctor", help="check the deployment and say what is wrong",
                            description="One line per check (ok / warn / fail, with a hint): "
                            "configuration, the database file, migrations, the worker "
                            "heartbeat and the queue. Changes nothing: the database is opened "
                            "read-only. Exits 1 when any check fails.")
    doctor.add_argument("--network", action="store_true",
                        help="also send one request to each configured upstream (and NATS)")
