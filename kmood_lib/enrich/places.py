"""The `place` job kind: entries with a location whose cell (KMOOD_PLACE_CELL_DEG) has no
place linked yet. One reverse geocode per cell, ever: the name is stored per cell and every
entry in the cell is linked to it, in the transaction that completes the job.

Nominatim allows one request a second from the whole deployment (see `polite`).
"""

from __future__ import annotations

import logging

from kmood_lib.enrich.kind import enrichment_kind
from kmood_lib.queue.polite import wait_for_slot
from kmood_lib.queue.sweeps import JobKind

log = logging.getLogger(__name__)

KIND = "place"

# Entries with a location and no place link, with their cell name `52.50:13.40`.
# Parameters: the cell degrees four times, then the entry id where `{entry}` narrows it.
_STRANDED = (
    "SELECT printf('%.2f', CAST(round(e.lat / ?) AS INTEGER) * ?) || ':' ||"
    " printf('%.2f', CAST(round(e.lon / ?) AS INTEGER) * ?) AS cell, e.id"
    " FROM entries e WHERE e.lat IS NOT NULL{entry}"
    " AND NOT EXISTS (SELECT 1 FROM entry_places p WHERE p.entry_id = e.id)"
)
_CELLS = ("SELECT 'place:' || s.cell AS key, json_object('cell', s.cell) AS payload"
          " FROM ({stranded}) s GROUP BY s.cell")


def place_kind(config) -> JobKind:
    deg = config.place_cell_deg
    return enrichment_kind(KIND, config.enrich_place, _CELLS, _STRANDED,
                           lambda now_ms: (deg,) * 4, handle_place)


def handle_place(ctx) -> None:
    config = ctx.services.config
    cell = str(ctx.payload["cell"])
    lat, lon = (float(part) for part in cell.split(":"))
    known = ctx.conn.execute("SELECT 1 FROM places WHERE cell = ?", (cell,)).fetchone()
    found = None
    if known is None:
        wait_for_slot(ctx, "nominatim")
        found = ctx.services.nominatim.reverse(lat, lon)
    deg = config.place_cell_deg
    with ctx.completing() as conn:
        if known is None:
            conn.execute(
                "INSERT OR IGNORE INTO places (cell, display_name, locality, country_code,"
                " unavailable, fetched_at) VALUES (?, ?, ?, ?, ?, ?)",
                (cell, found and found["display_name"], found and found["locality"],
                 found and found["country_code"], int(found is None),
                 ctx.services.clock.now_ms()))
        linked = conn.execute(
            "INSERT OR IGNORE INTO entry_places (entry_id, cell) SELECT s.id, s.cell FROM ("
            + _STRANDED.format(entry="") + ") s WHERE s.cell = ?", (*(deg,) * 4, cell)).rowcount
    log.info("place %s: %s, %d entr%s linked", cell,
             "known" if known else ("no result" if found is None else found["display_name"]),
             linked, "y" if linked == 1 else "ies")

