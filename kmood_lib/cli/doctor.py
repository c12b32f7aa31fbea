"""`kmood.py doctor`: one line per check (ok / warn / fail, with a hint) about a deployment.

It never changes anything: the database is opened read-only (`mode=ro`, `query_only`), never
migrated, no directory is created and the journal mode is only read. SQLite itself may leave
its empty `-wal`/`-shm` companions beside a WAL database that nothing had open.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib.util
import os
import shutil
import socket
import sqlite3
import stat
import time
import urllib.parse
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from kmood_lib.core import migrate
from kmood_lib.core.clock import SystemClock
from kmood_lib.core.config import Config
from kmood_lib.portability import backup
from kmood_lib.queue import heartbeat
from kmood_lib.upstream.http import UpstreamError, exchange

OK, WARN, FAIL = "ok", "warn", "fail"
MIB = 1024 * 1024
FREE_FAIL_BYTES = 64 * MIB  # below this a checkpoint or a backup can fail mid-way
FREE_WARN_BYTES = 1024 * MIB
DUE_UNCLAIMED_WARN_S = 300  # a due job nobody took for this long: the worker is busy or stuck
NETWORK_TIMEOUT_S = 10


@dataclass(frozen=True)
class Check:
    name: str
    level: str
    message: str
    hint: str = ""

    def line(self) -> str:
        return f"{self.level:<5} {self.name:<15} {self.message}" + (
            f" — {self.hint}" if self.hint else "")


def run(config: Config, environ: Mapping[str, str], now_ms: int, network: bool = False
        ) -> list[Check]:
    """Every check, in the order an operator would look."""
    checks = list(check_config(config, environ))
    conn = None
    try:
        checks += list(check_file(config))
        conn, opened = open_read_only(config)
        checks.append(opened)
        if conn is not None:
            checks += list(check_database(conn, config, now_ms))
    finally:
        if conn is not None:
            conn.close()
    if network:
        checks += list(check_network(config))
    return checks


# --- configuration ---------------------------------------------------------------------------

def check_config(config: Config, environ: Mapping[str, str]) -> Iterator[Check]:
    known = {f.metadata["env"] for f in dataclasses.fields(Config)}
    unknown = sorted(n for n in environ if n.startswith("KMOOD_") and n not in known
                     and not n.startswith("KMOOD_TEST_"))
    if unknown:
        yield Check("config", WARN, f"unknown variable(s) {', '.join(unknown)} are ignored",
                    "a typo? every setting is listed in docs/configuration.md")
    else:
        set_here = sorted(n for n in environ if n in known)
        yield Check("config", OK, f"valid ({len(set_here)} KMOOD_* variable(s) set, the rest "
                                  f"default)")
    if config.public_url.startswith("https://") and not config.cookie_secure:
        yield Check("config", WARN, "KMOOD_PUBLIC_URL is https but KMOOD_COOKIE_SECURE is 0",
                    "set KMOOD_COOKIE_SECURE=1 so the session cookie is never sent in clear")
    if config.scrypt_n < 16384:
        yield Check("config", WARN, f"KMOOD_SCRYPT_N is {config.scrypt_n} (default 16384)",
                    "a low cost makes stolen password hashes cheap to crack; tests only")
    if config.oidc_issuer and importlib.util.find_spec("authlib") is None:
        yield Check("single-sign-on", FAIL, "KMOOD_OIDC_ISSUER is set but Authlib is not"
                    " installed", "pip install -r requirements-sso.txt, or unset it")
    if config.passkeys and importlib.util.find_spec("webauthn") is None:
        yield Check("passkeys", FAIL, "KMOOD_PASSKEYS is on but py_webauthn is not installed",
                    "pip install -r requirements-sso.txt, or set KMOOD_PASSKEYS=0")
    if config.nats_url:
        if importlib.util.find_spec("nats") is None:
            yield Check("nats", FAIL, "KMOOD_NATS_URL is set but nats-py is not installed",
                        "pip install -r requirements-nats.txt, or unset KMOOD_NATS_URL")
    yield from check_backup_dir(config)


def check_backup_dir(config: Config) -> Iterator[Check]:
    if not config.backup_dir:
        yield Check("backups", WARN, "KMOOD_BACKUP_DIR is empty: the worker takes no backups",
                    "set it to a directory, ideally on another disk (see docs/backups.md)")
        return
    directory = Path(config.backup_dir)
    if not directory.exists():
        parent = next((p for p in directory.parents if p.exists()), None)
        if parent is None or not writable(parent):
            yield Check("backups", FAIL, f"{directory} does not exist and cannot be created",
                        "create it, writable by the user the worker runs as")
        else:
            yield Check("backups", WARN, f"{directory} does not exist yet",
                        "the worker creates it with its first backup")
        return
    if not directory.is_dir() or not writable(directory):
        yield Check("backups", FAIL, f"{directory} is not a writable directory",
                    "make it writable by the user the worker runs as")
        return
    existing = backup.rotating_backups(directory)
    if not existing:
        yield Check("backups", WARN, f"no backup in {directory} yet",
                    "the worker writes the first one soon after it starts")
        return
    age_s = time.time() - existing[-1].stat().st_mtime
    level = WARN if age_s > 2 * config.backup_interval_s + 3600 else OK
    yield Check("backups", level, f"{len(existing)} in {directory}, newest {age_s / 3600:.1f} h"
                                  f" old", "is the worker running?" if level == WARN else "")


# --- the database file -----------------------------------------------------------------------

def permits(path: Path, mode: int) -> bool:
    """Whether the permission bits grant `mode` (os.R_OK | os.W_OK ...) to this user, without
    root's override (the service usually runs as someone else), and the filesystem agrees."""
    info = path.stat()
    if info.st_uid == os.geteuid():
        shift = 6
    elif info.st_gid == os.getegid() or info.st_gid in os.getgroups():
        shift = 3
    else:
        shift = 0
    bits = (info.st_mode >> shift) & 0o7
    wanted = (4 if mode & os.R_OK else 0) | (2 if mode & os.W_OK else 0) | (
        1 if mode & os.X_OK else 0)
    return bits & wanted == wanted and os.access(path, mode)


def writable(path: Path) -> bool:
    return permits(path, os.W_OK | (os.X_OK if path.is_dir() else 0))


def check_file(config: Config) -> Iterator[Check]:
    path = Path(config.db_path)
    directory = path.parent
    if not directory.is_dir():
        yield Check("database", FAIL, f"the directory {directory} does not exist",
                    "create it, or point KMOOD_DB at the right place")
        return
    if not path.exists():
        yield Check("database", FAIL, f"no database at {path}",
                    "run `python kmood.py migrate` (or start k-mood once), or fix KMOOD_DB")
        return
    if not path.is_file():
        yield Check("database", FAIL, f"{path} is not a file", "point KMOOD_DB at the file")
        return
    if not permits(path, os.R_OK | os.W_OK):
        yield Check("database", FAIL, f"{path} is not readable and writable by this user "
                                      f"(mode {stat.filemode(path.stat().st_mode)})",
                    "chown it to the user k-mood runs as, or chmod u+rw")
    if not writable(directory):
        yield Check("directory", FAIL, f"{directory} is not writable by this user (mode "
                                       f"{stat.filemode(directory.stat().st_mode)})",
                    "SQLite creates its -wal and -shm files beside the database: make the "
                    "directory writable by the user k-mood runs as")
    else:
        yield Check("directory", OK, f"{directory} is writable")
    for suffix in ("-wal", "-shm"):
        companion = Path(str(path) + suffix)
        if companion.exists() and not permits(companion, os.R_OK | os.W_OK):
            yield Check("database", FAIL, f"{companion} is not writable by this user",
                        "give it the same owner as the database")
    size = path.stat().st_size
    free = shutil.disk_usage(directory).free
    if free < FREE_FAIL_BYTES:
        level, hint = FAIL, "free space now: a full disk stops every save"
    elif free < max(FREE_WARN_BYTES, 2 * size):
        level, hint = WARN, "a backup needs as much again as the database"
    else:
        level, hint = OK, ""
    yield Check("disk", level, f"{free / MIB:,.0f} MiB free beside the database "
                               f"({size / MIB:,.1f} MiB)", hint)


def open_read_only(config: Config) -> tuple[sqlite3.Connection | None, Check]:
    path = Path(config.db_path)
    if not path.is_file():
        return None, Check("open", FAIL, "skipped the database checks: no database file")
    uri = "file:" + urllib.parse.quote(str(path.resolve())) + "?mode=ro"
    try:
        conn = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=True)
        conn.execute(f"PRAGMA busy_timeout = {int(config.busy_timeout_ms)}")
        conn.execute("PRAGMA query_only = 1")
        conn.row_factory = sqlite3.Row
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.Error as exc:
        with contextlib.suppress(Exception):
            conn.close()
        return None, Check("open", FAIL, f"cannot read {path} read-only: {exc}",
                           "is it a k-mood database, readable by this user?")
    return conn, Check("open", OK, f"{path} opened read-only")


def check_database(conn: sqlite3.Connection, config: Config, now_ms: int) -> Iterator[Check]:
    mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
    yield (Check("wal", OK, "journal mode is WAL") if mode.lower() == "wal" else
           Check("wal", WARN, f"journal mode is {mode}", "k-mood switches it to WAL when it "
                                                         "starts"))
    problems = [row[0] for row in conn.execute("PRAGMA quick_check(5)")]
    if problems == ["ok"]:
        yield Check("integrity", OK, "PRAGMA quick_check found nothing wrong")
    else:
        yield Check("integrity", FAIL, "quick_check: " + "; ".join(problems),
                    "stop k-mood and restore the newest good backup (docs/backups.md)")
    migrations = check_migrations(conn)
    yield migrations
    if migrations.level == FAIL or not has_table(conn, "workers"):
        return
    yield check_workers(conn, config, now_ms)
    yield from check_queue(conn, now_ms)


def has_table(conn: sqlite3.Connection, name: str) -> bool:
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
                        (name,)).fetchone() is not None


def check_migrations(conn: sqlite3.Connection) -> Check:
    known = {m.version: m for m in migrate.load_migrations()}
    if not has_table(conn, "schema_migrations"):
        return Check("migrations", FAIL, "no schema_migrations table: not a k-mood database",
                     "check KMOOD_DB")
    applied = {row["version"]: row for row in
               conn.execute("SELECT version, name, checksum FROM schema_migrations")}
    unknown = sorted(set(applied) - set(known))
    if unknown:
        return Check("migrations", FAIL, f"the database has migration {unknown[-1]:04d}, which "
                                         f"this build does not know",
                     "it was written by a newer k-mood: upgrade this one, or restore a backup")
    edited = [f"{v:04d}_{row['name']}.sql" for v, row in sorted(applied.items())
              if row["checksum"] != known[v].checksum]
    if edited:
        return Check("migrations", FAIL, f"{', '.join(edited)} changed after it was applied",
                     "landed migrations never change: restore the file from this release")
    pending = sorted(set(known) - set(applied))
    if pending:
        return Check("migrations", WARN, f"{len(applied)} of {len(known)} applied; "
                                         f"{len(pending)} pending",
                     "they run when server or worker next starts (or `kmood.py migrate`)")
    return Check("migrations", OK, f"all {len(known)} applied")


def check_workers(conn: sqlite3.Connection, config: Config, now_ms: int) -> Check:
    found = heartbeat.workers(conn, now_ms, config.worker_stale_s)
    alive = [w for w in found if w["alive"]]
    if not alive:
        last = (f"; the last one beat {found[0]['last_beat_age_s']:.0f} s ago in "
                f"{found[0]['step']}") if found else ""
        return Check("worker", FAIL, f"no worker has beaten in the last "
                                     f"{config.worker_stale_s:g} s{last}",
                     "start `python kmood_worker.py` beside the server; without it nothing is "
                     "enriched and no reminder is sent")
    steps = ", ".join(f"{w['host']}:{w['pid']} {w['step']} for {w['step_age_s']:.0f} s"
                      for w in alive)
    return Check("worker", OK, f"{len(alive)} alive ({steps})")


def check_queue(conn: sqlite3.Connection, now_ms: int) -> Iterator[Check]:
    oldest_due = conn.execute("SELECT min(run_after) FROM jobs WHERE status IN ('queued',"
                              " 'retrying') AND run_after <= ?", (now_ms,)).fetchone()[0]
    oldest = conn.execute("SELECT min(created_at) FROM jobs WHERE status IN ('queued',"
                          " 'retrying')").fetchone()[0]
    waiting = "nothing waiting" if oldest is None else (
        f"oldest waiting job {max(0, now_ms - oldest) / 1000:,.0f} s old")
    if oldest_due is not None and now_ms - oldest_due > DUE_UNCLAIMED_WARN_S * 1000:
        yield Check("queue", WARN, f"{waiting}; a job has been due for "
                                   f"{(now_ms - oldest_due) / 1000:,.0f} s without a worker "
                                   f"taking it", "is the worker running, or stuck in one step?")
    else:
        yield Check("queue", OK, waiting)
    exhausted = conn.execute("SELECT kind, count(*) FROM jobs WHERE status = 'exhausted'"
                             " GROUP BY kind ORDER BY kind").fetchall()
    if exhausted:
        yield Check("exhausted", WARN, ", ".join(f"{n} {kind}" for kind, n in exhausted),
                    "see `kmood_worker.py jobs list --status exhausted`; retry with "
                    "`kmood_worker.py jobs retry --kind KIND` once the cause is fixed")


# --- the network (only with --network) -------------------------------------------------------

def upstream_probes(config: Config) -> list[tuple[str, str]]:
    """(name, URL): one cheap request to each configured upstream."""
    probes = [
        ("open-meteo", f"{config.open_meteo_forecast_url}/v1/forecast?latitude=52.52"
                       f"&longitude=13.41&hourly=temperature_2m&forecast_days=1"),
        ("weather-archive", f"{config.open_meteo_archive_url}/v1/archive?latitude=52.52"
                            f"&longitude=13.41&start_date=2020-01-01&end_date=2020-01-01"
                            f"&hourly=temperature_2m&timezone=UTC"),
        ("nominatim", f"{config.nominatim_url}/status?format=json"),
        ("musicbrainz", f"{config.musicbrainz_url}/ws/2/recording?query=recording%3A%22x%22"
                        f"&limit=1&fmt=json"),
        ("coverart", f"{config.coverart_url}/"),
        ("listenbrainz", f"{config.listenbrainz_url}/1/search/users?search_term=k-mood"),
    ]
    if config.lastfm_api_key:
        probes.append(("lastfm", f"{config.lastfm_url}/2.0/?" + urllib.parse.urlencode({
            "method": "chart.gettopartists", "api_key": config.lastfm_api_key,
            "format": "json", "limit": "1"})))
    return probes


def check_network(config: Config) -> Iterator[Check]:
    for name, url in upstream_probes(config):
        host = urllib.parse.urlsplit(url).netloc
        started = time.monotonic()
        try:
            answer = exchange("GET", url, user_agent=config.user_agent,
                              deadline=started + NETWORK_TIMEOUT_S, max_bytes=1 * MIB)
        except UpstreamError as exc:
            yield Check(name, FAIL, str(exc),
                        "check DNS, the firewall and the base URL setting")
            continue
        ms = (time.monotonic() - started) * 1000
        if answer.status >= 400 and answer.status != 404:
            yield Check(name, WARN, f"{host} answered HTTP {answer.status} in {ms:.0f} ms",
                        "reachable, but it refused this request: check the URL or key")
        else:
            yield Check(name, OK, f"{host} answered HTTP {answer.status} in {ms:.0f} ms")
    if config.nats_url:
        yield from check_nats(config)
    if config.oidc_issuer and importlib.util.find_spec("authlib") is not None:
        yield check_single_sign_on(config)


def check_single_sign_on(config: Config) -> Check:
    """The OpenID provider's discovery document names the issuer as configured, and its keys
    can be read: what every sign-in needs first."""
    from kmood_lib.bootstrap import openid_provider
    from kmood_lib.upstream.openid import ProviderUnavailable

    provider = openid_provider(config, SystemClock())
    started = time.monotonic()
    try:
        metadata = provider.metadata()
        keys = provider.signing_keys()
    except ProviderUnavailable as exc:
        return Check("single-sign-on", FAIL, str(exc),
                     "check KMOOD_OIDC_ISSUER (exactly as the provider says it), DNS and TLS")
    ms = (time.monotonic() - started) * 1000
    return Check("single-sign-on", OK,
                 f"{metadata.issuer} answered its discovery document and {keys} signing"
                 f" key(s) in {ms:.0f} ms; redirect URI {provider.redirect_uri}")


def check_nats(config: Config) -> Iterator[Check]:
    """Each NATS server greets a new connection with an INFO line: enough to know it is there."""
    for url in config.nats_url.split(","):
        parts = urllib.parse.urlsplit(url)
        port = parts.port or 4222
        try:
            with socket.create_connection((parts.hostname, port), NETWORK_TIMEOUT_S) as sock:
                sock.settimeout(NETWORK_TIMEOUT_S)
                greeting = sock.recv(4096)
        except OSError as exc:
            yield Check("nats", FAIL, f"{parts.hostname}:{port}: {exc}",
                        "is nats-server running? k-mood works without it, only slower to wake")
            continue
        if greeting.startswith(b"INFO "):
            yield Check("nats", OK, f"{parts.hostname}:{port} is a NATS server")
        else:
            yield Check("nats", FAIL, f"{parts.hostname}:{port} did not greet like NATS",
                        "check KMOOD_NATS_URL")


EXIT_DOCTOR_FAILED = 1


def cmd_doctor(args, config: Config, environ: Mapping[str, str]) -> int:
    checks = run(config, environ, SystemClock().now_ms(), network=args.network)
    for check in checks:
        print(check.line())
    failed = [c.name for c in checks if c.level == FAIL]
    warned = sum(c.level == WARN for c in checks)
    print(f"doctor: {len(failed)} failed ({', '.join(dict.fromkeys(failed))}), {warned} warning(s)"
          if failed else f"doctor: no failures, {warned} warning(s)")
    return EXIT_DOCTOR_FAILED if failed else 0
