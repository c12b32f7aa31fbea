"""Photos arriving in a request (the JSON API, the log form and the edit page share this):
read, checked and re-encoded before the one short transaction that stores them."""

from __future__ import annotations

import bottle

from kmood_lib.core.db import transaction
from kmood_lib.core.errors import ValidationError
from kmood_lib.core.i18n import Phrase
from kmood_lib.journal import photos
from kmood_lib.web.http import uploaded_files


def limits_of(services) -> photos.Limits:
    return photos.limits_of(services.config, services.photo_budget)


def prepare_uploaded(services, required: bool = True) -> list[photos.Prepared]:
    """The request's `photo` files, each checked and re-encoded (no lock held, nothing
    stored); none sent is a refusal only when `required`."""
    files = uploaded_files(bottle.request, "photo")
    if not files and required:
        raise ValidationError({"photo": Phrase("choose one or more photos")})
    limits = limits_of(services)
    if len(files) > limits.per_entry:
        raise ValidationError({"photo": Phrase("at most {n} photos on an entry",
                                               n=limits.per_entry)})
    return [photos.prepare(data, limits, f"photo {i + 1}") for i, data in enumerate(files)]


def store(services, conn, user_id: int, entry_id: int, prepared: list[photos.Prepared]
          ) -> list[int]:
    """Prepared photos onto the entry, in one short transaction; their ids in order."""
    with transaction(conn):
        return photos.add(conn, user_id, entry_id, prepared, limits_of(services),
                          services.clock.now_ms())


def add_uploaded(services, conn, user_id: int, entry_id: int) -> list[int]:
    """The request's photos onto one of the user's entries (another's is a 404 before any
    file is read)."""
    photos.check_entry(conn, user_id, entry_id)
    return store(services, conn, user_id, entry_id, prepare_uploaded(services))
