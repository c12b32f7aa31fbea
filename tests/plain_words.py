"""Words on a page that no catalogue translated (SPEC §13's pseudo-locale proof).

In the pseudo-language en-XA every message that goes through a Translator comes out accented
("Save" -> "⟦Šàṽé·⟧"), so a plain ASCII letter left in the page's text is a word that was never
marked for translation. What a person wrote (their notes, activity and mood names) is not the
page's to translate: it carries dir="auto" (SPEC §10) and is skipped, as is anything marked
translate="no" (a code: a time zone's name, a token) and what is marked as written in a language
of its own (lang="de": a language's name in its own words). The browser walk runs the same rule on the
DOM after the scripts have run (PLAIN_WORDS_JS)."""

from __future__ import annotations

import html.parser
import re

# Attributes a person reads or hears (a screen reader speaks aria-label and alt).
READ_ATTRIBUTES = ("title", "aria-label", "placeholder", "alt", "aria-description")
# Elements whose text is not shown as words: code and data.
NOT_TEXT = {"script", "style", "svg:style"}
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}
PLAIN = re.compile(r"[A-Za-z]{2,}")


def plain(text: str) -> str | None:
    """The first plain ASCII word in `text`, else None (single letters are units and marks;
    the name k-mood is the same in every language)."""
    found = PLAIN.search(text.replace("k-mood", ""))
    return found.group(0) if found else None


def not_ours(tag: str, attrs: dict) -> bool:
    """Text the page does not translate: the person's, a code, another language's."""
    return (attrs.get("dir") == "auto" or attrs.get("translate") == "no"
            or ("lang" in attrs and tag != "html"))


class _Walk(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, bool]] = []  # (tag, skipped: user text, translate=no, code)
        self.found: list[str] = []

    def skipped(self) -> bool:
        return bool(self.stack) and self.stack[-1][1]

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        skip = self.skipped() or tag in NOT_TEXT or not_ours(tag, attrs)
        if not skip:
            self.attributes(tag, attrs)
        if tag not in VOID:
            self.stack.append((tag, skip))

    def handle_startendtag(self, tag, attrs):
        if not (self.skipped() or not_ours(tag, dict(attrs))):
            self.attributes(tag, dict(attrs))

    def attributes(self, tag, attrs):
        said = [attrs.get(name) or "" for name in READ_ATTRIBUTES]
        if tag == "input" and attrs.get("type") in ("submit", "button", "reset"):
            said.append(attrs.get("value") or "")
        if tag == "meta" and attrs.get("name") in ("description", "apple-mobile-web-app-title"):
            said.append(attrs.get("content") or "")
        for text in said:
            if word := plain(text):
                self.found.append(f"<{tag}> {word!r} in {text.strip()[:60]!r}")

    def handle_endtag(self, tag):
        for index in range(len(self.stack) - 1, -1, -1):
            if self.stack[index][0] == tag:
                del self.stack[index:]
                return

    def handle_data(self, data):
        if not self.skipped() and (word := plain(data)):
            where = self.stack[-1][0] if self.stack else "document"
            self.found.append(f"<{where}> {word!r} in {data.strip()[:60]!r}")


def plain_words(page: str) -> list[str]:
    """Where the page shows a word no catalogue translated: "<button> 'Save' in 'Save'"."""
    walk = _Walk()
    walk.feed(page)
    walk.close()
    return walk.found


# The same rule in the browser, over the DOM the scripts left (text nodes, the attributes read
# aloud, button values), for Selenium's execute_script: returns a list like plain_words'.
PLAIN_WORDS_JS = r"""
const plain = /[A-Za-z]{2,}/;
const read = ["title", "aria-label", "placeholder", "alt", "aria-description"];
const skipped = (el) => el.closest('[dir="auto"], [translate="no"], body [lang], script, style');
const found = [];
const walker = document.createTreeWalker(document.documentElement, NodeFilter.SHOW_TEXT);
for (let node = walker.nextNode(); node; node = walker.nextNode()) {
  const el = node.parentElement;
  if (!el || skipped(el)) continue;
  const word = node.data.replaceAll("k-mood", "").match(plain);
  if (word) found.push(`<${el.localName}> '${word[0]}' in '${node.data.trim().slice(0, 60)}'`);
}
for (const el of document.querySelectorAll("*")) {
  if (skipped(el)) continue;
  const said = read.map((name) => el.getAttribute(name) || "");
  if (el.localName === "input" && ["submit", "button", "reset"].includes(el.type)) said.push(el.value);
  if (el.localName === "title") continue;
  for (const text of said) {
    const word = text.replaceAll("k-mood", "").match(plain);
    if (word) found.push(`<${el.localName}> '${word[0]}' in '${text.trim().slice(0, 60)}'`);
  }
}
return found;
"""
