"""The photos and voice memos themselves, served only to the entry's owner (the edit page's
forms that add, move and remove photos are in pages.journal, beside the edit page)."""

from __future__ import annotations

import bottle

from kmood_lib.journal import memos, photos
from kmood_lib.web.auth import Auth
from kmood_lib.web.http import header
from kmood_lib.web.routing import Routes

routes = Routes()

PHOTO_CACHE_S = 365 * 24 * 3600  # a photo's bytes never change under its id


def _serve(conn, auth: Auth, photo_id: int, size: str) -> bottle.HTTPResponse:
    stored = photos.file_of(conn, auth.user.id, photo_id, size)
    headers = {"Cache-Control": f"private, max-age={PHOTO_CACHE_S}", "ETag": stored.etag}
    if header(bottle.request, "If-None-Match") == stored.etag:
        return bottle.HTTPResponse(status=304, headers=headers)
    return bottle.HTTPResponse(photos.read_file(conn, stored),
                               headers={**headers, "Content-Type": stored.content_type})


@routes.get("/photos/<photo_id:id>")
def photo(conn, auth: Auth, photo_id: int):
    return _serve(conn, auth, photo_id, "full")


@routes.get("/photos/<photo_id:id>/thumb")
def thumbnail(conn, auth: Auth, photo_id: int):
    return _serve(conn, auth, photo_id, "thumb")


@routes.get("/memos/<memo_id:id>")
def memo(conn, auth: Auth, memo_id: int):
    """A voice memo, with byte ranges (a player seeks with them)."""
    content_type, data, etag = memos.file_of(conn, auth.user.id, memo_id)
    headers = {"Cache-Control": f"private, max-age={PHOTO_CACHE_S}", "ETag": etag,
               "Accept-Ranges": "bytes", "Content-Type": content_type}
    if header(bottle.request, "If-None-Match") == etag:
        return bottle.HTTPResponse(status=304, headers=headers)
    wanted = header(bottle.request, "Range") or ""
    ranges = list(bottle.parse_range_header(wanted, len(data))) if wanted else []
    if wanted and len(ranges) != 1:
        return bottle.HTTPResponse(status=416, headers={**headers,
                                                        "Content-Range": f"bytes */{len(data)}"})
    if ranges:
        start, end = ranges[0]  # end excluded
        return bottle.HTTPResponse(data[start:end], status=206, headers={
            **headers, "Content-Range": f"bytes {start}-{end - 1}/{len(data)}"})
    return bottle.HTTPResponse(data, headers=headers)
