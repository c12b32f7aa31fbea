"""`kmood.py create-user` and `kmood.py users list | reset-password | link | unlink | delete`:
the accounts of this server from the command line (the first user ever created is an admin;
`link` is how a household that signs in through a proxy reaches Household the first time)."""

from __future__ import annotations

import getpass
import sys

from kmood_lib.accounts import auth as auth_store
from kmood_lib.accounts import identities, users
from kmood_lib.bootstrap import bootstrap
from kmood_lib.cli.runner import EXIT_OK, EXIT_USAGE, UsageError
from kmood_lib.core.config import Config
from kmood_lib.core.errors import DomainError
from kmood_lib.core.text import TextError, decode_utf8


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
    """A new account with a password, or with `--proxy-name` the name the sign-in proxy knows
    them by, linked at once (no password unless --password-stdin gives one too)."""
    identity = None
    if args.proxy_name is not None:
        subject = identities.clean_subject(args.proxy_name)
        if subject is None:
            raise UsageError(f"create-user: --proxy-name: {identities.SUBJECT_RULE}")
        identity = (identities.PROXY, "", subject)
    services = bootstrap(config)
    password = read_password(args.password_stdin) if identity is None or (
        args.password_stdin) else None
    conn = services.connect()
    try:
        user = users.create_user(
            conn, args.name, password, now_ms=services.clock.now_ms(),
            hasher=services.hasher, timezone=args.timezone, admin=args.admin, identity=identity,
        )
    except users.AccountError as exc:
        raise UsageError(f"create-user: {exc}") from None
    finally:
        conn.close()
    print(f"created user {user.username} (id {user.id}{', admin' if user.is_admin else ''})"
          + (f", signing in through the proxy as {identity[2]!r}" if identity else ""))
    if password is not None:
        say_passwords_are_off(config)
    return EXIT_OK


def say_passwords_are_off(config: Config) -> None:
    if not config.password_login:
        print("note: password sign-in is off (KMOOD_PASSWORD_LOGIN=off): the password is kept"
              " for when it is on")


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
            return reset_password(services, conn, person, args.password_stdin)
        if args.action in ("link", "unlink"):
            return link_identity(services, conn, person, args)
        return delete_account(conn, person, args.yes)
    finally:
        conn.close()


def reset_password(services, conn, person: users.User, from_stdin: bool) -> int:
    password = read_password(from_stdin)
    try:
        users.validate_password(password)
    except users.AccountError as exc:
        raise UsageError(f"users reset-password: {exc}") from None
    ended = auth_store.change_password(conn, person.id, services.hasher.hash(password),
                                       services.clock.now_ms())
    print(f"password of {person.username} changed; {ended['other_sessions_ended']} session(s)"
          f" ended, {ended['api_tokens_revoked']} API token(s) revoked")
    say_passwords_are_off(services.config)
    return EXIT_OK


def link_identity(services, conn, person: users.User, args) -> int:
    now_ms = services.clock.now_ms()
    config = services.config
    if args.oidc and not config.oidc_issuer:
        raise UsageError(f"users {args.action} --oidc: set KMOOD_OIDC_ISSUER (the provider the"
                         " ID is at) first")
    method, issuer, what = ((identities.OIDC, config.oidc_issuer, "OpenID provider's ID")
                            if args.oidc else (identities.PROXY, "", "sign-in proxy's name"))
    try:
        if args.action == "link":
            identities.link(conn, person.id, method, issuer, args.subject, now_ms)
            print(f"linked: the {what} {args.subject!r} now signs in as {person.username}")
            return EXIT_OK
        ended = identities.unlink_all(conn, person.id, method, now_ms)
    except DomainError as exc:
        raise UsageError(f"users {args.action}: {exc.message}") from None
    if ended is None:
        missing = "ID at the OpenID provider" if args.oidc else "sign-in proxy name"
        raise UsageError(f"users unlink: {person.username} has no {missing}")
    print(f"unlinked the {what} of {person.username}; {ended} session(s) ended,"
          " their API tokens revoked")
    return EXIT_OK


def delete_account(conn, person: users.User, really: bool) -> int:
    held = users.holdings(conn, person.id)
    what = (f"{person.username}: {held['entries']} entries, {held['activities']} activities,"
            f" {held['metrics']} metrics, {held['tokens']} API tokens")
    if not really:
        print(f"would delete {what}; run again with --yes to delete")
        return EXIT_USAGE
    try:
        users.delete_user(conn, person.id)
    except users.AccountError as exc:
        raise UsageError(f"users delete: {exc}") from None
    print(f"deleted {what}")
    return EXIT_OK
