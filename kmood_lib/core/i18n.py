"""Languages (SPEC §13): one catalogue per language in locale/<lang>/LC_MESSAGES/messages.po,
compiled in memory the first time a language is asked for (compiled catalogues are never
committed), a Translator per language (gettext, ngettext with the catalogue's CLDR plural rule,
Babel's numbers and dates), and the choice of language for a request.

Message ids are English with `{name}` placeholders filled by str.format after translation; a
catalogue's translation keeps the same placeholders (tests/unit/test_i18n.py holds them)."""

from __future__ import annotations

import datetime
import functools
import gettext
import html
import io
import re
import threading
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING

from kmood_lib.core.config import LOCALE_DIR, SOURCE_LANGUAGE, available_languages

# An Accept-Language header is read up to this many characters and this many ranges: a longer
# or stranger one costs no more than this, and what cannot be read is skipped, never an error.
# Babel is imported where it is first used, by the server's pages: the worker and the command
# line build Languages too (one composition root) and never pay ~0.1 s a start for it.
if TYPE_CHECKING:
    from babel.support import Translations

# The counts tried for one of each plural category a language has: 1 first, so that a message
# no catalogue has yet falls back to the English singular where it is one.
_PLURAL_SAMPLES = (*range(1, 1000), 0)
MAX_HEADER_CHARS = 512
MAX_RANGES = 16
_RANGE = re.compile(r"[A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*|\*")
_QUALITY = re.compile(r"q=(0(?:\.[0-9]{0,3})?|1(?:\.0{0,3})?)", re.IGNORECASE)


def N_(message: str) -> str:
    """Marks a message for extraction where it is defined; it is translated where shown."""
    return message


class Phrase(str):
    """An English text made where no language is known (a domain error, a report), that a page
    says in the person's: it is the English with its values filled in (what the JSON API and
    the logs show), and it carries its message id and values for a Translator's gettext.

        raise ValidationError({"note": Phrase("at most {n} characters", n=2000)})
    """

    __slots__ = ("message", "values")

    def __new__(cls, message: str, **values):
        phrase = super().__new__(cls, message.format(**values) if values else message)
        phrase.message, phrase.values = message, values
        return phrase

    def __reduce__(self):
        return (_phrase, (self.message, self.values))


def _phrase(message: str, values: dict) -> Phrase:
    return Phrase(message, **values)


class Counted(Phrase):
    """A Phrase said for a count `n` ("3 files under assets/ were left out"): its English is
    the form for `n`; a Translator says it by its language's plural rule. Made with
    `counted(...)`, the name extraction knows plural messages by."""

    __slots__ = ("plural",)

    def __new__(cls, singular: str, plural: str, n: int, **values):
        phrase = super().__new__(cls, singular if n == 1 else plural, n=n, **values)
        phrase.message, phrase.plural = singular, plural
        return phrase

    def __reduce__(self):
        values = dict(self.values)
        return (_counted, (self.message, self.plural, values.pop("n"), values))


def _counted(singular: str, plural: str, n: int, values: dict) -> Counted:
    return Counted(singular, plural, n, **values)


# The pseudo-languages (KMOOD_PSEUDO_LANGUAGES): every message the code passes through a
# Translator comes out with each ASCII letter accented, a third longer and in brackets, so a word
# that is still plain ASCII on a page never went through a catalogue (tests/browser's walk looks
# for them). ar_XB is the same, right to left. Their numbers and dates are CLDR's English ones,
# accented the same way.
PSEUDO_LANGUAGES = {"en_XA": ("en", "ltr"), "ar_XB": ("en", "rtl")}
_ACCENTED = str.maketrans(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "àƀçđéƒĝĥîĵķĺɱñöþǫŕšţûṽŵẋýžÀƁÇĐÉƑĜĤÎĴĶĹṀÑÖÞǪŔŠŢÛṼŴẊÝŽ")
# What is not words: {placeholders}, <tags> and &entities; are kept as they are.
_NOT_WORDS = re.compile(r"(\{[^{}]*\}|<[^<>]*>|&[#A-Za-z0-9]+;)")


def pseudo(text: str) -> str:
    """"Save" -> "⟦Šàṽé·⟧": accented, a third longer (padding), in brackets."""
    if not text.strip():
        return text
    parts = _NOT_WORDS.split(text)
    words = "".join(part if index % 2 else part.translate(_ACCENTED)
                    for index, part in enumerate(parts))
    # The padding comes in runs of at most eight, so a long message can still wrap as its
    # words do (one run of a hundred would be an unbreakable word no language has).
    length = max(1, sum(len(part) for part in parts[::2]) // 3)
    padding = " ".join("·" * min(8, length - start) for start in range(0, length, 8))
    return f"⟦{words}{padding}⟧"


class PseudoTranslations(gettext.NullTranslations):
    """Every message the catalogues' template (locale/messages.pot) holds, accented; one it
    does not hold (never marked, so never extracted, so never translated) stays plain."""

    def __init__(self, template: Path):
        super().__init__()
        stat = template.stat()
        self.known = _template_ids(str(template), stat.st_mtime_ns, stat.st_size)

    def gettext(self, message):
        return pseudo(message) if message in self.known else message

    def ngettext(self, singular, plural, n):
        chosen = singular if n == 1 else plural
        return pseudo(chosen) if singular in self.known else chosen


class Translator:
    """One language's words, plural rule, numbers and dates; the `_`/`n_` of the templates."""

    def __init__(self, code: str, translations: gettext.NullTranslations):
        from babel import Locale

        self.code = code
        cldr, self.direction = PSEUDO_LANGUAGES.get(code, (code, None))
        self.locale = Locale.parse(cldr)
        self.direction = self.direction or (
            "rtl" if self.locale.character_order == "right-to-left" else "ltr")
        self._translations = translations
        self._cldr_words = pseudo if code in PSEUDO_LANGUAGES else str

    @property
    def html_lang(self) -> str:
        """The BCP 47 tag for `<html lang>`: pt_BR -> pt-BR."""
        return self.code.replace("_", "-")

    @property
    def name(self) -> str:
        """The language in its own words, as a list of languages shows it: "Deutsch"."""
        if self.code in PSEUDO_LANGUAGES:
            return pseudo(self.code.replace("_", "-"))
        name = self.locale.get_display_name(self.locale) or self.code
        return name[:1].upper() + name[1:]

    def gettext(self, message: str, **values) -> str:
        """`message` in this language, its {values} filled in. A Phrase brings its own values
        (a Phrase among them said too: "{where}: {problem}" of an import report), a Counted
        its plural, said by this language's rule."""
        if isinstance(message, Phrase):
            values = {**{name: self.gettext(value) if isinstance(value, Phrase) else value
                         for name, value in message.values.items()}, **values}
            if isinstance(message, Counted):
                return self.ngettext(message.message, message.plural, values.pop("n"), **values)
            message = message.message
        text = self._translations.gettext(message)
        return text.format(**values) if values else text

    def plural_forms(self, singular: str, plural: str) -> dict[str, str]:
        """{CLDR category: the form the catalogue gives for a count in it}, for each category
        an integer count can be in (Polish: one, few, many; English: one, other), its {n} kept:
        for the scripts to pick from by Intl.PluralRules."""
        rule = self.locale.plural_form
        samples: dict[str, int] = {}
        for n in _PLURAL_SAMPLES:
            samples.setdefault(rule(n), n)
            if len(samples) == len(rule.tags | {"other"}):
                break
        return {category: self._translations.ngettext(singular, plural, n)
                for category, n in samples.items()}

    def html(self, message: str, **values) -> str:
        """A message that holds markup of its own (<strong>, from the catalogue, which is this
        project's text), its values escaped: `{{!_html(...)}}` in a template."""
        text = self._translations.gettext(message)
        return text.format(**{name: html.escape(str(value)) for name, value in values.items()})

    def ngettext(self, singular: str, plural: str, n: int, **values) -> str:
        """The form the language's plural rule picks for `n` ({n} is shown as a number of the
        language: 1 234 in Polish, 1.234 in German)."""
        text = self._translations.ngettext(singular, plural, n)
        return text.format(n=self.number(n), **values)

    def number(self, value: int | float) -> str:
        from babel import numbers

        return numbers.format_decimal(value, locale=self.locale)

    def decimal(self, value: float, places: int = 1, sign: bool = False) -> str:
        """`value` rounded to `places` decimals as Python rounds it ("%.1f"), with the
        language's separator and signs: 3,2 in German. A value that rounds to zero is "0.0",
        never "-0.0" or "+0.0"; `sign` puts a + before the rest."""
        from babel import numbers

        rounded = Decimal(f"{abs(value):.{places}f}")
        pattern = "#,##0" + ("." + "0" * places if places else "")
        shown = numbers.format_decimal(rounded, format=pattern, locale=self.locale,
                                       decimal_quantization=True)
        if rounded == 0:
            return shown
        if value < 0:
            return numbers.get_minus_sign_symbol(self.locale) + shown
        return numbers.get_plus_sign_symbol(self.locale) + shown if sign else shown

    def file_size(self, n: int) -> str:
        """A size as people read it: 640 kB, 3.2 MB (3,2 MB in German), 52 MB."""
        if n < 1_000_000:
            return self.gettext(N_("{size} kB"), size=self.decimal(n / 1000, 0))
        places = 1 if n < 10_000_000 else 0
        return self.gettext(N_("{size} MB"), size=self.decimal(n / 1_000_000, places))

    def month_name(self, month: int, width: str = "wide") -> str:
        """A month standing alone (a heading, a column): "März", "marzec"."""
        from babel import dates

        return self._cldr_words(
            dates.get_month_names(width, "stand-alone", locale=self.locale)[month])

    def week_order(self) -> list[int]:
        """The weekdays (Monday 0, as date.weekday() counts) in the order the language's week
        runs, for what shows a week: Monday first in German, Sunday first in Brazil. (Goals
        still count Monday to Sunday: only displays follow the locale.)"""
        first = self.locale.first_week_day
        return [(first + i) % 7 for i in range(7)]

    def weekday_name(self, weekday: int, width: str = "wide") -> str:
        """Monday is 0, as date.weekday() counts."""
        from babel import dates

        return self._cldr_words(
            dates.get_day_names(width, "stand-alone", locale=self.locale)[weekday])

    def date(self, day, form: str = "medium") -> str:
        """A date in the language's own order and words: 6 Dec 2026, 6. Dez. 2026."""
        from babel import dates

        return self._cldr_words(dates.format_date(day, format=form, locale=self.locale))

    def day(self, day, skeleton: str = "yMMMd") -> str:
        """A date (or a YYYY-MM-DD day) with the parts a CLDR skeleton names, in the language's
        own pattern for them: "yMMMEd" (a day's heading: "So., 1. März 2026"), "yMMMd",
        "MMMd" (within a year that is said), "yMMMM" (a month: "marzec 2026"), "yMMM", "long".
        English keeps the forms k-mood's pages have always had, the day before the month
        ("Sun 1 Mar 2026", "2 August 2026"), where CLDR's plain English is American."""
        if isinstance(day, str):
            day = datetime.date.fromisoformat(day)
        return self.date(day, _day_pattern(str(self.locale), skeleton))


# English's house forms (see Translator.day); other languages take CLDR's for the skeleton.
ENGLISH_DAYS = {"yMMMEd": "EEE d MMM y", "MMMEd": "EEE d MMM", "yMMMd": "d MMM y",
                "MMMd": "d MMM", "yMMMM": "MMMM y", "yMMM": "MMM y", "long": "d MMMM y",
                "MMMMd": "d MMMM"}


@functools.lru_cache(maxsize=128)
def _day_pattern(locale: str, skeleton: str) -> str:
    from babel import Locale, dates

    if locale.split("_")[0] == SOURCE_LANGUAGE and skeleton in ENGLISH_DAYS:
        return ENGLISH_DAYS[skeleton]
    cldr = Locale.parse(locale)
    if skeleton == "long":
        return cldr.date_formats["long"].pattern
    patterns = cldr.datetime_skeletons
    return patterns[dates.match_skeleton(skeleton, patterns)].pattern


def compile_catalogue(path: Path) -> Translations:
    """A .po file compiled in memory (fuzzy entries left out, as msgfmt does), once per
    process for a given file as it stands (reading 1 000 messages takes ~0.4 s; the compiled
    catalogue is only read from, so every Languages of the process shares it)."""
    stat = path.stat()
    return _compiled(str(path), stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=16)
def _compiled(path: str, mtime_ns: int, size: int) -> Translations:
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po
    from babel.support import Translations

    with open(path, "rb") as po:
        catalogue = read_po(po)
    compiled = io.BytesIO()
    write_mo(compiled, catalogue)
    compiled.seek(0)
    return Translations(compiled)


@functools.lru_cache(maxsize=4)
def _template_ids(path: str, mtime_ns: int, size: int) -> frozenset[str]:
    """The message ids of the catalogues' template (the singular of a plural)."""
    from babel.messages.pofile import read_po

    with open(path, "rb") as pot:
        return frozenset(message.id[0] if isinstance(message.id, (list, tuple)) else message.id
                         for message in read_po(pot) if message.id)


def parse_accept_language(header: str | None) -> list[str]:
    """The language ranges of an Accept-Language header, most wanted first; ranges that are
    malformed or have q=0 are skipped, and only the first MAX_HEADER_CHARS are read."""
    ranked = []
    for position, item in enumerate((header or "")[:MAX_HEADER_CHARS].split(",")[:MAX_RANGES]):
        tag, _, params = item.strip().partition(";")
        tag = tag.strip()
        if not _RANGE.fullmatch(tag):
            continue
        quality = 1.0
        if params.strip():
            found = _QUALITY.fullmatch(params.strip().replace(" ", ""))
            if found is None:
                continue
            quality = float(found.group(1))
        if quality > 0:
            ranked.append((-quality, position, tag))
    return [tag for _, _, tag in sorted(ranked)]


class Languages:
    """The languages this build has, each catalogue compiled once per process on first use."""

    def __init__(self, locale_dir: Path = LOCALE_DIR, pseudo: bool = False):
        self.locale_dir = locale_dir
        self.codes = available_languages(locale_dir) + (tuple(PSEUDO_LANGUAGES) if pseudo else ())
        self._loaded: dict[str, Translator] = {}
        self._lock = threading.Lock()

    def get(self, code: str) -> Translator:
        """The Translator for one of `codes` (English, the source, needs no catalogue)."""
        if code not in self.codes:
            raise KeyError(code)
        with self._lock:
            if code not in self._loaded:
                words = (gettext.NullTranslations() if code == SOURCE_LANGUAGE else
                         PseudoTranslations(self.locale_dir / "messages.pot")
                         if code in PSEUDO_LANGUAGES else
                         compile_catalogue(self.locale_dir / code / "LC_MESSAGES" / "messages.po"))
                self._loaded[code] = Translator(code, words)
            return self._loaded[code]

    def names(self) -> list[tuple[str, str]]:
        """(code, the language in its own words), in the order of those words."""
        return sorted(((code, self.get(code).name) for code in self.codes),
                      key=lambda pair: pair[1].casefold())

    def from_header(self, header: str | None) -> str | None:
        """The language the browser prefers among ours (Babel's negotiation: de-AT finds de),
        a bare language finding its only regional variant (pt finds pt_BR); else None."""
        from babel.core import negotiate_locale

        wanted = parse_accept_language(header)
        tags = {code.replace("_", "-").lower(): code for code in self.codes}
        for tag in wanted:
            if tag == "*":
                return None
            found = negotiate_locale([tag.lower()], list(tags), sep="-")
            if found is not None:
                return tags[found.lower()]
            regional = [code for key, code in tags.items()
                        if key.split("-")[0] == tag.lower().split("-")[0]]
            if len(regional) == 1:
                return regional[0]
        return None

    def choose(self, setting: str | None, header: str | None, default: str) -> Translator:
        """The person's setting, else the browser's Accept-Language, else the default."""
        for code in (setting, self.from_header(header), default):
            if code in self.codes:
                return self.get(code)
        return self.get(SOURCE_LANGUAGE)
