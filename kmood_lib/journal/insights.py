"""What goes with better and worse days (SPEC §11, issue #25): every comparison a page makes,
tested together so that checking many things does not "find" some by chance.

1. Read the range's logged days (a day's mood is the mean of its entries; a day without
   entries is missing) and what each day had: activities, places, artists, kinds of weather,
   and the numbers (metrics, temperature).
2. Ask each thing with enough days on both sides (evidence.Evidence): days with vs days
   without, on the same day and on the day after; around the days new activities began (those
   within a week of each other: one change), days after vs days before; and for each number
   its rank correlation with the day's mood. A thing whose days fall mostly on one side of a
   change in mood is asked only within that side. One stationary block bootstrap answers
   them all from the same seeded resamples (resampling.bootstrap).
3. A finding passes every bar in `Thresholds` and Benjamini–Hochberg over the whole family;
   a thing's lags are one finding; everything else is either counted as checked or listed as
   not enough evidence yet, never both. The clearest come first (`strength`).
"""

from __future__ import annotations

import math
import sqlite3
import statistics
import zlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date

from kmood_lib.core.errors import ValidationError
from kmood_lib.core.gate import ComputeGate
from kmood_lib.core.i18n import Phrase
from kmood_lib.journal import insight_words as words
from kmood_lib.journal import looking_back
from kmood_lib.journal.enrichment import WEATHER_GROUPS, place_label
from kmood_lib.journal.evidence import MIN_EACH, Evidence
from kmood_lib.journal.resampling import (
    MAX_DAYS,
    Answer,
    Question,
    bh_adjusted,
    bootstrap,
    percentile,
    theil_sen,
)
from kmood_lib.journal.versions import VersionedCache, cached

# Raised whenever a change to the method changes what it answers for the same journal: the
# worker's stored results of an older method are then computed again (insight_store).
METHOD = 2  # 2: intervals from the corrected bootstrap SE with Student's t (#39)
MAX_GAP = 8  # positions between two logged days at most (1: the next day; more: a gap)
SINCE_WINDOW = 91  # logged days on each side of a start, at most
PLACEBO_CUTS = 20  # other cuts "since you started" needs to know how windows differ
CHANGE_DAYS = 7  # activities first logged within a week of each other: one change
IMBALANCE = 0.25  # a thing's share of days after a change this far from everyone's: confounded
OPEN_FINDINGS = 5  # the page shows this many findings open, the rest folded

NUMERIC = "typeof(em.value) IN ('integer', 'real') AND (em.value - em.value) IS NOT NULL"


@dataclass(frozen=True)
class Thresholds:
    """The bars a comparison clears before it is shown as a finding (SPEC §11)."""

    min_days: int = 30  # logged days in the range before anything is compared
    min_each: int = MIN_EACH  # days with and days without (evidence.Evidence)
    min_effect: float = 0.3  # mood points, either way
    min_rho: float = 0.1  # rank correlation, either way, for numbers
    since_each: int = 28  # logged days before and after "since you started"
    fdr: float = 0.10  # Benjamini–Hochberg false discovery rate over the page's family
    resamples: int = 2000
    mean_block: float = 7.0

    @property
    def evidence(self) -> Evidence:
        return Evidence(self.min_each)


def thresholds_from(config) -> Thresholds:
    """The configurable bars (KMOOD_INSIGHTS_*), the method's own settings as they are."""
    return Thresholds(min_days=config.insights_min_days, min_each=config.insights_min_each,
                      min_effect=config.insights_min_effect, fdr=config.insights_fdr)


@dataclass
class Trait:
    """Something some days had: its kind, its name, and the positions of those days."""

    kind: str  # activity | place | artist | weather
    name: str
    days: set[int]
    known: str  # which days count as "without": all | place | song | weather
    started: int | None = None  # for an activity first used inside the range: that position


@dataclass
class Number:
    """A number some days had (a metric's daily mean, the temperature): position -> value."""

    kind: str  # metric | weather
    name: str
    unit: str
    values: dict[int, float]


@dataclass
class Journal:
    """A range's logged days laid out on positions, oldest first: consecutive days on
    consecutive positions, a longer gap shortened to MAX_GAP (so "the next day" keeps its
    meaning, and a journal with a pause of years costs no more than its logged days)."""

    dates: dict[int, date]  # position -> the local day
    position: dict[str, int]  # the local day (YYYY-MM-DD) -> its position
    span: int  # positions from the first to the last logged day
    moods: dict[int, float]
    known: dict[str, set[int]]
    traits: list[Trait] = field(default_factory=list)
    numbers: list[Number] = field(default_factory=list)

    def positions(self, dates: Iterable[str]) -> set[int]:
        return {self.position[d] for d in dates if d in self.position}


def _dates(joined: str | None) -> Iterable[str]:
    return joined.split(",") if joined else ()


def _lay_out(rows: list[tuple[str, int, float]]) -> Journal:
    """Positions for (local_date, ordinal, mood) rows in order (see Journal)."""
    dates, position, moods, at, previous = {}, {}, {}, 0, None
    for local_date, ordinal, mood in rows:
        if previous is not None:
            at += min(ordinal - previous, MAX_GAP)
        previous = ordinal
        dates[at], position[local_date], moods[at] = date.fromordinal(ordinal), at, mood
    return Journal(dates=dates, position=position, span=at + 1, moods=moods,
                   known={"all": set(moods)})


def read_journal(conn: sqlite3.Connection, user_id: int, date_from: str, date_to: str
                 ) -> Journal | None:
    """The range's logged days and what they had; None when nothing was logged in it."""
    rows = conn.execute(
        "SELECT local_date, day, CAST(mood_sum AS REAL) / n FROM entry_days"
        " WHERE user_id = ? AND local_date BETWEEN ? AND ? ORDER BY local_date",
        (user_id, date_from, date_to)).fetchall()
    if not rows:
        return None
    journal = _lay_out(rows)
    if journal.span > MAX_DAYS:
        raise ValidationError({"from": Phrase("the insights compare at most {n} days at once:"
                                      " choose a later start", n=MAX_DAYS)})
    span = (user_id, date_from, date_to)
    first_logged = rows[0][0]
    for name, joined, first_ever in conn.execute(
            "SELECT a.name, group_concat(ad.local_date),"
            " (SELECT min(x.local_date) FROM activity_days x WHERE x.user_id = ad.user_id"
            "  AND x.activity_id = ad.activity_id)"
            " FROM activity_days ad JOIN activities a ON a.id = ad.activity_id"
            " WHERE ad.user_id = ? AND ad.local_date BETWEEN ? AND ?"
            " GROUP BY ad.activity_id ORDER BY a.name_key", span):
        # first used inside the range: "since you started" can compare before and after
        started = journal.position.get(first_ever) if first_ever >= first_logged else None
        journal.traits.append(Trait("activity", name, journal.positions(_dates(joined)),
                                    "all", started))
    _read_places(conn, journal, span)
    _read_artists(conn, journal, span)
    _read_weather(conn, journal, span)
    for name, unit, local_date, value in conn.execute(
            "SELECT m.name, m.unit, e.local_date, avg(em.value)"
            " FROM entry_metrics em JOIN entries e ON e.id = em.entry_id"
            " JOIN metrics m ON m.id = em.metric_id"
            " WHERE e.user_id = ? AND e.local_date BETWEEN ? AND ? AND " + NUMERIC +
            " GROUP BY m.id, e.local_date ORDER BY m.name, e.local_date", span):
        if not journal.numbers or journal.numbers[-1].name != name:
            journal.numbers.append(Number("metric", name, unit, {}))
        if local_date in journal.position and math.isfinite(value):  # a mean can overflow
            journal.numbers[-1].values[journal.position[local_date]] = value
    return journal


def _read_places(conn, journal: Journal, span: tuple) -> None:
    """Places by their name (neighbouring cells with one name count together); a place with
    no name is a known place, compared as one of the "other days", never shown."""
    merged: dict[str | None, set[int]] = {}
    for locality, country, display, joined in conn.execute(
            "SELECT p.locality, p.country_code, p.display_name, group_concat(DISTINCT"
            " e.local_date) FROM entry_places ep CROSS JOIN entries e ON e.id = ep.entry_id"
            " JOIN places p ON p.cell = ep.cell AND p.unavailable = 0"
            " WHERE e.user_id = ? AND e.local_date BETWEEN ? AND ? GROUP BY ep.cell", span):
        label = place_label(locality, country, display) or None
        merged.setdefault(label, set()).update(journal.positions(_dates(joined)))
    journal.known["place"] = set().union(*merged.values())
    journal.traits += [Trait("place", label, days, "place") for label, days in
                       sorted((k, v) for k, v in merged.items() if k is not None)]


def _read_artists(conn, journal: Journal, span: tuple) -> None:
    artists = [(artist, journal.positions(_dates(joined))) for artist, joined in conn.execute(
        "SELECT min(s.artist), group_concat(DISTINCT e.local_date)"
        " FROM songs s CROSS JOIN entries e ON e.id = s.entry_id"
        " WHERE e.user_id = ? AND e.local_date BETWEEN ? AND ?"
        " GROUP BY coalesce(json_extract(s.lookup_key, '$[0]'), s.artist)"
        " ORDER BY min(s.artist)", span)]
    journal.known["song"] = set().union(*(days for _, days in artists))
    journal.traits += [Trait("artist", artist, days, "song") for artist, days in artists]


def _read_weather(conn, journal: Journal, span: tuple) -> None:
    temperature: dict[int, float] = {}
    kinds: dict[str, set[int]] = {name: set() for name, _ in WEATHER_GROUPS}
    group_of = {code: name for name, codes in WEATHER_GROUPS for code in codes}
    for local_date, mean_c, codes in conn.execute(
            "SELECT e.local_date, avg(w.temperature_c), group_concat(DISTINCT w.code)"
            " FROM weather w CROSS JOIN entries e ON e.id = w.entry_id"
            " WHERE w.unavailable = 0 AND e.user_id = ? AND e.local_date BETWEEN ? AND ?"
            " GROUP BY e.local_date", span):
        position = journal.position.get(local_date)
        if position is None:
            continue
        temperature[position] = mean_c
        for code in _dates(codes):
            if int(code) in group_of:
                kinds[group_of[int(code)]].add(position)
    journal.known["weather"] = set(temperature)
    journal.traits += [Trait("weather", name, days, "weather") for name, days in kinds.items()
                       if days]
    if temperature:
        journal.numbers.append(Number("weather", "temperature", "°C", temperature))


@dataclass
class _Asked:
    """One comparison put to the bootstrap, and what it needs to become a sentence."""

    kind: str
    name: str
    lag: int  # 0 same day, 1 the day after; -1 a change in mood around a date
    population: int
    with_days: list[int]
    started: str | None = None  # a change: its first day, as a date
    answer: Answer | None = None  # given here when not from the bootstrap (a change)
    members: dict[int, float] | None = None  # the days compared, when not a population
    began: list[str] = field(default_factory=list)  # a change: activities first logged then
    cut: int | None = None  # a change: the position of its first day
    within: dict | None = None  # compared only before or after a change: {"side", "date"}


def insights(conn: sqlite3.Connection, user_id: int, date_from: str, date_to: str,
             today: date, limits: Thresholds = Thresholds()) -> dict:
    """Everything the insights page and GET /api/insights show for one range."""
    return {**analysis(conn, user_id, date_from, date_to, limits),
            "on_this_day": looking_back.on_this_day(conn, user_id, today)}


def analysis(conn: sqlite3.Connection, user_id: int, date_from: str, date_to: str,
             limits: Thresholds) -> dict:
    """The range's comparisons, best and worst stretches and stability: what is cached."""
    journal = read_journal(conn, user_id, date_from, date_to)
    by_date = {} if journal is None else {journal.dates[p]: mood
                                          for p, mood in journal.moods.items()}
    result = {"range": {"from": date_from, "to": date_to}, "days": len(by_date),
              "needed_days": limits.min_days, "checked": 0, "findings": [],
              "open_findings": OPEN_FINDINGS, "not_enough": [], "comparisons": [],
              **looking_back.best_and_worst(by_date),
              "stability": looking_back.stability(by_date)}
    if journal is not None and len(by_date) >= limits.min_days:
        result.update(_compare(journal, date_from, date_to, limits))
    return result


def _compare(journal: Journal, date_from: str, date_to: str, limits: Thresholds) -> dict:
    """Every comparison with enough days, as one family: findings and the rest's counts."""
    populations, population_of = _populations(journal)
    asked, not_enough = _questions(journal, populations, population_of, limits)
    numbers = [n for n in journal.numbers if _paired_days(journal, n) >= limits.min_days]
    not_enough += [{"kind": n.kind, "name": n.name, "lag": 0, "n_with": _paired_days(journal, n),
                    "needed": limits.min_days} for n in journal.numbers if n not in numbers]
    pairs = [{p: (v, journal.moods[p]) for p, v in n.values.items() if p in journal.moods}
             for n in numbers]
    seed = zlib.crc32(f"{date_from}:{date_to}".encode())  # stable between reloads
    resampled = [a for a in asked if a.answer is None]
    answers, correlations = bootstrap(
        journal.span, populations, [Question(a.population, a.with_days) for a in resampled],
        pairs, resamples=limits.resamples, mean_block=limits.mean_block, seed=seed)
    for a, answer in zip(resampled, answers, strict=True):
        a.answer = answer
    q_values = bh_adjusted([a.answer.p for a in asked] + [c.p for c in correlations])
    standing: dict[tuple[str, str], list[tuple[_Asked, float]]] = {}
    findings = []
    for a, q in zip(asked, q_values, strict=False):
        if not _clears(a.answer, q, limits.min_effect, limits.fdr):
            continue
        if a.kind == "change":
            findings.append(_change_finding(a, q))
        else:  # one finding per thing: its same day and its day after together
            standing.setdefault((a.kind, a.name), []).append((a, q))
    for both in standing.values():
        both.sort(key=lambda pair: pair[0].lag)
        (first, q), *others = both
        findings.append(_difference_finding(first, q, populations, others))
    for n, c, q, pair in zip(numbers, correlations, q_values[len(asked):], pairs, strict=True):
        if _clears(c, q, limits.min_rho, limits.fdr):
            findings.append(_correlation_finding(n, c, q, list(pair.values())))
    findings.sort(key=lambda f: (f["measure"] != "points", -f["strength"], f["name"]))
    compared = [_compared(a.kind, a.started if a.kind == "change" else a.name, max(a.lag, 0),
                          "points", a.answer, q) for a, q in zip(asked, q_values, strict=False)]
    compared += [_compared(n.kind, n.name, 0, "rho", c, q)
                 for n, c, q in zip(numbers, correlations, q_values[len(asked):], strict=True)]
    found = {(f["kind"], f["name"]) for f in findings}
    # nothing is both a finding and "not enough evidence"
    not_enough = [r for r in not_enough if (r["kind"], r["name"]) not in found]
    not_enough.sort(key=lambda r: (-r["n_with"], r["kind"], r["name"]))
    english = words.english()  # the API's words (a page says them in the person's language)
    for row in not_enough:
        row["sentence"] = words.not_enough(row, english)
    return {"checked": len(q_values), "findings": findings, "not_enough": not_enough,
            "comparisons": compared}


def _compared(kind: str, name: str, lag: int, measure: str, answer: Answer, q: float | None
              ) -> dict:
    """One comparison of the family as it came out, finding or not (for the method's table
    and for anyone checking the arithmetic)."""
    def rounded(value: float | None, digits: int = 3) -> float | None:
        return None if value is None else round(value, digits)

    return {"kind": kind, "name": name, "lag": lag, "since": kind == "change",
            "measure": measure, "effect": rounded(answer.effect),
            "ci": None if answer.low is None else [rounded(answer.low), rounded(answer.high)],
            "p": rounded(answer.p, 4), "q": rounded(q, 4), "n_with": answer.n_with,
            "n_without": answer.n_without}


def full_range(conn: sqlite3.Connection, user_id: int, date_from: str | None,
               date_to: str | None, today: date) -> tuple[str, str]:
    """A range with its open ends closed: from the first logged day, up to today."""
    date_to = date_to or today.isoformat()
    if date_from is None:
        first = conn.execute("SELECT min(local_date) FROM entry_days WHERE user_id = ?",
                             (user_id,)).fetchone()[0]
        date_from = min(first or date_to, date_to)
    if date_from > date_to:
        raise ValidationError({"from": Phrase("must not be after to (today, when to is not"
                                      " given)")})
    return date_from, date_to


def cached_insights(conn: sqlite3.Connection, cache: VersionedCache, user_id: int,
                    date_from: str, date_to: str, today: date, limits: Thresholds,
                    gate: ComputeGate) -> dict:
    """insights(), the analysis from the cache when the journal has not changed since, else
    computed through `gate` (one per person at a time, a few in all: it may refuse with
    StillComputing or ServerBusy); on this day is read fresh, whole entries as they are now."""
    found = cached_analysis(conn, cache, user_id, date_from, date_to, limits, gate)
    return {**found, "on_this_day": looking_back.on_this_day(conn, user_id, today)}


def cached_analysis(conn: sqlite3.Connection, cache: VersionedCache, user_id: int,
                    date_from: str, date_to: str, limits: Thresholds, gate: ComputeGate) -> dict:
    """analysis(), from the cache while the journal has not changed, else through `gate`."""
    return cached(conn, cache, user_id, ("insights", date_from, date_to, limits),
                  lambda: analysis(conn, user_id, date_from, date_to, limits), gate)


def _paired_days(journal: Journal, number: Number) -> int:
    return sum(1 for p in number.values if p in journal.moods)


def _populations(journal: Journal) -> tuple[list[dict[int, float]], dict[tuple[str, int], int]]:
    """For each kind of known days, the same-day population (each day's mood) and the
    day-after one (days whose next day is logged, with that day's mood)."""
    moods, populations, index = journal.moods, [], {}
    for known, days in journal.known.items():
        index[known, 0] = len(populations)
        populations.append({p: moods[p] for p in days})
        index[known, 1] = len(populations)
        populations.append({p: moods[p + 1] for p in days if p + 1 in moods})
    return populations, index


def _questions(journal: Journal, populations, population_of, limits: Thresholds
               ) -> tuple[list[_Asked], list[dict]]:
    """The comparisons with enough days on both sides (evidence.Evidence), and the rest with
    their counts. A thing whose days fall mostly on one side of a change in mood is compared
    only within that side, so it is never credited with the change itself."""
    changes = _changes(journal, limits)
    # a change large and clear enough on its own (before the family's correction: comparing
    # within its sides where it is not needed costs a few days, never a false credit)
    shifts = [c for c in changes if _clears(c.answer, 0.0, limits.min_effect, 1.0)]
    asked, not_enough, evidence = [], [], limits.evidence
    for trait in journal.traits:
        within = _within(journal, trait, shifts)
        lags = (0,) if trait.kind == "weather" else (0, 1)
        for lag in lags:
            population = _population(populations, population_of, trait.known, lag, within)
            members = populations[population]
            with_days = sorted(p for p in trait.days if p in members)
            n_with, n_without = len(with_days), len(members) - len(with_days)
            short = evidence.short_of(n_with, n_without)
            if short is None:
                asked.append(_Asked(trait.kind, trait.name, lag, population, with_days,
                                    within=_side(journal, within)))
            elif lag == 0:
                row = {"kind": trait.kind, "name": trait.name, "lag": 0, "n_with": n_with,
                       "n_without": n_without, "short_of": short, "needed": evidence.min_each}
                if within:
                    row["within"] = _side(journal, within)
                not_enough.append(row)
    return asked + changes, not_enough


def _side(journal: Journal, within: tuple[int, bool] | None) -> dict | None:
    if within is None:
        return None
    cut, after = within
    return {"side": "after" if after else "before", "date": journal.dates[cut].isoformat()}


def _within(journal: Journal, trait: Trait, shifts: list[_Asked]) -> tuple[int, bool] | None:
    """(the change's first position, whether after it) when the thing's days fall on one side
    of a change in mood far more than the logged days do (IMBALANCE); else None."""
    if not trait.days:
        return None
    worst = None
    for shift in shifts:
        share = sum(1 for p in trait.days if p >= shift.cut) / len(trait.days)
        everyone = sum(1 for p in journal.moods if p >= shift.cut) / len(journal.moods)
        gap = abs(share - everyone)
        if gap >= IMBALANCE and (worst is None or gap > worst[0]):
            worst = (gap, shift.cut, share >= 0.5)
    return None if worst is None else worst[1:]


def _population(populations: list, population_of: dict, known: str, lag: int,
                within: tuple[int, bool] | None) -> int:
    """The population of `known` days at `lag`, or its days on one side of a change (made once
    and added to the list the bootstrap reads)."""
    if within is None:
        return population_of[known, lag]
    key = (known, lag, *within)
    if key not in population_of:
        cut, after = within
        population_of[key] = len(populations)
        populations.append({p: m for p, m in populations[population_of[known, lag]].items()
                            if (p >= cut) == after})
    return population_of[key]


def _changes(journal: Journal, limits: Thresholds) -> list[_Asked]:
    """One question per change: the activities first logged within CHANGE_DAYS of each other
    start one window, asked once whatever their number (a week when several new things were
    logged is one change in mood, not one per thing)."""
    starts = sorted((t.started, t.name) for t in journal.traits if t.started is not None)
    groups: list[list[tuple[int, str]]] = []
    for position, name in starts:
        if groups and (journal.dates[position] - journal.dates[groups[-1][0][0]]).days \
                <= CHANGE_DAYS:
            groups[-1].append((position, name))
        else:
            groups.append([(position, name)])
    changes = []
    for group in groups:
        change = _since(journal, group[0][0], limits)
        if change is not None:
            change.began = sorted({name for _, name in group}, key=str.casefold)
            changes.append(change)
    return changes


def _since(journal: Journal, started: int, limits: Thresholds) -> _Asked | None:
    """Days from `started` on vs as many days before it, compared with how much any two such
    neighbouring windows of this journal differ (a placebo at every other day).

    1. A window of W logged days on each side of the start (at least `since_each`, at most
       SINCE_WINDOW, and narrow enough to leave PLACEBO_CUTS other cuts), so the years
       around it weigh nothing.
    2. The same difference at every other cut of the logged days whose windows do not
       overlap the real one: what seasons, drifts and runs of good weeks do on their own.
    3. The p-value is the share of those at least as large; the interval is the estimate
       minus their 2.5 and 97.5 percentiles. A change that seasons alone could make is
       never a finding, whatever the number of days."""
    logged = sorted(journal.moods)
    cut = next(i for i, p in enumerate(logged) if p >= started)
    # no wider than leaves PLACEBO_CUTS cuts whose windows share no day with this one
    window = min(cut, len(logged) - cut, SINCE_WINDOW, (len(logged) - PLACEBO_CUTS) // 6)
    if window < limits.since_each:
        return None
    total = [0.0]
    for p in logged:
        total.append(total[-1] + journal.moods[p])

    def change(at: int) -> float:
        return (total[at + window] - 2 * total[at] + total[at - window]) / window

    observed = change(cut)
    placebo = sorted(change(at) for at in range(window, len(logged) - window + 1)
                     if abs(at - cut) >= 2 * window)  # two windows each side apart
    if len(placebo) < PLACEBO_CUTS:
        return None
    beyond = sum(1 for d in placebo if abs(d) >= abs(observed))
    answer = Answer(observed, observed - percentile(placebo, 0.975),
                    observed - percentile(placebo, 0.025), (beyond + 1) / (len(placebo) + 1),
                    window, window)
    compared = logged[cut - window:cut + window]
    return _Asked("change", "change in mood", -1, -1, logged[cut:cut + window],
                  journal.dates[logged[cut]].isoformat(), answer,
                  {p: journal.moods[p] for p in compared}, cut=logged[cut])


def _clears(answer: Answer, q: float | None, smallest: float, fdr: float) -> bool:
    """An interval that excludes 0, an effect at least `smallest`, and BH passed."""
    return (answer.low is not None and q is not None and (answer.low > 0 or answer.high < 0)
            and abs(answer.effect) >= smallest and q <= fdr)


def _strength(low: float, high: float) -> float:
    """How far the interval's near end is from zero: what ranks the findings."""
    return round(min(abs(low), abs(high)), 2)


def _difference(a: _Asked, q: float, members: dict[int, float]) -> dict:
    """One comparison's figures: the effect, its interval, both means, the days and p, q."""
    answer = a.answer
    with_set = set(a.with_days)
    mean_with = statistics.fmean(members[p] for p in a.with_days)
    mean_without = statistics.fmean(m for p, m in members.items() if p not in with_set)
    return {"lag": max(a.lag, 0), "effect": round(answer.effect, 2),
            "ci": [round(answer.low, 2), round(answer.high, 2)],
            "mean_with": round(mean_with, 2), "mean_without": round(mean_without, 2),
            "n_with": answer.n_with, "n_without": answer.n_without, "p": round(answer.p, 4),
            "q": round(q, 4)}


def _difference_finding(a: _Asked, q: float, populations: list,
                        others: list[tuple[_Asked, float]]) -> dict:
    """A thing's finding: the first lag that stands out, and the day after in `also` when it
    stands out too (one card per thing)."""
    finding = {"kind": a.kind, "name": a.name, "since": False, "measure": "points",
               **_difference(a, q, populations[a.population])}
    finding["also"] = [_difference(other, other_q, populations[other.population])
                       for other, other_q in others]
    if a.within:
        finding["within"] = a.within
    finding["strength"] = _strength(*finding["ci"])
    finding["sentence"] = words.difference(finding)
    return finding


def _change_finding(a: _Asked, q: float) -> dict:
    """A change in mood around a date, with the activities first logged that week: they are
    named, never credited (each is compared within the periods on its own)."""
    finding = {"kind": "change", "name": "change in mood", "since": True, "measure": "points",
               "started": a.started, "began": a.began, **_difference(a, q, a.members),
               "also": []}
    finding["strength"] = _strength(*finding["ci"])
    finding["sentence"] = words.change(finding)
    return finding


def _correlation_finding(number: Number, answer: Answer, q: float,
                         points: list[tuple[float, float]]) -> dict:
    slope = theil_sen(points)
    finding = {"kind": number.kind, "name": number.name, "lag": 0, "since": False,
               "measure": "rho", "effect": round(answer.effect, 2),
               "ci": [round(answer.low, 2), round(answer.high, 2)],
               "slope": None if slope is None else round(slope, 3), "unit": number.unit,
               "n_with": answer.n_with, "p": round(answer.p, 4), "q": round(q, 4),
               "also": []}
    finding["strength"] = _strength(*finding["ci"])
    finding["sentence"] = words.correlation(finding)
    return finding
