"""What templates call (every template gets this module as `helpers`): mood faces and icons as
inline SVG (no icon font, no emoji font needed), how times, dates and numbers are shown in the
page's language (the request's Translator, `i18n`), and the versioned URLs of static files.
Routes answer with pages through rendering.py."""

from __future__ import annotations

import functools
import hashlib
import html
import json
import urllib.parse
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

from kmood_lib.core.i18n import N_

# Mouth curvature per level, from a frown (1) to a broad smile (5).
_MOUTH = {1: -14, 2: -7, 3: 0, 4: 8, 5: 15}


def face(level: int, size: int = 28) -> str:
    """A mood face as SVG, drawn with currentColor so it follows the text colour."""
    bend = _MOUTH.get(level, 0)
    return (f'<svg class="face" width="{size}" height="{size}" viewBox="0 0 48 48" '
            f'aria-hidden="true" focusable="false"><circle cx="24" cy="24" r="21" fill="none" '
            f'stroke="currentColor" stroke-width="3"/><circle cx="17" cy="19" r="2.8" '
            f'fill="currentColor"/><circle cx="31" cy="19" r="2.8" fill="currentColor"/>'
            f'<path d="M14 {31 - bend / 3:.1f} Q24 {31 + bend:.1f} 34 {31 - bend / 3:.1f}" '
            f'fill="none" stroke="currentColor" stroke-width="3" stroke-linecap="round"/></svg>')


def mood_level(average: float) -> int:
    """The mood level nearest an average (2.5 goes up to 3): whose face and label it wears."""
    return min(5, max(1, int(average + 0.5)))


def average_mood(value: float, labels: dict[int, str], digits: int = 2, named: bool = True,
                 i18n=None) -> str:
    """An average mood as its number (in the language of `i18n`, when given) beside the face
    and label of the level nearest it ("3.42 [face] meh"), so "3.42" reads as a mood;
    `named=False` for a table's cell: the face shown, the label said to screen readers only.
    The label is the person's own words (dir="auto")."""
    level = mood_level(value)
    label = f'<span dir="auto">{escape(labels.get(level, str(level)))}</span>'
    number = decimal(value, digits, i18n=i18n)
    if named:
        return (f'<span class="average">{number} <span class="badge lv{level}">'
                f'{face(level, 16)} {label}</span></span>')
    return (f'<span class="average">{number} {face(level, 16)}'
            f'<span class="skip"> ({label})</span></span>')


def mood_words(value: float, labels: dict[int, str], digits: int = 2, i18n=None) -> str:
    """An average mood in plain words, its number and the label of the level nearest it
    ("2.25 · meh"): for a chart's text, titles and description (escape it where it goes)."""
    level = mood_level(value)
    return f"{decimal(value, digits, i18n=i18n)} · {labels.get(level, str(level))}"


_ICONS = {
    "log": '<path d="M24 10v28M10 24h28"/>',
    "history": '<path d="M10 14h28M10 24h28M10 34h28"/>',
    "calendar": '<rect x="9" y="11" width="30" height="28" rx="3"/><path d="M9 19h30M17 7v8M31 7v8"/>',
    "stats": '<path d="M12 38V26M22 38V14M32 38V20M8 38h32"/>',
    "settings": '<circle cx="24" cy="24" r="6"/><path d="M24 6v6M24 36v6M6 24h6M36 24h6'
                'M11 11l4 4M33 33l4 4M37 11l-4 4M15 33l-4 4"/>',
}


def icon(name: str) -> str:
    return (f'<svg class="icon" width="22" height="22" viewBox="0 0 48 48" aria-hidden="true" '
            f'focusable="false" fill="none" stroke="currentColor" stroke-width="3.5" '
            f'stroke-linecap="round" stroke-linejoin="round">{_ICONS[name]}</svg>')


def date_text(i18n, day: date | str, skeleton: str = "yMMMd") -> str:
    """A date (or a YYYY-MM-DD day) in the language of `i18n` (Translator.day)."""
    return i18n.day(day, skeleton)


def utc_day(ms: int) -> date:
    """The day (UTC) of a stored instant, for a list's short dates."""
    return datetime.fromtimestamp(ms / 1000, timezone.utc).date()


def clock_time(entry: dict, i18n) -> str:
    """'21:15' on the entry's own wall clock; 'no time' for a date-only entry."""
    return entry["occurred_at"][11:16] if entry["time_known"] else i18n.gettext(N_("no time"))


def day_title(day: str, today: str, i18n) -> str:
    """'Today', 'Yesterday' or 'Mon 30 Nov 2026' for a YYYY-MM-DD local day."""
    d, t = date.fromisoformat(day), date.fromisoformat(today)
    if d == t:
        return i18n.gettext(N_("Today"))
    if d == t - timedelta(days=1):
        return i18n.gettext(N_("Yesterday"))
    return date_text(i18n, d, "yMMMEd")


def back_query(back: str | None) -> str:
    """'?back=%2Fentries%3F…' for an Edit or Delete link on a list of entries (the form goes
    back there), '' without one."""
    return "?" + urllib.parse.urlencode({"back": back}) if back else ""


def decimal(value: float, digits: int = 1, sign: bool = False, i18n=None) -> str:
    """A number for a label with `digits` decimals (and a + or - with `sign`): a value that
    rounds to zero is "0.0", never "-0.0" or "+0.0". Every chart's numbers come through here;
    with `i18n`, in its language's digits and separator ("3,2" in German)."""
    if i18n is not None:
        return i18n.decimal(value, digits, sign)
    text = f"{value:{'+' if sign else ''}.{digits}f}"
    return f"{0:.{digits}f}" if float(text) == 0 else text


def number(value: float) -> str:
    """7.0 -> '7', 7.25 -> '7.25' (the exact value, never rounded away): for a form's field."""
    return str(int(value)) if value == int(value) else repr(value)


def shown_number(value: float, i18n) -> str:
    """The exact value as `number` gives it, in the language's digits and separator: 7,25."""
    exact = number(value)
    places = len(exact.partition(".")[2]) if "e" not in exact else 6
    return i18n.decimal(value, places)


def when(entry: dict, i18n) -> str:
    """'30 Nov 2026, 21:15' (in the language of `i18n`), '30 Nov 2026 (no time)'."""
    moment = datetime.fromisoformat(entry["occurred_at"])
    day = date_text(i18n, moment.date(), "yMMMd")
    if entry["time_known"]:
        return i18n.gettext(N_("{day}, {time}"), day=day, time=moment.strftime("%H:%M"))
    return i18n.gettext(N_("{day} (no time)"), day=day)


def coordinates(location: dict, i18n) -> str:
    """A place's latitude and longitude, four decimals each, in the language's digits."""
    # Translators: a place's latitude and longitude; where a decimal comma is used, a
    # semicolon between them reads better.
    return i18n.gettext(N_("{lat}, {lon}"), lat=i18n.decimal(location["lat"], 4),
                        lon=i18n.decimal(location["lon"], 4))


def escape(text: str) -> str:
    return html.escape(text, quote=True)


def instant(ms: int | None, i18n=None) -> str:
    """A stored UTC instant (ms) as a short date for lists (in the language of `i18n`)."""
    if ms is None:
        return ""
    moment = datetime.fromtimestamp(ms / 1000, timezone.utc)
    if i18n is not None:
        return date_text(i18n, moment.date(), "yMMMd")
    return f"{moment.day} {moment.strftime('%b %Y')}"


def duration(seconds: float, i18n=None) -> str:
    """A short human duration: '4 s', '3 min', '2 h 5 min', '3 days' (in the language of
    `i18n`, when given)."""
    s = int(seconds)
    said = (lambda message, **values: message.format(**values)) if i18n is None else i18n.gettext
    if s < 90:
        return said(N_("{n} s"), n=s)
    if s < 3600:
        return said(N_("{n} min"), n=round(s / 60))
    if s < 48 * 3600:
        hours, minutes = divmod(round(s / 60), 60)
        return (said(N_("{hours} h {minutes} min"), hours=hours, minutes=minutes) if minutes
                else said(N_("{hours} h"), hours=hours))
    days = round(s / 86400)
    if i18n is None:
        return f"{days} days"
    n_ = i18n.ngettext
    return n_("{n} day", "{n} days", days)


STATIC = Path(__file__).resolve().parent / "static"


@functools.lru_cache(maxsize=64)
def static_version(path: str) -> str:
    """A short hash of a static file's bytes: the file's URL changes whenever it does, so a
    browser may keep it for a year (read once per file and process)."""
    try:
        return hashlib.sha256((STATIC / path).read_bytes()).hexdigest()[:12]
    except OSError:
        return "0"


def json_attr(value) -> str:
    """A value as JSON for an attribute (the template escapes it)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def static(path: str) -> str:
    """The versioned URL of a static file."""
    return f"/static/{path}?v={static_version(path)}"
