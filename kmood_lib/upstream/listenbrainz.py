"""ListenBrainz: what a user is playing right now."""

from __future__ import annotations

import urllib.parse

from kmood_lib.upstream.http import UpstreamError, get_json


class ListenBrainz:
    def __init__(self, base_url: str, user_agent: str):
        self.base_url = base_url
        self.user_agent = user_agent

    def playing_now(self, user: str, deadline: float) -> dict | None:
        """{"artist", "title", "album", "source"} or None; UpstreamError when it cannot tell."""
        url = f"{self.base_url}/1/user/{urllib.parse.quote(user, safe='')}/playing-now"
        status, data = get_json(url, user_agent=self.user_agent, deadline=deadline)
        if status == 404:
            raise UpstreamError(f"ListenBrainz has no user {user!r}", 404)
        if status != 200:
            raise UpstreamError(f"ListenBrainz answered HTTP {status}", status)
        try:
            listens = data["payload"]["listens"]
            if not listens:
                return None
            track = listens[0]["track_metadata"]
            artist, title = track["artist_name"], track["track_name"]
        except (KeyError, IndexError, TypeError):
            raise UpstreamError("ListenBrainz answered in an unexpected shape") from None
        if not isinstance(artist, str) or not isinstance(title, str):
            raise UpstreamError("ListenBrainz answered in an unexpected shape")
        album = track.get("release_name")
        return {"artist": artist, "title": title,
                "album": album if isinstance(album, str) else None, "source": "listenbrainz"}
