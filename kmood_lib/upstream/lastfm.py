"""Last.fm: the track a user is scrobbling right now (only one marked nowplaying counts)."""

from __future__ import annotations

from kmood_lib.upstream.http import UpstreamError, get_json, with_query


class LastFm:
    def __init__(self, base_url: str, api_key: str, user_agent: str):
        self.base_url = base_url
        self.api_key = api_key
        self.user_agent = user_agent

    @property
    def configured(self) -> bool:
        return bool(self.api_key)

    def playing_now(self, user: str, deadline: float) -> dict | None:
        url = with_query(self.base_url, "/2.0/", {
            "method": "user.getrecenttracks", "user": user, "api_key": self.api_key,
            "format": "json", "limit": 1})
        status, data = get_json(url, user_agent=self.user_agent, deadline=deadline)
        if status == 404 or (isinstance(data, dict) and data.get("error") == 6):
            raise UpstreamError(f"Last.fm has no user {user!r}", 404)
        if status != 200 or not isinstance(data, dict) or "error" in data:
            message = data.get("message") if isinstance(data, dict) else None
            raise UpstreamError(f"Last.fm answered HTTP {status}: {message or 'error'}", status)
        try:
            tracks = data["recenttracks"]["track"]
            if isinstance(tracks, dict):  # a single track is not wrapped in a list
                tracks = [tracks]
            for track in tracks:
                if (track.get("@attr") or {}).get("nowplaying") == "true":
                    album = (track.get("album") or {}).get("#text") or None
                    return {"artist": track["artist"]["#text"], "title": track["name"],
                            "album": album, "source": "lastfm"}
        except (KeyError, TypeError, AttributeError):
            raise UpstreamError("Last.fm answered in an unexpected shape") from None
        return None
