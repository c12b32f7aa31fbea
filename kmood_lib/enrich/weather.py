"""The `weather` job kind: entries with a location and no weather, batched per cell (coordinates
rounded to KMOOD_WEATHER_CELL_DEG) and per calendar year of their UTC date.

One job asks Open-Meteo for the span of its stranded dates — the archive for days older than
KMOOD_WEATHER_ARCHIVE_DELAY_DAYS, the forecast API for the recent ones — and fills every
stranded entry of its cell and year in the transaction that completes the job. The cell and
key are computed by one SQL expression, shared by the sweep and the prompt path, so both
derive the same key for the same work.
"""

from __future__ import annotations

import logging
from datetime import date, datetime, timedelta, timezone

from kmood_lib.enrich.kind import enrichment_kind
from kmood_lib.queue.polite import wait_for_budget
from kmood_lib.queue.sweeps import JobKind
from kmood_lib.upstream import open_meteo

log = logging.getLogger(__name__)

KIND = "weather"
UNAVAILABLE_AFTER_DAYS = 10  # a null older than this is "no data", not "not yet"
FIRST_DAY = date(1940, 1, 1)  # the archive reaches back to 1940

# Entries with a location, no weather and a time already passed, with their cell and UTC year.
# Parameters: cell degrees twice, now (ms), then the entry id where `{entry}` narrows it.
_STRANDED = (
    "SELECT CAST(round(e.lat / ?) AS INTEGER) AS ilat, CAST(round(e.lon / ?) AS INTEGER) AS ilon,"
    " strftime('%Y', e.occurred_at / 1000, 'unixepoch') AS year, e.id, e.occurred_at"
    " FROM entries e WHERE e.lat IS NOT NULL AND e.occurred_at <= ?{entry}"
    " AND NOT EXISTS (SELECT 1 FROM weather w WHERE w.entry_id = e.id)"
)
# One (key, payload) per cell and year. Parameters: cell degrees twice, then _STRANDED's.
_CELLS = (
    "SELECT 'weather:' || printf('%.2f', s.ilat * ?) || ':' || printf('%.2f', s.ilon * ?)"
    " || ':' || s.year AS key, json_object('ilat', s.ilat, 'ilon', s.ilon, 'year', s.year)"
    " AS payload FROM ({stranded}) s GROUP BY s.ilat, s.ilon, s.year"
)


def weather_kind(config) -> JobKind:
    deg = config.weather_cell_deg
    return enrichment_kind(KIND, config.enrich_weather, _CELLS, _STRANDED,
                           lambda now_ms: (deg, deg, deg, deg, now_ms), handle_weather)


def nearest_hour(ms: int) -> datetime:
    """The UTC hour nearest to an instant; exactly half past takes the later hour."""
    moment = datetime.fromtimestamp(ms // 1000, timezone.utc)
    hour = moment.replace(minute=0, second=0)
    return hour + timedelta(hours=1) if moment.minute * 60 + moment.second >= 1800 else hour


def spans(days: list[date], range_days: int) -> list[tuple[date, date]]:
    """Sorted days -> as few (start, end) spans of at most `range_days` days as cover them."""
    out: list[tuple[date, date]] = []
    for day in days:
        if out and (day - out[-1][0]).days < range_days:
            out[-1] = (out[-1][0], day)
        else:
            out.append((day, day))
    return out


def handle_weather(ctx) -> None:
    config, clock = ctx.services.config, ctx.services.clock
    ilat, ilon, year = int(ctx.payload["ilat"]), int(ctx.payload["ilon"]), str(
        ctx.payload["year"])
    deg = config.weather_cell_deg
    now_ms = clock.now_ms()
    stranded = ctx.conn.execute(
        "SELECT s.id, s.occurred_at FROM (" + _STRANDED.format(entry="") + ") s"
        " WHERE s.ilat = ? AND s.ilon = ? AND s.year = ?",
        (deg, deg, now_ms, ilat, ilon, year)).fetchall()
    hours = {row["id"]: nearest_hour(row["occurred_at"]) for row in stranded}
    today = datetime.fromtimestamp(now_ms // 1000, timezone.utc).date()
    archive_end = today - timedelta(days=config.weather_archive_delay_days)
    known: dict[str, tuple[float | None, int | None]] = {}
    days = sorted({h.date() for h in hours.values() if h.date() >= FIRST_DAY})
    old, recent = [d for d in days if d <= archive_end], [d for d in days if d > archive_end]
    lat, lon = ilat * deg, ilon * deg
    upstream = ctx.services.open_meteo
    for ask, part in ((upstream.archive, old), (upstream.forecast, recent)):
        for start, end in spans(part, config.weather_range_days):
            wait_for_budget(ctx, open_meteo.BUDGET, open_meteo.weighted_calls(start, end))
            known.update(ask(lat, lon, start, end))
    filled = unavailable = waiting = 0
    with ctx.completing() as conn:
        for entry_id, hour in hours.items():
            temperature, code = known.get(hour.strftime("%Y-%m-%dT%H:00"), (None, None))
            if temperature is not None and code is not None:
                conn.execute("INSERT OR IGNORE INTO weather (entry_id, temperature_c, code,"
                             " fetched_at) VALUES (?, ?, ?, ?)",
                             (entry_id, temperature, code, now_ms))
                filled += 1
            elif hour.date() < FIRST_DAY or hour.date() < today - timedelta(
                    days=UNAVAILABLE_AFTER_DAYS):
                conn.execute("INSERT OR IGNORE INTO weather (entry_id, unavailable, fetched_at)"
                             " VALUES (?, 1, ?)", (entry_id, now_ms))
                unavailable += 1
            else:
                waiting += 1  # recent data not there yet: a later sweep asks again
    log.info("weather %s: %d entr%s filled, %d unavailable, %d not yet available",
             ctx.job.key, filled, "y" if filled == 1 else "ies", unavailable, waiting)
