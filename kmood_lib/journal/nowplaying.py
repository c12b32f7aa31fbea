"""Now-playing, resolved synchronously while an entry is composed: one deadline for all asked."""

from __future__ import annotations

import threading
import time

from kmood_lib.upstream.http import UpstreamError


def now_playing(listenbrainz, lastfm, lb_user: str | None, fm_user: str | None,
                timeout_ms: int) -> dict:
    """Ask every configured upstream at once; the first to report a song wins (ListenBrainz
    first when both do). Always returns within the deadline."""
    deadline = time.monotonic() + timeout_ms / 1000
    asks = []
    if lb_user:
        asks.append(("listenbrainz", lambda: listenbrainz.playing_now(lb_user, deadline)))
    if fm_user and lastfm.configured:
        asks.append(("lastfm", lambda: lastfm.playing_now(fm_user, deadline)))
    if not asks:
        return {"song": None, "source": None, "upstream_error": None}
    results: dict[str, tuple] = {}

    def run(name, ask):
        try:
            results[name] = ("ok", ask())
        except UpstreamError as exc:
            results[name] = ("error", str(exc))

    threads = [threading.Thread(target=run, args=a, daemon=True) for a in asks]
    for t in threads:
        t.start()
    for t in threads:
        t.join(max(0.0, deadline - time.monotonic()) + 0.05)
    errors = []
    for name, _ in asks:
        kind, value = results.get(name, ("error", f"{name}: no answer within the deadline"))
        if kind == "ok" and value is not None:
            return {"song": value, "source": name, "upstream_error": None}
        if kind == "error":
            errors.append(value)
    return {"song": None, "source": None, "upstream_error": "; ".join(errors) or None}
