"""Open-Meteo: hourly temperature and WMO weather code for one place and a date span, from
the archive (ERA5, about 5 days behind) or the forecast API (which also serves recent days
with start_date/end_date, never with past_days)."""

from __future__ import annotations

import math
import time
from datetime import date

from kmood_lib.upstream.http import UpstreamError, get_json, with_query

TIMEOUT_S = 20
HOURLY = "temperature_2m,weather_code"
BUDGET = "open-meteo"


def weighted_calls(start: date, end: date, variables: int = len(HOURLY.split(","))) -> float:
    """What Open-Meteo's fair-use limits count a request as: more than 14 days or more than
    10 variables make it several calls, fractionally (366 days of 2 variables: 26.1)."""
    days = (end - start).days + 1
    return max(1.0, days / 14) * max(1.0, variables / 10)


class OpenMeteo:
    def __init__(self, archive_url: str, forecast_url: str, user_agent: str,
                 timeout_s: float = TIMEOUT_S):
        self.archive_url = archive_url
        self.forecast_url = forecast_url
        self.user_agent = user_agent
        self.timeout_s = timeout_s

    def archive(self, lat: float, lon: float, start: date, end: date) -> dict:
        return self._hourly(f"{self.archive_url}/v1/archive", lat, lon, start, end)

    def forecast(self, lat: float, lon: float, start: date, end: date) -> dict:
        return self._hourly(f"{self.forecast_url}/v1/forecast", lat, lon, start, end)

    def _hourly(self, endpoint: str, lat: float, lon: float, start: date, end: date
                ) -> dict[str, tuple[float | None, int | None]]:
        """{"YYYY-MM-DDTHH:00" (UTC): (temperature °C or None, WMO code or None)}; raises
        UpstreamError for anything but the documented answer (retried by the queue)."""
        url = with_query(endpoint, "", {
            "latitude": f"{lat:.4f}", "longitude": f"{lon:.4f}",
            "start_date": start.isoformat(), "end_date": end.isoformat(),
            "hourly": HOURLY, "timezone": "UTC"})
        status, data = get_json(url, user_agent=self.user_agent,
                                deadline=time.monotonic() + self.timeout_s)
        if status != 200:
            reason = data.get("reason") if isinstance(data, dict) else None
            raise UpstreamError(f"Open-Meteo answered HTTP {status}: {reason or 'no reason'}",
                                status)
        try:
            hourly = data["hourly"]
            times, temps, codes = hourly["time"], hourly["temperature_2m"], hourly["weather_code"]
            if not (isinstance(times, list) and len(times) == len(temps) == len(codes)):
                raise TypeError("lists of different lengths")
            out = {}
            for when, temp, code in zip(times, temps, codes, strict=True):
                if not isinstance(when, str) or len(when) != 16:
                    raise TypeError(f"time {when!r}")
                out[when] = (_temperature(temp), _code(code))
        except (KeyError, TypeError, ValueError) as exc:
            raise UpstreamError(f"Open-Meteo answered in an unexpected shape ({exc})") from None
        return out


def _temperature(value) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"temperature {value!r}")
    return float(value)


def _code(value) -> int | None:
    if value is None:
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 99:
        raise ValueError(f"weather code {value!r}")
    return value

