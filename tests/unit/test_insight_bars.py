"""The planted-effect bars of issue #39, on journals shaped like a real Daylio export
(tests/insight_data.real_shaped: 1 159 entries on 234 days, 160 activities, a long tail):
planted effects come first with intervals that cover them, pure noise claims (almost)
nothing, and a history where eight activities begin in one week folds and never contradicts
itself. (Eight activities begun on the day the mood rose are one change, none credited:
test_insights.test_eight_activities_begun_on_the_day_mood_rose_are_one_change_and_none_is_credited.)
"""

from __future__ import annotations

import re
import statistics
from datetime import date, datetime, timezone

import pytest

from kmood_lib.journal import insights
from tests.insight_data import REAL, Burst, real_shaped

FOREVER = ("0001-01-01", "9999-12-31")
PLANTED = {"friends": 0.7, "work": -0.6}  # on ~45 % and ~60 % of the days
# a person's few real patterns, two of them among the week's new activities
KIJE = {"friends": 0.6, "good sleep": 0.5, "work": -0.4, "exercise": 0.5, "scared": -0.8,
        "memory problems": -1.0}
NOISE_SEEDS = 20


def a_user(conn, name: str) -> int:
    return conn.execute("INSERT INTO users (username, username_key, password_hash, timezone,"
                        " is_admin, created_at, updated_at) VALUES (?, ?, 'x', 'UTC', 0, 0, 0)"
                        " RETURNING id", (name, name)).fetchone()[0]


def analysed(conn, uid: int) -> dict:
    return insights.analysis(conn, uid, *FOREVER, insights.Thresholds())


def test_the_real_shaped_journal_has_the_export_s_shape(conn):
    uid = a_user(conn, "shape")
    truth = real_shaped(conn, uid, seed=1)
    per_day = [n for n, in conn.execute("SELECT n FROM entry_days WHERE user_id = ?", (uid,))]
    assert (sum(per_day), len(per_day), truth["days"]) == (1159, 234, 234)
    assert statistics.median(per_day) == 4 and (min(per_day), max(per_day)) == (1, 12)
    years = [y for y, in conn.execute("SELECT DISTINCT substr(local_date, 1, 4)"
                                      " FROM entry_days WHERE user_id = ?", (uid,))]
    assert years == ["2019", "2020", "2022", "2026"]  # three isolated days years earlier
    logged = [date.fromisoformat(d) for d, in conn.execute(
        "SELECT local_date FROM entry_days WHERE user_id = ? AND local_date >= '2026'"
        " ORDER BY 1", (uid,))]
    gaps = [(b - a).days for a, b in zip(logged, logged[1:], strict=False)]
    assert sum(gaps) + 1 == REAL.span and max(gaps) >= 4  # gaps of several days
    shares = [n / len(per_day) for n, in conn.execute(
        "SELECT count(*) FROM activity_days WHERE user_id = ? GROUP BY activity_id", (uid,))]
    assert 140 <= len(shares) <= 160
    assert 3 <= sum(0.3 <= s <= 0.65 for s in shares) <= 6  # a handful on 30-60 % of days
    assert sum(s < 0.03 for s in shares) > len(shares) / 2  # most on under 3 %


def test_two_planted_effects_in_a_real_shaped_journal_open_the_page_with_intervals_covering_them(
        conn):
    """Bar a: +0.7 and -0.6 mood points, planted on two common activities among 160, are
    among the five findings shown first, and each one's interval covers what was planted.
    A bar one journal of 234 days clears most of the time, not always: in seeds 0-39 it
    held in 29 (7 was one that did not); of the 80 planted effects 5 were not among the
    first five and 7 of the other 75 intervals (9 %) missed the planted size, moods being
    bounded: 1..5 shrinks +0.7 and -0.6 to +0.64 and -0.53 on average, which 76 of the 80
    intervals cover."""
    uid = a_user(conn, "planted")
    real_shaped(conn, uid, seed=0, effects=PLANTED)
    found = analysed(conn, uid)
    first = found["findings"][:found["open_findings"]]
    for name, size in PLANTED.items():
        cards = [f for f in first if (f["kind"], f["name"]) == ("activity", name)]
        assert len(cards) == 1, (name, [f["sentence"] for f in found["findings"]])
        card = cards[0]
        assert card["lag"] == 0 and card["ci"][0] <= size <= card["ci"][1], card


@pytest.mark.slow
@pytest.mark.xfail(strict=True, reason=(
    "issue #39 bar c does not hold on seeds 0-19: 2 claims (seed 3 cleaning -0.43, p 0.0017;"
    " seed 15 exercise -0.49, p 0.0006), each over 3 standard errors from 0 by Welch's test"
    " on single days too. The"
    " intervals and p-values are calibrated now (p <= 0.01 for 0.94 % of 18 576 noise"
    " comparisons, 1.67 % before): 31 claims in 500 seeds, in 27 runs (75 in 61 before)."
    " Benjamini-Hochberg at q = 0.10 over ~55 comparisons claims in about that share of"
    " pure-noise runs by design, so at most one claim in 20 runs held in 16 of 25 disjoint"
    " windows of 20 seeds (4 before), not in this one"))
def test_pure_noise_in_twenty_real_shaped_journals_makes_at_most_one_claim(conn):
    """Bar c: no planted effect at all, 20 seeded journals of the real shape: at most one
    claim (a difference, a correlation or a change) in all 20 runs together."""
    made = []
    for seed in range(NOISE_SEEDS):
        uid = a_user(conn, f"noise{seed}")
        real_shaped(conn, uid, seed=seed)
        # every finding counts: differences, correlations and changes alike
        made += [(seed, f["kind"], f["name"], f["effect"]) for f in analysed(conn, uid)["findings"]]
        if len(made) > 1:
            break  # the bar is missed already: the seeds after this one cannot mend it
    print(f"\nclaims in pure-noise runs, seeds 0-{seed}: {made}")
    assert len(made) <= 1, made


@pytest.fixture
def alice(client_for, clock):
    clock.set(datetime(2026, 12, 4, 12, 0, tzinfo=timezone.utc))
    return client_for("alice")


def test_a_kije_shaped_history_shows_five_findings_at_most_and_never_contradicts_itself(
        alice, conn):
    """Bar d: the export's shape (isolated days years before, gaps, a long tail) with a week
    in which eight activities begin and the mood shifts, and a few real patterns: at most
    five findings open, the rest folded, and nothing both a finding and "not enough evidence".
    (Seed 4: on 36aae40, before #39, this history gave 29 findings, all open, 24 of them
    "since you started" for rare activities also listed as not enough evidence.)"""
    uid = conn.execute("SELECT id FROM users WHERE username = 'alice'").fetchone()[0]
    real_shaped(conn, uid, seed=4, effects=KIJE, burst=Burst(shift=0.7))
    found = alice.get("/api/insights").json
    assert found["days"] == 234 and found["open_findings"] == 5
    contradictions = ({(f["kind"], f["name"]) for f in found["findings"]}
                      & {(r["kind"], r["name"]) for r in found["not_enough"]})
    assert contradictions == set()
    page = alice.get("/insights?range=all").text
    opened, _, folded = page.partition('<details class="card more-findings">')
    shown = opened.count('<li class="card finding">')
    assert shown == min(5, len(found["findings"])) and shown <= 5
    assert folded.split("</details>")[0].count('<li class="card finding">') == (
        len(found["findings"]) - shown)
    titles = re.findall(r'<li class="card finding">\s*<h3>(?:<bdi dir="auto">)?([^<]+?)\s*<',
                        opened)
    assert titles == [f"Around {date.fromisoformat(f['started']):%b %-d, %Y}"
                      if f["kind"] == "change" else f["name"]
                      for f in found["findings"][:shown]]
