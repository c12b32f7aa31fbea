"""The statistics under the insights (SPEC §11), in the standard library: a stationary block
bootstrap over days that answers many "days with vs days without" questions from the same
resamples, and Benjamini–Hochberg over a page's family of comparisons.

Why blocks: a day's mood is like the day before's (a good week is a run of good days), so
resampling single days would pretend there are more independent observations than there are
and give intervals too narrow. Politis and Romano's stationary bootstrap resamples runs of
consecutive days, of random length with a mean of `mean_block` days, wrapping at the end.

A population is the days a question is asked over, each with the mood that counts for it:
its own mood for "the same day", the next day's for "the day after" (only days whose next
day is logged belong to that one).

How it stays fast in pure Python: every day is one integer holding, in fixed-width fields,
for each population it belongs to its mood there (scaled to thousandths) and a 1, and the
same for each question it answers "with" to. Prefix sums of those integers
make the total of a run of days one subtraction, whatever the number of questions; a
resample is a few hundred runs; the fields are read back with one `array` call.
"""

from __future__ import annotations

import math
import random
from array import array
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

SCALE = 1000  # moods as integer thousandths inside the packed sums
SUM_BITS, COUNT_BITS = 32, 16  # enough for 65 535 days of mood 5.0 (5 000 × 65 535 < 2**32)
MAX_DAYS = 2 ** COUNT_BITS - 1


@dataclass(frozen=True)
class Question:
    """Days with vs days without, within one population of days: `population` names the
    population (its index), `with_days` the positions of the days that have it (days outside
    the population are not asked)."""

    population: int
    with_days: Sequence[int]


@dataclass(frozen=True)
class Answer:
    """One question's difference in mean mood (with minus without), its 95 % percentile
    interval, and its two-sided bootstrap p-value; None where the data cannot say (no days
    with, or none without)."""

    effect: float | None
    low: float | None
    high: float | None
    p: float | None
    n_with: int
    n_without: int


def stationary_bootstrap(days: int, populations: Sequence[Mapping[int, float]],
                         questions: Sequence[Question], *, resamples: int = 2000,
                         mean_block: float = 7.0, seed: int = 0) -> list[Answer]:
    """Answer every question from the same `resamples` stationary-bootstrap resamples of
    `days` consecutive days (`populations[j]` maps the position of each day in population j
    to its mood there). Seeded: the same data gives the same answers on every call."""
    n = days
    if n > MAX_DAYS:
        raise ValueError(f"at most {MAX_DAYS} days")
    k, m = len(questions), len(populations)
    sum_bytes, count_bytes = (SUM_BITS // 8) * (k + m), (COUNT_BITS // 8) * (k + m)
    count_shift = 8 * sum_bytes
    scaled = [{day: round(mood * SCALE) for day, mood in members.items()}
              for members in populations]
    packed = [0] * n
    for field, members in enumerate(scaled):  # population fields follow the questions
        for day, mood in members.items():
            packed[day] |= mood << (SUM_BITS * (k + field)) | 1 << (
                count_shift + COUNT_BITS * (k + field))
    for field, question in enumerate(questions):
        members = scaled[question.population]
        for day in question.with_days:
            if day in members:
                packed[day] |= members[day] << (SUM_BITS * field) | 1 << (
                    count_shift + COUNT_BITS * field)
    prefix = [0] * (n + 1)
    for i, day in enumerate(packed):
        prefix[i + 1] = prefix[i] + day

    def fields(total: int) -> tuple[array, array]:
        raw = total.to_bytes(sum_bytes + count_bytes, "little")
        sums, counts = array("I"), array("H")
        sums.frombytes(raw[:sum_bytes])
        counts.frombytes(raw[sum_bytes:])
        return sums, counts

    def effects(sums: array, counts: array) -> list[float | None]:
        out = []
        for q, question in enumerate(questions):
            whole, everyone = sums[k + question.population], counts[k + question.population]
            with_sum, with_count = sums[q], counts[q]
            without = everyone - with_count
            out.append(None if with_count == 0 or without == 0 else
                       (with_sum / with_count - (whole - with_sum) / without) / SCALE)
        return out

    observed_sums, observed_counts = fields(prefix[n])
    observed = effects(observed_sums, observed_counts)
    rng = random.Random(seed)
    draw, start, log = rng.random, rng.randrange, math.log
    # A run ends after each day with probability 1/mean_block (1: single days, no runs).
    stop_log = math.log(1.0 - 1.0 / mean_block) if mean_block > 1 else None
    spread: list[list[float]] = [[] for _ in questions]
    for _ in range(resamples if n else 0):
        total, left = 0, n
        while left > 0:
            length = 1 if stop_log is None else min(left, 1 + int(log(1.0 - draw()) / stop_log))
            first = start(n)
            end = first + length
            total += (prefix[end] - prefix[first] if end <= n
                      else prefix[n] - prefix[first] + prefix[end - n])
            left -= length
        for q, value in enumerate(effects(*fields(total))):
            if value is not None:
                spread[q].append(value)
    answers = []
    for q, question in enumerate(questions):
        n_with = observed_counts[q]
        n_without = observed_counts[k + question.population] - n_with
        values, effect = sorted(spread[q]), observed[q]
        if effect is None or len(values) < resamples / 2:
            answers.append(Answer(effect, None, None, None, n_with, n_without))
            continue
        answers.append(Answer(effect, percentile(values, 0.025), percentile(values, 0.975),
                              p_value(values, effect), n_with, n_without))
    return answers


def percentile(ordered: Sequence[float], q: float) -> float:
    """The q-quantile of sorted values, interpolating between neighbours."""
    position = q * (len(ordered) - 1)
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def p_value(resampled: Sequence[float], effect: float) -> float:
    """Two-sided: how often the resampled effects, moved to centre on no difference, are at
    least as far from it as the observed one (never 0: one resample's worth at the least)."""
    beyond = sum(1 for value in resampled if abs(value - effect) >= abs(effect))
    return (beyond + 1) / (len(resampled) + 1)


def benjamini_hochberg(p_values: Sequence[float | None], q: float = 0.10) -> list[bool]:
    """Which of a family of comparisons pass Benjamini–Hochberg at false discovery rate `q`
    (None, a comparison that could not be made, counts in the family and never passes)."""
    m = len(p_values)
    ranked = sorted((p, i) for i, p in enumerate(p_values) if p is not None)
    cutoff = 0
    for rank, (p, _) in enumerate(ranked, start=1):
        if p <= q * rank / m:
            cutoff = rank
    passing = {i for _, i in ranked[:cutoff]}
    return [i in passing for i in range(m)]
