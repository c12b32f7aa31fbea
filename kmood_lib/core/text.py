"""Text rules for everything that enters: valid Unicode, no control characters in names, no
invisible or direction-changing characters in names, and the one normalised key (NFC, then
casefold) by which names are compared everywhere."""

from __future__ import annotations

import re
import unicodedata

# C0 controls, DEL and C1 controls (Unicode category Cc).
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
# The same, less the three that free text (a note) may hold: tab, line feed, carriage return.
_CONTROL_IN_PROSE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_SURROGATE = re.compile(r"[\ud800-\udfff]")
# What a name may not hold although it shows nothing itself (SPEC §9): the bidi embeddings,
# overrides and isolates, which make a name display as another (a RIGHT-TO-LEFT OVERRIDE shows
# "\u202egnp.exe" as "exe.png"), and the invisible separators. Notes and titles keep them.
_HIDDEN = re.compile("[\u200b\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]")
_SEPARATOR = re.compile("[\u2028\u2029]")


class TextError(ValueError):
    """Text that cannot be accepted: not valid UTF-8, a lone surrogate, a control character."""


def name_key(name: str) -> str:
    """The key names are compared by: 'Ärger', 'ärger' and 'ÄRGER' share one; so do
    'Straße' and 'STRASSE'."""
    return unicodedata.normalize("NFC", name).casefold()


def has_surrogate(text: str) -> bool:
    """True when `text` holds a lone surrogate (legal in JSON escapes, not in UTF-8)."""
    return not text.isascii() and _SURROGATE.search(text) is not None


def hidden_character(text: str) -> str | None:
    """The first invisible or direction-changing character in `text`, named as Unicode names
    it ("U+202E RIGHT-TO-LEFT OVERRIDE"), or None."""
    found = _HIDDEN.search(text)
    if found is None:
        return None
    char = found.group()
    return f"U+{ord(char):04X} {unicodedata.name(char)}"


def without_hidden(text: str) -> str:
    """`text` without the invisible and direction-changing characters names may not hold: a
    line or paragraph separator becomes a space, the others go."""
    if text.isprintable():
        return text
    return _HIDDEN.sub("", _SEPARATOR.sub(" ", text))


def usable(text: str) -> str:
    """Text from outside that is stored, not refused (an upstream's answer), made to pass the
    rules for names: a lone surrogate becomes U+FFFD, a control character a space, and an
    invisible or direction-changing one goes."""
    if text.isprintable():
        return text
    return without_hidden(_CONTROL.sub(" ", _SURROGATE.sub("\ufffd", text)))


def problem(text: str, *, name: bool) -> str | None:
    """What is wrong with a text value, or None: names refuse every control character and the
    invisible and direction-changing ones, naming the first ("must not contain U+202E
    RIGHT-TO-LEFT OVERRIDE"); prose (notes, titles) keeps tab, line breaks and those."""
    if text.isprintable():  # no control, format or separator character: most text, checked in C
        return None
    if has_surrogate(text):
        return "must be valid Unicode (it holds a lone surrogate)"
    if (_CONTROL if name else _CONTROL_IN_PROSE).search(text):
        return "must not contain control characters"
    hidden = hidden_character(text) if name else None
    if hidden:
        return f"must not contain {hidden}"
    return None


def decode_utf8(raw: bytes, what: str) -> str:
    """Bytes from outside -> str, strictly: invalid UTF-8 is a TextError naming `what`."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TextError(f"{what} is not valid UTF-8 (byte {exc.start})") from None
