"""The words the scripts show (SPEC §13, issue #40): defined once in Python
(kmood_lib/web/script_words.py), handed to the scripts by every page as a JSON data block in the
person's language — never run, the CSP still lets no inline script run — and said by
static/js/words.js; the service worker says its own from the pages, else English."""

from __future__ import annotations

import json
import re

import pytest

from kmood_lib.core.i18n import Languages, pseudo
from kmood_lib.web import script_words
from kmood_lib.web.middleware import CSP
from tests.helpers import ROOT

JS = ROOT / "kmood_lib" / "web" / "static" / "js"
SERVICE_WORKER = ROOT / "kmood_lib" / "web" / "sw.js"
# A message's key as the scripts pass it to say() and sayInto(): "area.name" (a ternary may
# choose between two), a shape no other string in them has.
SAID = re.compile(r"""["']([a-z]+\.[a-z_]+)["']""")
BLOCK = re.compile(r'<script type="application/json" id="kmood-words">(.*?)</script>', re.S)


@pytest.fixture
def env(env):
    return {**env, "KMOOD_PSEUDO_LANGUAGES": "1"}


def keys_said() -> dict[str, set[str]]:
    said: dict[str, set[str]] = {}
    for path in [*JS.glob("*.js"), SERVICE_WORKER]:
        for key in SAID.findall(path.read_text(encoding="utf-8")):
            said.setdefault(key, set()).add(path.name)
    return said


def words_of(page: str) -> dict:
    return json.loads(BLOCK.search(page).group(1))


def test_every_word_a_script_says_is_defined_and_every_one_defined_is_said():
    said = keys_said()
    assert {"outbox.waiting", "log.playing_now", "sw.title", "date.day"} <= set(said)
    assert set(said) - set(script_words.WORDS) == set(), "define them in script_words.WORDS"
    assert set(script_words.WORDS) - set(said) == set(), "no script says these"
    assert said["date.day"] == {"words.js"} and "sw.js" in said["sw.heading"]


def test_every_page_hands_its_scripts_the_words_in_the_persons_language(client_for):
    ann = client_for("ann")
    assert ann.patch("/api/me", {"language": "en_XA"}).status == 200
    for path in ("/", "/settings", "/offline", "/logout"):
        said = words_of(ann.get(path).text)
        assert (said["lang"], said["dir"], said["locale"]) == ("en-XA", "ltr", "en"), path
    words = said["words"]
    assert words["update.reload"] == pseudo("Reload")
    assert words["outbox.waiting"] == {
        "one": pseudo("{n} entry is waiting on this device to be sent."),
        "other": pseudo("{n} entries are waiting on this device to be sent.")}
    assert said["weekdays"][0] == pseudo("Mon") and said["months"][11] == pseudo("Dec")


def test_the_login_and_setup_pages_carry_the_browsers_words(wsgi):
    from tests.wsgi import Client

    said = words_of(Client(wsgi).get("/setup", headers={"Accept-Language": "en-XA"}).text)
    assert said["words"]["timezone.device_is_set"] == pseudo("This device is set to {zone}.")


def test_a_count_is_sent_in_each_plural_form_of_the_language():
    """Polish counts have three forms: the browser picks one with Intl.PluralRules."""
    languages = Languages()
    polish = script_words.said(languages.get("pl"))["words"]["outbox.photos"]
    assert set(polish) == {"one", "few", "many"}
    english = script_words.said(languages.get("en"))["words"]["outbox.photos"]
    assert english == {"one": "{n} photo", "other": "{n} photos"}


class Shouting:
    """A catalogue that tries to end the data block and run a script of its own."""

    def gettext(self, message):
        return "</script><script>alert(1)</script><!--"

    def ngettext(self, singular, plural, n):
        return self.gettext(singular)


def test_no_translation_can_end_the_block_or_run_a_script():
    from kmood_lib.core.i18n import Translator

    block = script_words.page_block(Translator("de", Shouting()))
    assert "<" not in block
    assert json.loads(block)["words"]["update.reload"] == "</script><script>alert(1)</script><!--"


def test_no_page_runs_an_inline_script(client_for, wsgi):
    """The words are data (type=application/json): every other script comes from 'self'."""
    from tests.wsgi import Client

    ann = client_for("ann")
    pages = [ann.get(path).text for path in ("/", "/entries", "/settings", "/offline")]
    pages.append(Client(wsgi).get("/login").text)
    for page in pages:
        for tag in re.findall(r"<script\b[^>]*>", page):
            assert 'src="/static/js/' in tag or tag == (
                '<script type="application/json" id="kmood-words">'), tag
    assert "script-src 'self';" in CSP and "unsafe-inline" not in CSP


def test_the_service_worker_says_english_until_a_page_hands_it_the_persons_words(wsgi):
    from tests.wsgi import Client

    text = SERVICE_WORKER.read_text(encoding="utf-8")
    english = script_words.service_worker_english()
    assert english["words"]["sw.title"] == "No connection"
    assert all(message not in text for message in english["words"].values() if " " in message)
    served = Client(wsgi).get("/sw.js").text
    words = json.loads(re.search(r"const WORDS = (\{.*?\});\n", served).group(1))
    assert words == english and "__WORDS__" not in served


def test_the_manifest_describes_k_mood_in_the_browsers_language(wsgi):
    from tests.wsgi import Client

    said = Client(wsgi).get("/manifest.webmanifest", headers={"Accept-Language": "en-XA"})
    manifest = said.json
    assert manifest["name"] == manifest["short_name"] == "k-mood"
    assert manifest["description"] == pseudo("Your self-hosted mood journal")
    assert (manifest["lang"], manifest["dir"]) == ("en-XA", "ltr")
    english = Client(wsgi).get("/manifest.webmanifest").json
    assert english["description"] == "Your self-hosted mood journal" and english["lang"] == "en"
