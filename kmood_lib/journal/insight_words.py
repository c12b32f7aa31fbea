"""The insights in words (SPEC §11): effects in mood points with both means, the likely range
and the days on each side; a pattern, never a claim that one thing brings about another.

Each sentence is one message of the catalogue, its numbers and dates said by a Translator
(`say`): the domain writes the API's English with english(), a page the same sentences in the
person's language from the same figures. `mark` wraps what the person wrote (an activity's,
a place's, an artist's or a metric's name) as a page needs it (dir="auto"); as text, as is."""

from __future__ import annotations

import gettext
from collections.abc import Callable

from kmood_lib.core.config import SOURCE_LANGUAGE
from kmood_lib.core.i18n import N_, Translator

CAVEAT = N_("A pattern in your entries, not proof that one leads to the other.")
SINCE_CAVEAT = N_("Moods drift back toward their usual level after a low stretch, and new"
                  " habits often start in one, so part of a rise can be that return.")

# What a kind of thing is called, on a finding's tag.
KINDS = {"activity": N_("activity"), "place": N_("place"), "artist": N_("artist"),
         "weather": N_("weather"), "metric": N_("metric")}
# A kind of weather as a name (a chart's bar, a finding's title) and inside a sentence.
WEATHER_LABELS = {"clear": N_("Clear"), "cloudy": N_("Cloudy"), "fog": N_("Fog"),
                  "drizzle": N_("Drizzle"), "rain": N_("Rain"), "snow": N_("Snow"),
                  "thunderstorm": N_("Thunderstorm")}
WEATHER_NAMES = {"clear": N_("clear skies"), "cloudy": N_("clouds"), "fog": N_("fog"),
                 "drizzle": N_("drizzle"), "rain": N_("rain"), "snow": N_("snow"),
                 "thunderstorm": N_("thunderstorms")}
TEMPERATURE = N_("temperature")

# A thing's days with vs without, per kind, lag (0: the same day, 1: the day after) and
# direction: one whole sentence each.
_DIFFERENCE = {
    ("activity", 0, True): N_(
        "On days you logged {name}, your mood averaged {effect} points higher ({mean_with} vs"
        " {mean_without}; likely {low} to {high} higher)."),
    ("activity", 0, False): N_(
        "On days you logged {name}, your mood averaged {effect} points lower ({mean_with} vs"
        " {mean_without}; likely {low} to {high} lower)."),
    ("activity", 1, True): N_(
        "The day after you logged {name}, your mood averaged {effect} points higher"
        " ({mean_with} vs {mean_without}; likely {low} to {high} higher)."),
    ("activity", 1, False): N_(
        "The day after you logged {name}, your mood averaged {effect} points lower"
        " ({mean_with} vs {mean_without}; likely {low} to {high} lower)."),
    ("place", 0, True): N_(
        "On days you were in {name}, your mood averaged {effect} points higher ({mean_with} vs"
        " {mean_without}; likely {low} to {high} higher)."),
    ("place", 0, False): N_(
        "On days you were in {name}, your mood averaged {effect} points lower ({mean_with} vs"
        " {mean_without}; likely {low} to {high} lower)."),
    ("place", 1, True): N_(
        "The day after you were in {name}, your mood averaged {effect} points higher"
        " ({mean_with} vs {mean_without}; likely {low} to {high} higher)."),
    ("place", 1, False): N_(
        "The day after you were in {name}, your mood averaged {effect} points lower"
        " ({mean_with} vs {mean_without}; likely {low} to {high} lower)."),
    ("artist", 0, True): N_(
        "On days you listened to {name}, your mood averaged {effect} points higher"
        " ({mean_with} vs {mean_without}; likely {low} to {high} higher)."),
    ("artist", 0, False): N_(
        "On days you listened to {name}, your mood averaged {effect} points lower"
        " ({mean_with} vs {mean_without}; likely {low} to {high} lower)."),
    ("artist", 1, True): N_(
        "The day after you listened to {name}, your mood averaged {effect} points higher"
        " ({mean_with} vs {mean_without}; likely {low} to {high} higher)."),
    ("artist", 1, False): N_(
        "The day after you listened to {name}, your mood averaged {effect} points lower"
        " ({mean_with} vs {mean_without}; likely {low} to {high} lower)."),
    ("weather", 0, True): N_(
        "On days with {name}, your mood averaged {effect} points higher ({mean_with} vs"
        " {mean_without}; likely {low} to {high} higher)."),
    ("weather", 0, False): N_(
        "On days with {name}, your mood averaged {effect} points lower ({mean_with} vs"
        " {mean_without}; likely {low} to {high} lower)."),
    ("weather", 1, True): N_(
        "The day after days with {name}, your mood averaged {effect} points higher"
        " ({mean_with} vs {mean_without}; likely {low} to {high} higher)."),
    ("weather", 1, False): N_(
        "The day after days with {name}, your mood averaged {effect} points lower"
        " ({mean_with} vs {mean_without}; likely {low} to {high} lower)."),
}


def english() -> Translator:
    """The source language's Translator: the words the API and the logs keep."""
    return Translator(SOURCE_LANGUAGE, gettext.NullTranslations())


def as_is(name: str) -> str:
    return name


def _day(say: Translator, iso: str) -> str:
    return say.day(iso, "long")


def _figures(say: Translator, f: dict) -> dict:
    """The numbers a difference's sentence shows: the effect's size, both means and the
    likely range in the effect's own direction ("likely 0.3 to 0.9 higher")."""
    low, high = f["ci"]
    if f["effect"] < 0:
        low, high = -high, -low
    return {"effect": say.decimal(abs(f["effect"])), "mean_with": say.decimal(f["mean_with"]),
            "mean_without": say.decimal(f["mean_without"]), "low": say.decimal(low),
            "high": say.decimal(high)}


def _counts(say: Translator, kind: str, lag: int, n_with: int, n_without: int) -> str:
    n_ = say.ngettext
    if lag:
        return n_("{n} day after one, {others}.", "{n} days after one, {others}.", n_with,
                  others=n_("{n} other day", "{n} other days", n_without))
    if kind == "place":
        others = n_("{n} on other days with a known place",
                    "{n} on other days with a known place", n_without)
    elif kind == "artist":
        others = n_("{n} on other days with a song", "{n} on other days with a song",
                    n_without)
    elif kind == "weather":
        others = n_("{n} on other days with known weather",
                    "{n} on other days with known weather", n_without)
    else:
        others = n_("{n} without", "{n} without", n_without)
    return n_("{n} day with, {others}.", "{n} days with, {others}.", n_with, others=others)


def _within(say: Translator, within: dict) -> str:
    if within["side"] == "after":
        return say.gettext(N_("Compared only from {date}, when your mood changed, so the change"
                              " itself is not counted."), date=_day(say, within["date"]))
    return say.gettext(N_("Compared only before {date}, when your mood changed, so the change"
                          " itself is not counted."), date=_day(say, within["date"]))


def name_of(say: Translator, kind: str, name: str, mark: Callable[[str], str] = as_is) -> str:
    """A thing's name in a sentence: a kind of weather in the language, else as written."""
    if kind == "weather" and name in WEATHER_NAMES:
        return say.gettext(WEATHER_NAMES[name])
    if kind == "weather" and name == "temperature":
        return say.gettext(TEMPERATURE)
    return mark(name)


def difference(f: dict, say: Translator | None = None, mark: Callable[[str], str] = as_is
               ) -> str:
    """A thing's days with vs without as one paragraph: the lag that stands out first, the day
    after too when it also does (one finding per thing)."""
    say = say or english()
    n_ = say.ngettext
    name = name_of(say, f["kind"], f["name"], mark)
    sentences = [say.gettext(_DIFFERENCE[f["kind"], 1 if f["lag"] else 0, f["effect"] >= 0],
                             name=name, **_figures(say, f)),
                 _counts(say, f["kind"], f["lag"], f["n_with"], f["n_without"])]
    for after in f.get("also", ()):
        if after["effect"] >= 0:
            sentences.append(n_(
                "The day after, it averaged {effect} points higher ({mean_with} vs"
                " {mean_without}; likely {low} to {high} higher; {n} day after one).",
                "The day after, it averaged {effect} points higher ({mean_with} vs"
                " {mean_without}; likely {low} to {high} higher; {n} days after one).",
                after["n_with"], **_figures(say, after)))
        else:
            sentences.append(n_(
                "The day after, it averaged {effect} points lower ({mean_with} vs"
                " {mean_without}; likely {low} to {high} lower; {n} day after one).",
                "The day after, it averaged {effect} points lower ({mean_with} vs"
                " {mean_without}; likely {low} to {high} lower; {n} days after one).",
                after["n_with"], **_figures(say, after)))
    if f.get("within"):
        sentences.append(_within(say, f["within"]))
    return " ".join([*sentences, say.gettext(CAVEAT)])


def _listed(say: Translator, names: list[str], most: int = 5) -> str:
    """"yoga, tea and walk"; past `most` names, "… and 3 more"."""
    n_ = say.ngettext
    shown = names[:most]
    if len(names) > most:
        return n_("{names} and {n} more", "{names} and {n} more", len(names) - most,
                            names=", ".join(shown))
    if len(shown) == 1:
        return shown[0]
    return say.gettext(N_("{names} and {last}"), names=", ".join(shown[:-1]), last=shown[-1])


def change(f: dict, say: Translator | None = None, mark: Callable[[str], str] = as_is) -> str:
    """A change in mood around a date; the activities first logged that week are named, not
    credited."""
    say = say or english()
    n_ = say.ngettext
    values = {**_figures(say, f), "date": _day(say, f["started"]),
              "before": say.number(f["n_without"])}
    if f["effect"] >= 0:
        opening = n_(
            "Around {date} your mood rose by {effect} points ({mean_with} vs {mean_without};"
            " likely {low} to {high} higher), over the {n} logged day from then and the"
            " {before} before.",
            "Around {date} your mood rose by {effect} points ({mean_with} vs {mean_without};"
            " likely {low} to {high} higher), over the {n} logged days from then and the"
            " {before} before.", f["n_with"], **values)
    else:
        opening = n_(
            "Around {date} your mood fell by {effect} points ({mean_with} vs {mean_without};"
            " likely {low} to {high} lower), over the {n} logged day from then and the"
            " {before} before.",
            "Around {date} your mood fell by {effect} points ({mean_with} vs {mean_without};"
            " likely {low} to {high} lower), over the {n} logged days from then and the"
            " {before} before.", f["n_with"], **values)
    sentences = [opening]
    began = f.get("began") or []
    if began:
        sentences.append(say.gettext(
            N_("That week you also began logging {names}; each is compared within the periods"
               " before and after on its own."),
            names=_listed(say, [mark(name) for name in began])))
    return " ".join([*sentences, say.gettext(SINCE_CAVEAT), say.gettext(CAVEAT)])


def correlation(f: dict, say: Translator | None = None, mark: Callable[[str], str] = as_is
                ) -> str:
    """A number that moves with the day's mood: its rank correlation and a slope per unit."""
    say = say or english()
    n_ = say.ngettext
    rho, (low, high) = f["effect"], f["ci"]
    values = {"rho": say.decimal(rho, 2), "low": say.decimal(low, 2),
              "high": say.decimal(high, 2)}
    warmer = f["name"] == "temperature" and f["kind"] == "weather"
    if warmer:
        opening = say.gettext(N_("On warmer days, your mood tended to be higher (Spearman's ρ"
                                 " {rho}, likely between {low} and {high}).") if rho >= 0 else
                              N_("On warmer days, your mood tended to be lower (Spearman's ρ"
                                 " {rho}, likely between {low} and {high})."), **values)
    else:
        opening = say.gettext(N_("On days with more {name}, your mood tended to be higher"
                                 " (Spearman's ρ {rho}, likely between {low} and {high}).")
                              if rho >= 0 else
                              N_("On days with more {name}, your mood tended to be lower"
                                 " (Spearman's ρ {rho}, likely between {low} and {high})."),
                              name=mark(f["name"]), **values)
    sentences = [opening]
    slope = f["slope"]
    if slope is not None and round(slope, 2) != 0:
        per = {"slope": say.decimal(slope, 2, sign=True)}
        if f["unit"] == "°C":
            sentences.append(say.gettext(N_("About {slope} points per °C."), **per))
        elif f["unit"]:
            sentences.append(say.gettext(N_("About {slope} points per extra {unit}."),
                                         unit=mark(f["unit"]), **per))
        else:
            sentences.append(say.gettext(N_("About {slope} points per extra 1."), **per))
    sentences.append(n_("{n} day with a value.", "{n} days with a value.",
                                  f["n_with"]))
    return " ".join([*sentences, say.gettext(CAVEAT)])


def not_enough(row: dict, say: Translator | None = None, mark: Callable[[str], str] = as_is
               ) -> str:
    """Why a comparison was not made: "Not enough evidence yet (9 of 14 days with walk)."."""
    say = say or english()
    n_ = say.ngettext
    short = row.get("short_of", "with")
    side = (row.get("within") or {}).get("side")
    values = {"have": say.number(row["n_with"] if short == "with" else row["n_without"]),
              "name": name_of(say, row["kind"], row["name"], mark)}
    if side:
        values["date"] = _day(say, row["within"]["date"])
    n = row["needed"]
    if (short, side) == ("with", None):
        return n_("Not enough evidence yet ({have} of {n} day with {name}).",
                  "Not enough evidence yet ({have} of {n} days with {name}).", n, **values)
    if (short, side) == ("without", None):
        return n_("Not enough evidence yet ({have} of {n} day without {name}).",
                  "Not enough evidence yet ({have} of {n} days without {name}).", n, **values)
    if (short, side) == ("with", "after"):
        return n_("Not enough evidence yet ({have} of {n} day with {name} from {date}, when"
                  " your mood changed).",
                  "Not enough evidence yet ({have} of {n} days with {name} from {date}, when"
                  " your mood changed).", n, **values)
    if (short, side) == ("without", "after"):
        return n_("Not enough evidence yet ({have} of {n} day without {name} from {date}, when"
                  " your mood changed).",
                  "Not enough evidence yet ({have} of {n} days without {name} from {date},"
                  " when your mood changed).", n, **values)
    if short == "with":
        return n_("Not enough evidence yet ({have} of {n} day with {name} before {date}, when"
                  " your mood changed).",
                  "Not enough evidence yet ({have} of {n} days with {name} before {date}, when"
                  " your mood changed).", n, **values)
    return n_("Not enough evidence yet ({have} of {n} day without {name} before {date}, when"
              " your mood changed).",
              "Not enough evidence yet ({have} of {n} days without {name} before {date}, when"
              " your mood changed).", n, **values)
