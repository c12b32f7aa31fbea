"""Configuration from KMOOD_* environment variables, parsed strictly into a frozen dataclass."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from kmood_lib import __version__
from kmood_lib.core.text import has_surrogate

PROJECT_URL = "https://github.com/k-mood/k-mood"
DEFAULT_USER_AGENT = f"k-mood/{__version__} (+{PROJECT_URL})"


# The translation catalogues (SPEC §13): English is the source and needs none.
LOCALE_DIR = Path(__file__).resolve().parents[2] / "locale"
SOURCE_LANGUAGE = "en"


def available_languages(locale_dir: Path = LOCALE_DIR) -> tuple[str, ...]:
    """English and every language with a catalogue in locale/<lang>/LC_MESSAGES/messages.po."""
    found = {path.parent.parent.name for path in locale_dir.glob("*/LC_MESSAGES/messages.po")}
    return tuple(sorted(found | {SOURCE_LANGUAGE}))


class ConfigError(ValueError):
    """A KMOOD_* variable holds a value this build cannot accept."""


class MissingDependency(Exception):
    """A configured feature needs an optional package this installation lacks."""


def _int(lo: int | None = None, hi: int | None = None) -> Callable[[str], int]:
    def parse(raw: str) -> int:
        if not re.fullmatch(r"[+-]?[0-9]+", raw.strip()):
            raise ValueError(f"expected an integer, got {raw!r}")
        value = int(raw)
        if lo is not None and value < lo:
            raise ValueError(f"must be >= {lo}, got {value}")
        if hi is not None and value > hi:
            raise ValueError(f"must be <= {hi}, got {value}")
        return value

    return parse


def _power_of_two(lo: int, hi: int) -> Callable[[str], int]:
    as_int = _int(lo, hi)

    def parse(raw: str) -> int:
        value = as_int(raw)
        if value & (value - 1):
            raise ValueError(f"must be a power of two (scrypt's rule), got {value}")
        return value

    return parse


def _float(lo: float = 0.0) -> Callable[[str], float]:
    def parse(raw: str) -> float:
        try:
            value = float(raw)
        except ValueError:
            raise ValueError(f"expected a number, got {raw!r}") from None
        if value != value or value in (float("inf"), float("-inf")) or value < lo:
            raise ValueError(f"must be a finite number >= {lo}, got {raw!r}")
        return value

    return parse


def _share(raw: str) -> float:
    """A fraction above 0 and at most 1."""
    value = _float(0.0)(raw)
    if not 0 < value <= 1:
        raise ValueError(f"must be above 0 and at most 1, got {raw!r}")
    return value


def _bool(raw: str) -> bool:
    lowered = raw.strip().lower()
    if lowered in ("1", "true"):
        return True
    if lowered in ("0", "false"):
        return False
    raise ValueError(f"expected one of 0, 1, true, false, got {raw!r}")


def _text(raw: str) -> str:
    return raw


def _nonempty(raw: str) -> str:
    if not raw.strip():
        raise ValueError("must not be empty")
    return raw.strip()


def _url(raw: str) -> str:
    value = raw.strip().rstrip("/")
    if not re.fullmatch(r"https?://[^\s/]+(/\S*)?", value):
        raise ValueError(f"expected an http(s) URL, got {raw!r}")
    return value


def _optional_url(raw: str) -> str:
    return _url(raw) if raw.strip() else ""


def _nats_urls(raw: str) -> str:
    """Empty (no relay), or comma-separated nats:// / tls:// server URLs."""
    urls = [u.strip() for u in raw.split(",") if u.strip()]
    for url in urls:
        if not re.fullmatch(r"(nats|tls|ws|wss)://[^\s/,]+/?", url):
            raise ValueError(f"expected nats://host:port (comma-separated for several), got {url!r}")
    return ",".join(urls)


def _subject_prefix(raw: str) -> str:
    value = raw.strip()
    if not re.fullmatch(r"[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*", value):
        raise ValueError(f"expected subject tokens such as 'kmood' or 'home.kmood', got {raw!r}")
    return value


def _synchronous(raw: str) -> str:
    value = raw.strip().upper()
    if value not in ("FULL", "NORMAL"):
        raise ValueError(f"expected full or normal, got {raw!r}")
    return value


def _checkpoint_mode(raw: str) -> str:
    value = raw.strip().lower()
    if value not in ("truncate", "passive", "off"):
        raise ValueError(f"expected truncate, passive or off, got {raw!r}")
    return value


def _log_level(raw: str) -> str:
    value = raw.strip().upper()
    if value not in ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"):
        raise ValueError(f"expected DEBUG, INFO, WARNING, ERROR or CRITICAL, got {raw!r}")
    return value


def _language(raw: str) -> str:
    value = raw.strip()
    known = available_languages()
    if value not in known:
        raise ValueError(f"expected one of {', '.join(known)}, got {raw!r}")
    return value


def _networks(raw: str) -> tuple:
    """Comma-separated addresses or CIDR blocks (127.0.0.1, 10.0.0.0/8, ::1), each a network;
    empty: none."""
    import ipaddress

    out = []
    for part in (p.strip() for p in raw.split(",")):
        if not part:
            continue
        try:
            out.append(ipaddress.ip_network(part, strict=False))
        except ValueError:
            raise ValueError(f"expected addresses or CIDR blocks such as 127.0.0.1 or"
                             f" 172.16.0.0/12, got {part!r}") from None
    return tuple(out)


# Headers a sign-in proxy's cannot be: the server reads them for something else, or the WSGI
# environ does not carry them as HTTP_* (and waitress drops any name with an underscore).
_NOT_SIGN_IN_HEADERS = {"authorization", "content-length", "content-type", "cookie", "host",
                        "x-csrf-token", "x-forwarded-for"}


def _on_off(raw: str) -> bool:
    lowered = raw.strip().lower()
    if lowered in ("on", "1", "true"):
        return True
    if lowered in ("off", "0", "false"):
        return False
    raise ValueError(f"expected on or off, got {raw!r}")


def _header_name(raw: str) -> str:
    """An HTTP header's name (letters, digits and '-'), or empty: off."""
    value = raw.strip()
    if value and not re.fullmatch(r"[A-Za-z0-9-]{1,64}", value):
        raise ValueError(f"expected a header name of letters, digits and '-' such as"
                         f" Remote-User, got {raw!r}")
    if value.lower() in _NOT_SIGN_IN_HEADERS:
        raise ValueError(f"{value} is a header k-mood reads for something else")
    return value


def _group_name(raw: str) -> str:
    value = raw.strip()
    if len(value) > 200 or any(ord(c) < 0x20 or c == "," for c in value):
        raise ValueError(f"expected one group's name (no commas), got {raw!r}")
    return value


def _issuer(raw: str) -> str:
    """An OpenID provider's issuer exactly as it names itself (a trailing '/' is kept: its ID
    tokens say it the same way), or empty: off."""
    value = raw.strip()
    if value and not re.fullmatch(r"https?://[^\s/?#]+(/[^\s?#]*)?", value):
        raise ValueError(f"expected the provider's issuer URL such as https://auth.example.com,"
                         f" got {raw!r}")
    return value


def _line(raw: str) -> str:
    """One line of printable text (an id, a name), up to 200 characters."""
    value = raw.strip()
    if len(value) > 200 or any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in value):
        raise ValueError(f"expected one line of at most 200 characters, got {raw[:40]!r}")
    return value


def _scopes(raw: str) -> str:
    """Space-separated OAuth scopes, openid among them."""
    scopes = raw.split()
    if "openid" not in scopes:
        raise ValueError(f"must include openid, got {raw!r}")
    if any(not re.fullmatch(r"[!#-\[\]-~]{1,100}", scope) for scope in scopes):
        raise ValueError(f"expected space-separated scopes such as 'openid profile email',"
                         f" got {raw!r}")
    return " ".join(dict.fromkeys(scopes))


def _claim_name(raw: str) -> str:
    value = raw.strip()
    if not re.fullmatch(r"[A-Za-z0-9_.:/-]{1,100}", value):
        raise ValueError(f"expected a claim's name such as groups, got {raw!r}")
    return value


def _setting(env: str, default: str, parse: Callable[[str], object], doc: str,
             secret: bool = False):
    """A setting read from `env`; a secret's value is left out of the config's repr (logs)."""
    return field(repr=not secret,
                 metadata={"env": env, "default": default, "parse": parse, "doc": doc})


@dataclass(frozen=True)
class Config:
    """Every operational setting; each field maps to one KMOOD_* variable (see docs/configuration.md)."""

    db_path: str = _setting("KMOOD_DB", "./data/kmood.db", _nonempty, "the SQLite database file")
    host: str = _setting("KMOOD_HOST", "127.0.0.1", _nonempty, "address the server listens on")
    port: int = _setting("KMOOD_PORT", "8080", _int(0, 65535), "port the server listens on")
    threads: int = _setting("KMOOD_THREADS", "8", _int(1, 256), "waitress worker threads")
    connection_limit: int = _setting(
        "KMOOD_CONNECTION_LIMIT", "1000", _int(1, 100_000), "open connections the server holds"
    )
    connections_per_address: int = _setting(
        "KMOOD_CONNECTIONS_PER_ADDRESS", "100", _int(0),
        "open connections one client address may hold (0: no cap)"
    )
    channel_timeout_s: int = _setting(
        "KMOOD_CHANNEL_TIMEOUT_S", "60", _int(1), "an idle connection is closed after this long"
    )
    busy_timeout_ms: int = _setting(
        "KMOOD_BUSY_TIMEOUT_MS", "10000", _int(0), "SQLite busy timeout for every connection"
    )
    synchronous: str = _setting(
        "KMOOD_SYNCHRONOUS", "full", _synchronous,
        "full: a commit is on disk before it is answered (a power cut loses nothing saved);"
        " normal: faster commits that a power cut or OS crash can roll back"
    )
    default_language: str = _setting(
        "KMOOD_DEFAULT_LANGUAGE", "en", _language,
        "the pages' language when neither the person's setting nor the browser's"
        " Accept-Language names one k-mood has"
    )
    pseudo_languages: bool = _setting(
        "KMOOD_PSEUDO_LANGUAGES", "0", _bool,
        "also offer en-XA (every word accented and longer) and ar-XB (the same, right to left):"
        " a word still plain on a page is one no catalogue can translate (for translators)"
    )
    log_level: str = _setting("KMOOD_LOG_LEVEL", "INFO", _log_level, "logging level")
    cookie_secure: bool = _setting(
        "KMOOD_COOKIE_SECURE", "0", _bool, "mark the session cookie Secure (behind HTTPS)"
    )
    session_ttl_s: int = _setting("KMOOD_SESSION_TTL_S", "2592000", _int(60), "session lifetime")
    scrypt_n: int = _setting(
        "KMOOD_SCRYPT_N", "16384", _power_of_two(2, 2**20),
        "scrypt cost for new password hashes (a power of two)"
    )
    login_max_failures: int = _setting(
        "KMOOD_LOGIN_MAX_FAILURES", "5", _int(1), "failed logins allowed per username per window"
    )
    login_max_failures_per_address: int = _setting(
        "KMOOD_LOGIN_MAX_FAILURES_PER_ADDRESS", "50", _int(1),
        "failed logins allowed per client address per window (a household or proxy shares one)"
    )
    login_window_s: int = _setting(
        "KMOOD_LOGIN_WINDOW_S", "900", _int(1), "window for counting failed logins"
    )
    trust_proxy: bool = _setting(
        "KMOOD_TRUST_PROXY", "0", _bool, "take the client address from X-Forwarded-For"
    )
    password_login: bool = _setting(
        "KMOOD_PASSWORD_LOGIN", "on", _on_off,
        "off: nobody signs in with a password (the login form, /setup, password changes and"
        " resets are gone); people sign in through the sign-in proxy, and an admin recovers"
        " from the shell (kmood.py users link)"
    )
    trusted_proxies: tuple = _setting(
        "KMOOD_TRUSTED_PROXIES", "", _networks,
        "addresses or CIDR blocks of the sign-in proxies whose KMOOD_AUTH_HEADER is believed"
        " (comma-separated); from any other address the header is ignored"
    )
    auth_header: str = _setting(
        "KMOOD_AUTH_HEADER", "", _header_name,
        "the header a forward-auth proxy (Authelia, Authentik, oauth2-proxy) signs people in"
        " with, such as Remote-User; empty: off"
    )
    auth_groups_header: str = _setting(
        "KMOOD_AUTH_GROUPS_HEADER", "", _header_name,
        "the proxy's header with the person's groups, comma-separated (Remote-Groups), read"
        " for KMOOD_SSO_MEMBER_GROUP and KMOOD_SSO_ADMIN_GROUP"
    )
    auth_logout_url: str = _setting(
        "KMOOD_AUTH_LOGOUT_URL", "", _optional_url,
        "where logging out of k-mood sends a person signed in by the proxy, to sign out there"
        " too (Authelia: https://auth.example.com/logout); empty: the logout page says so"
    )
    sso_auto_create: bool = _setting(
        "KMOOD_SSO_AUTO_CREATE", "0", _bool,
        "a person the sign-in proxy vouches for who has no k-mood account yet gets one (a"
        " member) at their first visit; off: an admin links them in Household"
    )
    sso_link_by_email: bool = _setting(
        "KMOOD_SSO_LINK_BY_EMAIL", "0", _bool,
        "a first single sign-on by someone no account is linked to links the account whose"
        " email address (Settings) the OpenID provider says is theirs and has verified"
    )
    sso_member_group: str = _setting(
        "KMOOD_SSO_MEMBER_GROUP", "", _group_name,
        "with KMOOD_SSO_AUTO_CREATE: only people in this group get an account (empty: anyone)"
    )
    sso_admin_group: str = _setting(
        "KMOOD_SSO_ADMIN_GROUP", "", _group_name,
        "with KMOOD_SSO_AUTO_CREATE: people in this group get an admin's account"
    )
    oidc_issuer: str = _setting(
        "KMOOD_OIDC_ISSUER", "", _issuer,
        "single sign-on with OpenID Connect: the provider's issuer URL, exactly as its"
        " /.well-known/openid-configuration says it (Authelia: https://auth.example.com);"
        " needs KMOOD_PUBLIC_URL (the redirect URI is <it>/login/oidc/callback); empty: off"
    )
    oidc_client_id: str = _setting(
        "KMOOD_OIDC_CLIENT_ID", "", _line, "the client ID k-mood is registered with there"
    )
    oidc_client_secret: str = _setting(
        "KMOOD_OIDC_CLIENT_SECRET", "", _line,
        "its client secret (empty: a public client, PKCE only); better kept in"
        " KMOOD_OIDC_CLIENT_SECRET_FILE", secret=True
    )
    oidc_client_secret_file: str = _setting(
        "KMOOD_OIDC_CLIENT_SECRET_FILE", "", _text,
        "a file holding the client secret (a Docker or systemd secret), read at start"
    )
    oidc_scopes: str = _setting(
        "KMOOD_OIDC_SCOPES", "openid profile email", _scopes,
        "the scopes asked for, space-separated; add groups (Authelia, Authentik) for"
        " KMOOD_SSO_MEMBER_GROUP and KMOOD_SSO_ADMIN_GROUP"
    )
    oidc_name: str = _setting(
        "KMOOD_OIDC_NAME", "", _line,
        "the provider's name on the login page's button (\"Sign in with Authelia\"); empty:"
        " the issuer's host"
    )
    oidc_username_claim: str = _setting(
        "KMOOD_OIDC_USERNAME_CLAIM", "preferred_username", _claim_name,
        "the claim an account made at a first sign-in is named by (KMOOD_SSO_AUTO_CREATE);"
        " never used to find an account"
    )
    oidc_groups_claim: str = _setting(
        "KMOOD_OIDC_GROUPS_CLAIM", "groups", _claim_name,
        "the claim holding the person's groups, for KMOOD_SSO_MEMBER_GROUP and"
        " KMOOD_SSO_ADMIN_GROUP"
    )
    passkeys: bool = _setting(
        "KMOOD_PASSKEYS", "0", _bool,
        "1: people may add passkeys in Settings and sign in with them (no user name typed);"
        " needs KMOOD_PUBLIC_URL on https:// (or http://localhost), whose host is the passkeys'"
        " relying party, and py_webauthn (requirements-sso.txt)"
    )
    max_body_bytes: int = _setting(
        "KMOOD_MAX_BODY_BYTES", "1048576", _int(1024), "largest accepted JSON body"
    )
    max_upload_bytes: int = _setting(
        "KMOOD_MAX_UPLOAD_BYTES", "52428800", _int(1024), "largest accepted import upload"
    )
    import_max_bytes: int = _setting(
        "KMOOD_IMPORT_MAX_BYTES", "33554432", _int(1024),
        "most text one import reads: the CSV or JSON file, or a backup's backup.daylio inflated"
    )
    import_max_rows: int = _setting(
        "KMOOD_IMPORT_MAX_ROWS", "250000", _int(1), "most entries one import file may hold"
    )
    import_lease_s: int = _setting(
        "KMOOD_IMPORT_LEASE_S", "60", _int(1),
        "an import not heard from for this long has died: it is finished or dropped"
    )
    now_playing_timeout_ms: int = _setting(
        "KMOOD_NOW_PLAYING_TIMEOUT_MS", "2000", _int(1), "total deadline for now-playing"
    )
    job_batch: int = _setting("KMOOD_JOB_BATCH", "10", _int(1, 1000), "jobs claimed at once")
    job_lease_s: int = _setting("KMOOD_JOB_LEASE_S", "300", _int(1), "lease of a claimed job")
    job_max_attempts: int = _setting(
        "KMOOD_JOB_MAX_ATTEMPTS", "8", _int(1, 1000), "claims before a job is exhausted"
    )
    job_backoff_base_s: float = _setting(
        "KMOOD_JOB_BACKOFF_BASE_S", "30", _float(0), "first retry delay"
    )
    job_backoff_cap_s: float = _setting(
        "KMOOD_JOB_BACKOFF_CAP_S", "21600", _float(0), "longest retry delay"
    )
    job_cooldown_s: int = _setting(
        "KMOOD_JOB_COOLDOWN_S", "86400", _int(0), "sweep pause for an exhausted subject"
    )
    job_retention_s: int = _setting(
        "KMOOD_JOB_RETENTION_S", "604800", _int(0), "how long finished jobs are kept"
    )
    deleted_client_ids_keep_s: int = _setting(
        "KMOOD_DELETED_CLIENT_IDS_KEEP_S", "7776000", _int(0),
        "how long a deleted entry's client_id is remembered, so that an outbox sending it"
        " again cannot bring the entry back (an outbox keeps an entry until it is sent)"
    )
    sweep_interval_s: float = _setting(
        "KMOOD_SWEEP_INTERVAL_S", "300", _float(0), "time between sweeps"
    )
    sweep_limit: int = _setting("KMOOD_SWEEP_LIMIT", "100", _int(0), "jobs inserted per sweep")
    poll_interval_s: float = _setting(
        "KMOOD_POLL_INTERVAL_S", "5", _float(0.001), "worker full poll interval"
    )
    wake_interval_ms: int = _setting(
        "KMOOD_WAKE_INTERVAL_MS", "100", _int(1), "worker cheap change-check interval"
    )
    session_cleanup_interval_s: float = _setting(
        "KMOOD_SESSION_CLEANUP_INTERVAL_S", "3600", _float(0), "expired-session cleanup period"
    )
    checkpoint_interval_s: float = _setting(
        "KMOOD_CHECKPOINT_INTERVAL_S", "5", _float(0.001),
        "how often the worker copies the WAL into the database file"
    )
    checkpoint_mode: str = _setting(
        "KMOOD_CHECKPOINT_MODE", "truncate", _checkpoint_mode,
        "truncate: the worker copies the WAL back and cuts it to zero when idle; passive: it"
        " copies, never truncates; off: it leaves checkpoints to Litestream"
    )
    wal_autocheckpoint_pages: int = _setting(
        "KMOOD_WAL_AUTOCHECKPOINT_PAGES", "10000", _int(0),
        "WAL size at which a committing connection checkpoints itself (safety net)"
    )
    wal_size_limit_bytes: int = _setting(
        "KMOOD_WAL_SIZE_LIMIT_BYTES", "4194304", _int(0),
        "size the WAL file is cut back to once checkpointed (the worker truncates it when idle)"
    )
    sqlite_cache_bytes: int = _setting(
        "KMOOD_SQLITE_CACHE_BYTES", "2097152", _int(65536, 1 << 34),
        "SQLite's page cache per connection (one per server thread and the writer): what each"
        " may keep of the database in memory"
    )
    user_agent: str = _setting(
        "KMOOD_USER_AGENT", DEFAULT_USER_AGENT, _nonempty, "User-Agent of outbound requests"
    )
    enrich_weather: bool = _setting(
        "KMOOD_ENRICH_WEATHER", "1", _bool, "fill in the weather of entries with a location"
    )
    weather_cell_deg: float = _setting(
        "KMOOD_WEATHER_CELL_DEG", "0.1", _float(0.001),
        "coordinates are rounded to cells this many degrees wide: one weather request per cell"
    )
    weather_range_days: int = _setting(
        "KMOOD_WEATHER_RANGE_DAYS", "366", _int(1, 366),
        "longest span of days one weather request asks for (longer spans are split)"
    )
    weather_archive_delay_days: int = _setting(
        "KMOOD_WEATHER_ARCHIVE_DELAY_DAYS", "5", _int(0, 93),
        "days the weather archive lags; more recent days come from the forecast API"
    )
    enrich_place: bool = _setting(
        "KMOOD_ENRICH_PLACE", "1", _bool, "name the place of entries with a location"
    )
    place_cell_deg: float = _setting(
        "KMOOD_PLACE_CELL_DEG", "0.1", _float(0.01),
        "coordinates are rounded to cells this many degrees wide: one place name per cell"
    )
    enrich_songs: bool = _setting(
        "KMOOD_ENRICH_SONGS", "1", _bool, "look up the release and cover of songs on entries"
    )
    musicbrainz_min_score: int = _setting(
        "KMOOD_MUSICBRAINZ_MIN_SCORE", "90", _int(0, 100),
        "a MusicBrainz match scoring below this (0-100) is recorded as not found"
    )
    polite_interval_ms: int = _setting(
        "KMOOD_POLITE_INTERVAL_MS", "1000", _int(1),
        "least time between two requests to Nominatim, and to MusicBrainz, whole deployment"
    )
    open_meteo_archive_url: str = _setting(
        "KMOOD_OPEN_METEO_ARCHIVE_URL", "https://archive-api.open-meteo.com", _url, ""
    )
    open_meteo_forecast_url: str = _setting(
        "KMOOD_OPEN_METEO_FORECAST_URL", "https://api.open-meteo.com", _url, ""
    )
    nominatim_url: str = _setting(
        "KMOOD_NOMINATIM_URL", "https://nominatim.openstreetmap.org", _url, ""
    )
    musicbrainz_url: str = _setting("KMOOD_MUSICBRAINZ_URL", "https://musicbrainz.org", _url, "")
    coverart_url: str = _setting(
        "KMOOD_COVERART_URL", "https://coverartarchive.org", _url, ""
    )
    listenbrainz_url: str = _setting(
        "KMOOD_LISTENBRAINZ_URL", "https://api.listenbrainz.org", _url, ""
    )
    lastfm_url: str = _setting("KMOOD_LASTFM_URL", "https://ws.audioscrobbler.com", _url, "")
    lastfm_api_key: str = _setting("KMOOD_LASTFM_API_KEY", "", _text, "Last.fm API key",
                                   secret=True)
    public_url: str = _setting(
        "KMOOD_PUBLIC_URL", "", _optional_url,
        "the address users reach k-mood at (reminders link back to it); empty: no link"
    )
    reminder_grace_s: float = _setting(
        "KMOOD_REMINDER_GRACE_S", "3600", _float(1),
        "a reminder not sent within this long of its time is recorded as missed, never sent late"
    )
    reminder_test_timeout_s: float = _setting(
        "KMOOD_REMINDER_TEST_TIMEOUT_S", "5", _float(0.1),
        "how long a reminder's test send (Settings -> Reminders) waits for the channel, in all"
    )
    allow_private_notify_urls: bool = _setting(
        "KMOOD_ALLOW_PRIVATE_NOTIFY_URLS", "0", _bool,
        "allow reminder channels on loopback, link-local or private addresses"
    )
    vapid_private_key_file: str = _setting(
        "KMOOD_VAPID_PRIVATE_KEY_FILE", "", _text,
        "Web Push: a PEM file with the VAPID private key (P-256) k-mood signs pushes with (a"
        " Docker or systemd secret); empty: one made once and kept in the database"
    )
    vapid_subject: str = _setting(
        "KMOOD_VAPID_SUBJECT", "", _line,
        "Web Push: the contact push services are given (mailto: or https:); empty:"
        " KMOOD_PUBLIC_URL if it is https://, else mailto:webpush@localhost"
    )
    backup_dir: str = _setting(
        "KMOOD_BACKUP_DIR", "", _text, "where the worker keeps rotating backups (empty: off)"
    )
    backup_interval_s: float = _setting(
        "KMOOD_BACKUP_INTERVAL_S", "86400", _float(60), "time between two of the worker's backups"
    )
    backup_keep: int = _setting(
        "KMOOD_BACKUP_KEEP", "7", _int(1, 1000), "how many of the worker's backups are kept"
    )
    worker_heartbeat_s: float = _setting(
        "KMOOD_WORKER_HEARTBEAT_S", "10", _float(0.05),
        "a worker records its heartbeat at least this often, also while idle"
    )
    worker_stale_s: float = _setting(
        "KMOOD_WORKER_STALE_S", "60", _float(0.1),
        "no heartbeat for this long: the worker counts as gone and /healthz says degraded"
    )
    nats_url: str = _setting(
        "KMOOD_NATS_URL", "", _nats_urls,
        "optional NATS relay for prompt wake-ups (empty: off; needs requirements-nats.txt)"
    )
    nats_subject_prefix: str = _setting(
        "KMOOD_NATS_SUBJECT_PREFIX", "kmood", _subject_prefix,
        "prefix of the relay's subjects, so deployments can share one NATS"
    )

    photo_max_bytes: int = _setting(
        "KMOOD_PHOTO_MAX_BYTES", "33554432", _int(1024, 1 << 30),
        "largest photo accepted, as uploaded (a 50 MP phone JPEG is 10-25 MB; it is stored"
        " at most 2 560 px)"
    )
    photos_per_entry: int = _setting(
        "KMOOD_PHOTOS_PER_ENTRY", "6", _int(1, 100), "photos one entry may hold"
    )
    photo_max_pixels: int = _setting(
        "KMOOD_PHOTO_MAX_PIXELS", "200000000", _int(1, 1 << 32),
        "width x height a photo may have (larger: refused before it is decoded); a JPEG is"
        " decoded at the size kept, so 200 MP phone photos fit in KMOOD_PHOTO_MEMORY_BYTES"
    )
    photo_memory_bytes: int = _setting(
        "KMOOD_PHOTO_MEMORY_BYTES", "104857600", _int(16 * 1024 * 1024, 1 << 40),
        "memory all photos being read at once may take together (worked out from each header"
        " before decoding); one that needs more is refused (413), one that must wait for"
        " others waits up to 10 s, then 503 with Retry-After"
    )
    storage_quota_bytes: int = _setting(
        "KMOOD_STORAGE_QUOTA_BYTES", "0", _int(0, 1 << 50),
        "photos and voice memos one person may keep (a photo shown on several entries counts"
        " once); 0: no quota"
    )
    insights_min_days: int = _setting(
        "KMOOD_INSIGHTS_MIN_DAYS", "30", _int(2, 100_000),
        "logged days a range needs before the insights compare anything"
    )
    insights_min_each: int = _setting(
        "KMOOD_INSIGHTS_MIN_EACH", "14", _int(2, 100_000),
        "days with and days without something before it is compared"
    )
    insights_min_effect: float = _setting(
        "KMOOD_INSIGHTS_MIN_EFFECT", "0.3", _float(0.0),
        "the smallest difference in mood points shown as a finding"
    )
    insights_concurrency: int = _setting(
        "KMOOD_INSIGHTS_CONCURRENCY", "0", _int(0, 256),
        "insights computed at once in the whole server, each on a request's thread; a person"
        " has one at a time (0: a quarter of KMOOD_THREADS, at least 1)"
    )
    shared_report_rate: int = _setting(
        "KMOOD_SHARED_REPORT_RATE", "30", _int(1, 100_000),
        "a shared report's openings a minute, for each link and for each address (a photo in it"
        " counts a fiftieth); more is answered 429 with Retry-After"
    )
    insights_fdr: float = _setting(
        "KMOOD_INSIGHTS_FDR", "0.10", _share,
        "false discovery rate over all comparisons of an insights page (Benjamini–Hochberg)"
    )
    cache_max_bytes: int = _setting(
        "KMOOD_CACHE_MAX_BYTES", "16777216", _int(0, 1 << 40),
        "memory for computed answers kept by journal version, in all: half for insights, a"
        " quarter each for stats pages and entry lists (0: keep none)"
    )

    @classmethod
    def from_env(cls, environ: Mapping[str, str]) -> Config:
        """Parse every KMOOD_* variable; raise ConfigError naming the first bad one."""
        values = {}
        for f in dataclasses.fields(cls):
            env = f.metadata["env"]
            raw = environ.get(env, f.metadata["default"])
            try:
                if has_surrogate(raw):  # os.environ carries undecodable bytes as surrogates
                    raise ValueError("is not valid UTF-8")
                values[f.name] = f.metadata["parse"](raw)
            except ValueError as exc:
                raise ConfigError(f"{env}: {exc}") from None
        if values["worker_stale_s"] <= values["worker_heartbeat_s"]:
            raise ConfigError(
                f"KMOOD_WORKER_STALE_S: must exceed KMOOD_WORKER_HEARTBEAT_S "
                f"({values['worker_heartbeat_s']:g} s), got {values['worker_stale_s']:g}")
        most = max(1, values["threads"] - 1)  # other requests keep a thread
        if values["insights_concurrency"] > most:
            raise ConfigError(
                f"KMOOD_INSIGHTS_CONCURRENCY: must be at most {most}, below KMOOD_THREADS"
                f" ({values['threads']}), got {values['insights_concurrency']}")
        _web_push(values)
        if values["auth_header"] and not values["trusted_proxies"]:
            raise ConfigError(
                "KMOOD_AUTH_HEADER: set KMOOD_TRUSTED_PROXIES too (the addresses of the proxy"
                " that sets it); a header believed from anyone lets anyone sign in as anyone")
        if values["auth_header"] and values["auth_header"].lower() == (
                values["auth_groups_header"].lower()):
            raise ConfigError("KMOOD_AUTH_GROUPS_HEADER: must differ from KMOOD_AUTH_HEADER")
        if not values["password_login"] and not (values["auth_header"] or values["oidc_issuer"]):
            raise ConfigError("KMOOD_PASSWORD_LOGIN: off leaves no way in; set KMOOD_OIDC_ISSUER"
                              " (single sign-on) or KMOOD_AUTH_HEADER (a sign-in proxy) first")
        for name in ("sso_member_group", "sso_admin_group"):
            if values[name] and not (values["oidc_issuer"] or (
                    values["auth_header"] and values["auth_groups_header"])):
                raise ConfigError(
                    f"KMOOD_{name.upper()}: needs KMOOD_OIDC_ISSUER, or KMOOD_AUTH_HEADER and"
                    " KMOOD_AUTH_GROUPS_HEADER (the header the groups are read from)")
        _single_sign_on(values)
        if values["passkeys"]:
            _passkeys(values["public_url"])
        return cls(**values)

    def with_overrides(self, **changes) -> Config:
        return dataclasses.replace(self, **changes)


def _secure_or_local(url: str) -> bool:
    """https, or http to this machine's loopback (a provider beside k-mood, or the tests')."""
    import ipaddress
    import urllib.parse

    parts = urllib.parse.urlsplit(url)
    if parts.scheme == "https":
        return True
    host = parts.hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _passkeys(public_url: str) -> None:
    """Passkeys belong to a host name reached over a secure connection: WebAuthn works only
    there (https, or http on localhost), and an IP address is no relying party."""
    import urllib.parse

    parts = urllib.parse.urlsplit(public_url)
    host = parts.hostname or ""
    if not public_url:
        raise ConfigError("KMOOD_PASSKEYS: set KMOOD_PUBLIC_URL too (its host name is the"
                          " passkeys' relying party)")
    if not (parts.scheme == "https" or host == "localhost"):
        raise ConfigError("KMOOD_PASSKEYS: KMOOD_PUBLIC_URL must be https:// (browsers offer"
                          " passkeys only there, and on http://localhost)")
    if re.fullmatch(r"[0-9.]+|\[?[0-9a-fA-F:]+\]?", host):
        raise ConfigError("KMOOD_PASSKEYS: KMOOD_PUBLIC_URL must name the server by a host"
                          " name, not an IP address (a passkey belongs to a domain)")


def _single_sign_on(values: dict) -> None:
    """KMOOD_OIDC_*: all that the sign-in needs, or none; the secret from its file."""
    if not values["oidc_issuer"]:
        named = [name for name in ("oidc_client_id", "oidc_client_secret",
                                   "oidc_client_secret_file", "sso_link_by_email")
                 if values[name]]
        if named:
            raise ConfigError(f"KMOOD_{named[0].upper()}: set KMOOD_OIDC_ISSUER too (or"
                              " leave both empty: single sign-on off)")
        return
    if not values["oidc_client_id"]:
        raise ConfigError("KMOOD_OIDC_CLIENT_ID: required with KMOOD_OIDC_ISSUER (the client ID"
                          " k-mood is registered with at the provider)")
    if not _secure_or_local(values["oidc_issuer"]):
        raise ConfigError("KMOOD_OIDC_ISSUER: must be https:// (plain http only on this"
                          " machine's loopback address): the client secret and the tokens"
                          " travel to it")
    if not values["public_url"]:
        raise ConfigError("KMOOD_PUBLIC_URL: required with KMOOD_OIDC_ISSUER (the provider sends"
                          " people back to <KMOOD_PUBLIC_URL>/login/oidc/callback)")
    path = values["oidc_client_secret_file"]
    if path:
        if values["oidc_client_secret"]:
            raise ConfigError("KMOOD_OIDC_CLIENT_SECRET_FILE: set it or KMOOD_OIDC_CLIENT_SECRET,"
                              " not both")
        try:
            with open(path, encoding="utf-8") as file:
                secret = file.read(4097).strip()
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"KMOOD_OIDC_CLIENT_SECRET_FILE: cannot read {path!r}:"
                              f" {getattr(exc, 'strerror', None) or exc}") from None
        if not secret or len(secret) > 4096 or "\n" in secret or has_surrogate(secret):
            raise ConfigError(f"KMOOD_OIDC_CLIENT_SECRET_FILE: {path!r} must hold the secret on"
                              " one line")
        values["oidc_client_secret"] = secret


def _web_push(values: dict) -> None:
    """KMOOD_VAPID_*: a subject push services take, and a key file that can be read."""
    subject = values["vapid_subject"]
    if subject and not re.fullmatch(r"mailto:[^@\s]+@[\w-]+(\.[\w-]+)+|https://[\w-]+(\.[\w-]+)+",
                                    subject):
        raise ConfigError("KMOOD_VAPID_SUBJECT: must be a mailto: address or an https:// host"
                          " name with no port or path (mailto:admin@example.org,"
                          f" https://mood.example.org): push services refuse others; got"
                          f" {subject!r}")
    path = values["vapid_private_key_file"]
    if path:
        try:
            with open(path, encoding="ascii") as file:
                pem = file.read(8193)
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"KMOOD_VAPID_PRIVATE_KEY_FILE: cannot read {path!r}:"
                              f" {getattr(exc, 'strerror', None) or exc}") from None
        if "-----BEGIN" not in pem or len(pem) > 8192:
            raise ConfigError(f"KMOOD_VAPID_PRIVATE_KEY_FILE: {path!r} must hold a PEM private"
                              " key (openssl ecparam -name prime256v1 -genkey -noout)")


def settings_table() -> list[tuple[str, str, str]]:
    """(variable, default, description) for every setting, for docs/configuration.md and --help."""
    return [
        (f.metadata["env"], f.metadata["default"], f.metadata["doc"])
        for f in dataclasses.fields(Config)
    ]
