"""Nominatim reverse geocoding: the name of the place around a point (zoom 10: a city)."""

from __future__ import annotations

import time

from kmood_lib.upstream.http import UpstreamError, get_json, with_query

TIMEOUT_S = 20
LOCALITY_KEYS = ("city", "town", "village", "municipality", "county", "state")


class Nominatim:
    def __init__(self, base_url: str, user_agent: str, timeout_s: float = TIMEOUT_S):
        self.base_url = base_url
        self.user_agent = user_agent
        self.timeout_s = timeout_s

    def reverse(self, lat: float, lon: float) -> dict | None:
        """{"display_name", "locality", "country_code"}, or None when Nominatim has no result
        for the point (a result, not a failure); UpstreamError otherwise."""
        url = with_query(f"{self.base_url}/reverse", "", {
            "format": "jsonv2", "lat": f"{lat:.4f}", "lon": f"{lon:.4f}", "zoom": 10})
        status, data = get_json(url, user_agent=self.user_agent,
                                deadline=time.monotonic() + self.timeout_s)
        if status != 200 or not isinstance(data, dict):
            raise UpstreamError(f"Nominatim answered HTTP {status}", status)
        if "error" in data:
            if data["error"] == "Unable to geocode":
                return None
            raise UpstreamError(f"Nominatim: {data['error']}")
        name, address = data.get("display_name"), data.get("address") or {}
        if not isinstance(name, str) or not isinstance(address, dict):
            raise UpstreamError("Nominatim answered in an unexpected shape")
        locality = next((address[k] for k in LOCALITY_KEYS if isinstance(address.get(k), str)),
                        None)
        country = address.get("country_code")
        return {"display_name": name[:500], "locality": locality[:200] if locality else None,
                "country_code": country.upper()[:8] if isinstance(country, str) else None}
