"""The insights' statistics (SPEC §11, issue #25): the stationary block bootstrap answers
with vs without from resampled runs of days, and Benjamini–Hochberg guards a family."""

from __future__ import annotations

import math
import random
import statistics

import pytest

from kmood_lib.journal.resampling import (
    Question,
    benjamini_hochberg,
    bh_adjusted,
    bootstrap,
    doubled_ranks,
    percentile,
    stationary_bootstrap,
    theil_sen,
)
from kmood_lib.journal.student_t import quantile, two_sided


def ar1_days(n: int, rho: float, seed: int, sd: float = 0.7) -> list[float]:
    """Day moods around 3 with autocorrelation `rho` (a good day tends to follow a good day)."""
    rng = random.Random(seed)
    level, out = 0.0, []
    for _ in range(n):
        level = rho * level + math.sqrt(1 - rho * rho) * rng.gauss(0, sd)
        out.append(level)
    return out


def same_day(moods: list[float]) -> dict[int, float]:
    return dict(enumerate(moods))


def clamp(value: float) -> float:
    return min(5.0, max(1.0, value))


@pytest.mark.parametrize("p_values,passing", [
    ([0.01, 0.04, 0.03, 0.005, 0.2], [True, True, True, True, False]),
    ([0.06, 0.07], [True, True]),  # step-up: the larger p passing lifts the smaller
    ([0.06, 0.2], [False, False]),
    ([0.04, None], [True, False]),  # a comparison that could not be made still counts
    ([0.06, None], [False, False]),
    ([], []),
])
def test_benjamini_hochberg_at_q_010(p_values, passing):
    assert benjamini_hochberg(p_values, 0.10) == passing


def test_on_independent_days_the_interval_agrees_with_welch():
    rng = random.Random(5)
    flags = [rng.random() < 0.3 for _ in range(600)]
    moods = [clamp(3 + rng.gauss(0, 0.8) + (0.5 if f else 0)) for f in flags]
    question = Question(0, [i for i, f in enumerate(flags) if f])
    [answer] = stationary_bootstrap(600, [same_day(moods)], [question], mean_block=1.0, seed=1)
    with_ = [m for m, f in zip(moods, flags, strict=True) if f]
    without = [m for m, f in zip(moods, flags, strict=True) if not f]
    diff = statistics.fmean(with_) - statistics.fmean(without)
    se = math.sqrt(statistics.variance(with_) / len(with_)
                   + statistics.variance(without) / len(without))
    assert answer.effect == pytest.approx(diff, abs=5e-4)  # moods kept to thousandths
    assert (answer.n_with, answer.n_without) == (len(with_), len(without))
    assert answer.low == pytest.approx(diff - 1.96 * se, abs=0.06)
    assert answer.high == pytest.approx(diff + 1.96 * se, abs=0.06)
    assert answer.p < 0.001


def test_on_autocorrelated_days_runs_of_days_widen_the_interval():
    """A mood that drifts over days, and an activity done in runs (a holiday week): single-day
    resampling would claim far more certainty than the data has."""
    n = 900
    moods = [clamp(3 + x) for x in ar1_days(n, 0.8, seed=2)]
    rng = random.Random(3)
    flags, on = [], False
    for _ in range(n):
        if rng.random() < 0.1:
            on = not on
        flags.append(on)
    question = [Question(0, [i for i, f in enumerate(flags) if f])]
    blocks = stationary_bootstrap(n, [same_day(moods)], question, mean_block=7.0, seed=1)[0]
    days = stationary_bootstrap(n, [same_day(moods)], question, mean_block=1.0, seed=1)[0]
    assert (blocks.high - blocks.low) > 1.5 * (days.high - days.low)


def test_on_white_noise_a_small_groups_interval_is_as_wide_as_students_t_says():
    """14 days with vs 220 without, 234 days logged over 269, runs of a week (issue #39): the
    resampled effects' spread is a little short (by 1/n + 2(b - 1)/days) and itself uncertain
    (about 11 degrees of freedom), so the 95 % interval reaches Student's t(0.975, 11) = 2.2
    true standard errors each side on average. The resamples' own 2.5th and 97.5th percentiles
    reached 1.9, and pure noise came out "p < 0.01" for 1.6 % of comparisons."""
    days, logged, sd = 269, 234, 0.5
    reaches = []
    for seed in range(12):
        rng = random.Random(seed)
        moods = {p: 3 + rng.gauss(0, sd) for p in sorted(rng.sample(range(days), logged))}
        questions = [Question(0, sorted(rng.sample(sorted(moods), 14))) for _ in range(10)]
        for a in stationary_bootstrap(days, [moods], questions, resamples=1000, seed=seed):
            reaches.append((a.high - a.low) / 2 / (sd * math.sqrt(1 / 14 + 1 / 220)))
    assert 2.05 < statistics.fmean(reaches) < 2.35


def test_students_t_matches_its_tables():
    assert quantile(0.975, 10) == pytest.approx(2.2281, abs=1e-4)
    assert quantile(0.995, 1) == pytest.approx(63.657, abs=1e-3)
    assert quantile(0.975, 12) < quantile(0.975, 11.5) < quantile(0.975, 11) == pytest.approx(
        2.2010, abs=1e-4)
    assert quantile(0.975, 1e7) == pytest.approx(1.95996, abs=1e-5)  # the normal's
    assert two_sided(2.2281, 10) == pytest.approx(0.05, abs=1e-5)
    assert two_sided(0.0, 5) == 1.0 and two_sided(40.0, 30) < 1e-25


def test_a_planted_effect_is_found_and_noise_mostly_is_not():
    """Three years, mood autocorrelated (rho 0.4); running on ~30 % of days adds 0.6; 40
    activities of pure noise. Running: found, its interval covers 0.6. Noise: at q = 0.10
    Benjamini–Hochberg lets at most a few through (the 50-seed rate is #25's test)."""
    n, rng = 1095, random.Random(11)
    running = [rng.random() < 0.3 for _ in range(n)]
    noise = [[rng.random() < rng.choice([0.1, 0.3, 0.5]) for _ in range(n)] for _ in range(40)]
    moods = [clamp(3 + x + (0.6 if r else 0))
             for x, r in zip(ar1_days(n, 0.4, seed=12), running, strict=True)]
    questions = [Question(0, [i for i, f in enumerate(flags) if f]) for flags in [running] + noise]
    answers = stationary_bootstrap(n, [same_day(moods)], questions, seed=7)
    found = benjamini_hochberg([a.p for a in answers], 0.10)
    assert found[0] and answers[0].low < 0.6 < answers[0].high and answers[0].low > 0.3
    assert sum(found[1:]) <= 2


def test_the_day_after_is_asked_with_the_next_days_mood_among_days_that_have_one():
    """Lag 1: a day belongs to "the day after" only if the next day is logged, and counts
    there with the next day's mood."""
    moods = [1.0, 5.0, 1.0, 5.0, 3.0, 3.0]
    after = {day: moods[day + 1] for day in range(4)}  # days 4 and 5: no next day asked
    answers = stationary_bootstrap(6, [same_day(moods), after],
                                   [Question(0, [1, 3]), Question(1, [0, 2, 5])], resamples=50)
    assert answers[0].effect == pytest.approx(5.0 - 2.0)  # 5, 5 vs 1, 1, 3, 3
    assert answers[1].effect == pytest.approx(5.0 - 2.0)  # next of 0, 2: 5, 5 vs next of 1, 3
    assert (answers[1].n_with, answers[1].n_without) == (2, 2)  # day 5 is not in it


def test_what_cannot_be_compared_has_no_numbers_and_the_same_data_the_same_answers():
    moods = [3.0, 4.0, 2.0, 3.5] * 10
    everyone = range(len(moods))
    none, all_, some = Question(0, []), Question(0, list(everyone)), Question(0, [1, 5, 9, 13])
    first = stationary_bootstrap(40, [same_day(moods)], [none, all_, some], resamples=300,
                                 seed=4)
    assert first[0].effect is None and first[0].low is None and first[0].p is None
    assert first[1].effect is None and (first[1].n_with, first[1].n_without) == (40, 0)
    assert first[2].effect is not None and first[2].low is not None
    assert stationary_bootstrap(40, [same_day(moods)], [none, all_, some], resamples=300,
                                seed=4) == first
    [empty] = stationary_bootstrap(0, [{}], [Question(0, [])])
    assert empty.effect is None and empty.n_with == empty.n_without == 0
    assert stationary_bootstrap(30, [same_day([4.0] * 30)], [Question(0, [0, 1, 2])],
                                resamples=100)[0].effect == 0


def test_percentile_interpolates_between_neighbours():
    assert percentile([1.0, 2.0, 3.0, 4.0, 5.0], 0.5) == 3.0
    assert percentile([0.0, 10.0], 0.25) == 2.5
    assert percentile([7.0], 0.975) == 7.0


def spearman(xs: list[float], ys: list[float]) -> float:
    """Pearson's r of the mid-ranks, computed plainly."""
    rx, ry = doubled_ranks(xs), doubled_ranks(ys)
    mx, my = statistics.fmean(rx), statistics.fmean(ry)
    top = sum((a - mx) * (b - my) for a, b in zip(rx, ry, strict=True))
    return top / math.sqrt(sum((a - mx) ** 2 for a in rx) * sum((b - my) ** 2 for b in ry))


def test_mid_ranks_share_ties_and_stay_whole_when_doubled():
    assert doubled_ranks([3.0, 1.0, 3.0, 2.0]) == [7, 2, 7, 4]  # ranks 3.5, 1, 3.5, 2
    assert doubled_ranks([]) == []


def test_the_rank_correlation_is_spearmans_rho_with_an_interval_around_it():
    rng = random.Random(3)
    xs = [rng.gauss(7, 1) for _ in range(400)]
    moods = [clamp(round(3 + 0.4 * (x - 7) + rng.gauss(0, 0.8))) for x in xs]
    pairs = {day: (x, m) for day, (x, m) in enumerate(zip(xs, moods, strict=True))}
    _, [rho] = bootstrap(400, [], [], [pairs], resamples=500, seed=2)
    assert rho.effect == pytest.approx(spearman(xs, moods))
    assert rho.low < rho.effect < rho.high and rho.low > 0 and rho.p < 0.01
    assert rho.n_with == 400
    shuffled = {day: (x, moods[(day * 7) % 400]) for day, x in enumerate(xs)}
    _, [none] = bootstrap(400, [], [], [shuffled], resamples=500, seed=2)
    assert none.low < 0 < none.high


def test_a_correlation_over_days_with_one_value_has_no_numbers():
    _, [flat] = bootstrap(50, [], [], [{d: (8.0, 3.0 + d % 2) for d in range(50)}],
                          resamples=100)
    assert flat.effect is None and flat.low is None


def test_theil_sen_is_the_median_slope_over_groups_and_ignores_an_outlier():
    line = [(x / 10, 2 + 0.25 * x / 10) for x in range(100)] + [(5.0, 400.0)]
    assert theil_sen(line) == pytest.approx(0.25, abs=0.02)
    steps = [(h, float(min(5, max(1, round(1 + 0.5 * h))))) for h in range(9) for _ in range(9)]
    assert theil_sen(steps) == pytest.approx(0.5, abs=0.1)  # whole moods, not a 0 slope
    assert theil_sen([(3.0, 1.0), (3.0, 5.0)]) is None


def test_adjusted_p_values_pass_exactly_where_benjamini_hochberg_does():
    rng = random.Random(9)
    for _ in range(200):
        p = [rng.random() ** 3 for _ in range(rng.randrange(1, 30))] + [None]
        for q in (0.05, 0.10, 0.25):
            assert [a is not None and a <= q for a in bh_adjusted(p)] == benjamini_hochberg(
                p, q)
    assert bh_adjusted([0.01, 0.04, None]) == [pytest.approx(0.03), pytest.approx(0.06), None]


def test_more_than_ten_years_use_wider_fields_and_give_the_same_effect():
    """Past ~11 years the packed sums and counts need 64-bit fields (sixtieths of a mood
    point times 20 000 days no longer fit beside the count in 32 bits)."""
    days = 20_000
    moods = {d: 1.0 + (d % 5) for d in range(days)}
    with_days = [d for d in range(days) if d % 5 == 4]  # the fives
    [answer] = stationary_bootstrap(days, [moods], [Question(0, with_days)], resamples=20)
    assert answer.effect == pytest.approx(5.0 - 2.5)
    assert (answer.n_with, answer.n_without) == (4000, 16000)
