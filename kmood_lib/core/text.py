"""Text rules for everything that enters: valid Unicode, no control characters in names, and
the one normalised key (NFC, then casefold) by which names are compared everywhere."""

from __future__ import annotations

import re
import unicodedata

# C0 controls, DEL and C1 controls (Unicode category Cc).
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
# The same, less the three that free text (a note) may hold: tab, line feed, carriage return.
_CONTROL_IN_PROSE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_SURROGATE = re.compile(r"[\ud800-\udfff]")


class TextError(ValueError):
    """Text that cannot be accepted: not valid UTF-8, a lone surrogate, a control character."""


def name_key(name: str) -> str:
    """The key names are compared by: 'Ärger', 'ärger' and 'ÄRGER' share one; so do
    'Straße' and 'STRASSE'."""
    return unicodedata.normalize("NFC", name).casefold()


def has_surrogate(text: str) -> bool:
    """True when `text` holds a lone surrogate (legal in JSON escapes, not in UTF-8)."""
    return not text.isascii() and _SURROGATE.search(text) is not None


def usable(text: str) -> str:
    """Text from outside that is stored, not refused (an upstream's answer), made to pass the
    rules for names: a lone surrogate becomes U+FFFD, a control character a space."""
    if text.isprintable():
        return text
    return _CONTROL.sub(" ", _SURROGATE.sub("\ufffd", text))


def problem(text: str, *, name: bool) -> str | None:
    """What is wrong with a text value, or None: names refuse every control character, prose
    (notes, titles) keeps tab and line breaks."""
    if text.isprintable():  # no control character, no surrogate: most text, checked in C
        return None
    if has_surrogate(text):
        return "must be valid Unicode (it holds a lone surrogate)"
    if (_CONTROL if name else _CONTROL_IN_PROSE).search(text):
        return "must not contain control characters"
    return None


def decode_utf8(raw: bytes, what: str) -> str:
    """Bytes from outside -> str, strictly: invalid UTF-8 is a TextError naming `what`."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TextError(f"{what} is not valid UTF-8 (byte {exc.start})") from None
