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


def _day(iso: str) -> str:
    from datetime import date

    return date.fromisoformat(iso).strftime("%d %B %Y").lstrip("0")


def _means(f: dict) -> str:
    return f"{f['mean_with']:.1f} vs {f['mean_without']:.1f}; {_interval(f['effect'], *f['ci'])}"


def _amount(effect: float) -> str:
    return f"{abs(effect):.1f} points {'higher' if effect >= 0 else 'lower'}"


def difference(f: dict) -> str:
    """A thing's days with vs without as one paragraph: the lag that stands out first, the day
    after too when it also does (one finding per thing)."""
    same_day, day_after, others = _PHRASES[f["kind"]]
    name = _display(f["kind"], f["name"])
    opening = (day_after if f["lag"] else same_day).format(name=name)
    if f["lag"]:
        counts = f"{f['n_with']} days after one, {f['n_without']} other days."
    elif others == "without":
        counts = f"{f['n_with']} days with, {f['n_without']} without."
    else:
        counts = f"{f['n_with']} days with, {f['n_without']} {others}."
    text = f"{opening}, your mood averaged {_amount(f['effect'])} ({_means(f)}). {counts}"
    for after in f.get("also", ()):
        text += (f" The day after, it averaged {_amount(after['effect'])} ({_means(after)};"
                 f" {after['n_with']} days after one).")
    within = f.get("within")
    if within:
        text += (f" Compared only {'from' if within['side'] == 'after' else 'before'}"
                 f" {_day(within['date'])}, when your mood changed, so the change itself is"
                 f" not counted.")
    return f"{text} {CAVEAT}"


def _listed(names: list[str], most: int = 5) -> str:
    shown = names[:most]
    if len(names) > most:
        return ", ".join(shown) + f" and {len(names) - most} more"
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]


def change(f: dict) -> str:
    """A change in mood around a date; the activities first logged that week are named, not
    credited."""
    direction = "rose" if f["effect"] >= 0 else "fell"
    began = f.get("began") or []
    that_week = (f" That week you also began logging {_listed(began)}; each is compared within"
                 f" the periods before and after on its own." if began else "")
    return (f"Around {_day(f['started'])} your mood {direction} by {abs(f['effect']):.1f} points"
            f" ({_means(f)}), over the {f['n_with']} logged days from then and the"
            f" {f['n_without']} before.{that_week} {SINCE_CAVEAT} {CAVEAT}")


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
    within = row.get("within")
    where = (f" {'from' if within['side'] == 'after' else 'before'} {_day(within['date'])},"
             f" when your mood changed" if within else "")
    return (f"Not enough evidence yet ({have} of {row['needed']} days {row['short_of']}"
            f" {name}{where}).")
