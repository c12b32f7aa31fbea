"""Words of an import report: counted ones ("3 files under assets/ ... left out", a Counted
of core.i18n: its English is the form for `n`, as the API and the CLI show it; a page says it
by the person's language's plural rule), lists of them, and a report kept as JSON with its
Phrases intact. `n_` marks a plural pair for extraction where it is made."""

from __future__ import annotations

import functools

from kmood_lib.core.i18n import N_, Counted, Phrase


def n_(singular: str, plural: str, n: int, **values) -> Counted:
    """`Counted(...)`, under the name the extraction knows plural messages by."""
    return Counted(singular, plural, n, **values)


LISTED = N_("{first}, {then}")  # items of a list, each said as it is: "08:00 (off), 21:00"
JOINED = N_("{first}; {then}")  # reasons one after the other


def listing(items: list, joiner: str = LISTED) -> str:
    """Items (words or Phrases) as one value of a Phrase, each still said in the person's
    language: "08:00 (off), 21:00"."""
    return functools.reduce(lambda first, then: Phrase(joiner, first=first, then=then), items)


# An import report kept as JSON (portability.pending_imports): a Phrase is kept as an object
# under this key, so that it comes back a Phrase (the page says it in the person's language)
# while the API, which sends the report as it is made, sees its English.
PHRASE_KEY = "$phrase"


def keepable(value):
    """A report with its Phrases as JSON objects ({"$phrase": message, ...})."""
    if isinstance(value, Phrase):
        kept = {PHRASE_KEY: value.message,
                "values": {name: keepable(v) for name, v in value.values.items()}}
        if isinstance(value, Counted):
            kept["plural"] = value.plural
        return kept
    if isinstance(value, dict):
        return {name: keepable(v) for name, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [keepable(v) for v in value]
    return value


def restored(value):
    """keepable's JSON back, its Phrases Phrases again."""
    if isinstance(value, dict):
        if PHRASE_KEY in value:
            values = {name: restored(v) for name, v in value.get("values", {}).items()}
            if "plural" in value:
                return Counted(value[PHRASE_KEY], value["plural"], values.pop("n"), **values)
            return Phrase(value[PHRASE_KEY], **values)
        return {name: restored(v) for name, v in value.items()}
    if isinstance(value, list):
        return [restored(v) for v in value]
    return value
