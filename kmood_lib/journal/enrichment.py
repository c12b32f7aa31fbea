"""What the enrichment tables mean when an entry or a stat is shown: WMO weather codes (their
descriptions and the kinds of weather the stats group them into) and place labels."""

from __future__ import annotations

from kmood_lib.core.i18n import N_, Phrase

# WMO weather codes as Open-Meteo reports them (SPEC §8), in English: a page says them in the
# person's language.
WMO = {0: N_("Clear sky"), 1: N_("Mainly clear"), 2: N_("Partly cloudy"), 3: N_("Overcast"),
       45: N_("Fog"), 48: N_("Depositing rime fog"), 51: N_("Light drizzle"), 53: N_("Drizzle"),
       55: N_("Dense drizzle"), 56: N_("Light freezing drizzle"), 57: N_("Freezing drizzle"),
       61: N_("Light rain"), 63: N_("Rain"), 65: N_("Heavy rain"), 66: N_("Light freezing rain"),
       67: N_("Freezing rain"), 71: N_("Light snow fall"), 73: N_("Snow fall"),
       75: N_("Heavy snow fall"), 77: N_("Snow grains"), 80: N_("Light rain showers"),
       81: N_("Rain showers"), 82: N_("Violent rain showers"), 85: N_("Light snow showers"),
       86: N_("Snow showers"), 95: N_("Thunderstorm"), 96: N_("Thunderstorm with light hail"),
       99: N_("Thunderstorm with hail")}

# The kinds of weather the stats compare, each a set of WMO codes, in the order shown.
WEATHER_GROUPS = [("clear", (0, 1)), ("cloudy", (2, 3)), ("fog", (45, 48)),
                  ("drizzle", (51, 53, 55, 56, 57)), ("rain", (61, 63, 65, 66, 67, 80, 81, 82)),
                  ("snow", (71, 73, 75, 77, 85, 86)), ("thunderstorm", (95, 96, 99))]


def describe(code: int) -> str:
    return Phrase(WMO[code]) if code in WMO else Phrase("Weather code {code}", code=code)


def place_label(locality: str | None, country_code: str | None, display_name: str | None
                ) -> str | None:
    """'Berlin, DE' (SPEC §6), or the full name when there is no locality."""
    if locality:
        return f"{locality}, {country_code}" if country_code else locality
    return display_name
