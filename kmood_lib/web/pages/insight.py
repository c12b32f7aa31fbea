"""What the data says, as pages: the year in pixels and the stats with their charts, drawn
on the server from the same functions as /api/stats."""

from __future__ import annotations

import calendar as cal
from datetime import date, timedelta

import bottle

from kmood_lib.core.errors import NotFound, ValidationError
from kmood_lib.core.gate import ServerBusy, StillComputing
from kmood_lib.core.timezones import local_today
from kmood_lib.core.validation import MAX_YEAR, MIN_YEAR, parse_int_param
from kmood_lib.enrich.insights import standard_insights
from kmood_lib.journal import insight_store, insights, queries, stats, versions, vocab
from kmood_lib.journal.evidence import Evidence, evidence_from
from kmood_lib.web import charts
from kmood_lib.web.authentication import Auth
from kmood_lib.web.http import query_params
from kmood_lib.web.rendering import page, plural
from kmood_lib.web.routing import Routes
from kmood_lib.web.template_helpers import decimal, mood_words

# Stats' and Insights' ranges, shortest first in both; opening_range picks where both open.
RANGES = {"30": ("Last 30 days", 30), "90": ("Last 90 days", 90), "365": ("Last year", 365),
          "all": ("All time", None)}
INSIGHT_RANGES = {key: RANGES[key] for key in insight_store.STANDARD}  # what the worker stores
WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")

routes = Routes()


def year_grid(year: int, days: dict, today: date) -> list[list[dict]]:
    """31 rows (day of month) x 12 columns (months): each cell says what to draw."""
    rows = []
    for day in range(1, 32):
        row = []
        for month in range(1, 13):
            if day > cal.monthrange(year, month)[1]:
                row.append({"kind": "blank"})
                continue
            d = date(year, month, day)
            found = days.get(d.isoformat())
            if found:
                row.append({"kind": "logged", "date": d, "level": max(1, min(5, round(
                    found["average"]))), "average": found["average"], "count": found["count"]})
            else:
                row.append({"kind": "future" if d > today else "none", "date": d})
        rows.append(row)
    return rows


def today_of(services, user) -> date:
    return local_today(services.clock, user.timezone)


def opening_range(conn, user_id: int, today: date) -> str:
    """The range Stats and Insights open on: the last 90 days, or all time when the last
    entry is older than that (an imported history opens on its entries, not an empty range)."""
    _, last = stats.logged_span(conn, user_id)
    if last and (today - date.fromisoformat(last)).days >= RANGES["90"][1]:
        return "all"
    return "90"


@routes.get("/calendar")
def year_in_pixels(services, conn, auth: Auth):
    today = today_of(services, auth.user)
    _, last = stats.logged_span(conn, auth.user.id)
    last_day = date.fromisoformat(last) if last else None
    latest = max(today.year, last_day.year) if last_day else today.year
    # Imported history: open on the latest year that has entries, not on an empty one.
    opening = last_day.year if last_day and last_day.year < today.year else today.year
    try:
        year = parse_int_param(query_params(bottle.request).get("year"), "year", MIN_YEAR,
                               MAX_YEAR, default=opening)
    except ValidationError:  # a year out of range is a page that does not exist
        raise NotFound("year", f"years run from {MIN_YEAR} to {MAX_YEAR}") from None
    data = stats.calendar(conn, auth.user.id, year)
    logged = len(data["days"])
    average = (sum(d["average"] * d["count"] for d in data["days"].values())
               / max(1, sum(d["count"] for d in data["days"].values()))) if logged else None
    return page("calendar.tpl", auth, active="calendar", year=year, today=today,
                grid=year_grid(year, data["days"], today), logged=logged,
                average=average, labels=vocab.mood_labels(conn, auth.user.id),
                months=[cal.month_abbr[m] for m in range(1, 13)],
                prev_year=year - 1 if year > MIN_YEAR else None,
                next_year=year + 1 if year < min(latest, MAX_YEAR) else None,  # never ahead
                last_day=last_day)


TABLE_PAGE = 20


def activity_table(rows: list[dict], wanted_page: str | None) -> tuple[list[dict], int, int]:
    """The activities that can be compared, those with evidence first (the insights' rule),
    the biggest difference either way first, then those with few days, the most days first;
    a page at a time:
    (this page's rows, pages, page)."""
    kept = [r for r in rows if r["difference"] is not None]
    kept.sort(key=lambda r: (not r["enough"], 0 if r["enough"] else -r["days_with"],
                             -abs(r["difference"]), r["activity"].casefold()))
    pages = max(1, -(-len(kept) // TABLE_PAGE))
    page_no = int(wanted_page) if wanted_page and wanted_page.isascii() and \
        wanted_page.isdigit() and 1 <= int(wanted_page) <= pages else 1
    return kept[(page_no - 1) * TABLE_PAGE:page_no * TABLE_PAGE], pages, page_no


@routes.get("/stats")
def stats_page(services, conn, auth: Auth):
    user = auth.user
    today = today_of(services, user)
    _, last = stats.logged_span(conn, user.id)
    last_day = date.fromisoformat(last) if last else None
    opening = opening_range(conn, user.id, today)
    params = query_params(bottle.request)
    key = params.get("range", opening)
    if key not in RANGES:
        key = opening
    labels = vocab.mood_labels(conn, user.id)
    # Besides the user and the journal version: what else the charts are drawn from. A label
    # rename raises no version, and today moves the ranges, the streaks and where "all" ends.
    found = versions.cached(conn, services.stats_cache, user.id,
                            ("stats", key, today, tuple(sorted(labels.items()))),
                            lambda: stats_model(conn, user.id, key, today, labels,
                                                evidence_from(services.config)))
    impact, impact_pages, impact_page = activity_table(found["activities"],
                                                       params.get("activities_page"))
    return page("stats.tpl", auth, active="stats", wide=True, ranges=RANGES, current=key,
                insight_ranges=INSIGHT_RANGES,
                range_name=RANGES[key][0], labels=labels, last_day=last_day, impact=impact,
                impact_logged=bool(found["activities"]), impact_pages=impact_pages,
                impact_page=impact_page, needed_days=found["needed_days"], **found["charts"])


def stats_model(conn, user_id: int, key: str, today: date, labels: dict[int, str],
                evidence: Evidence) -> dict:
    """Everything the stats page shows for a range that does not depend on the request: the
    figures and the charts drawn (SVG), and every activity's row for the table's pages."""
    days = RANGES[key][1]
    flt = queries.EntryFilter(date_from=(today - timedelta(days=days - 1)).isoformat()
                              if days else None, date_to=today.isoformat())
    summary = stats.summary(conn, user_id, today, flt)
    first = date.fromisoformat(flt.date_from) if flt.date_from else (
        date.fromisoformat(summary["first_day"]) if summary["first_day"] else today)
    end = today if days or not summary["last_day"] else max(
        date.fromisoformat(summary["last_day"]), first)  # all time ends where the entries do
    over_time, over_time_note = over_time_chart(conn, user_id, flt, first, end, labels,
                                                whole=not days)
    timing = stats.by_weekday_and_hour(conn, user_id, flt)
    weather = stats.weather_impact(conn, user_id, flt)
    places = stats.place_impact(conn, user_id, flt)
    music = stats.music_impact(conn, user_id, flt)
    known_weather = weather["entries_with_weather"]
    impact = stats.activity_impact(conn, user_id, flt, evidence)
    return {"activities": impact["activities"], "needed_days": impact["needed_days"], "charts": {
        "summary": summary, "weather": weather, "places": places, "music": music,
        "over_time": over_time, "over_time_note": over_time_note,
        "distribution": distribution_chart(summary, labels),
        "weekday": weekday_chart(timing["weekdays"], summary["average"] or 3, labels),
        "hour": hour_chart(timing["hours"], summary["average"] or 3, labels),
        "by_temperature": temperature_chart(weather["temperature"], labels)
        if known_weather else None,
        "by_conditions": conditions_chart(weather["conditions"], labels)
        if known_weather else None,
        "by_place": ranking_chart(places["places"], "place", "Average mood by place", labels)
        if places["places"] else None,
        "by_artist": ranking_chart(music["artists"], "artist",
                                   "Average mood by artist listened to", labels)
        if music["artists"] else None}}


def over_time_chart(conn, user_id: int, flt: queries.EntryFilter, first: date, end: date,
                    labels: dict[int, str], whole: bool) -> tuple[str | None, str | None]:
    """The mood-over-time chart (None without entries) and the note under it: the whole
    history is drawn from where it becomes continuous (stats.continuous_from), and the note,
    also in the chart's description, says what was left off."""
    weeks = stats.mood_series(conn, user_id, flt, "week")
    months = stats.mood_series(conn, user_id, flt, "month")
    if not weeks:
        return None, None
    note = None
    ordinals = stats.day_ordinals(conn, user_id, flt) if whole else []
    start = stats.continuous_from(ordinals)
    if start:
        until, first = date.fromordinal(ordinals[start - 1]), date.fromordinal(ordinals[start])
        left_off = sum(w["count"] for w in weeks if w["start"] <= until.isoformat())
        note = left_off_note(left_off, date.fromordinal(ordinals[0]), until, first)
        weeks = [w for w in weeks if w["start"] > until.isoformat()]  # past the gap: theirs
        months = [m for m in months if m["start"] > until.isoformat()]
    return charts.mood_over_time(weeks, months, first, end, labels, note or ""), note


def left_off_note(entries: int, since: date, until: date, resumed: date) -> str:
    """'5 earlier entries from March 2015, before a gap of 7 years, are not drawn.'"""
    when = f"{since:%B %Y}" + ("" if (since.year, since.month) == (until.year, until.month)
                               else f" to {until:%B %Y}")
    gap_days = (resumed - until).days
    gap = (plural(round(gap_days / 365.25), "year", "years") if gap_days >= 730
           else plural(round(gap_days / 30.44), "month", "months"))
    return (f"{plural(entries, 'earlier entry', 'earlier entries')} from {when}, before a gap"
            f" of {gap}, {'is' if entries == 1 else 'are'} not drawn.")


def distribution_chart(summary: dict, labels: dict[int, str]) -> str:
    items = [{"label": labels[level], "value": summary["distribution"][str(level)],
              "css": f"lv{level}"} for level in range(1, 6)]
    words = ", ".join(f"{labels[i]} {summary['distribution'][str(i)]}" for i in range(5, 0, -1))
    return charts.bars(items, "How often each mood was logged", f"Entries per mood: {words}.",
                       digits=0)


MIN_SLOT_ENTRIES = 3  # fewer entries on a weekday or in an hour say nothing about it


def against_mean(items: list[dict], mean: float, labels: dict[int, str], title: str, per: str,
                 suffix: str = "") -> str:
    """Averages per weekday or hour drawn as differences from the person's own mean, with
    the same words in the chart's description."""
    words = ", ".join(f"{i['label']}{suffix} {decimal(i['value'] - mean, 2, sign=True)}"
                      f" ({i['count']} entries)"
                      for i in items if i["value"] is not None
                      and i["count"] >= MIN_SLOT_ENTRIES)
    return charts.difference_bars(
        items, mean, title, f"Average mood per {per} as a difference from your average of"
        f" {mood_words(mean, labels)}: {words or 'too few entries'}.", labels=labels,
        min_count=MIN_SLOT_ENTRIES)


def weekday_chart(weekdays: list[dict], mean: float, labels: dict[int, str]) -> str:
    return against_mean([{"label": WEEKDAYS[w["weekday"]], "value": w["average"],
                          "count": w["count"]} for w in weekdays], mean, labels,
                        "Mood by weekday, against your average", "weekday")


def hour_chart(hours: list[dict], mean: float, labels: dict[int, str]) -> str:
    return against_mean([{"label": f"{h['hour']:02d}", "value": h["average"],
                          "count": h["count"]} for h in hours], mean, labels,
                        "Mood by hour of the day, against your average", "local hour", "h")


def temperature_chart(bands: list[dict], labels: dict[int, str]) -> str:
    items = [{"label": f"{b['from_c']}°", "value": b["average"],
              "note": f" ({b['count']} entries, {b['from_c']} to {b['to_c']} °C)"} for b in bands]
    words = ", ".join(f"{b['from_c']} to {b['to_c']} °C: {mood_words(b['average'], labels)}"
                      for b in bands)
    return charts.bars(items, "Average mood by temperature (5 °C bands)",
                       f"Average mood (1-5): {words}.", labels=labels)


def ranking_chart(rows: list[dict], name: str, title: str, labels: dict[int, str]) -> str:
    """Places or artists, most entries first, with their average mood and entry count."""
    items = [{"label": r[name], "value": r["average"], "short": f"({r['count']})",
              "note": f" ({r['count']} entries)"} for r in rows]
    words = ", ".join(f"{r[name]} {mood_words(r['average'], labels, 1)} over {r['count']}"
                      for r in rows)
    return charts.hbars(items, title, f"Average mood (1-5), most entries first: {words}.",
                        labels=labels)


def conditions_chart(groups: list[dict], labels: dict[int, str]) -> str:
    items = [{"label": g["group"], "value": g["average"], "note": f" ({g['count']} entries)"}
             for g in groups]
    words = ", ".join(f"{g['group']} {mood_words(g['average'], labels)}" for g in groups)
    return charts.bars(items, "Average mood by weather", f"Average mood (1-5): {words}.",
                       labels=labels)


def finding_charts(findings: list[dict]) -> list[str]:
    """Each finding's interval on a scale its measure shares across the page (mood points:
    at least ±1; rank correlation: ±1), so cards compare at a glance."""
    widest = max([1.0] + [max(abs(v) for v in f["ci"]) for f in findings
                          if f["measure"] == "points"])
    out = []
    for f in findings:
        points = f["measure"] == "points"
        scale = -(-widest * 2 // 1) / 2 if points else 1.0  # up to the next half point
        low, high = f["ci"]
        what = "difference in mood points" if points else "Spearman's rank correlation"
        out.append(charts.interval(
            f["effect"], low, high, scale,
            f"{'Around ' + f['started'] if f['kind'] == 'change' else f['name']}: {what}",
            f"Estimate {decimal(f['effect'], 2, sign=True)}, likely between"
            f" {decimal(low, 2, sign=True)} and {decimal(high, 2, sign=True)};"
            f" the middle line is no difference."))
    return out


@routes.get("/insights")
def insights_page(services, conn, auth: Auth):
    user = auth.user
    today = today_of(services, user)
    opening = opening_range(conn, user.id, today)
    key = query_params(bottle.request).get("range", opening)
    if key not in INSIGHT_RANGES:
        key = opening
    name, _ = INSIGHT_RANGES[key]
    limits = insights.thresholds_from(services.config)
    try:
        found = standard_insights(services, conn, user.id, key, today)
    except (StillComputing, ServerBusy) as refused:
        return busy_page(auth, key, refused)
    return page("insights.tpl", auth, active="stats", wide=True, ranges=INSIGHT_RANGES,
                current=key, range_name=name, busy=None, found=found, limits=limits,
                charts=finding_charts(found["findings"]),
                labels=vocab.mood_labels(conn, user.id),
                stability=stability_chart(found["stability"][-12:]),
                steadiness=steadiness(found["stability"][-12:]))


BUSY = {"person": "k-mood is still working out your insights.",
        "waiting": "k-mood is still working out your insights.",
        "server": "k-mood is working out insights for others just now."}


def busy_page(auth: Auth, key: str, refused: StillComputing | ServerBusy
              ) -> bottle.HTTPResponse:
    """The insights page while it cannot be computed: the refusal's status and Retry-After,
    and a calm word of when to come back instead of an error page."""
    wait = plural(refused.retry_after_s, "second", "seconds")
    response = page("insights.tpl", auth, active="stats", status=refused.status,
                    ranges=INSIGHT_RANGES, current=key, busy=f"{BUSY[refused.reason]}"
                    f" Try again in {wait}.")
    response.set_header("Retry-After", str(refused.retry_after_s))
    return response


def _month_name(month: str) -> str:
    return f"{cal.month_name[int(month[5:])]} {month[:4]}"


def stability_chart(months: list[dict]) -> str | None:
    """The last months' mean day-to-day change as bars, the numbers in words below it."""
    if not months:
        return None
    return charts.bars(
        [{"label": cal.month_abbr[int(m["month"][5:])], "value": m["change"],
          "note": f" ({_month_name(m['month'])}, {m['steps']} pairs of days)"} for m in months],
        "Day-to-day change in mood, by month",
        "The mean size of the change in mood from one logged day to the next, by month: "
        + ", ".join(f"{_month_name(m['month'])} {m['change']:.2f}" for m in months) + ".",
        digits=2, values=False)


def steadiness(months: list[dict]) -> str | None:
    """'Steadiest: February 2026 (0.57 points a day); least steady: June 2026 (1.03).'"""
    if len(months) < 2:
        return None
    steady = min(months, key=lambda m: (m["change"], m["month"]))
    unsteady = max(months, key=lambda m: (m["change"], m["month"]))
    return (f"Steadiest: {_month_name(steady['month'])} ({steady['change']:.2f} points from one"
            f" day to the next); least steady: {_month_name(unsteady['month'])}"
            f" ({unsteady['change']:.2f}).")
