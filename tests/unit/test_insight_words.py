"""The insights' sentences in the person's language (SPEC §11, §13): every sentence a finding
or a thin comparison can have is one message said by a Translator, its numbers and dates in
the language's form and the names the person gave marked as theirs."""

from __future__ import annotations

import itertools

import pytest

from kmood_lib.core.i18n import Languages
from kmood_lib.journal import insight_words as words
from kmood_lib.web.charts import theirs
from tests.plain_words import plain_words


@pytest.fixture(scope="module")
def languages():
    return Languages(pseudo=True)


def a_difference(kind: str, lag: int, effect: float, within: str | None, also: bool) -> dict:
    finding = {"kind": kind, "name": "rain" if kind == "weather" else "Ünter den Linden",
               "lag": lag, "effect": effect, "ci": sorted([effect * 0.5, effect * 1.5]),
               "mean_with": 3.35, "mean_without": 3.8, "n_with": 1, "n_without": 1200,
               "also": [{"lag": 1, "effect": -effect, "ci": sorted([-effect * 0.5, -effect]),
                         "mean_with": 2.5, "mean_without": 3.0, "n_with": 22,
                         "n_without": 300}] if also else []}
    if within:
        finding["within"] = {"side": within, "date": "2026-03-05"}
    return finding


def every_sentence() -> list[tuple[str, dict]]:
    said = [(f"difference {kind} {lag} {effect} {within} {also}",
             words.difference, a_difference(kind, lag, effect, within, also))
            for kind, lag, effect, within, also in itertools.product(
                ("activity", "place", "artist", "weather"), (0, 1), (0.45, -0.45),
                (None, "after", "before"), (False, True))]
    for effect, began in itertools.product((0.8, -0.8), ([], ["yoga"], ["a", "b"], list("abcdefg"))):
        said.append((f"change {effect} {began}", words.change, {
            "kind": "change", "name": "change in mood", "started": "2026-03-05",
            "effect": effect, "ci": sorted([effect / 2, effect * 1.5]), "mean_with": 3.5,
            "mean_without": 2.6, "n_with": 60, "n_without": 60, "began": began}))
    for kind, name, unit, rho, slope in (("metric", "sleep", "h", 0.25, 0.25),
                                         ("metric", "steps", "", -0.2, -0.001),
                                         ("metric", "coffee", "", 0.2, 0.5),
                                         ("weather", "temperature", "°C", -0.3, 0.02)):
        said.append((f"correlation {name}", words.correlation, {
            "kind": kind, "name": name, "unit": unit, "effect": rho,
            "ci": sorted([rho / 2, rho * 1.5]), "slope": slope, "n_with": 300}))
    for kind, short, side in itertools.product(("activity", "weather", "place"),
                                               ("with", "without"), (None, "after", "before")):
        row = {"kind": kind, "name": "snow" if kind == "weather" else "walk", "n_with": 3,
               "n_without": 40, "short_of": short, "needed": 14}
        if side:
            row["within"] = {"side": side, "date": "2026-03-05"}
        said.append((f"not enough {kind} {short} {side}", words.not_enough, row))
    said.append(("not enough metric", words.not_enough,
                 {"kind": "metric", "name": "sleep", "n_with": 9, "needed": 30}))
    return said


def test_every_sentence_goes_through_the_catalogue_with_the_persons_names_marked(languages):
    """In the pseudo-language every word of every sentence is accented, but the names."""
    xa = languages.get("en_XA")
    plain = {what: found for what, say, row in every_sentence()
             if (found := plain_words(f"<p>{say(row, xa, theirs)}</p>"))}
    assert plain == {}


def test_a_sentence_s_numbers_and_dates_are_the_language_s_own(languages):
    german = languages.get("de")
    said = words.difference(a_difference("activity", 0, -0.45, "before", True), german, theirs)
    # 0.45 rounds as Python rounds it (the English API says 0.5 too), with a decimal comma
    assert "0,5" in said and "3,4" in said and "3,8" in said and "1.200" in said
    assert "5. März 2026" in said and "0.5" not in said
    english = words.difference(a_difference("activity", 0, -0.45, "before", True))
    assert "0.5 points lower (3.4 vs 3.8;" in english and "1,200 without" in english
    assert "before 5 March 2026, when your mood changed" in english


def test_the_numbers_round_as_python_does_and_never_say_minus_zero(languages):
    english, german = languages.get("en"), languages.get("de")
    assert [english.decimal(v) for v in (-0.04, -0.0, 0.04, -0.05, 2.25, 0.45)] == [
        "0.0", "0.0", "0.0", "-0.1", "2.2", "0.5"]
    assert [german.decimal(v, 2, sign=True) for v in (-0.004, 0.004, -0.03, 0.5)] == [
        "0,00", "0,00", "-0,03", "+0,50"]
    assert german.decimal(1234.5, 1) == "1.234,5"

