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

An answer's interval and p-value come from the resampled effects' standard deviation with
Student's t, not from their percentiles (`calibrated`): at a few hundred days the
percentiles are a little narrow and, more, take an uncertain spread for a known one, so pure
noise came out "p <= 0.01" for 1.7 % of comparisons instead of 1 % (issue #39).

How it stays fast in pure Python: every day is one integer holding, in fixed-width fields,
for each population it belongs to its mood there (in whole sixtieths) and a 1, and the
same for each question it answers "with" to. Prefix sums of those integers
make the total of a run of days one subtraction, whatever the number of questions; a
resample is a few hundred runs; the fields are read back with one `array` call.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import math
import operator
import random
import statistics
from array import array
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from kmood_lib.journal import student_t

SCALE = 60  # moods as whole sixtieths inside the packed sums
MAX_DAYS = 65_535


@dataclass(frozen=True)
class Question:
    """Days with vs days without, within one population of days: `population` names the
    population (its index), `with_days` the positions of the days that have it (days outside
    the population are not asked)."""

    population: int
    with_days: Sequence[int]


@dataclass(frozen=True)
class Answer:
    """One question's difference in mean mood (with minus without), its 95 % interval and its
    two-sided p-value (`calibrated`); None where the data cannot say (no days with, or none
    without)."""

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
    return bootstrap(days, populations, questions, (), resamples=resamples,
                     mean_block=mean_block, seed=seed)[0]


def bootstrap(days: int, populations: Sequence[Mapping[int, float]],
              questions: Sequence[Question], pairs: Sequence[Mapping[int, tuple[float, float]]],
              *, resamples: int = 2000, mean_block: float = 7.0, seed: int = 0
              ) -> tuple[list[Answer], list[Answer]]:
    """The with/without `questions` and the rank correlations of `pairs` (each maps a day's
    position to its (x, mood)), all from the same resamples: (question answers, correlation
    answers whose effect is Spearman's rho and whose n_with counts the days with a pair)."""
    if days > MAX_DAYS:
        raise ValueError(f"at most {MAX_DAYS} days")
    means = _MeanDifferences(days, populations, questions)
    ranks = _RankCorrelations(days, pairs)
    observed_means, observed_ranks = means.effects(means.prefix[days]), ranks.effects(
        ranks.prefix[days])
    rows_means, rows_ranks = [], []  # one row of effects per resample, turned into columns
    for total_means, total_ranks in _resampled_totals(
            days, (means.prefix, ranks.prefix), resamples, mean_block, seed):
        rows_means.append(means.effects(total_means))
        rows_ranks.append(ranks.effects(total_ranks))
    spread_means = _columns(rows_means, len(questions))
    spread_ranks = _columns(rows_ranks, len(pairs))
    counts = means.counts(means.prefix[days])
    design = (days, mean_block, resamples)
    mean_answers = [_answer(observed_means[q], spread_means[q], design, *counts[q],
                            groups_df(*counts[q])) for q in range(len(questions))]
    rank_answers = [_answer(observed_ranks[c], spread_ranks[c], design, len(pairs[c]), 0,
                            len(pairs[c]) - 2, bounds=(-1.0, 1.0)) for c in range(len(pairs))]
    return mean_answers, rank_answers


def _columns(rows: list[list[float | None]], width: int) -> list[list[float]]:
    """Per question, its resampled effects (a resample that could not compute one left out)."""
    if not rows:
        return [[] for _ in range(width)]
    return [[v for v in column if v is not None] for column in zip(*rows, strict=True)]


def _answer(effect: float | None, spread: list[float], design: tuple[int, float, int],
            n_with: int, n_without: int, iid_df: float,
            bounds: tuple[float, float] = (-math.inf, math.inf)) -> Answer:
    """An answer from the observed effect and its resampled values (none where fewer than
    half the resamples could compute it); `design` is (days, mean_block, resamples), the
    interval kept within `bounds` (a correlation's -1..1)."""
    days, mean_block, resamples = design
    if effect is None or len(spread) < resamples / 2:
        return Answer(effect, None, None, None, n_with, n_without)
    low, high, p = calibrated(effect, _deviation(spread), n_with + n_without, iid_df, days,
                              mean_block)
    return Answer(effect, max(low, bounds[0]), min(high, bounds[1]), p, n_with, n_without)


def calibrated(effect: float, spread: float, n: int, iid_df: float, days: int,
               mean_block: float) -> tuple[float, float, float]:
    """(low, high, p): the 95 % interval and two-sided p-value of an effect over `n` of `days`
    resampled days whose resampled values have standard deviation `spread`; `iid_df` the
    degrees of freedom its standard error would have from single days (`groups_df`, n - 2
    for a correlation).

    1. The stationary bootstrap's variance is a lag-window estimate (Politis and Romano 1994)
       and, as such estimates around the sample's own mean do, comes out short
       (`variance_kept`): divided back, the standard error is unbiased.
    2. That standard error is itself uncertain, the more so the fewer the days on one side
       and the longer the runs: degrees of freedom 1 / (1/iid_df + 1/`window_df`), as
       Satterthwaite adds uncertain variances, make the effect over its standard error
       Student's t, as in Welch's test.
    3. The interval is the effect +- t(0.975) standard errors; p is the chance of a |t| at
       least as large with no difference at all.
    On 500 pure-noise journals of the real shape (issue #39) p <= 0.01 came out for 0.94 % of
    18 576 comparisons (1.67 % from the resamples' percentiles), p <= 0.05 for 4.7 % (6.7 %)."""
    df = 1 / (1 / max(iid_df, 1.0) + 1 / window_df(days, mean_block))
    error = spread / math.sqrt(variance_kept(n, days, mean_block))
    if error == 0:
        return effect, effect, 1.0 if effect == 0 else 0.0
    reach = student_t.quantile(0.975, df) * error
    return effect - reach, effect + reach, student_t.two_sided(effect / error, df)


def _deviation(values: list[float]) -> float:
    """The population standard deviation, in floats (statistics.pstdev is exact and slow)."""
    mean = math.fsum(values) / len(values)
    return math.sqrt(math.fsum([(v - mean) * (v - mean) for v in values]) / len(values))


def variance_kept(n: int, days: int, mean_block: float) -> float:
    """The share of an effect's variance the stationary bootstrap finds for `n` of `days`
    days in runs of `mean_block` (b) on average: 1 - 1/n - 2(b - 1)/days. Around the sample's
    own mean each day's square loses 1/n, and so does each product of two days that a run can
    join, about 2(b - 1) n/days per day (the weights (1 - 1/b)^|k| summed over lags k != 0).
    On white noise, 14 days against 220 over 269, it measured 1.001, 0.984, 0.956 and 0.906
    for runs of 1, 3, 7 and 15 (this gives 0.996, 0.981, 0.951, 0.892). Never below one half:
    no journal that short is compared."""
    return max(0.5, 1 - 1 / max(n, 1) - 2 * max(mean_block - 1, 0.0) / max(days, 1))


def window_df(days: int, mean_block: float) -> float:
    """The degrees of freedom the runs leave the standard error: after Priestley's (1981)
    equivalent degrees of freedom of a lag-window estimate, `days` over the sum of the squared
    weights (1 - 1/b)^2|k| beyond lag 0 (lag 0 is `groups_df`'s). 49 for runs of a week over
    269 days, unlimited for single days; with 14 days against 220 the two give 11 (measured
    on white noise: 12), with 117 against 117, 40 (measured: 38)."""
    weight = 1 - 1 / mean_block if mean_block > 1 else 0.0
    return math.inf if weight == 0 else days * (1 - weight * weight) / (2 * weight * weight)


def groups_df(n_with: int, n_without: int) -> float:
    """Welch and Satterthwaite's degrees of freedom for a difference of two means of `n_with`
    and `n_without` days with equal spreads: close to the smaller side's days when it is much
    the smaller (1 when a side has fewer than two days)."""
    if min(n_with, n_without) < 2:
        return 1.0
    total = 1 / n_with + 1 / n_without
    return total * total / (1 / (n_with ** 2 * (n_with - 1))
                            + 1 / (n_without ** 2 * (n_without - 1)))


@functools.lru_cache(maxsize=4)
def _run_lengths(mean_block: float) -> list[int] | None:
    """Geometric run lengths with mean `mean_block` by inversion, one per 16-bit uniform draw
    (a run of more than ~80 days at a mean of 7 is cut: a chance of 1 in 131 072). None: a
    mean of 1, single days."""
    if mean_block <= 1:
        return None
    stop = math.log(1.0 - 1.0 / mean_block)
    return [1 + int(math.log(1.0 - (u + 0.5) / 65536) / stop) for u in range(65536)]


def _resampled_totals(n: int, prefixes: Sequence[Sequence[int]], resamples: int,
                      mean_block: float, seed: int):
    """Per resample, the total of each prefix-summed series over the same resampled runs:
    runs start on a random day and end after each day with probability 1/mean_block (1:
    single days), wrapping at the end, until `n` days are drawn.

    A run's total is prefix[end] - prefix[start]; summed over a resample's runs that is
    sum(prefix[ends]) - sum(prefix[starts]), two C-level sums per series (the prefix sums
    are extended past the end so a wrapped run needs no special case). The random numbers
    come a batch at a time as bytes, mapped through a table of run lengths."""
    rng = random.Random(seed)
    table = _run_lengths(mean_block)
    batch = n if table is None else 16 + int(1.25 * n / mean_block)
    extended = [[*prefix, *(prefix[n] + value for value in prefix[1:])] for prefix in prefixes]
    for _ in range(resamples if n else 0):
        if table is None:
            lengths = [1] * n
        else:
            lengths = []
            while True:
                lengths += map(table.__getitem__, array("H", rng.randbytes(2 * batch)))
                reach = list(itertools.accumulate(lengths))
                if reach[-1] >= n:
                    cut = bisect.bisect_left(reach, n)
                    lengths = lengths[:cut + 1]
                    lengths[-1] -= reach[cut] - n  # the last run stops at n days
                    break
        # 32 random bits modulo n: a bias below n / 2**32, under a millionth here
        starts = list(map(n.__rmod__, array("I", rng.randbytes(4 * len(lengths)))))
        ends = list(map(operator.add, starts, lengths))
        yield [sum(map(prefix.__getitem__, ends)) - sum(map(prefix.__getitem__, starts))
               for prefix in extended]


def _prefix_sums(packed: list[int]) -> list[int]:
    prefix = [0] * (len(packed) + 1)
    for i, day in enumerate(packed):
        prefix[i + 1] = prefix[i] + day
    return prefix


class _MeanDifferences:
    """Each day one integer with a field per question, then per population: when the day
    belongs, a 1 in the field's high bits (the count) and its mood above 1 in sixtieths in
    the low bits (the sum). Sixtieths keep the mean of up to six entries exact; fields are
    32 bits wide while ten years of sums and counts fit, 64 beyond."""

    def __init__(self, days: int, populations, questions) -> None:
        self.questions = questions
        self.k = len(questions)
        self.population_fields = [self.k + q.population for q in questions]
        self.sum_bits = (4 * SCALE * max(days, 1)).bit_length()
        wide = self.sum_bits + max(days, 1).bit_length() > 32
        self.typecode, width = ("Q", 64) if wide else ("I", 32)
        self.bytes = (width // 8) * (self.k + len(populations))
        one = 1 << self.sum_bits
        scaled = [{day: one | round((mood - 1) * SCALE) for day, mood in members.items()}
                  for members in populations]
        packed = [0] * days
        for field, members in enumerate(scaled):  # population fields follow the questions
            shift = width * (self.k + field)
            for day, value in members.items():
                packed[day] |= value << shift
        for field, question in enumerate(questions):
            members, shift = scaled[question.population], width * field
            for day in question.with_days:
                if day in members:
                    packed[day] |= members[day] << shift
        self.prefix = _prefix_sums(packed)

    def _fields(self, total: int) -> tuple[list[int], list[int]]:
        fields = array(self.typecode)
        fields.frombytes(total.to_bytes(self.bytes, "little"))
        mask, shift = (1 << self.sum_bits) - 1, self.sum_bits
        return [f & mask for f in fields], [f >> shift for f in fields]

    def counts(self, total: int) -> list[tuple[int, int]]:
        _, counts = self._fields(total)
        return [(counts[q], counts[self.k + question.population] - counts[q])
                for q, question in enumerate(self.questions)]

    def effects(self, total: int) -> list[float | None]:
        sums, counts = self._fields(total)
        k = self.k
        whole = [sums[i] for i in self.population_fields]
        everyone = [counts[i] for i in self.population_fields]
        return [None if n_with == 0 or n_with == n_all else
                (with_sum / n_with - (all_sum - with_sum) / (n_all - n_with)) / SCALE
                for with_sum, n_with, all_sum, n_all in zip(sums[:k], counts[:k], whole,
                                                             everyone, strict=True)]


class _RankCorrelations:
    """Spearman's rho as Pearson's r of the ranks, the ranks fixed by the whole sample: each
    day one integer with, per pair series it belongs to, 64-bit fields n, Σx, Σy, Σx², Σy²,
    Σxy of its doubled mid-ranks (doubled so ties stay whole numbers). A resample's r over
    those fixed ranks is the usual bootstrap approximation of its Spearman's rho."""

    FIELDS = 6

    def __init__(self, days: int, pairs) -> None:
        self.series = len(pairs)
        self.bytes = 8 * self.FIELDS * self.series
        packed = [0] * days
        for s, members in enumerate(pairs):
            days_in = sorted(members)
            xs = doubled_ranks([members[d][0] for d in days_in])
            ys = doubled_ranks([members[d][1] for d in days_in])
            base = 64 * self.FIELDS * s
            for day, x, y in zip(days_in, xs, ys, strict=True):
                for f, value in enumerate((1, x, y, x * x, y * y, x * y)):
                    packed[day] |= value << (base + 64 * f)
        self.prefix = _prefix_sums(packed)

    def effects(self, total: int) -> list[float | None]:
        if not self.series:
            return []
        fields = array("Q")
        fields.frombytes(total.to_bytes(self.bytes, "little"))
        out = []
        for s in range(self.series):
            n, sx, sy, sxx, syy, sxy = fields[self.FIELDS * s:self.FIELDS * (s + 1)]
            spread = (n * sxx - sx * sx) * (n * syy - sy * sy)
            out.append((n * sxy - sx * sy) / math.sqrt(spread) if n >= 3 and spread > 0
                       else None)
        return out


def doubled_ranks(values: Sequence[float]) -> list[int]:
    """Twice each value's rank from 1, ties sharing twice their mean rank."""
    order = sorted(range(len(values)), key=values.__getitem__)
    ranks = [0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for t in range(i, j + 1):
            ranks[order[t]] = i + j + 2  # 2 × the mean of ranks i+1 .. j+1
        i = j + 1
    return ranks


def theil_sen(points: Sequence[tuple[float, float]], *, bins: int = 20) -> float | None:
    """Mood points per unit of x: the median slope over pairs of points with different x
    (Theil–Sen), robust to outliers. Moods are mostly whole numbers, so most raw pairs tie
    and the median slope of raw days is often exactly 0; the points are first grouped into
    at most `bins` groups of about equal size by x (each point: the group's mean x and mean
    mood), and the slope is taken over the groups. None: all x equal."""
    scale = max((abs(x) for x, _ in points), default=0.0)
    if not scale or not math.isfinite(scale):
        return None
    ordered = sorted((x / scale, y) for x, y in points)  # any finite x: sums cannot overflow
    groups: list[list[tuple[float, float]]] = []
    size = len(ordered) / bins
    for i, point in enumerate(ordered):
        # a group ends at its size, but never between two equal x
        if not groups or (len(groups) < int(i / size) + 1 and point[0] != groups[-1][-1][0]):
            groups.append([])
        groups[-1].append(point)
    means = [(statistics.fmean(x for x, _ in g), statistics.fmean(y for _, y in g))
             for g in groups]
    slopes = [(yj - yi) / (xj - xi) for i, (xi, yi) in enumerate(means)
              for xj, yj in means[i + 1:] if xj != xi]
    return statistics.median(slopes) / scale if slopes else None


def percentile(ordered: Sequence[float], q: float) -> float:
    """The q-quantile of sorted values, interpolating between neighbours."""
    position = q * (len(ordered) - 1)
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def bh_adjusted(p_values: Sequence[float | None]) -> list[float | None]:
    """Benjamini–Hochberg adjusted p-values ("q"): a comparison passes at false discovery
    rate q exactly when its adjusted value is at most q. None stays None and counts in the
    family."""
    m = len(p_values)
    ranked = sorted((p, i) for i, p in enumerate(p_values) if p is not None)
    adjusted: list[float | None] = [None] * m
    running = 1.0
    for rank in range(len(ranked), 0, -1):
        p, i = ranked[rank - 1]
        running = min(running, p * m / rank)
        adjusted[i] = running
    return adjusted


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
