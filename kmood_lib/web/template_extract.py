"""Babel's extractor for the Bottle SimpleTemplate pages (kmood_lib/web/templates/*.tpl).

Babel has no extractor for Bottle's templates. Their expressions, `% lines` and `<% %>` blocks
are Python, and bottle.SimpleTemplate(source=...).code is the Python source Bottle compiles a
template into, line for line with the template: so Babel's own Python extractor reads that, and
finds `_()`, `n_()` and `_html()` wherever a template may call them (in `{{ }}`, in a `% for`
tuple, in a `rebase()` title) with the template's line numbers and `# Translators:` comments —
no second parser of the template language that could drift from Bottle's own."""

from __future__ import annotations

import io

import bottle
from babel.messages.extract import extract_python


def extract_bottle(fileobj, keywords, comment_tags, options):
    """Yield (line, function, message, comments) for each translatable string of a .tpl file."""
    source = fileobj.read().decode(options.get("encoding", "utf-8"))
    code = bottle.SimpleTemplate(source=source).code
    yield from extract_python(io.BytesIO(code.encode("utf-8")), keywords, comment_tags, options)
