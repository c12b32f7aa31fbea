"""What the data says, as pages: the year in pixels and the stats with their charts, drawn
on the server from the same functions as /api/stats."""

from __future__ import annotations

import calendar as cal
from datetime import date, timedelta

import bottle

from kmood_lib.core.errors import NotFound, ValidationError
from kmood_lib.core.gate import ServerBusy, StillComputing
from kmood_lib.core.i18n import N_, Phrase, Translator
from kmood_lib.core.timezones import local_today
from kmood_lib.core.validation import MAX_YEAR, MIN_YEAR, parse_int_param
from kmood_lib.enrich.insights import standard_insights
from kmood_lib.journal import insight_words as words
from kmood_lib.journal import insights, queries, stats, versions, vocab
from kmood_lib.journal.evidence import Evidence, evidence_from
from kmood_lib.web import stats_charts
from kmood_lib.web.authentication import Auth
from kmood_lib.web.http import query_params
from kmood_lib.web.ranges import INSIGHT_RANGES, RANGES, opening_range
from kmood_lib.web.rendering import page, translator
from kmood_lib.web.routing import Routes

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


@routes.get("/calendar")
def year_in_pixels(services, conn, auth: Auth):
    say = translator(bottle.request, auth.user)
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
        raise NotFound("year", Phrase("years run from {first} to {last}", first=MIN_YEAR,
                                      last=MAX_YEAR)) from None
    data = stats.calendar(conn, auth.user.id, year)
    logged = len(data["days"])
    average = (sum(d["average"] * d["count"] for d in data["days"].values())
               / max(1, sum(d["count"] for d in data["days"].values()))) if logged else None
    return page("calendar.tpl", auth, active="calendar", year=year, today=today,
                grid=year_grid(year, data["days"], today), logged=logged,
                average=average, labels=vocab.mood_labels(conn, auth.user.id),
                months=[say.month_name(m, "abbreviated") for m in range(1, 13)], i18n=say,
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
    say = translator(bottle.request, user)
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
    # rename raises no version, today moves the ranges, the streaks and where "all" ends, and
    # the charts' words are in the page's language.
    found = versions.cached(conn, services.stats_cache, user.id,
                            ("stats", key, today, tuple(sorted(labels.items())), say.code),
                            lambda: stats_model(conn, user.id, key, today, labels,
                                                evidence_from(services.config), say))
    impact, impact_pages, impact_page = activity_table(found["activities"],
                                                       params.get("activities_page"))
    return page("stats.tpl", auth, active="stats", wide=True, ranges=RANGES, current=key,
                insight_ranges=INSIGHT_RANGES, i18n=say, said=stats_charts.Said(say, labels),
                range_name=RANGES[key][0], labels=labels, last_day=last_day, impact=impact,
                impact_logged=bool(found["activities"]), impact_pages=impact_pages,
                impact_page=impact_page, needed_days=found["needed_days"], **found["charts"])


def stats_model(conn, user_id: int, key: str, today: date, labels: dict[int, str],
                evidence: Evidence, say: Translator) -> dict:
    """Everything the stats page shows for a range that does not depend on the request but
    for its language: the figures and the charts drawn (SVG), and every activity's row for
    the table's pages."""
    days = RANGES[key][1]
    flt = queries.EntryFilter(date_from=(today - timedelta(days=days - 1)).isoformat()
                              if days else None, date_to=today.isoformat())
    summary = stats.summary(conn, user_id, today, flt)
    first = date.fromisoformat(flt.date_from) if flt.date_from else (
        date.fromisoformat(summary["first_day"]) if summary["first_day"] else today)
    end = today if days or not summary["last_day"] else max(
        date.fromisoformat(summary["last_day"]), first)  # all time ends where the entries do
    over_time, over_time_note = stats_charts.over_time_chart(
        conn, user_id, flt, first, end, labels, whole=not days, say=say)
    impact = stats.activity_impact(conn, user_id, flt, evidence)
    figures = {"summary": summary, "timing": stats.by_weekday_and_hour(conn, user_id, flt),
               "weather": stats.weather_impact(conn, user_id, flt),
               "places": stats.place_impact(conn, user_id, flt),
               "music": stats.music_impact(conn, user_id, flt)}
    return {"activities": impact["activities"], "needed_days": impact["needed_days"], "charts": {
        **figures, "over_time": over_time, "over_time_note": over_time_note,
        **stats_charts.figures_drawn(figures, labels, say)}}


@routes.get("/insights")
def insights_page(services, conn, auth: Auth):
    user = auth.user
    say = translator(bottle.request, user)
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
        return busy_page(auth, key, refused, say)
    labels = vocab.mood_labels(conn, user.id)
    return page("insights.tpl", auth, active="stats", wide=True, ranges=INSIGHT_RANGES,
                current=key, range_name=name, busy=None, found=found, limits=limits, i18n=say,
                said=stats_charts.Said(say, labels), labels=labels, kinds=words.KINDS,
                **stats_charts.insights_said(found, say))


BUSY = {"person": N_("k-mood is still working out your insights."),
        "waiting": N_("k-mood is still working out your insights."),
        "server": N_("k-mood is working out insights for others just now.")}


def busy_page(auth: Auth, key: str, refused: StillComputing | ServerBusy, say: Translator
              ) -> bottle.HTTPResponse:
    """The insights page while it cannot be computed: the refusal's status and Retry-After,
    and a calm word of when to come back instead of an error page."""
    n_ = say.ngettext
    busy = " ".join([say.gettext(BUSY[refused.reason]),
                     n_("Try again in {n} second.", "Try again in {n} seconds.",
                        refused.retry_after_s)])
    response = page("insights.tpl", auth, active="stats", status=refused.status, i18n=say,
                    ranges=INSIGHT_RANGES, current=key, busy=busy)
    response.set_header("Retry-After", str(refused.retry_after_s))
    return response

