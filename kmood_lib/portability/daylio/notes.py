"""Daylio notes and titles are HTML: read as plain text (the markup Daylio writes, fast)."""

from __future__ import annotations

import html
from html.parser import HTMLParser


class _PlainText(HTMLParser):
    BREAKS = {"br", "p", "div", "li"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag == "br":
            self.parts.append("\n")

    def handle_endtag(self, tag):
        if tag in self.BREAKS - {"br"}:
            self.parts.append("\n")

    def handle_data(self, data):
        self.parts.append(data)


# The tags Daylio's editor writes, exactly as it writes them (no attributes), and what
# _PlainText makes of each: a line break, or nothing.
_SIMPLE_TAGS = {"<br>": "\n", "<br/>": "\n", "<br />": "\n", "</p>": "\n", "</div>": "\n",
                "</li>": "\n", **{f"<{t}>": "" for t in ("p", "div", "li", "b", "i", "u", "s",
                                                       "strong", "em", "ul", "ol")},
                **{f"</{t}>": "" for t in ("b", "i", "u", "s", "strong", "em", "ul", "ol")}}


def _simple_markup(value: str) -> str | None:
    """The plain text of a note whose every tag is one of _SIMPLE_TAGS, exactly as _PlainText
    reads it (each run of text between tags unescaped on its own), or None for anything else
    (which then goes to html.parser)."""
    parts, start = [], 0
    while True:
        opening = value.find("<", start)
        if opening < 0:
            parts.append(html.unescape(value[start:]))
            return "".join(parts).strip()
        closing = value.find(">", opening)
        tag = value[opening:closing + 1] if closing > 0 else ""
        if tag not in _SIMPLE_TAGS:
            return None
        parts += [html.unescape(value[start:opening]), _SIMPLE_TAGS[tag]]
        start = closing + 1


def html_to_text(value: str, parser: _PlainText | None = None) -> str:
    """Daylio's HTML notes as plain text: `<br>` a newline, entities unescaped, tags dropped.
    A parser may be passed in to be reused (reset first) across many notes."""
    if "<" not in value and "&" not in value:
        return value.strip()
    simple = _simple_markup(value)
    if simple is not None:
        return simple
    parser = parser or _PlainText()
    parser.reset()
    parser.parts = []
    parser.feed(value)
    parser.close()
    return "".join(parser.parts).strip()
