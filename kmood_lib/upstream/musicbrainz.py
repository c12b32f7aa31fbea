"""MusicBrainz recording search: the recording, its release and length for an artist and title."""

from __future__ import annotations

import re
import time

from kmood_lib.upstream.http import UpstreamError, get_json, with_query

TIMEOUT_S = 20
MBID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
DATE = re.compile(r"[0-9]{4}(-[0-9]{2}(-[0-9]{2})?)?")


def phrase(text: str) -> str:
    """A Lucene phrase: the text in double quotes, with `\\` and `"` escaped."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


class MusicBrainz:
    def __init__(self, base_url: str, user_agent: str, timeout_s: float = TIMEOUT_S):
        self.base_url = base_url
        self.user_agent = user_agent
        self.timeout_s = timeout_s

    def search(self, artist: str, title: str, min_score: int) -> dict | None:
        """The best-scoring recording as {"recording_mbid", "release_mbid", "release_title",
        "release_date", "length_ms", "score"}, or None when none scores `min_score` or more
        (a result); UpstreamError for anything but the documented answer."""
        url = with_query(f"{self.base_url}/ws/2/recording", "", {
            "query": f"recording:{phrase(title)} AND artist:{phrase(artist)}",
            "limit": 5, "fmt": "json"})
        status, data = get_json(url, user_agent=self.user_agent,
                                deadline=time.monotonic() + self.timeout_s)
        if status != 200 or not isinstance(data, dict):
            raise UpstreamError(f"MusicBrainz answered HTTP {status}", status)
        try:
            recordings = data["recordings"]
            if not isinstance(recordings, list):
                raise TypeError("recordings is not a list")
            scored = [(_score(r["score"]), r) for r in recordings]
        except (KeyError, TypeError, ValueError) as exc:
            raise UpstreamError(f"MusicBrainz answered in an unexpected shape ({exc})") from None
        if not scored:
            return None
        score, best = max(scored, key=lambda pair: pair[0])  # the first of equal scores
        if score < min_score:
            return None
        try:
            return {"recording_mbid": _mbid(best["id"]), **_release(best.get("releases")),
                    "length_ms": _length(best.get("length")), "score": score}
        except (KeyError, TypeError, ValueError) as exc:
            raise UpstreamError(f"MusicBrainz answered in an unexpected shape ({exc})") from None


def _score(value) -> int:
    if isinstance(value, str) and value.isascii() and value.isdigit():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 100:
        raise ValueError(f"score {value!r}")
    return value


def _mbid(value) -> str:
    if not isinstance(value, str) or not MBID.fullmatch(value):
        raise ValueError(f"MBID {value!r}")
    return value


def _length(value) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value < 2**31:
        raise ValueError(f"length {value!r}")
    return value


def _release(releases) -> dict:
    """The earliest dated release (the original, usually), else the first one listed."""
    none = {"release_mbid": None, "release_title": None, "release_date": None}
    if releases is None:
        return none
    if not isinstance(releases, list):
        raise TypeError("releases is not a list")
    candidates = []
    for position, release in enumerate(releases):
        if not isinstance(release, dict) or not isinstance(release.get("title"), str):
            raise TypeError("a release without a title")
        day = release.get("date")
        day = day if isinstance(day, str) and DATE.fullmatch(day) else None
        candidates.append((day is None, day or "", position, release, day))
    if not candidates:
        return none
    *_, release, day = min(candidates, key=lambda c: c[:3])
    return {"release_mbid": _mbid(release["id"]), "release_title": release["title"][:500],
            "release_date": day}
