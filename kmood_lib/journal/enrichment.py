"""What the enrichment tables mean when an entry or a stat is shown: WMO weather codes (their
descriptions and the kinds of weather the stats group them into) and place labels."""

from __future__ import annotations

# WMO weather codes as Open-Meteo reports them (SPEC §8).
WMO = {0: "Clear sky", 1: "Mainly clear", 2: "Partly cloudy", 3: "Overcast", 45: "Fog",
       48: "Depositing rime fog", 51: "Light drizzle", 53: "Drizzle", 55: "Dense drizzle",
       56: "Light freezing drizzle", 57: "Freezing drizzle", 61: "Light rain", 63: "Rain",
       65: "Heavy rain", 66: "Light freezing rain", 67: "Freezing rain", 71: "Light snow fall",
       73: "Snow fall", 75: "Heavy snow fall", 77: "Snow grains", 80: "Light rain showers",
       81: "Rain showers", 82: "Violent rain showers", 85: "Light snow showers",
       86: "Snow showers", 95: "Thunderstorm", 96: "Thunderstorm with light hail",
       99: "Thunderstorm with hail"}

# The kinds of weather the stats compare, each a set of WMO codes, in the order shown.
WEATHER_GROUPS = [("clear", (0, 1)), ("cloudy", (2, 3)), ("fog", (45, 48)),
                  ("drizzle", (51, 53, 55, 56, 57)), ("rain", (61, 63, 65, 66, 67, 80, 81, 82)),
                  ("snow", (71, 73, 75, 77, 85, 86)), ("thunderstorm", (95, 96, 99))]


def describe(code: int) -> str:
    return WMO.get(code, f"Weather code {code}")


def place_label(locality: str | None, country_code: str | None, display_name: str | None
                ) -> str | None:
    """'Berlin, DE' (SPEC §6), or the full name when there is no locality."""
    if locality:
        return f"{locality}, {country_code}" if country_code else locality
    return display_name
