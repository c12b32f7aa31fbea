"""Photos arriving in a request (the JSON API's and the edit page's forms share this): read,
checked and re-encoded before the one short transaction that stores them."""

from __future__ import annotations

import bottle

from kmood_lib.core.db import transaction
from kmood_lib.core.errors import ValidationError
from kmood_lib.journal import photos
from kmood_lib.web.http import uploaded_files


def limits_of(config) -> photos.Limits:
    return photos.Limits(config.photo_max_bytes, config.photos_per_entry,
                         config.photo_max_pixels)


def add_uploaded(services, conn, user_id: int, entry_id: int) -> list[int]:
    """The request's `photo` files, checked and re-encoded first (no lock held), then stored
    in one short transaction; the ids in the order sent."""
    photos.check_entry(conn, user_id, entry_id)
    files = uploaded_files(bottle.request, "photo")
    if not files:
        raise ValidationError({"photo": "choose one or more photos"})
    limits = limits_of(services.config)
    if len(files) > limits.per_entry:
        raise ValidationError({"photo": f"at most {limits.per_entry} photos on an entry"})
    prepared = [photos.prepare(data, limits, f"photo {i + 1}") for i, data in enumerate(files)]
    with transaction(conn):
        return photos.add(conn, user_id, entry_id, prepared, limits, services.clock.now_ms())
