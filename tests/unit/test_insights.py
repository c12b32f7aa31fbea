"""Insights (issue #25, SPEC §11): planted effects are found with honest intervals, noise and
thin data are not, the words never overclaim, and the answer is cached per journal version."""

from __future__ import annotations

import html
import re
import statistics
from datetime import date, datetime, timedelta, timezone

import pytest

from kmood_lib.journal import insights, versions
from kmood_lib.journal.insights import Journal, Thresholds
from tests.insight_data import COLD_DROP, RUNNING_LIFT, Plan, index_notes, plant

TODAY = date(2026, 12, 4)
FOREVER = ("0001-01-01", "9999-12-31")


@pytest.fixture
def alice(client_for, clock):
    clock.set(datetime(2026, 12, 4, 12, 0, tzinfo=timezone.utc))
    return client_for("alice")


@pytest.fixture
def uid(conn, alice):
    return conn.execute("SELECT id FROM users WHERE username = 'alice'").fetchone()[0]


DEFAULT = Thresholds()


def run(conn, uid, limits=DEFAULT) -> dict:
    return insights.insights(conn, uid, *FOREVER, TODAY, limits)


def named(found: dict, name: str, lag: int = 0, since: bool = False) -> dict | None:
    return next((f for f in found["findings"] if f["name"] == name and f["lag"] == lag
                 and f["since"] == since), None)


def every_sentence(found: dict) -> list[str]:
    return [f["sentence"] for f in found["findings"]] + [r["sentence"]
                                                         for r in found["not_enough"]]


def test_a_planted_activity_and_cold_days_are_found_and_forty_noise_activities_are_not(
        conn, uid):
    plant(conn, uid, seed=7)
    found = run(conn, uid)
    running = named(found, "running")
    print("\nrunning:", running["effect"], running["ci"], "q", running["q"],
          "| temperature:", named(found, "temperature"))
    assert running["measure"] == "points"
    assert running["ci"][0] <= RUNNING_LIFT <= running["ci"][1]
    assert running["n_with"] + running["n_without"] == found["days"] == 3 * 365
    cold = named(found, "temperature")  # colder days (below 5 °C) were 0.4 lower
    assert cold is not None and cold["measure"] == "rho" and cold["ci"][0] > 0
    assert cold["slope"] > 0
    assert [f["name"] for f in found["findings"] if f["name"].startswith("noise")] == []
    # 41 activities (running and 40 of noise) asked twice, the 3 kinds of weather planted
    # (clear, cloudy, rain), temperature, and "since you started" for the rare ones first
    # logged after four weeks
    late = conn.execute("SELECT count(*) FROM (SELECT min(local_date) AS first"
                        " FROM activity_days GROUP BY activity_id) WHERE first >= ?",
                        ((date(2026, 11, 30) - timedelta(days=3 * 365 - 1 - 28)).isoformat(),)
                        ).fetchone()[0]
    assert found["checked"] == 2 * 41 + 3 + 1 + late
    assert COLD_DROP > 0


def test_a_metric_is_a_rank_correlation_with_a_slope_in_mood_points_per_unit(conn, uid):
    plant(conn, uid, seed=3, plan=Plan(days=400, noise=0, weather=False, sleep=True))
    sleep = named(run(conn, uid), "sleep")
    assert sleep["kind"] == "metric" and sleep["measure"] == "rho" and sleep["ci"][0] > 0
    assert 0.1 < sleep["slope"] < 0.45  # planted: +0.25 per hour, moods rounded to levels
    assert "per extra h" in sleep["sentence"] and "Spearman" in sleep["sentence"]


def test_the_day_after_is_compared_with_the_next_days_mood(conn, uid):
    """'Party' lowers the next day only: found at lag 1, not at lag 0."""
    plant(conn, uid, seed=11, plan=Plan(days=500, noise=0, weather=False, running_share=0))
    party = conn.execute("INSERT INTO activities (user_id, name, name_key, created_at)"
                         " VALUES (?, 'party', 'party', 0) RETURNING id", (uid,)).fetchone()[0]
    days = [r[0] for r in conn.execute("SELECT local_date FROM entry_days WHERE user_id = ?"
                                       " ORDER BY local_date", (uid,))]
    for i, day in enumerate(days[:-1]):
        if i % 10 == 0:
            conn.execute("INSERT INTO entry_activities (entry_id, activity_id) SELECT id, ?"
                         " FROM entries WHERE user_id = ? AND local_date = ?", (party, uid, day))
            conn.execute("UPDATE entries SET mood = max(1, mood - 1) WHERE user_id = ?"
                         " AND local_date = ?", (uid, days[i + 1]))
    conn.commit()
    found = run(conn, uid)
    after = named(found, "party", lag=1)
    assert after is not None and after["effect"] < -0.5, found["findings"]
    assert after["sentence"].startswith("The day after you logged party, your mood averaged")
    assert named(found, "party", lag=0) is None


NEW_THINGS = ["yoga", "journaling", "scared", "memory problems", "tea", "reading", "walk",
              "podcast"]


def test_eight_activities_begun_on_the_day_mood_rose_are_one_change_and_none_is_credited(
        conn, uid):
    """Issue #39: eight activities first logged on one day, with a real level shift that day,
    are one finding about the change, not eight; none of the eight is credited with it (each
    is compared only within the days after it began, where it does nothing)."""
    plant(conn, uid, seed=5, plan=Plan(days=600, noise=0, weather=False, running_share=0))
    start = date(2026, 11, 30) - timedelta(days=120)
    conn.execute("UPDATE entries SET mood = min(5, mood + 1) WHERE user_id = ?"
                 " AND local_date >= ?", (uid, start.isoformat()))
    for i, name in enumerate(NEW_THINGS):
        thing = conn.execute("INSERT INTO activities (user_id, name, name_key, created_at)"
                             " VALUES (?, ?, ?, 0) RETURNING id", (uid, name, name)).fetchone()[0]
        # each on about half of the days from the start on, the first day for all of them
        conn.execute("INSERT INTO entry_activities (entry_id, activity_id) SELECT id, ?"
                     " FROM entries WHERE user_id = ? AND local_date >= ?"
                     " AND (local_date = ? OR (id + ?) % 2 = 0)",
                     (thing, uid, start.isoformat(), start.isoformat(), i))
    conn.commit()
    found = run(conn, uid)
    changes = [f for f in found["findings"] if f["kind"] == "change"]
    assert len(changes) == 1, [f["sentence"] for f in found["findings"]]
    change = changes[0]
    assert change["since"] and change["effect"] > 0.5 and change["started"] == start.isoformat()
    assert change["began"] == sorted(NEW_THINGS, key=str.casefold)
    assert change["sentence"].startswith(
        f"Around {start.day} {start:%B} {start.year} your mood rose by")
    assert "began logging" in change["sentence"] and "return" in change["sentence"]
    assert [f["name"] for f in found["findings"] if f["name"] in NEW_THINGS] == []
    # asked once, and each of the eight compared only from the day the change began
    assert sum(r["since"] for r in found["comparisons"]) == 1
    for name in NEW_THINGS:
        rows = [r for r in found["comparisons"] if r["name"] == name]
        assert len(rows) == 2 and all(r["n_with"] + r["n_without"] <= 121 for r in rows), rows


@pytest.mark.parametrize("days", [1, 29])
def test_fewer_than_thirty_days_compare_nothing_and_say_how_many_there_are(conn, uid, days):
    plant(conn, uid, seed=2, plan=Plan(days=days, noise=3))
    found = run(conn, uid)
    assert (found["days"], found["needed_days"], found["checked"]) == (days, 30, 0)
    assert found["findings"] == [] and found["not_enough"] == []


def test_an_activity_on_every_day_or_on_no_day_and_equal_moods_give_no_finding(conn, uid):
    plant(conn, uid, seed=4, plan=Plan(days=200, noise=0, weather=False, running_share=1.0))
    conn.execute("INSERT INTO activities (user_id, name, name_key, created_at)"
                 " VALUES (?, 'unused', 'unused', 0)", (uid,))
    conn.execute("UPDATE entries SET mood = 3 WHERE user_id = ?", (uid,))
    conn.commit()
    found = run(conn, uid)
    assert found["findings"] == [] and found["checked"] == 0
    [every] = found["not_enough"]  # the unused one has no days in the range at all
    assert (every["name"], every["n_with"], every["n_without"], every["short_of"]) == (
        "running", 200, 0, "without")
    assert every["sentence"] == "Not enough evidence yet (0 of 14 days without running)."
    assert found["stability"][-1]["change"] == 0.0


def test_thin_activities_are_listed_with_their_counts_instead_of_a_number(conn, uid):
    plant(conn, uid, seed=6, plan=Plan(days=120, noise=0, weather=False, running_share=0.07))
    found = run(conn, uid)
    [running] = found["not_enough"]
    assert running["n_with"] < 14 and running["short_of"] == "with"
    assert running["sentence"] == (f"Not enough evidence yet ({running['n_with']} of 14 days"
                                   " with running).")
    assert found["findings"] == []


def test_date_only_entries_and_entries_in_several_zones_across_a_dst_change_count_by_their_own_day(
        alice, conn, uid):
    """A day's mood is the mean of its entries wherever they were logged; a date-only entry
    counts for its day. 40 days around the end of summer time in Berlin and New York."""
    day, known = date(2026, 10, 10), conn.execute("SELECT max(id) FROM entries").fetchone()[0]
    for i in range(40):
        d = day + timedelta(days=i)
        if i % 2:
            body = {"mood": 4, "occurred_at": f"{d.isoformat()}T23:30:00-04:00",
                    "activities": ["walk"]}
        else:
            body = {"mood": 2, "occurred_at": f"{d.isoformat()}T00:30:00+02:00"}
        assert alice.post("/api/entries", body).status == 201
        conn.execute(  # date-only, as an import makes them: stored at noon, no time known
            "INSERT INTO entries (user_id, occurred_at, utc_offset_s, local_date, local_minute,"
            " mood, source, created_at, updated_at, time_known)"
            " VALUES (?, ?, 0, ?, 720, 3, 'daylio', 0, 0, 0)",
            (uid, int(datetime(d.year, d.month, d.day, 12, tzinfo=timezone.utc).timestamp()
                      * 1000), d.isoformat()))
    index_notes(conn, known or 0)
    conn.commit()
    found = run(conn, uid)
    assert found["days"] == 40
    walk = named(found, "walk")
    assert walk["mean_with"] == 3.5 and walk["mean_without"] == 2.5  # (4 + 3) / 2, (2 + 3) / 2
    assert walk["n_with"] == walk["n_without"] == 20


def test_ten_years_are_answered(conn, uid):
    plant(conn, uid, seed=9, plan=Plan(days=3650, noise=8, weather=False))
    found = run(conn, uid)
    assert found["days"] == 3650 and found["checked"] == 2 * 9
    assert named(found, "running")["ci"][0] <= RUNNING_LIFT <= named(found, "running")["ci"][1]
    assert len(found["weeks"]["best"]) == 3 and len(found["months"]["worst"]) == 3


def test_sentences_never_claim_a_cause_or_certainty(conn, uid):
    plant(conn, uid, seed=8, plan=Plan(days=800, noise=30, sleep=True))
    found = run(conn, uid)
    assert len(found["findings"]) >= 3
    for sentence in every_sentence(found):
        assert not re.search(r"caus|because|certain|proves?\b", sentence, re.I), sentence
    for f in found["findings"]:
        assert f["sentence"].endswith("not proof that one leads to the other.")
        assert str(f["n_with"]) in f["sentence"]


def test_the_same_data_gives_the_same_page(conn, uid):
    plant(conn, uid, seed=10, plan=Plan(days=300, noise=10))
    assert run(conn, uid) == run(conn, uid)


# --- the API, the page and the cache -------------------------------------------------------

def test_the_api_answers_with_the_documented_shape_and_refuses_a_bad_range(alice, conn, uid):
    plant(conn, uid, seed=7, plan=Plan(days=400, noise=5))
    answer = alice.get("/api/insights")
    assert answer.status == 200
    body = answer.json
    assert body["range"] == {"from": "2025-10-27", "to": "2026-12-04"}
    # 6 activities asked twice, 3 kinds of weather, the temperature
    assert body["days"] == 400 and body["checked"] == 2 * 6 + 3 + 1
    assert named(body, "running")["mean_with"] > named(body, "running")["mean_without"]
    assert [f["effect"] for f in body["findings"] if f["measure"] == "points"] == sorted(
        (f["effect"] for f in body["findings"] if f["measure"] == "points"), key=abs,
        reverse=True)
    assert alice.get("/api/insights?from=2026-06-01&to=2026-11-30").json["range"] == {
        "from": "2026-06-01", "to": "2026-11-30"}
    for query, field in (("from=2026-13-01", "from"), ("to=yesterday", "to"),
                         ("from=2026-12-05", "from"), ("from=2026-11-02&to=2026-11-01", "from")):
        refused = alice.get(f"/api/insights?{query}")
        assert refused.status == 422 and field in refused.json["error"]["fields"], query


def test_a_repeat_visit_is_served_from_the_cache_until_the_journal_changes(
        alice, conn, uid, services):
    plant(conn, uid, seed=7, plan=Plan(days=60, noise=2))
    first = alice.get("/api/insights").json
    assert len(services.insight_cache._items) == 1
    assert alice.get("/api/insights").json == first
    assert len(services.insight_cache._items) == 1  # the same key: no second computation
    assert alice.post("/api/entries", {"mood": 5, "occurred_at": "2026-12-04T09:00:00Z"}
                      ).status == 201
    assert alice.get("/api/insights").json["days"] == first["days"] + 1
    assert len(services.insight_cache._items) == 2


@pytest.mark.parametrize("change", [
    "UPDATE entries SET mood = 6 - mood WHERE id = (SELECT min(id) FROM entries)",
    "DELETE FROM entries WHERE id = (SELECT min(id) FROM entries)",
    "DELETE FROM entry_activities WHERE (entry_id, activity_id) ="
    " (SELECT entry_id, activity_id FROM entry_activities LIMIT 1)",
    "UPDATE activities SET name = 'jogging', name_key = 'jogging' WHERE name = 'running'",
    "DELETE FROM activities WHERE name = 'noise 00'",
    "UPDATE weather SET temperature_c = temperature_c + 1 WHERE entry_id = 1",
    "INSERT INTO songs (entry_id, artist, title, source, created_at) VALUES (1, 'a', 't', 'x', 0)",
])
def test_every_change_the_insights_read_raises_the_journal_version(conn, uid, change):
    plant(conn, uid, seed=1, plan=Plan(days=5, noise=1))
    before = versions.journal_version(conn, uid)
    conn.execute(change)
    assert versions.journal_version(conn, uid) > before


def test_a_user_with_a_journal_can_still_be_deleted(conn, uid):
    plant(conn, uid, seed=1, plan=Plan(days=5, noise=1))
    conn.execute("DELETE FROM users WHERE id = ?", (uid,))
    assert conn.execute("SELECT count(*) FROM journal_versions").fetchone()[0] == 0


def test_an_import_raises_the_version_once(alice, conn, uid):
    from tests.helpers import multipart
    csv = (b"full_date,date,weekday,time,mood,activities,note_title,note\n"
           b"2026-11-01,,,09:00,good,walk,,\n2026-11-02,,,09:00,bad,,,\n")
    body, content_type = multipart({}, {"file": csv})
    before = versions.journal_version(conn, uid)
    assert alice.request("POST", "/api/import/daylio", body=body,
                         content_type=content_type).status == 200
    assert versions.journal_version(conn, uid) == before + 1


def test_the_page_shows_findings_with_their_interval_and_the_method_without_script(
        alice, conn, uid):
    plant(conn, uid, seed=7, plan=Plan(days=400, noise=5))
    page = alice.get("/insights?range=all").text
    assert "<h2>What goes with your better and worse days</h2>" in page
    assert re.search(r"Checked <strong>16</strong> comparisons together; <strong>\d+</strong>",
                     page)
    card = re.search(r'<li class="card finding">\s*<h3><bdi dir="auto">running</bdi>.*?</li>',
                     page, re.S).group(0)
    assert 'On days you logged <bdi dir="auto">running</bdi>, your mood averaged' in card
    assert '<svg class="chart interval"' in card and "likely between" in card
    # its two averages, each beside the face and label of its nearest mood (#38.9)
    means = re.search(r'<p class="means">With it (.*?) · without (.*?)</p>', card).group(1, 2)
    assert all(re.fullmatch(r'<span class="average">\d\.\d <span class="badge lv\d">'
                            r'<svg class="face".*</svg> <span dir="auto">(awful|bad|meh|good|rad)'
                            r'</span></span></span>',
                            mean) for mean in means), means
    assert "<summary>How is this computed?</summary>" in page
    assert "Benjamini–Hochberg" in page and "<h2>Best and worst stretches</h2>" in page
    assert not re.search(r"certain|caus|because", page, re.I)
    assert 'href="/insights?range=90"' in alice.get("/stats").text  # the range it is on


def _several_findings(conn, uid: int) -> None:
    """500 days, a few unlogged: running lifts its day (a difference alone), retreat its day and the next
    (a difference with the day after in `also`), party lowers the next day (the day after
    alone), sleep moves with mood (a correlation); on day 400 the mood rises a point as yoga
    and tea begin (a change), and tea, a point down on its days, is compared only after it."""
    plant(conn, uid, seed=21, plan=Plan(days=500, noise=0, weather=False, sleep=True,
                                        skip_share=0.05))
    days = [d for d, in conn.execute("SELECT local_date FROM entry_days WHERE user_id = ?"
                                     " ORDER BY local_date", (uid,))]
    ids = {name: conn.execute("INSERT INTO activities (user_id, name, name_key, created_at)"
                              " VALUES (?, ?, ?, 0) RETURNING id", (uid, name, name)
                              ).fetchone()[0] for name in ("retreat", "party", "yoga", "tea")}
    tagged, moved = [], {}
    for i, day in enumerate(days[:-1]):
        if i % 6 == 0:
            tagged.append((ids["retreat"], day))
            moved[day], moved[days[i + 1]] = moved.get(day, 0) + 1, 1
        if i % 10 == 3:
            tagged.append((ids["party"], day))
            moved[days[i + 1]] = moved.get(days[i + 1], 0) - 1
        if i >= 400:
            moved[day] = moved.get(day, 0) + 1
            tagged += [(ids["yoga"], day)] if i == 400 or i % 2 else []
            if i % 3 == 0:
                tagged.append((ids["tea"], day))
                moved[day] -= 1
    conn.executemany("INSERT INTO entry_activities (entry_id, activity_id) SELECT id, ?"
                     " FROM entries WHERE user_id = ? AND local_date = ?",
                     [(aid, uid, day) for aid, day in tagged])
    conn.executemany("UPDATE entries SET mood = max(1, min(5, mood + ?)) WHERE user_id = ?"
                     " AND local_date = ?", [(by, uid, day) for day, by in moved.items() if by])
    conn.commit()


NUMBER = re.compile(r"[+-]?\d+(?:\.\d+)?")


def _interval(f: dict) -> list[str]:
    """The interval's ends as printed: in the effect's own direction, one decimal."""
    low, high = f["ci"]
    return [f"{low:.1f}", f"{high:.1f}"] if f["effect"] >= 0 else [f"{-high:.1f}",
                                                                    f"{-low:.1f}"]


def _printed(f: dict) -> list[str]:
    """Every number a finding's sentence should print, in order, from the values it names."""
    def day(iso: str) -> list[str]:
        return [str(int(iso[8:])), iso[:4]]

    if f["measure"] == "rho":
        return [f"{f['effect']:.2f}", f"{f['ci'][0]:.2f}", f"{f['ci'][1]:.2f}",
                f"{f['slope']:+.2f}", str(f["n_with"])]
    figures = [f"{abs(f['effect']):.1f}", f"{f['mean_with']:.1f}", f"{f['mean_without']:.1f}",
               *_interval(f)]
    if f["kind"] == "change":
        return [*day(f["started"]), *figures, str(f["n_with"]), str(f["n_without"])]
    out = [*figures, str(f["n_with"]), str(f["n_without"])]
    for after in f["also"]:
        out += [f"{abs(after['effect']):.1f}", f"{after['mean_with']:.1f}",
                f"{after['mean_without']:.1f}", *_interval(after), str(after["n_with"])]
    return out + (day(f["within"]["date"]) if f.get("within") else [])


def _recomputed(conn, uid: int, f: dict, figures: dict, lag: int) -> tuple:
    """(mean with, mean without, n with, n without) straight from the tables: a day's mood
    is the mean of its entries; the day after is the next calendar day, when logged."""
    moods = {date.fromisoformat(d): m for d, m in conn.execute(
        "SELECT local_date, CAST(mood_sum AS REAL) / n FROM entry_days WHERE user_id = ?",
        (uid,))}
    if f["kind"] == "change":
        logged, n = sorted(moods), figures["n_with"]
        cut = logged.index(date.fromisoformat(f["started"]))
        after, before = logged[cut:cut + n], logged[cut - n:cut]
        return (statistics.fmean(moods[d] for d in after),
                statistics.fmean(moods[d] for d in before), len(after), len(before))
    had = {date.fromisoformat(d) for d, in conn.execute(
        "SELECT ad.local_date FROM activity_days ad JOIN activities a ON a.id = ad.activity_id"
        " WHERE a.user_id = ? AND a.name = ?", (uid, f["name"]))}
    side = f.get("within")
    days = [d for d in moods if d + timedelta(days=lag) in moods and (
        not side or (d >= date.fromisoformat(side["date"])) == (side["side"] == "after"))]
    with_, without = ([moods[d + timedelta(days=lag)] for d in days if (d in had) == flag]
                      for flag in (True, False))
    return statistics.fmean(with_), statistics.fmean(without), len(with_), len(without)


def _spearman(pairs: list[tuple[float, float]]) -> float:
    def ranks(values: list[float]) -> list[float]:
        order = sorted(values)
        return [order.index(v) + (order.count(v) + 1) / 2 for v in values]

    xs, ys = ranks([x for x, _ in pairs]), ranks([y for _, y in pairs])
    return statistics.correlation(xs, ys)


def test_every_number_in_a_finding_s_sentence_is_the_value_it_names_on_the_api_and_the_page(
        alice, conn, uid):
    """The effect, both means, the interval's ends and the days, as printed (rounded to what
    the sentence shows), are the finding's own figures, and those are what the tables give;
    the page prints the same sentences and the same means beside them."""
    _several_findings(conn, uid)
    found = alice.get("/api/insights").json
    kinds = {(f["kind"] if f["measure"] == "points" else "correlation", bool(f["also"]))
             for f in found["findings"]}
    assert kinds >= {("activity", True), ("activity", False), ("change", False),
                     ("correlation", False)}, [f["sentence"] for f in found["findings"]]
    assert any(f["lag"] == 1 for f in found["findings"]) and any(
        f.get("within") for f in found["findings"])
    for f in found["findings"]:
        assert NUMBER.findall(f["sentence"]) == _printed(f), f["sentence"]
        if f["measure"] == "rho":
            pairs = [(v, m) for v, m in conn.execute(
                "SELECT avg(em.value), CAST(ed.mood_sum AS REAL) / ed.n FROM entry_metrics em"
                " JOIN entries e ON e.id = em.entry_id JOIN entry_days ed"
                " ON ed.user_id = e.user_id AND ed.local_date = e.local_date"
                " WHERE e.user_id = ? GROUP BY e.local_date", (uid,))]
            assert (f["n_with"], f["effect"]) == (len(pairs), round(_spearman(pairs), 2))
            continue
        for figures, lag in [(f, f["lag"])] + [(a, a["lag"]) for a in f["also"]]:
            with_, without, n_with, n_without = _recomputed(conn, uid, f, figures, lag)
            assert (figures["n_with"], figures["n_without"]) == (n_with, n_without), f["name"]
            assert (figures["mean_with"], figures["mean_without"]) == (
                round(with_, 2), round(without, 2)), f["name"]
            assert abs(figures["effect"] - (with_ - without)) <= 0.005 + 1e-9, f["name"]
    page = alice.get("/insights?range=all").text
    cards = re.findall(r'<li class="card finding">(.*?)</li>', page, re.S)
    # the names the person gave are marked dir="auto" inside the sentence
    assert [html.unescape(re.sub(r"<[^>]+>", "", re.search(r'<p class="sentence">(.*?)</p>',
                                                           card, re.S).group(1)))
            for card in cards] == [f["sentence"] for f in found["findings"]]
    for card, f in zip(cards, found["findings"], strict=True):
        shown = re.findall(r'<span class="average">(\d\.\d) ', card)
        assert shown == [f"{x[key]:.1f}" for x in ([f] + f["also"] if "mean_with" in f else [])
                         for key in ("mean_with", "mean_without")], f["name"]


def test_the_page_says_how_many_days_are_missing_before_anything_is_compared(alice, conn, uid):
    plant(conn, uid, seed=7, plan=Plan(days=12, noise=2))
    page = alice.get("/insights").text
    assert "Not enough evidence yet: <strong>12 of 30</strong> logged days" in page
    assert "finding" not in page.split("<main", 1)[1]  # (the scripts' words are in <head>)


def test_on_this_day_shows_the_entries_of_earlier_years(alice, conn, uid):
    for year, mood in ((2024, 5), (2025, 2)):
        assert alice.post("/api/entries", {"mood": mood, "note": f"in {year}",
                                           "occurred_at": f"{year}-12-04T10:00:00Z"}
                          ).status == 201
    assert alice.post("/api/entries", {"mood": 3, "note": "another day",
                                       "occurred_at": "2025-12-05T10:00:00Z"}).status == 201
    found = alice.get("/api/insights").json["on_this_day"]
    assert [(i["years_ago"], i["entry"]["note"]) for i in found] == [(1, "in 2025"),
                                                                       (2, "in 2024")]
    page = alice.get("/insights").text
    assert "1 year ago" in page and "2 years ago" in page and "another day" not in page


# --- edges: long spans, huge values, unnamed places, cheap resampling ---------------------

def _entry(conn, uid: int, day: date, mood: int) -> int:
    at_ms = int(datetime(day.year, day.month, day.day, 12, tzinfo=timezone.utc).timestamp()
                * 1000)
    return conn.execute(
        "INSERT INTO entries (user_id, occurred_at, utc_offset_s, local_date, local_minute,"
        " mood, source, created_at, updated_at) VALUES (?, ?, 0, ?, 720, ?, 'test', 0, 0)"
        " RETURNING id", (uid, at_ms, day.isoformat(), mood)).fetchone()[0]



def test_a_journal_spanning_more_than_65535_days_is_answered_not_a_500(alice, conn, uid):
    """Entries are allowed from 1900 to 2200; 30 days in 1900 and one in 2200 make the
    range's span ~110 000 days, and resampling.bootstrap raises ValueError -> 500."""
    known = conn.execute("SELECT coalesce(max(id), 0) FROM entries").fetchone()[0]
    for i in range(30):
        _entry(conn, uid, date(1900, 1, 1) + timedelta(days=i), 1 + i % 5)
    _entry(conn, uid, date(2200, 1, 1), 3)
    index_notes(conn, known)
    conn.commit()
    answer = alice.get("/api/insights?from=1900-01-01&to=2200-12-31")
    assert answer.status == 200, answer.status



def test_the_page_never_says_certain(alice, conn, uid):
    """SPEC §11: never "certain". With enough days and nothing found, the page says
    "...with enough certainty" (templates/insights.tpl)."""
    plant(conn, uid, seed=7, plan=Plan(days=60, noise=2, running_share=0.5, weather=False))
    conn.execute("UPDATE entries SET mood = 3")  # nothing can stand out
    conn.commit()
    page = alice.get("/insights").text
    assert "Nothing stands out clearly yet" in page
    assert "certain" not in page.lower()



def test_renaming_a_mood_label_shows_in_on_this_day_at_once(alice, conn, uid):
    """The cached answer holds whole entries (on_this_day) with their mood label, but
    mood_labels has no journal-version trigger: the old label is served after a rename."""
    assert alice.post("/api/entries", {"mood": 4, "occurred_at": "2025-12-04T10:00:00Z"}
                      ).status == 201
    first = alice.get("/api/insights").json["on_this_day"][0]["entry"]
    assert first["mood_label"] == "good"
    assert alice.patch("/api/moods/4", {"label": "great"}).status == 200
    assert alice.get("/api/entries").json["entries"][0]["mood_label"] == "great"  # the truth
    again = alice.get("/api/insights").json["on_this_day"][0]["entry"]
    assert again["mood_label"] == "great"


def test_song_metadata_found_by_the_worker_shows_in_on_this_day_at_once(alice, conn, uid):
    """Worker enrichment writes song_lookups (and covers), which the entry JSON in
    on_this_day reads, but raises no journal version: the cached page keeps "song": null
    metadata until some other write."""
    assert alice.post("/api/entries", {"mood": 4, "occurred_at": "2025-12-04T10:00:00Z",
                                       "song": {"artist": "Artist", "title": "Title"}}
                      ).status == 201
    first = alice.get("/api/insights").json["on_this_day"][0]["entry"]
    assert first["song"]["metadata"] is None, first["song"]
    # what enrich/song_metadata.py writes when MusicBrainz finds the recording
    conn.execute("INSERT INTO song_lookups (lookup_key, found, recording_mbid, release_mbid,"
                 " release_title, fetched_at) SELECT lookup_key, 1, 'rec-1', 'rel-1',"
                 " 'Album', 0 FROM songs")
    conn.commit()
    fresh = insights.insights(conn, uid, "2025-12-04", "2026-12-04", TODAY)
    assert fresh["on_this_day"][0]["entry"]["song"]["metadata"] is not None  # the truth
    again = alice.get("/api/insights").json["on_this_day"][0]["entry"]
    assert again["song"]["metadata"] is not None, again["song"]



def test_large_finite_metric_values_do_not_crash_the_slope(alice, conn, uid):
    """Metric values are any finite number (validation.number); Theil–Sen's group means use
    statistics.fmean, whose fsum overflows on a few values near 1e308 -> OverflowError -> 500.
    """
    plant(conn, uid, seed=3, plan=Plan(days=400, noise=0, weather=False, sleep=True))
    conn.execute("UPDATE entry_metrics SET value = value * 1.5e307")  # sleep <= 11 h: finite
    conn.commit()
    answer = alice.get("/api/insights")
    assert answer.status == 200, answer.status



def test_unnamed_places_are_not_lumped_together_as_a_place_called_question_mark(conn, uid):
    """_read_places labels every place without a locality or display name "?" and merges
    them: different unnamed cells become one "place" compared (and shown) as "?"."""
    plant(conn, uid, seed=2, plan=Plan(days=60, noise=0, weather=False))
    conn.execute("INSERT INTO places (cell, unavailable, fetched_at) VALUES ('c1', 0, 0),"
                 " ('c2', 0, 0), ('c3', 0, 0)")
    conn.execute("INSERT INTO places (cell, locality, country_code, unavailable, fetched_at)"
                 " VALUES ('c4', 'Berlin', 'DE', 0, 0)")
    ids = [r[0] for r in conn.execute("SELECT id FROM entries WHERE user_id = ? ORDER BY id",
                                      (uid,))]
    conn.executemany("INSERT INTO entry_places (entry_id, cell) VALUES (?, ?)",
                     [(entry, f"c{1 + i % 4}") for i, entry in enumerate(ids)])
    conn.commit()
    found = insights.insights(conn, uid, *FOREVER, TODAY)
    names = {r["name"] for r in found["not_enough"] + found["comparisons"]
             if r["kind"] == "place"}
    assert "?" not in names, names



def test_a_change_s_placebo_cuts_do_not_reuse_the_real_windows():
    """_since's docstring: placebo cuts whose windows do not overlap the real one. The
    filter is abs(at - cut) >= window, but two windows of 2*window days overlap unless
    abs(at - cut) >= 2*window: the cut at cut+window uses the real 'after' days as its
    'before' and so counts the real change against itself. Here the only change in 300
    days is the one after the start, yet p is 2/23 instead of the least possible."""
    moods = {p: (5.0 if 150 <= p < 220 else 3.0) for p in range(300)}
    journal = Journal(dates={p: date(2026, 1, 1) + timedelta(days=p) for p in moods},
                      position={}, span=300, moods=moods, known={"all": set(moods)})
    asked = insights._since(journal, 150, Thresholds())
    assert asked is not None and asked.answer.effect == pytest.approx(2.0)
    # every placebo cut sharing no day with the real windows changes nothing at all
    assert asked.answer.p <= 1 / 21, asked.answer



def test_the_resampling_work_follows_the_logged_days_not_the_calendar_span(conn, uid):
    """60 logged days, 30 in 1900 and 30 in 2064: laid out on ~60 positions, not the
    ~60 000 calendar days between them (measured 13.7 s for one cold /api/insights before)."""
    for i in range(30):
        _entry(conn, uid, date(1900, 1, 1) + timedelta(days=i), 1 + i % 5)
        _entry(conn, uid, date(2064, 1, 1) + timedelta(days=i), 1 + (i * 3) % 5)
    conn.commit()
    journal = insights.read_journal(conn, uid, "1900-01-01", "2100-01-01")
    assert journal.span <= 10 * 60, f"{journal.span} positions for 60 logged days"
    assert len(journal.moods) == 60


def test_a_thing_that_stands_out_on_the_day_and_the_day_after_is_one_finding(conn, uid):
    """Issue #39: an activity's same day and day after are one card, the day after in it."""
    plant(conn, uid, seed=13, plan=Plan(days=500, noise=0, weather=False, running_share=0))
    retreat = conn.execute("INSERT INTO activities (user_id, name, name_key, created_at)"
                           " VALUES (?, 'retreat', 'retreat', 0) RETURNING id",
                           (uid,)).fetchone()[0]
    days = [r[0] for r in conn.execute("SELECT local_date FROM entry_days WHERE user_id = ?"
                                       " ORDER BY local_date", (uid,))]
    for i, day in enumerate(days[:-1]):
        if i % 6 == 0:  # lifts its own day and the next
            conn.execute("INSERT INTO entry_activities (entry_id, activity_id) SELECT id, ?"
                         " FROM entries WHERE user_id = ? AND local_date = ?",
                         (retreat, uid, day))
            conn.execute("UPDATE entries SET mood = min(5, mood + 1) WHERE user_id = ?"
                         " AND local_date IN (?, ?)", (uid, day, days[i + 1]))
    conn.commit()
    found = run(conn, uid)
    cards = [f for f in found["findings"] if f["name"] == "retreat"]
    assert len(cards) == 1, [f["sentence"] for f in found["findings"]]
    card = cards[0]
    assert card["lag"] == 0 and card["effect"] > 0.5
    assert [a["lag"] for a in card["also"]] == [1] and card["also"][0]["effect"] > 0.3
    after = card["also"][0]
    assert (f"The day after, it averaged {after['effect']:.1f} points higher"
            f" ({after['mean_with']:.1f} vs {after['mean_without']:.1f};") in card["sentence"]
    # both comparisons were made and counted
    assert sorted(r["lag"] for r in found["comparisons"] if r["name"] == "retreat") == [0, 1]


def test_the_five_clearest_findings_are_open_and_the_rest_folded_under_a_count(
        alice, conn, uid):
    """Issue #39: at most five findings open, the clearest first (the interval's near end
    farthest from 0); the others behind "N more findings"; the summary says what standing
    out means."""
    plant(conn, uid, seed=17, plan=Plan(days=500, noise=0, weather=False, running_share=0))
    days = [r[0] for r in conn.execute("SELECT local_date FROM entry_days WHERE user_id = ?"
                                       " ORDER BY local_date", (uid,))]
    for k in range(8):  # eight activities, each lifting its own share of the days
        thing = conn.execute("INSERT INTO activities (user_id, name, name_key, created_at)"
                             " VALUES (?, ?, ?, 0) RETURNING id",
                             (uid, f"lift {k}", f"lift {k}")).fetchone()[0]
        for i, day in enumerate(days):
            if i % 8 == k:
                conn.execute("INSERT INTO entry_activities (entry_id, activity_id) SELECT id, ?"
                             " FROM entries WHERE user_id = ? AND local_date = ?",
                             (thing, uid, day))
                conn.execute("UPDATE entries SET mood = min(5, mood + ?) WHERE user_id = ?"
                             " AND local_date = ?", (1 + k % 2, uid, day))
    conn.commit()
    found = alice.get("/api/insights").json
    findings = found["findings"]
    assert len(findings) > 5 and found["open_findings"] == 5
    strengths = [f["strength"] for f in findings if f["measure"] == "points"]
    assert strengths == sorted(strengths, reverse=True)
    assert all(f["strength"] == round(min(abs(f["ci"][0]), abs(f["ci"][1])), 2)
               for f in findings)
    page = alice.get("/insights?range=all").text
    opened, folded = page.split('<details class="card more-findings">')
    assert opened.count('<li class="card finding">') == 5
    assert f"<summary>{len(findings) - 5} more findings, weaker</summary>" in folded
    assert folded.split("</details>")[0].count('<li class="card finding">') == len(findings) - 5
    first = re.search(r'<li class="card finding">\s*<h3><bdi dir="auto">([^<]+?)</bdi>',
                      opened).group(1)
    assert first == findings[0]["name"]
    assert "Standing out means a difference of at least 0.3 mood points" in page
    assert f"after allowing for checking {found['checked']} things at once" in page
