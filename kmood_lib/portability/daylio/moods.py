"""Daylio mood names -> levels: the default names in the languages seen, and the user's map."""

from __future__ import annotations

import json
import re

from kmood_lib.core.i18n import Phrase
from kmood_lib.core.text import name_key, without_hidden

# Daylio's default mood names (SPEC §8): English (older exports say "fugly" for 2), French,
# Polish. Renamed and custom moods, and other languages, need the user's mood map.
DEFAULT_MOODS = {
    **{name: level for level, name in enumerate(("awful", "bad", "meh", "good", "rad"), 1)},
    "fugly": 2,
    **{name: level for level, name in enumerate(
        ("horrible", "mauvais", "mouais", "bien", "super"), 1)},
    **{name: level for level, name in enumerate(
        ("okropnie", "źle", "tak sobie", "dobrze", "wspaniale"), 1)},
}


# Words that turn a mood word around ("not bad"): a name holding one gets no suggestion.
NEGATIONS = frozenset({"not", "no", "never", "nicht", "kein", "keine", "pas", "ne", "nie",
                       "non", "ni", "niet", "nem", "não", "nao", "nope"})


def suggest_level(name: str) -> int | None:
    """A level to offer for a custom mood name, from the default names inside it: "pretty
    good" -> 4, "rad!!" -> 5, "meh-ish" -> 3. None when no default name is in it, when two
    different levels are ("super bad"), or when a negation is ("not bad"). A suggestion is
    only ever preselected on the mapping form for the person to check, never applied."""
    words = re.findall(r"\w+", name_key(name))
    if not words or NEGATIONS.intersection(words):
        return None
    text = " " + " ".join(words) + " "
    levels = {level for known, level in DEFAULT_MOODS.items()
              if " " + " ".join(re.findall(r"\w+", name_key(known))) + " " in text}
    return levels.pop() if len(levels) == 1 else None


PREDEFINED = {1: "rad", 2: "good", 3: "meh", 4: "bad", 5: "awful"}  # backup predefined_name_id


def parse_mood_map(value: str) -> dict[str, int]:
    """The user's mood map: JSON `{"sad": 2}`, or the short form `sad=2,ok=3` (names without
    `,` or `=`). Keys are compared by name key after trimming; raises ValueError."""
    text = value.strip()
    if not text:
        return {}
    if text.startswith("{"):
        try:
            raw = json.loads(text)
        except ValueError as exc:
            raise ValueError(Phrase("the mood map is not valid JSON ({reason})", reason=str(exc))
                             ) from None
        except RecursionError:
            raise ValueError(Phrase("the mood map is JSON nested too deeply")) from None
        if not isinstance(raw, dict):
            raise ValueError(Phrase("the mood map must be a JSON object of name: level"))
        pairs = list(raw.items())
    else:
        pairs = []
        for part in text.split(","):
            name, sep, level = part.partition("=")
            if not sep:
                raise ValueError(Phrase("{part} in the mood map is not name=level",
                                        part=repr(part.strip())))
            pairs.append((name, level.strip()))
    out: dict[str, int] = {}
    for name, level in pairs:
        if isinstance(level, str) and level.isascii() and level.isdigit():
            level = int(level)
        if isinstance(level, bool) or not isinstance(level, int) or not 1 <= level <= 5:
            raise ValueError(Phrase("the mood map gives {name} the level {level}: levels run"
                                    " from 1 (worst) to 5 (best)",
                                    name=repr(name.strip()), level=repr(level)))
        if not name.strip():
            raise ValueError(Phrase("the mood map has an empty name"))
        out[name_key(name.strip())] = level
    return out


class MoodNames:
    """Mood name -> level: the user's map first, then the user's own labels, then the custom
    names the user's entries already carry for one level only, then the defaults; names
    compared by name key after trimming."""

    def __init__(self, user_map: dict[str, int], user_labels: dict[int, str],
                 used: dict[str, int] | None = None):
        self.known = {name_key(k): v for k, v in DEFAULT_MOODS.items()}
        self.known.update(used or {})
        self.known.update({name_key(label.strip()): level for level, label in user_labels.items()})
        self.known.update(user_map)

    def level(self, name: str) -> int | None:
        """The name's level; a character a name may not hold, which shows nothing, is not
        what tells two moods apart (the row's label is cleaned of it when imported)."""
        return self.known.get(name_key(without_hidden(name).strip()))
