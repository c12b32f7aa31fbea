"""Where an edit or delete form goes back to: the list of entries it was opened from (History
with its filters and page, a day, the log page), carried in a `back` field and rebuilt here
from what those pages read, so a form can never send a person to another site or page."""

from __future__ import annotations

import re
import urllib.parse
from datetime import date

from kmood_lib.web.http import ApiError, Params, parse_urlencoded

MAX_BACK = 2000  # History's longest address (a 500-character search, 20 activities) fits
DAY_PATH = re.compile(r"/days/([0-9]{4}-[0-9]{2}-[0-9]{2})")
# The query parameters each list reads; anything else is dropped (a notice, a stray field).
KEPT = {"/": (), "/entries": ("q", "from", "to", "mood", "activity", "cursor"),
        "/days": ("cursor",)}


def list_of(path: str) -> str | None:
    """'/entries', '/days' or '/' for the path of a list of entries, None for any other."""
    if path in ("/", "/entries"):
        return path
    found = DAY_PATH.fullmatch(path)
    if found is None:
        return None
    try:
        date.fromisoformat(found.group(1))
    except ValueError:
        return None
    return "/days"


def checked_back(raw: str | None) -> str | None:
    """`raw` rebuilt as the local address of a list of entries with only the parameters that
    list reads, or None for anything else: more than MAX_BACK characters, anything not ASCII,
    and any path but a list's (so never another site — `https://…`, `//host`, `/\\host` — a
    scheme such as `javascript:`, or a control character). The query is decoded and encoded
    again, so the result is plain ASCII, safe in a Location header and in an attribute."""
    if not raw or len(raw) > MAX_BACK or not raw.isascii():
        return None
    path, _, query = raw.partition("#")[0].partition("?")
    kind = list_of(path)
    if kind is None:
        return None
    try:
        asked = parse_urlencoded(query.encode("ascii"), "back parameter")
    except ApiError:  # not UTF-8 once decoded
        return None
    return address(path, [(k, v) for k, v in pairs_of(asked) if k in KEPT[kind]])


def pairs_of(params: Params) -> list[tuple[str, str]]:
    """Every non-empty (name, value) of `params`, a repeated name's values (mood=4&mood=5) kept."""
    return [(name, value) for name in params for value in params.getall(name) if value]


def address(path: str, pairs: list[tuple[str, str]]) -> str:
    """A local address with these query parameters, percent-encoded."""
    return path + ("?" + urllib.parse.urlencode(pairs) if pairs else "")


def back_from(params: Params) -> str | None:
    """The checked `back` a form posted or a page was asked with."""
    return checked_back(params.get("back"))


def to_entry(back: str | None, entry_id: int | None, default: str = "/entries") -> str:
    """The list at `back` (else `default`) scrolled to the entry with this id."""
    return (back or default) + (f"#entry-{entry_id}" if entry_id is not None else "")
