"""The JSON route for what the person is listening to now (ListenBrainz, else Last.fm)."""

from __future__ import annotations

from kmood_lib.accounts import users
from kmood_lib.journal.nowplaying import now_playing
from kmood_lib.web.authentication import Auth
from kmood_lib.web.http import json_response
from kmood_lib.web.routing import Routes

routes = Routes()


@routes.get("/api/now-playing")
def get_now_playing(services, conn, auth: Auth):
    me = users.profile(conn, auth.user.id)
    return json_response(now_playing(services.listenbrainz, services.lastfm,
                                     me["listenbrainz_user"], me["lastfm_user"],
                                     services.config.now_playing_timeout_ms))
