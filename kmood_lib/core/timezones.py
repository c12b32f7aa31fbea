"""The time zones a person picks from: canonical IANA zones grouped by region — not aliases,
not `localtime`, `Factory`, `posixrules` or the sign-inverted `Etc/GMT±N`."""

from __future__ import annotations

import functools
import zoneinfo
from datetime import date
from pathlib import Path

REGIONS = ("Africa", "America", "Antarctica", "Arctic", "Asia", "Atlantic", "Australia",
           "Europe", "Indian", "Pacific")


def _from_zone_table() -> set[str]:
    """Zones named in zone1970.tab (one canonical zone per region of agreeing clocks)."""
    for directory in zoneinfo.TZPATH:
        table = Path(directory) / "zone1970.tab"
        if table.is_file():
            names = set()
            for line in table.read_text(encoding="utf-8").splitlines():
                if line and not line.startswith("#"):
                    names.add(line.split("\t")[2])
            return names
    return set()


@functools.cache
def canonical_zones() -> list[tuple[str, list[str]]]:
    """[(region, [zone, ...])] sorted, with UTC first; the system's zone table when there is
    one, else every zone under a region name (the bundled tzdata has no table)."""
    names = _from_zone_table() or {n for n in zoneinfo.available_timezones()
                                   if n.split("/", 1)[0] in REGIONS and "/" in n}
    groups: dict[str, list[str]] = {}
    for name in sorted(names):
        groups.setdefault(name.split("/", 1)[0], []).append(name)
    return [("UTC", ["UTC"])] + sorted(groups.items())


def local_today(clock, timezone: str) -> date:
    """Today on a person's own calendar (their profile's zone), by the injected clock."""
    return clock.now().astimezone(zoneinfo.ZoneInfo(timezone)).date()
