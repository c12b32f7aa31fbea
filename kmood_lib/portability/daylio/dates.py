"""Daylio dates and times: localised day names of the oldest CSV, 12- and 24-hour times."""

from __future__ import annotations

import re
from datetime import date

from kmood_lib.core.i18n import Phrase
from kmood_lib.core.text import name_key

# Month names in the languages Daylio's oldest CSV localises its `date` cell into, nominative
# and genitive (Polish, "7 września"), with common abbreviations; compared by name key.
_MONTHS = {
    1: "january jan januar jänner janvier janv enero ene gennaio gen janeiro styczeń stycznia sty",
    2: "february feb februar février févr fevrier fevr febrero febbraio fevereiro fev luty lutego"
       " lut",
    3: "march mar märz marz mars marzo março marco marca",
    4: "april apr avril avr abril abr aprile kwiecień kwietnia kwi",
    5: "may mai mayo maggio mag maio maj maja",
    6: "june jun juni juin junio giugno giu junho czerwiec czerwca cze",
    7: "july jul juli juillet juil julio luglio lug julho lipiec lipca lip",
    8: "august aug août aout agosto ago sierpień sierpnia sie",
    9: "september sep sept septembre septiembre setiembre settembre set setembro wrzesień"
       " września wrz",
    10: "october oct oktober okt octobre octubre ottobre ott outubro out październik"
        " października paź",
    11: "november nov novembre noviembre novembro listopad listopada lis",
    12: "december dec dezember dez décembre decembre diciembre dic dicembre dezembro grudzień"
        " grudnia gru",
}


MONTH_NAMES = {name_key(word): month for month, words in _MONTHS.items()
               for word in words.split()}


_WORD = re.compile(r"[^\W\d_]+|\d+")  # a run of letters, or of digits


def localised_day(year_cell: str, date_cell: str) -> date:
    """The oldest header's day: `year` plus a localised day and month such as `June 22`,
    `22. Juni`, `7 września`, `16 de octubre`; raises ValueError naming what it could not read."""
    if not year_cell.strip().isdigit():
        raise ValueError(Phrase("year {year} is not a number", year=repr(year_cell)))
    days, months = [], []
    for token in _WORD.findall(date_cell):
        if token.isdigit():
            days.append(int(token))
        elif name_key(token) in MONTH_NAMES:
            months.append(MONTH_NAMES[name_key(token)])
    if len(days) != 1 or len(months) != 1:
        raise ValueError(Phrase("cannot read a day and a month from the date {date}",
                                date=repr(date_cell)))
    try:
        return date(int(year_cell.strip()), months[0], days[0])
    except (ValueError, OverflowError):
        raise ValueError(Phrase("{year} {date} is not a real day", year=year_cell.strip()[:12],
                                date=repr(date_cell.strip()[:40]))) from None


def parse_time(cell: str) -> int:
    """Minutes after midnight from `18:52`, `9:03`, `6:50 pm`, `10:04 AM` (12:xx AM is just
    after midnight); raises ValueError."""
    text = cell.strip().casefold().replace(".", "")
    suffix = None
    for mark in ("am", "pm"):
        if text.endswith(mark):
            suffix, text = mark, text[: -len(mark)].strip()
    hours, sep, minutes = text.partition(":")
    if not (sep and hours.isascii() and hours.isdigit() and minutes.isascii()
            and minutes.isdigit() and len(minutes) == 2 and 1 <= len(hours) <= 2):
        raise ValueError(_unreadable_time(cell))
    h, m = int(hours), int(minutes)
    if suffix:
        if not 1 <= h <= 12:
            raise ValueError(_unreadable_time(cell))
        h = h % 12 + (12 if suffix == "pm" else 0)
    if h > 23 or m > 59:
        raise ValueError(_unreadable_time(cell))
    return h * 60 + m


def _unreadable_time(cell: str) -> Phrase:
    return Phrase("cannot read the time {time}", time=repr(cell))


def date_ordinal_ms(day: date) -> int:
    """Midnight of `day` as if it were UTC, in Unix ms."""
    return (day.toordinal() - date(1970, 1, 1).toordinal()) * 86_400_000
