"""The stats and insights pages' charts and words, drawn from the journal's figures in the
page's language (`say`): the stats' charts with their descriptions, the note on what the chart
over time leaves off, each finding's title, sentence and interval, and the months' stability."""

from __future__ import annotations

from datetime import date

from kmood_lib.core.i18n import N_, Translator
from kmood_lib.journal import insight_words as words
from kmood_lib.journal import queries, stats
from kmood_lib.journal.insight_words import english
from kmood_lib.web import charts, template_helpers
from kmood_lib.web.charts import entries, mood_words, theirs
from kmood_lib.web.template_helpers import escape


class Said:
    """What the stats and insights templates show besides words, in the page's language: the
    numbers, the dates, an average mood with its face and the person's label."""

    def __init__(self, say: Translator, labels: dict[int, str]):
        self.say, self.labels = say, labels

    def decimal(self, value: float, places: int = 1, sign: bool = False) -> str:
        return self.say.decimal(value, places, sign)

    def mood(self, value: float, digits: int = 2, named: bool = True) -> str:
        return template_helpers.average_mood(value, self.labels, digits, named, i18n=self.say)

    def day(self, iso: str | date, skeleton: str = "yMMMd") -> str:
        return self.say.day(iso, skeleton)

    def month(self, iso: str) -> str:
        """'2026-03' or '2026-03-01' as 'March 2026'."""
        return self.say.day(date.fromisoformat(iso[:7] + "-01"), "yMMMM")


def over_time_chart(conn, user_id: int, flt: queries.EntryFilter, first: date, end: date,
                    labels: dict[int, str], whole: bool, say: Translator
                    ) -> tuple[str | None, str | None]:
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
        note = left_off_note(left_off, date.fromordinal(ordinals[0]), until, first, say)
        weeks = [w for w in weeks if w["start"] > until.isoformat()]  # past the gap: theirs
        months = [m for m in months if m["start"] > until.isoformat()]
    return charts.mood_over_time(weeks, months, first, end, labels, note or "", say=say), note


def left_off_note(left_off: int, since: date, until: date, resumed: date,
                  say: Translator | None = None) -> str:
    """'5 earlier entries from March 2015, before a gap of 7 years, are not drawn.'"""
    say = say or english()
    n_ = say.ngettext
    when = say.day(since, "yMMMM")
    if (since.year, since.month) != (until.year, until.month):
        when = say.gettext(N_("{first} to {last}"), first=when,
                           last=say.day(until, "yMMMM"))
    gap_days = (resumed - until).days
    gap = (n_("{n} year", "{n} years", round(gap_days / 365.25)) if gap_days >= 730
           else n_("{n} month", "{n} months", round(gap_days / 30.44)))
    return n_("{n} earlier entry from {when}, before a gap of {gap}, is not drawn.",
              "{n} earlier entries from {when}, before a gap of {gap}, are not drawn.",
              left_off, when=when, gap=gap)


def figures_drawn(figures: dict, labels: dict[int, str], say: Translator) -> dict:
    """The stats page's charts of a range's figures (stats.summary, by_weekday_and_hour,
    weather_impact, place_impact, music_impact): None for what has nothing to draw."""
    summary, timing, weather = figures["summary"], figures["timing"], figures["weather"]
    places, artists = figures["places"]["places"], figures["music"]["artists"]
    known_weather = weather["entries_with_weather"]
    return {
        "distribution": distribution_chart(summary, labels, say),
        "weekday": weekday_chart(timing["weekdays"], summary["average"] or 3, labels, say),
        "hour": hour_chart(timing["hours"], summary["average"] or 3, labels, say),
        "by_temperature": temperature_chart(weather["temperature"], labels, say)
        if known_weather else None,
        "by_conditions": conditions_chart(weather["conditions"], labels, say)
        if known_weather else None,
        "by_place": ranking_chart(places, "place", N_("Average mood by place"), labels, say)
        if places else None,
        "by_artist": ranking_chart(artists, "artist", N_("Average mood by artist listened to"),
                                   labels, say) if artists else None}


def distribution_chart(summary: dict, labels: dict[int, str], say: Translator) -> str:
    items = [{"label": labels[level], "theirs": True, "css": f"lv{level}",
              "value": summary["distribution"][str(level)]} for level in range(1, 6)]
    counts = ", ".join(f"{theirs(labels[i])} {say.number(summary['distribution'][str(i)])}"
                       for i in range(5, 0, -1))
    return charts.bars(items, escape(say.gettext(N_("How often each mood was logged"))),
                       say.gettext(N_("Entries per mood: {counts}."), counts=counts),
                       digits=0, say=say)


MIN_SLOT_ENTRIES = 3  # fewer entries on a weekday or in an hour say nothing about it


def against_mean(items: list[dict], mean: float, labels: dict[int, str], title: str,
                 desc: str, say: Translator) -> str:
    """Averages per weekday or hour drawn as differences from the person's own mean, with
    the same words in the chart's description (`desc`: a message with {mood} and {slots})."""
    slots = ", ".join(f"{escape(i.get('said', i['label']))}"
                      f" {say.decimal(i['value'] - mean, 2, sign=True)}"
                      f" ({escape(entries(say, i['count']))})"
                      for i in items if i["value"] is not None
                      and i["count"] >= MIN_SLOT_ENTRIES)
    return charts.difference_bars(
        items, mean, escape(say.gettext(title)),
        say.gettext(desc, mood=mood_words(say, mean, labels),
                    slots=slots or escape(say.gettext(N_("too few entries")))),
        labels=labels, min_count=MIN_SLOT_ENTRIES, say=say)


def weekday_chart(weekdays: list[dict], mean: float, labels: dict[int, str], say: Translator
                  ) -> str:
    order = {weekday: place for place, weekday in enumerate(say.week_order())}
    return against_mean(
        [{"label": say.weekday_name(w["weekday"], "abbreviated"), "value": w["average"],
          "count": w["count"]} for w in sorted(weekdays, key=lambda w: order[w["weekday"]])],
        mean, labels,
        N_("Mood by weekday, against your average"),
        N_("Average mood per weekday as a difference from your average of {mood}: {slots}."),
        say)


def hour_chart(hours: list[dict], mean: float, labels: dict[int, str], say: Translator) -> str:
    return against_mean(
        [{"label": f"{h['hour']:02d}", "value": h["average"], "count": h["count"],
          "said": say.gettext(N_("{hour}h"), hour=f"{h['hour']:02d}")} for h in hours],
        mean, labels, N_("Mood by hour of the day, against your average"),
        N_("Average mood per local hour as a difference from your average of {mood}:"
           " {slots}."), say)


def temperature_chart(bands: list[dict], labels: dict[int, str], say: Translator) -> str:
    def band(b: dict) -> str:
        return escape(say.gettext(N_("{low} to {high} °C"), low=say.number(b["from_c"]),
                                  high=say.number(b["to_c"])))

    items = [{"label": f"{say.number(b['from_c'])}°", "value": b["average"],
              "note": f" ({escape(entries(say, b['count']))}, {band(b)})"} for b in bands]
    moods = ", ".join(f"{band(b)}: {mood_words(say, b['average'], labels)}" for b in bands)
    return charts.bars(items, escape(say.gettext(N_("Average mood by temperature (5 °C"
                                                    " bands)"))),
                       say.gettext(N_("Average mood (1-5): {moods}."), moods=moods),
                       labels=labels, say=say)


def ranking_chart(rows: list[dict], name: str, title: str, labels: dict[int, str],
                  say: Translator) -> str:
    """Places or artists, most entries first, with their average mood and entry count."""
    items = [{"label": r[name], "value": r["average"], "short": f"({say.number(r['count'])})",
              "note": f" ({escape(entries(say, r['count']))})"} for r in rows]
    moods = ", ".join(say.gettext(N_("{name} {mood} over {count}"), name=theirs(r[name]),
                                  mood=mood_words(say, r["average"], labels, 1),
                                  count=say.number(r["count"])) for r in rows)
    return charts.hbars(items, escape(say.gettext(title)),
                        say.gettext(N_("Average mood (1-5), most entries first: {moods}."),
                                    moods=moods), labels=labels, say=say)


def weather_label(say: Translator, group: str) -> str:
    known = words.WEATHER_LABELS.get(group)
    return say.gettext(known) if known else group


def conditions_chart(groups: list[dict], labels: dict[int, str], say: Translator) -> str:
    items = [{"label": weather_label(say, g["group"]), "value": g["average"],
              "note": f" ({escape(entries(say, g['count']))})"} for g in groups]
    moods = ", ".join(f"{escape(weather_label(say, g['group']))}"
                      f" {mood_words(say, g['average'], labels)}" for g in groups)
    return charts.bars(items, escape(say.gettext(N_("Average mood by weather"))),
                       say.gettext(N_("Average mood (1-5): {moods}."), moods=moods),
                       labels=labels, say=say)


def finding_title(say: Translator, f: dict) -> str:
    """A finding's name: 'Around Mar 5, 2026' for a change, a kind of weather in the
    language, else the name the person gave it."""
    if f["kind"] == "change":
        return escape(say.gettext(N_("Around {date}"), date=say.day(f["started"])))
    if f["kind"] == "weather":
        known = words.WEATHER_LABELS.get(f["name"])
        return escape(say.gettext(known) if known else say.gettext(words.TEMPERATURE))
    return theirs(f["name"])


def finding_charts(findings: list[dict], say: Translator | None = None) -> list[str]:
    """Each finding's interval on a scale its measure shares across the page (mood points:
    at least ±1; rank correlation: ±1), so cards compare at a glance."""
    say = say or english()
    widest = max([1.0] + [max(abs(v) for v in f["ci"]) for f in findings
                          if f["measure"] == "points"])
    out = []
    for f in findings:
        points = f["measure"] == "points"
        scale = -(-widest * 2 // 1) / 2 if points else 1.0  # up to the next half point
        low, high = f["ci"]
        what = (N_("{name}: difference in mood points") if points else
                N_("{name}: Spearman's rank correlation"))
        out.append(charts.interval(
            f["effect"], low, high, scale, say.gettext(what, name=finding_title(say, f)),
            escape(say.gettext(N_("Estimate {estimate}, likely between {low} and {high}; the"
                                  " middle line is no difference."),
                               estimate=say.decimal(f["effect"], 2, sign=True),
                               low=say.decimal(low, 2, sign=True),
                               high=say.decimal(high, 2, sign=True))), say))
    return out


def finding_sentence(say: Translator, f: dict) -> str:
    """A finding's sentence in the page's language (HTML: the names the person gave marked)."""
    said = {"change": words.change}.get(
        f["kind"], words.correlation if f["measure"] == "rho" else words.difference)
    return said(f, say, theirs)


def stability_chart(months: list[dict], say: Translator | None = None) -> str | None:
    """The last months' mean day-to-day change as bars, the numbers in words below it."""
    if not months:
        return None
    say = say or english()
    n_ = say.ngettext
    said = Said(say, {})
    return charts.bars(
        [{"label": say.month_name(int(m["month"][5:]), "abbreviated"), "value": m["change"],
          "note": " ({})".format(escape(n_("{month}, {n} pair of days", "{month}, {n} pairs of"
                                           " days", m["steps"], month=said.month(m["month"]))))}
         for m in months],
        escape(say.gettext(N_("Day-to-day change in mood, by month"))),
        escape(say.gettext(
            N_("The mean size of the change in mood from one logged day to the next, by"
               " month: {changes}."),
            changes=", ".join(f"{said.month(m['month'])} {say.decimal(m['change'], 2)}"
                              for m in months))),
        digits=2, values=False, say=say)


def steadiness(months: list[dict], say: Translator | None = None) -> str | None:
    """'Steadiest: February 2026 (0.57 points a day); least steady: June 2026 (1.03).'"""
    if len(months) < 2:
        return None
    say = say or english()
    said = Said(say, {})
    steady = min(months, key=lambda m: (m["change"], m["month"]))
    unsteady = max(months, key=lambda m: (m["change"], m["month"]))
    return say.gettext(N_("Steadiest: {steadiest} ({change} points from one day to the next);"
                          " least steady: {least_steady} ({least_change})."),
                       steadiest=said.month(steady["month"]),
                       change=say.decimal(steady["change"], 2),
                       least_steady=said.month(unsteady["month"]),
                       least_change=say.decimal(unsteady["change"], 2))


def insights_said(found: dict, say: Translator) -> dict:
    """What the insights page draws and says of a range's insights, in the page's language:
    each finding's chart, sentence and title, the sentences of what has not enough evidence
    yet, and the months' stability as a chart and in words."""
    findings, months = found["findings"], found["stability"][-12:]
    return {"charts": finding_charts(findings, say),
            "sentences": [finding_sentence(say, f) for f in findings],
            "titles": [finding_title(say, f) for f in findings],
            "not_enough": [words.not_enough(r, say, theirs) for r in found["not_enough"]],
            "stability": stability_chart(months, say), "steadiness": steadiness(months, say)}
