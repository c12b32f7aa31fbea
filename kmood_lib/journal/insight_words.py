"""The insights in words (SPEC §11): effects in mood points with both means, the likely range
and the days on each side; a pattern, never a claim that one thing brings about another."""

from __future__ import annotations

CAVEAT = "A pattern in your entries, not proof that one leads to the other."
SINCE_CAVEAT = ("Moods drift back toward their usual level after a low stretch, and new habits"
                " often start in one, so part of a rise can be that return.")

# (same day, the day after, the other days) per kind of comparison
_PHRASES = {
    "activity": ("On days you logged {name}", "The day after you logged {name}", "without"),
    "place": ("On days you were in {name}", "The day after you were in {name}",
              "on other days with a known place"),
    "artist": ("On days you listened to {name}", "The day after you listened to {name}",
               "on other days with a song"),
    "weather": ("On days with {name}", "The day after days with {name}",
                "on other days with known weather"),
}
WEATHER_NAMES = {"clear": "clear skies", "cloudy": "clouds", "fog": "fog",
                 "drizzle": "drizzle", "rain": "rain", "snow": "snow",
                 "thunderstorm": "thunderstorms"}


def _display(kind: str, name: str) -> str:
    return WEATHER_NAMES.get(name, name) if kind == "weather" else name


def _interval(effect: float, low: float, high: float) -> str:
    """The interval in the effect's own direction: "likely 0.3 to 0.9 higher"."""
    if effect >= 0:
        return f"likely {low:.1f} to {high:.1f} higher"
    return f"likely {-high:.1f} to {-low:.1f} lower"


def difference(f: dict) -> str:
    """A days-with-vs-without finding (or "since you started") as one paragraph."""
    effect, (low, high) = f["effect"], f["ci"]
    direction = "higher" if effect >= 0 else "lower"
    means = (f"{f['mean_with']:.1f} vs {f['mean_without']:.1f};"
             f" {_interval(effect, low, high)}")
    if f["since"]:
        return (f"Since you started {f['name']} on {f['started']}, your mood averaged"
                f" {abs(effect):.1f} points {direction} than before ({means}), over the"
                f" {f['n_with']} logged days from then and the {f['n_without']} before."
                f" {SINCE_CAVEAT} {CAVEAT}")
    same_day, day_after, others = _PHRASES[f["kind"]]
    opening = (day_after if f["lag"] else same_day).format(name=_display(f["kind"], f["name"]))
    if f["lag"]:
        counts = f"{f['n_with']} days after one, {f['n_without']} other days."
    elif others == "without":
        counts = f"{f['n_with']} days with, {f['n_without']} without."
    else:
        counts = f"{f['n_with']} days with, {f['n_without']} {others}."
    return (f"{opening}, your mood averaged {abs(effect):.1f} points {direction}"
            f" ({means}). {counts} {CAVEAT}")


def correlation(f: dict) -> str:
    """A number that moves with the day's mood: its rank correlation and a slope per unit."""
    rho, (low, high) = f["effect"], f["ci"]
    opening = "On warmer days" if f["name"] == "temperature" and f["kind"] == "weather" else (
        f"On days with more {f['name']}")
    direction = "higher" if rho >= 0 else "lower"
    slope = f["slope"]
    per = f["unit"] if f["unit"] == "°C" else (f"extra {f['unit']}" if f["unit"] else
                                              "extra 1")
    rate = (f" About {slope:+.2f} points per {per}." if slope is not None
            and round(slope, 2) != 0 else "")
    return (f"{opening}, your mood tended to be {direction} (Spearman's ρ {rho:.2f},"
            f" likely between {low:.2f} and {high:.2f}).{rate} {f['n_with']} days with a"
            f" value. {CAVEAT}")


def not_enough(row: dict) -> str:
    """Why a comparison was not made: "Not enough evidence yet (9 of 14 days with walk)."."""
    name = _display(row["kind"], row["name"])
    if row["kind"] in ("metric", "weather") and "short_of" not in row:
        return f"Not enough evidence yet ({row['n_with']} of {row['needed']} days with {name})."
    have = row["n_with"] if row["short_of"] == "with" else row["n_without"]
    return (f"Not enough evidence yet ({have} of {row['needed']} days {row['short_of']}"
            f" {name}).")
