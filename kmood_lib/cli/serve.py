"""`kmood.py serve` (the default) and `kmood.py migrate`: the web server on waitress, and the
schema brought up to date on its own."""

from __future__ import annotations

import logging
import os
import resource
import signal
import socket

import waitress

from kmood_lib.bootstrap import bootstrap, run_migrations
from kmood_lib.cli.runner import EXIT_OK, UsageError
from kmood_lib.core.config import Config
from kmood_lib.core.logs import queue_depth_log
from kmood_lib.core.memory import give_back_freed_memory
from kmood_lib.web.address_limit import limit_each_address
from kmood_lib.web.app import make_wsgi
from kmood_lib.web.plugins import photos_body_bytes

log = logging.getLogger("kmood")

SPARE_DESCRIPTORS = 64  # the database, its WAL, logs, the listening socket, the trigger pipe
# What waitress takes of a body before the thread writing it waits for the client (its
# default is 16 MB): above the largest file k-mood streams (a memo or photo, 32 MB at most),
# so a client that stops reading holds no thread and no read snapshot, only this much of
# waitress's temporary file until the channel times out (KMOOD_CHANNEL_TIMEOUT_S). Streamed
# bodies come in 1 MiB pieces (core.blobs), which waitress spools to that file at once.
OUTBUF_HIGH_WATERMARK = 64 * 1024 * 1024


def cmd_serve(args, config: Config, bootstrap_kwargs: dict | None = None) -> int:
    """Serve the app until SIGTERM or SIGINT."""
    give_back_freed_memory()  # a photo's megabytes leave with it (core.memory)
    services = bootstrap(config, **(bootstrap_kwargs or {}))
    wsgi = make_wsgi(services)
    server = build_server(config, wsgi)
    if services.openid is not None:  # at hand for the first sign-in and the pages' CSP
        services.openid.warm()
    serve(server, services, wsgi.bottle.config["kmood.pool"])
    return EXIT_OK


def build_server(config: Config, wsgi):
    """waitress listening on KMOOD_HOST:KMOOD_PORT over `wsgi`, with descriptors for its
    connections and each client address held to its share; a UsageError if it cannot listen."""
    make_room_for_connections(config.connection_limit)
    try:
        # waitress reads a whole body before the app runs, so its own (plain-text) 413 sits at
        # the upload limit; every other route refuses a larger Content-Length itself (JSON 413).
        server = waitress.create_server(
            wsgi, host=config.host, port=config.port, threads=config.threads,
            max_request_body_size=max(config.max_body_bytes, config.max_upload_bytes,
                                      photos_body_bytes(config)) + 65536,
            connection_limit=config.connection_limit, channel_timeout=config.channel_timeout_s,
            asyncore_use_poll=True,  # select() stops at 1 024 descriptors
            outbuf_high_watermark=OUTBUF_HIGH_WATERMARK,
            ident="k-mood",
        )
    except (OSError, ValueError) as exc:  # address in use, unknown host, privileged port
        raise UsageError(f"cannot listen on {config.host}:{config.port}: "
                         f"{getattr(exc, 'strerror', None) or exc}") from None
    server.task_dispatcher.queue_logger = queue_depth_log()
    if config.connections_per_address:
        limit_each_address(server, config.connections_per_address)
    return server


def make_room_for_connections(connection_limit: int) -> None:
    """Raise the open-file limit to hold every connection and the spare descriptors; say so
    when the system allows fewer."""
    descriptors = raise_open_file_limit(connection_limit + SPARE_DESCRIPTORS)
    if descriptors < connection_limit + SPARE_DESCRIPTORS:
        log.warning("KMOOD_CONNECTION_LIMIT is %d but this process may open only %d files:"
                    " raise `ulimit -n` (LimitNOFILE= under systemd)",
                    connection_limit, descriptors)


def raise_open_file_limit(wanted: int) -> int:
    """Lift the soft limit on open descriptors towards `wanted` (at most the hard limit);
    returns the soft limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            pass
    return soft


def stop(signum, frame):
    """SIGTERM and SIGINT: waitress's loop ends, once the requests in flight have ended."""
    raise SystemExit(0)


def addresses(server) -> list[str]:
    """Where the server listens, as URLs: a host name with several addresses (`localhost` as
    ::1 and 127.0.0.1) gives waitress one listener each, which have no effective_host."""
    found = getattr(server, "effective_listen", None) or [
        (server.effective_host, server.effective_port)]
    return [f"http://[{host}]:{port}" if ":" in str(host) else f"http://{host}:{port}"
            for host, port, *_ in found]


def say_who_may_sign_in(config: Config) -> None:
    """With a sign-in proxy: whose header is believed, and a warning for trusted networks
    wider than one host's neighbourhood (a /24, or a /64): whoever else is in them can sign
    in as anyone by sending the header themselves."""
    if not config.auth_header:
        return
    log.info("sign-in: the %s header is believed from %s only", config.auth_header,
             ", ".join(str(n) for n in config.trusted_proxies))
    wide = [str(n) for n in config.trusted_proxies
            if n.prefixlen < (24 if n.version == 4 else 64)]
    if wide:
        log.warning("KMOOD_TRUSTED_PROXIES: %s hold(s) more than the proxy: anyone there can"
                    " sign in as anyone with the %s header; trust the proxy's own address",
                    ", ".join(wide), config.auth_header)


def serve(server, services, pool) -> None:
    """Run the server until stopped, then close it, the relay, the threads' connections and
    the shared writer."""
    services.relay.start(f"k-mood server {socket.gethostname()}:{os.getpid()}")
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    log.info("serving on %s with %d threads", " and ".join(addresses(server)),
             services.config.threads)
    log.info("background work (enrichment, reminders, session cleanup) runs in kmood_worker.py; "
             "this process does none of it: run kmood_worker.py beside it")
    say_who_may_sign_in(services.config)
    try:
        server.run()  # returns after SystemExit from the handler, once in-flight requests end
    finally:
        server.close()
        services.relay.close()
        pool.close_all()
        services.close_writer()
    log.info("server stopped")


def cmd_migrate(args, config: Config) -> int:
    services = bootstrap(config, migrate=False)
    applied = run_migrations(services)
    print(f"applied {len(applied)} migration(s)" if applied else "database is up to date")
    return EXIT_OK
