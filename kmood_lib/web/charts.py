"""Charts as SVG drawn on the server: no script, readable at 360 px, each with a <title> and a
<desc> that says in words what it shows, in the person's language (`say`, a Translator).

A chart's title and description, and an item's note, are HTML (the caller escapes what it
puts in them: words(), theirs()); a label is text, escaped here, and marked dir="auto" when
the person wrote it (a mood label, a place, an artist: SPEC §10)."""

from __future__ import annotations

import zlib
from datetime import date

from kmood_lib.core.i18n import N_, Translator
from kmood_lib.journal.insight_words import english
from kmood_lib.web.template_helpers import escape, mood_level

WIDTH, HEIGHT = 440, 230
LEFT, RIGHT, TOP, BOTTOM = 72, 10, 16, 34
TICK_ROOM = 36  # half the widest time-axis label ("Sep 2026", "30. Nov."), in the SVG's units


def theirs(text: str) -> str:
    """What the person wrote, inside a chart's words or a sentence: escaped and isolated."""
    return f'<bdi dir="auto">{escape(text)}</bdi>'


def mood_words(say: Translator, value: float, labels: dict[int, str], digits: int = 2) -> str:
    """An average mood in words, its number and the label of the level nearest it
    ("2.25 · meh"), as HTML for a chart's title or description."""
    level = mood_level(value)
    return f"{say.decimal(value, digits)} · {theirs(labels.get(level, str(level)))}"


def entries(say: Translator, n: int) -> str:
    n_ = say.ngettext
    return n_("{n} entry", "{n} entries", n)


def _svg(title: str, desc: str, body: str, height: int = HEIGHT, width: int = WIDTH,
         kind: str = "") -> str:
    ident = f"c{zlib.crc32((title + desc).encode()):08x}"
    css = f"chart {kind}".strip()
    return (f'<svg class="{css}" viewBox="0 0 {width} {height}" role="img" '
            f'aria-labelledby="{ident}t {ident}d" preserveAspectRatio="xMidYMid meet">'
            f'<title id="{ident}t">{title}</title><desc id="{ident}d">{desc}</desc>'
            f"{body}</svg>")


AXIS_LABEL_CHARS = 5  # longer labels are squeezed into the axis's width, never cut


def _label(label: str, x: float, y: float, width: float, anchor: str = "end") -> str:
    """A mood label (the person's words) as text, squeezed into `width` when it is longer
    than AXIS_LABEL_CHARS."""
    label = label[:16]
    fit = (f' textLength="{width:.0f}" lengthAdjust="spacingAndGlyphs"'
           if len(label) > AXIS_LABEL_CHARS else "")
    return (f'<text x="{x:.1f}" y="{y:.1f}" dir="auto" text-anchor="{anchor}"{fit}>'
            f"{escape(label)}</text>")


def _item_label(item: dict, x: float, y: float) -> str:
    """An item's label under its bar: the person's own words (a mood label) marked so."""
    mark = ' dir="auto"' if item.get("theirs") else ""
    return (f'<text x="{x:.1f}" y="{y}"{mark} text-anchor="middle">'
            f'{escape(item["label"])}</text>')


def _item_name(item: dict) -> str:
    return theirs(item["label"]) if item.get("theirs") else escape(item["label"])


def _mood_axis(labels: dict[int, str], y_of) -> str:
    out = []
    for level in range(1, 6):
        y = y_of(level)
        out.append(f'<line class="grid" x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y:.1f}" y2="{y:.1f}"/>'
                   + _label(labels.get(level, str(level)), LEFT - 8, y + 4, LEFT - 14))
    return "".join(out)


def mood_over_time(weeks: list[dict], months: list[dict], first: date, last: date,
                   labels: dict[int, str], note: str = "", *, say: Translator | None = None
                   ) -> str:
    """Weekly averages as a line with dots, monthly averages dashed; a week or month with no
    entry breaks the line instead of being drawn through. `note` (what is not drawn, text)
    ends the description."""
    say = say or english()
    span = max((last - first).days, 1)
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x_of(day: str) -> float:
        return LEFT + plot_w * min(max((date.fromisoformat(day) - first).days, 0), span) / span

    def y_of(value: float) -> float:
        return TOP + plot_h * (5 - value) / 4

    body = [_mood_axis(labels, y_of),
            f'<line class="axis" x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{HEIGHT - BOTTOM}" '
            f'y2="{HEIGHT - BOTTOM}"/>']
    for k, tick in enumerate(_ticks(first, last)):
        x = x_of(tick.isoformat())
        # a label near the right edge ends at its tick: centred, it would be cut off
        anchor = "end" if x > WIDTH - RIGHT - TICK_ROOM else "middle"
        body.append(f'<text x="{x:.1f}" y="{HEIGHT - 12}" text-anchor="{anchor}">'
                    f"{escape(_tick_label(say, tick, span, k == 0))}</text>")
    body.append(_broken_line(months, 31, "month", x_of, y_of))
    body.append(_broken_line(weeks, 7, "week", x_of, y_of))
    for p in weeks:
        words = say.gettext(N_("week of {date}: {mood} ({entries})"),
                            date=escape(say.day(p["start"])),
                            mood=mood_words(say, p["average"], labels),
                            entries=escape(entries(say, p["count"])))
        body.append(f'<circle class="dot" cx="{x_of(p["start"]):.1f}" cy="{y_of(p["average"]):.1f}"'
                    f' r="3"><title>{words}</title></circle>')
    return _svg(escape(say.gettext(N_("Mood over time: weekly average (solid) and monthly"
                                      " average (dashed)"))),
                _over_time_description(say, weeks, first, last, labels, note), "".join(body))


def _broken_line(points: list[dict], step_days: int, css: str, x_of, y_of) -> str:
    """`points` (each a period's start and average) joined by a line that breaks where more
    than `step_days` lie between two of them."""
    segments, current, previous = [], [], None
    for point in points:
        start = date.fromisoformat(point["start"])
        if previous is not None and (start - previous).days > step_days:
            segments.append(current)
            current = []
        current.append(point)
        previous = start
    if current:
        segments.append(current)
    out = []
    for segment in segments:
        d = " ".join(f"{'M' if i == 0 else 'L'}{x_of(p['start']):.1f},{y_of(p['average']):.1f}"
                     for i, p in enumerate(segment))
        out.append(f'<path class="line {css}" d="{d}"/>')
    return "".join(out)


def _over_time_description(say: Translator, weeks: list[dict], first: date, last: date,
                           labels: dict[int, str], note: str) -> str:
    """What the chart shows, in sentences: the weeks with entries, the best and the worst."""
    n_ = say.ngettext

    def day(iso: str | date) -> str:
        return escape(say.day(iso))

    sentences = [n_("{n} week with entries between {first} and {last}.",
                    "{n} weeks with entries between {first} and {last}.", len(weeks),
                    first=day(first), last=day(last))]
    if weeks:
        best = max(weeks, key=lambda p: p["average"])
        worst = min(weeks, key=lambda p: p["average"])
        sentences.append(say.gettext(
            N_("Best week starting {best} ({best_mood}); worst week starting {worst}"
               " ({worst_mood})."), best=day(best["start"]),
            best_mood=mood_words(say, best["average"], labels), worst=day(worst["start"]),
            worst_mood=mood_words(say, worst["average"], labels)))
    else:
        sentences.append(escape(say.gettext(N_("No entries."))))
    if note:
        sentences.append(escape(note))
    return " ".join(sentences)


def _ticks(first: date, last: date) -> list[date]:
    """About five month starts (or the first day) to label the time axis."""
    months = []
    year, month = first.year, first.month
    while date(year, month, 1) <= last:
        if date(year, month, 1) >= first:
            months.append(date(year, month, 1))
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    if len(months) < 2:
        return [first, last]
    step = max(1, -(-len(months) // 4))
    return months[::step]


def _tick_label(say: Translator, day: date, span_days: int, first: bool = False) -> str:
    """'Mar' (with the year on the first tick, on January and on spans of years), or the day
    and month ('Mar 5') on short spans, each in the language's own form."""
    if span_days <= 62:
        return say.day(day, "MMMd")
    if first or span_days > 730 or day.month == 1:
        return say.day(day, "yMMM")
    return say.month_name(day.month, "abbreviated")


def bars(items: list[dict], title: str, desc: str, *, max_value: float | None = None,
         digits: int = 1, values: bool = True, labels: dict[int, str] | None = None,
         say: Translator | None = None) -> str:
    """Vertical bars with their value above (`digits` decimals; unless `values` is off: the
    page says them in words) and their label below; an item whose value is None is an empty
    slot (no data), drawn as a short dashed mark. With mood `labels` the values are average
    moods: drawn up to 5 against the person's labels, each bar in its nearest level's colour.
    An item: label (text; `theirs` when the person wrote it), value, note (HTML), css."""
    say = say or english()
    n = max(len(items), 1)
    left = LEFT if labels else 20
    plot_w, plot_h = WIDTH - left - RIGHT, HEIGHT - TOP - BOTTOM - 14
    slot = plot_w / n
    top = 5 if labels else max_value or max([i["value"] or 0 for i in items] + [1])
    body = [_mood_axis(labels, lambda v: HEIGHT - BOTTOM - plot_h * v / top) if labels else "",
            f'<line class="axis" x1="{left}" x2="{WIDTH - RIGHT}" y1="{HEIGHT - BOTTOM}" '
            f'y2="{HEIGHT - BOTTOM}"/>']
    for k, item in enumerate(items):
        x = left + k * slot + slot * 0.15
        w = slot * 0.7
        label_x = x + w / 2
        if item["value"] is None:
            body.append(f'<line class="grid" x1="{x:.1f}" x2="{x + w:.1f}" y1="{HEIGHT - BOTTOM - 2}"'
                        f' y2="{HEIGHT - BOTTOM - 2}"/>')
        else:
            h = plot_h * item["value"] / top
            y = HEIGHT - BOTTOM - h
            css = f"lv{mood_level(item['value'])}" if labels else item.get("css", "")
            said = (mood_words(say, item["value"], labels, digits) if labels
                    else say.decimal(item["value"], digits))
            body.append(f'<rect class="bar {css}" x="{x:.1f}" y="{y:.1f}" '
                        f'width="{w:.1f}" height="{max(h, 1):.1f}" rx="2"><title>'
                        f'{_item_name(item)}: {said}{item.get("note", "")}</title></rect>')
            if n <= 12 and values:
                body.append(f'<text class="value" x="{label_x:.1f}" y="{y - 4:.1f}" '
                            f'text-anchor="middle">{say.decimal(item["value"], digits)}</text>')
        if n <= 12 or k % 3 == 0:
            body.append(_item_label(item, label_x, HEIGHT - 14))
    return _svg(title, desc, "".join(body))


MIN_SCALE = 0.5  # the smallest difference that fills half a difference chart's height


def difference_bars(items: list[dict], mean: float, title: str, desc: str, *,
                    labels: dict[int, str], min_count: int = 3,
                    say: Translator | None = None) -> str:
    """Each item's average as a difference from the person's own mean (its number and mood
    label at the line): bars up (better) and down (worse) from a line at the mean, on a scale
    where 0.3 is plainly visible; an item with fewer than `min_count` entries is an empty slot
    (too few to say), not a bar."""
    say = say or english()
    n = max(len(items), 1)
    left = 50  # room for "+0.5" in the larger text of a narrow phone
    plot_w = WIDTH - left - RIGHT
    half = (HEIGHT - TOP - BOTTOM - 18) / 2
    zero = TOP + 9 + half
    slot = plot_w / n
    shown = [i for i in items if i["value"] is not None and i["count"] >= min_count]
    scale = max([MIN_SCALE] + [abs(i["value"] - mean) for i in shown])
    body = [f'<line class="axis" x1="{left}" x2="{WIDTH - RIGHT}" y1="{zero:.1f}" '
            f'y2="{zero:.1f}"/>',
            f'<text x="{left - 4}" y="{zero + 4:.1f}" text-anchor="end">'
            f'{say.decimal(mean)}</text>',
            _label(labels.get(mood_level(mean), ""), left - 4, zero + 20, left - 6),
            f'<text x="{left - 4}" y="{zero - half + 4:.1f}" text-anchor="end">'
            f'+{say.decimal(scale)}</text>',
            f'<text x="{left - 4}" y="{zero + half + 4:.1f}" text-anchor="end">'
            f'−{say.decimal(scale)}</text>']
    for k, item in enumerate(items):
        x = left + k * slot + slot * 0.15
        w = slot * 0.7
        label_x = x + w / 2
        if item in shown:
            diff = item["value"] - mean
            h = half * abs(diff) / scale
            y = zero - h if diff >= 0 else zero
            words = say.gettext(N_("{label}: {mood}, {difference} from your average"
                                   " ({entries})"), label=_item_name(item),
                                mood=mood_words(say, item["value"], labels),
                                difference=say.decimal(diff, 2, sign=True),
                                entries=escape(entries(say, item["count"])))
            body.append(f'<rect class="bar {"up" if diff >= 0 else "down"}" x="{x:.1f}" '
                        f'y="{y:.1f}" width="{w:.1f}" height="{max(h, 1):.1f}" rx="2">'
                        f'<title>{words}</title></rect>')
            if n <= 12:
                text_y = y - 4 if diff >= 0 else y + h + 13
                body.append(f'<text class="value" x="{label_x:.1f}" y="{text_y:.1f}" '
                            f'text-anchor="middle">{say.decimal(diff, sign=True)}</text>')
        else:
            words = say.gettext(N_("{label}: too few entries ({count})"),
                                label=_item_name(item), count=say.number(item["count"]))
            body.append(f'<line class="grid" x1="{x:.1f}" x2="{x + w:.1f}" y1="{zero:.1f}"'
                        f' y2="{zero:.1f}"><title>{words}</title></line>')
        if n <= 12 or k % 3 == 0:
            body.append(_item_label(item, label_x, HEIGHT - 6))
    return _svg(title, desc, "".join(body))


ROW_H, LABEL_W = 26, 172


def hbars(items: list[dict], title: str, desc: str, *, labels: dict[int, str],
          say: Translator | None = None) -> str:
    """Horizontal bars of average moods, one row per item, for long labels (places, artists,
    the person's words): the label on the left (shortened, whole in the bar's <title>), after
    the bar the value, the mood label nearest it and the item's short note (HTML), the bar in
    that mood's colour."""
    say = say or english()
    height = TOP + len(items) * ROW_H + 6
    bar_x, bar_w = LABEL_W + 8, WIDTH - LABEL_W - 8 - 140
    body = []
    for k, item in enumerate(items):
        y = TOP + k * ROW_H
        label = item["label"] if len(item["label"]) <= 24 else item["label"][:23] + "…"
        w = bar_w * max(item["value"], 0) / 5
        level = mood_level(item["value"])
        body.append(
            f'<text x="{LABEL_W}" y="{y + 16}" dir="auto" text-anchor="end">{escape(label)}'
            f'</text>'
            f'<rect class="bar lv{level}" x="{bar_x}" y="{y + 4}" width="{max(w, 1):.1f}" '
            f'height="{ROW_H - 9}" rx="2"><title>{theirs(item["label"])}: '
            f'{mood_words(say, item["value"], labels, 1)}{item.get("note", "")}'
            f'</title></rect>'
            f'<text class="value" x="{bar_x + w + 6:.1f}" y="{y + 16}">'
            f'{say.decimal(item["value"])}</text>'
            + _label(labels.get(level, str(level)), bar_x + w + 42, y + 16, 48, "start")
            + f'<text x="{bar_x + w + 96:.1f}" y="{y + 16}">{item.get("short", "")}'
            f'</text>')
    return _svg(title, desc, "".join(body), height)


IV_WIDTH, IV_HEIGHT, IV_PAD = 320, 48, 22


def interval(effect: float, low: float, high: float, scale: float, title: str, desc: str,
             say: Translator | None = None) -> str:
    """One finding on a scale from -scale to +scale that every card of its measure shares:
    a line at no difference, the likely range as a band, the estimate as a dot."""
    say = say or english()

    def x(value: float) -> float:
        return IV_PAD + (value + scale) / (2 * scale) * (IV_WIDTH - 2 * IV_PAD)

    tone = "lv4" if effect >= 0 else "lv2"
    body = [f'<line class="axis" x1="{IV_PAD}" x2="{IV_WIDTH - IV_PAD}" y1="16" y2="16"/>',
            f'<line class="grid" x1="{x(0):.1f}" x2="{x(0):.1f}" y1="2" y2="30"/>',
            f'<rect class="bar {tone}" x="{x(low):.1f}" y="10" width="'
            f'{max(x(high) - x(low), 2):.1f}" height="12" rx="6"/>',
            f'<circle class="dot" cx="{x(effect):.1f}" cy="16" r="7"/>']
    for value, anchor in ((-scale, "start"), (0.0, "middle"), (scale, "end")):
        places = 0 if value == int(value) else 1
        label = "0" if value == 0 else say.decimal(value, places, sign=True).replace("-", "−")
        body.append(f'<text x="{x(value):.1f}" y="{IV_HEIGHT - 6}" text-anchor="{anchor}">'
                    f'{escape(label)}</text>')
    return _svg(title, desc, "".join(body), IV_HEIGHT, IV_WIDTH, "interval")
