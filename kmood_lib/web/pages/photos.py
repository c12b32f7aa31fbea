"""The photos and voice memos themselves, served only to the entry's owner (the edit page's
forms that add, move and remove photos are in pages.journal, beside the edit page). Each is
revalidated at every use (web.files): nothing behind a login is shown from the browser's
cache to a logged-out person or another user."""

from __future__ import annotations

import bottle

from kmood_lib.journal import memos, photos
from kmood_lib.web import files
from kmood_lib.web.authentication import Auth
from kmood_lib.web.routing import Routes

routes = Routes()


def _serve(services, conn, auth: Auth, photo_id: int, size: str) -> bottle.HTTPResponse:
    """A photo streamed like a memo; a copy the browser holds is confirmed on the thread's own
    connection (no connection opened for the usual 304)."""
    asked = files.Asked.of(bottle.request)
    stored = photos.file_of(conn, auth.user.id, photo_id, size)
    if files.none_match(asked.if_none_match, stored.etag):
        return files.not_modified(stored.etag)
    stored, reader = photos.open_file(services.connect, auth.user.id, photo_id, size)
    return files.answer(asked, reader, stored.content_type, stored.etag)


@routes.get("/photos/<photo_id:id>")
def photo(services, conn, auth: Auth, photo_id: int):
    return _serve(services, conn, auth, photo_id, "full")


@routes.get("/photos/<photo_id:id>/thumb")
def thumbnail(services, conn, auth: Auth, photo_id: int):
    return _serve(services, conn, auth, photo_id, "thumb")


@routes.get("/memos/<memo_id:id>")
def memo(services, auth: Auth, memo_id: int):
    """A voice memo, in byte ranges (a player seeks with them), streamed from the database
    on a connection of its own that the server closes with the body."""
    asked = files.Asked.of(bottle.request)
    content_type, etag, reader = memos.open_file(services.connect, auth.user.id, memo_id)
    return files.answer(asked, reader, content_type, etag)
