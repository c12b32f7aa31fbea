"""The composition root: config -> database -> adapters -> services, for both entry points."""

from __future__ import annotations

import logging
import random
import sqlite3
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from kmood_lib.accounts.passwords import PasswordHasher
from kmood_lib.core import db
from kmood_lib.core.budget import MemoryBudget
from kmood_lib.core.clock import SystemClock
from kmood_lib.core.config import Config, MissingDependency
from kmood_lib.core.gate import ComputeGate
from kmood_lib.core.group_commit import GroupCommit
from kmood_lib.core.i18n import Languages
from kmood_lib.core.logs import EveryInterval, EveryKey
from kmood_lib.core.migrate import load_migrations
from kmood_lib.core.migrate import run as run_all
from kmood_lib.core.rate import RateLimit
from kmood_lib.enrich.insights import insights_kind
from kmood_lib.enrich.places import place_kind
from kmood_lib.enrich.song_metadata import song_metadata_kind
from kmood_lib.enrich.weather import weather_kind
from kmood_lib.journal.outbox import OutboxBatches
from kmood_lib.journal.versions import VersionedCache
from kmood_lib.queue import relay, sweeps
from kmood_lib.queue.sweeps import JobKind, JobKinds
from kmood_lib.reminders import push
from kmood_lib.reminders.delivery import reminder_kind
from kmood_lib.upstream.coverart import CoverArt
from kmood_lib.upstream.lastfm import LastFm
from kmood_lib.upstream.listenbrainz import ListenBrainz
from kmood_lib.upstream.musicbrainz import MusicBrainz
from kmood_lib.upstream.nominatim import Nominatim
from kmood_lib.upstream.notify import Notifier
from kmood_lib.upstream.open_meteo import OpenMeteo

log = logging.getLogger(__name__)


@dataclass
class Services:
    """Everything a request handler, CLI command or worker step may use; built only here."""

    config: Config
    clock: SystemClock
    rng: random.Random
    connect: Callable[[], sqlite3.Connection]
    writer: Callable  # context manager: the shared write connection under the write lock
    group_commit: GroupCommit  # the request path's saves, committed in groups on the writer
    close_writer: Callable[[], None]
    hasher: PasswordHasher
    listenbrainz: ListenBrainz
    lastfm: LastFm
    open_meteo: OpenMeteo
    nominatim: Nominatim
    musicbrainz: MusicBrainz
    coverart: CoverArt
    notifier: Notifier
    job_kinds: JobKinds
    relay: relay.NullRelay | relay.NatsRelay  # started by the entry point that serves or works
    # Answers kept by journal version, each cache its share of KMOOD_CACHE_MAX_BYTES.
    insight_cache: VersionedCache
    stats_cache: VersionedCache
    entries_cache: VersionedCache  # GET /api/entries pages by user, query and journal version
    insight_gate: ComputeGate  # who may compute insights now (KMOOD_INSIGHTS_CONCURRENCY)
    shared_rate: RateLimit  # shared reports' openings, per link and per address
    push_keys: push.Keys  # the installation's VAPID key, for Web Push (read or made once)
    outbox: OutboxBatches  # the devices' offline outbox batches being synced, counted for the log
    languages: Languages  # the catalogues in locale/, each compiled on first use
    # Run inside an entry's save transaction, behind one SAVEPOINT (journal.saving.prompt):
    # (conn, user_id, entry_id, now_ms) -> the job kinds that have work for the entry.
    prompt_hooks: list[Callable] = field(default_factory=list)
    # Memory the photos being read at once may take (KMOOD_PHOTO_MEMORY_BYTES).
    photo_budget: MemoryBudget | None = None
    # Sign-in lines that can repeat on every request, at most one a minute: a proxy's header
    # from an address not trusted, and a sign-in refused (by name).
    proxy_ignored_log: EveryInterval = field(default_factory=EveryInterval)
    sign_in_refused_log: EveryKey = field(default_factory=EveryKey)
    # The OpenID provider people sign in with (KMOOD_OIDC_ISSUER); None when there is none.
    openid: object | None = None
    # k-mood as the passkeys' relying party (KMOOD_PASSKEYS); None when they are off.
    passkeys: object | None = None


def passkey_relying_party(config: Config) -> object | None:
    """k-mood as WebAuthn's relying party, when KMOOD_PASSKEYS is on: only then is
    py_webauthn imported (requirements-sso.txt)."""
    if not config.passkeys:
        return None
    try:
        from kmood_lib.accounts.passkeys import RelyingParty

        return RelyingParty(config.public_url)
    except ImportError as exc:
        raise MissingDependency(
            f"KMOOD_PASSKEYS is on but {exc.name or 'webauthn'} is not installed:"
            " pip install -r requirements-sso.txt") from None


def openid_provider(config: Config, clock) -> object | None:
    """The OpenID provider's client, when KMOOD_OIDC_ISSUER is set: only then is Authlib
    imported (requirements-sso.txt), so a household that signs in with passwords runs
    without it."""
    if not config.oidc_issuer:
        return None
    try:
        from kmood_lib.upstream.openid import OpenIDProvider
    except ImportError as exc:
        raise MissingDependency(
            f"KMOOD_OIDC_ISSUER is set but {exc.name or 'Authlib'} is not installed:"
            " pip install -r requirements-sso.txt") from None
    return OpenIDProvider(config.oidc_issuer, config.oidc_client_id, config.oidc_client_secret,
                          config.oidc_scopes, config.public_url + "/login/oidc/callback",
                          config.user_agent, username_claim=config.oidc_username_claim,
                          groups_claim=config.oidc_groups_claim,
                          clock=lambda: clock.now_ms() / 1000)


def caches(config: Config) -> dict[str, VersionedCache]:
    """KMOOD_CACHE_MAX_BYTES shared by what a miss costs: an insights answer takes seconds to
    compute again (half), a stats page tenths, an entry list milliseconds (a quarter each).
    Fixed shares, so that a client paging through many lists cannot push out insights."""
    total = config.cache_max_bytes
    return {"insights": VersionedCache(total // 2), "stats": VersionedCache(total // 4),
            "entries": VersionedCache(total - total // 2 - total // 4)}


def insight_gate(config: Config) -> ComputeGate:
    """KMOOD_INSIGHTS_CONCURRENCY computations at once (0: a quarter of the threads, at least
    one), and as many requests waiting for one of them, but never so many that computing and
    waiting together take the server's last thread."""
    running = config.insights_concurrency or max(1, config.threads // 4)
    return ComputeGate("insights", running, max(0, min(running, config.threads - running - 1)))


def production_kinds(config: Config) -> list[JobKind]:
    """The kinds this build runs in production (enrichment, reminders and the standard ranges'
    insights register here)."""
    return [weather_kind(config), place_kind(config), song_metadata_kind(config),
            reminder_kind(config), insights_kind(config)]


def upstreams(config: Config) -> dict:
    """The adapters for the services k-mood asks, as the configuration points them."""
    return dict(
        listenbrainz=ListenBrainz(config.listenbrainz_url, config.user_agent),
        lastfm=LastFm(config.lastfm_url, config.lastfm_api_key, config.user_agent),
        open_meteo=OpenMeteo(config.open_meteo_archive_url, config.open_meteo_forecast_url,
                             config.user_agent),
        nominatim=Nominatim(config.nominatim_url, config.user_agent),
        musicbrainz=MusicBrainz(config.musicbrainz_url, config.user_agent),
        coverart=CoverArt(config.coverart_url, config.user_agent),
        notifier=Notifier(config.user_agent, config.allow_private_notify_urls,
                          config.public_url),
    )


def bootstrap(
    config: Config,
    *,
    clock=None,
    rng: random.Random | None = None,
    migrate: bool = True,
    job_kinds: Iterable[JobKind] = (),
) -> Services:
    """Build the object graph; run migrations first unless told not to (MigrationError escapes)."""
    clock = clock or SystemClock()
    # this process's writers queue here, not in busy sleeps, for at most the busy timeout
    write_lock = db.OwnedLock(config.busy_timeout_ms)
    writer = db.SharedWriter(lambda: db.connect(
        config.db_path, config.busy_timeout_ms, guard=write_lock,
        autocheckpoint_pages=config.wal_autocheckpoint_pages,
        journal_size_limit_bytes=config.wal_size_limit_bytes,
        synchronous=config.synchronous, cache_bytes=config.sqlite_cache_bytes), write_lock)

    def connect() -> sqlite3.Connection:
        return db.connect(config.db_path, config.busy_timeout_ms, write_lock,
                          config.wal_autocheckpoint_pages, config.wal_size_limit_bytes,
                          synchronous=config.synchronous, cache_bytes=config.sqlite_cache_bytes)

    kept = caches(config)
    services = Services(
        config=config,
        clock=clock,
        rng=rng or random.Random(),
        connect=connect,
        writer=writer,
        group_commit=GroupCommit(writer, clock.monotonic),
        close_writer=writer.close,
        hasher=PasswordHasher(config.scrypt_n),
        **upstreams(config),
        job_kinds=JobKinds([*production_kinds(config), *job_kinds]),
        relay=relay.from_config(config),
        photo_budget=MemoryBudget(config.photo_memory_bytes,
                                  max_waiting=max(1, config.threads // 4)),
        insight_cache=kept["insights"],
        stats_cache=kept["stats"],
        entries_cache=kept["entries"],
        insight_gate=insight_gate(config),
        shared_rate=RateLimit(config.shared_report_rate, clock.monotonic),
        push_keys=push.Keys(config),
        outbox=OutboxBatches(),
        languages=Languages(pseudo=config.pseudo_languages),
        openid=openid_provider(config, clock),
        passkeys=passkey_relying_party(config),
    )
    if any(kind.prompt for kind in services.job_kinds):
        services.prompt_hooks.append(sweeps.prompt_enqueue(services))
    if migrate:
        run_migrations(services)
    return services


def run_migrations(services: Services) -> list[int]:
    conn = services.connect()
    try:
        return run_all(conn, load_migrations(), services.clock.now_ms)
    finally:
        conn.close()
