"""Languages (SPEC §13, issue #40): the catalogues, the helpers the templates use, and the
choice of language for a request — the person's setting, else Accept-Language, else
KMOOD_DEFAULT_LANGUAGE."""

from __future__ import annotations

import datetime
import re

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po

from kmood_lib.core.config import Config, ConfigError
from kmood_lib.core.i18n import MAX_HEADER_CHARS, Languages, parse_accept_language
from tests.helpers import ROOT
from tests.unit.test_journal_pages import csrf_of, post_form
from tests.wsgi import Client

LOCALE = ROOT / "locale"
LANGUAGES = ("de", "es", "fr", "pl", "pt_BR")
KEYWORDS = {"_": None, "N_": None, "_html": None, "n_": (1, 2), "Phrase": None}


@pytest.fixture(scope="module")
def languages():
    return Languages()


def lang_of(page: str) -> str:
    return re.search(r'<html lang="([^"]+)"', page).group(1)


@pytest.fixture
def login_page(wsgi, make_user):
    make_user("root", admin=True)

    def get(**headers) -> str:
        answer = Client(wsgi).get("/login", headers=headers)
        assert answer.status == 200
        return answer.text

    return get


# --- the helpers ---------------------------------------------------------------------------

def test_polish_plurals_follow_cldr_one_few_many(languages):
    polish = languages.get("pl")
    said = [polish.ngettext("(at least {n} character)", "(at least {n} characters)", n)
            for n in (1, 2, 5, 22)]
    assert said == ["(co najmniej 1 znak)", "(co najmniej 2 znaki)", "(co najmniej 5 znaków)",
                    "(co najmniej 22 znaki)"]
    assert languages.get("en").ngettext("{n} entry", "{n} entries", 1) == "1 entry"


def test_numbers_and_dates_are_the_languages_own(languages):
    german = languages.get("de")
    assert german.decimal(3.2) == "3,2" and german.number(1234) == "1.234"
    assert german.file_size(3_200_000) == "3,2 MB"
    assert languages.get("en").file_size(3_200_000) == "3.2 MB"
    assert languages.get("fr").file_size(640_000) == "640 ko"
    assert german.month_name(3) == "März" and german.weekday_name(0) == "Montag"
    assert languages.get("pl").month_name(3) == "marzec"  # standing alone, not "marca"
    assert german.date(datetime.date(2026, 12, 6)) == "06.12.2026"
    assert languages.get("pt_BR").html_lang == "pt-BR"


def test_html_messages_escape_their_values_only(languages):
    said = languages.get("de").html('Signed in as <strong dir="auto">{name}</strong>.',
                                    name="<b>&x")
    assert said == 'Angemeldet als <strong dir="auto">&lt;b&gt;&amp;x</strong>.'


@pytest.mark.parametrize(("header", "expected"), [
    ("de", "de"), ("de-AT,en;q=0.5", "de"), ("en;q=0.5, fr", "fr"), ("pt", "pt_BR"),
    ("PT-br", "pt_BR"), ("it, pl;q=0.1", "pl"), ("de;q=abc, fr;q=0.5", "fr"), ("de;q=0", None),
    ("*", None), ("", None), (None, None), ("x" * 100_000, None), (",;=;q" * 1000, None),
    ("é-FR, de", "de"), ("de;q=2", None), ("\x00de", None),
])
def test_accept_language_negotiation_is_forgiving(languages, header, expected):
    assert languages.from_header(header) == expected


def test_accept_language_is_read_only_so_far(languages):
    assert MAX_HEADER_CHARS <= 4096
    assert languages.from_header(" " * 4096 + "de") is None
    assert len(parse_accept_language(", ".join(["de"] * 10_000))) <= 16


def test_an_unknown_default_language_stops_start_up_naming_the_variable():
    assert Config.from_env({"KMOOD_DEFAULT_LANGUAGE": "pt_BR"}).default_language == "pt_BR"
    for bad in ("xx", "pt-BR", "", "../en"):
        with pytest.raises(ConfigError, match="KMOOD_DEFAULT_LANGUAGE"):
            Config.from_env({"KMOOD_DEFAULT_LANGUAGE": bad})


# --- pages ---------------------------------------------------------------------------------

def test_the_login_page_speaks_the_browsers_language(login_page):
    page = login_page(**{"Accept-Language": "de-DE,de;q=0.9,en;q=0.8"})
    assert lang_of(page) == "de"
    assert "<h1>Anmelden</h1>" in page and "Benutzername" in page and "Zum Inhalt springen" in page
    english = login_page()
    assert lang_of(english) == "en" and "<h1>Log in</h1>" in english


@pytest.mark.parametrize("header", ["x" * 20_000, "garbage;;;,,,", "de;q=abc", "q=1", "*;q=0",
                                    "zz-ZZ", "de;q=1.5", "en-US,\x7f\xff;q=0.3"])
def test_a_hostile_accept_language_falls_back_to_english(login_page, header):
    page = login_page(**{"Accept-Language": header})
    assert lang_of(page) == "en" and "<h1>Log in</h1>" in page


def test_the_default_language_applies_when_the_browser_names_none_we_have(login_page, services):
    services.config = services.config.with_overrides(default_language="fr")
    assert lang_of(login_page(**{"Accept-Language": "it, ja;q=0.5"})) == "fr"
    assert lang_of(login_page()) == "fr"
    assert lang_of(login_page(**{"Accept-Language": "pl"})) == "pl"


def test_the_login_pages_switch_keeps_the_language_for_this_browser(wsgi, make_user):
    make_user("root", admin=True)
    browser = Client(wsgi)
    switched = browser.get("/login?lang=pl", headers={"Accept-Language": "de"})
    assert lang_of(switched.text) == "pl" and "Zaloguj się" in switched.text
    assert 'href="/login?lang=de" lang="de"' in switched.text and ">Deutsch</a>" in switched.text
    assert lang_of(browser.get("/login", headers={"Accept-Language": "de"}).text) == "pl"
    assert lang_of(browser.get("/login?lang=nope").text) == "pl"


def test_the_persons_setting_overrides_the_browser(client_for):
    me = client_for("root", admin=True)
    french = {"Accept-Language": "fr"}
    assert lang_of(me.get("/settings", headers=french).text) == "fr"
    assert me.patch("/api/me", {"language": "pl"}).json["language"] == "pl"
    page = me.get("/settings", headers=french).text
    assert lang_of(page) == "pl" and "<h1>Ustawienia</h1>" in page.replace("\xad", "")
    assert '<option value="pl" lang="pl" selected>Polski</option>' in page
    assert "(co najmniej 8 znaków)" in page
    refused = me.patch("/api/me", {"language": "xx"})
    assert refused.status == 422 and "language" in refused.json["error"]["fields"]
    saved = post_form(me, "/settings/profile", {"timezone": "UTC", "language": ""},
                      csrf_of(page))
    assert saved.status == 303 and me.get("/api/me").json["language"] is None
    assert lang_of(me.get("/settings", headers=french).text) == "fr"


def test_the_profile_form_saves_the_language(client_for):
    me = client_for("root", admin=True)
    page = me.get("/settings").text
    assert "<option value=\"\" selected>Browser&#039;s choice</option>" in page
    saved = post_form(me, "/settings/profile", {"timezone": "UTC", "language": "de"},
                      csrf_of(page))
    assert saved.status == 303
    german = me.get("/settings").text
    assert lang_of(german) == "de" and "Profil speichern" in german and ">Verlauf</span>" in german


# --- the catalogues --------------------------------------------------------------------------

def placeholders(text: str) -> list[str]:
    return sorted(re.findall(r"\{\w*\}|</?\w+>", text))


def load(path):
    with path.open("rb") as po:
        return read_po(po)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_catalogue_is_complete_and_keeps_the_placeholders(lang):
    source = load(LOCALE / "messages.pot")
    catalogue = load(LOCALE / lang / "LC_MESSAGES" / "messages.po")
    assert {m.id for m in catalogue if m.id} == {m.id for m in source if m.id}
    for message in catalogue:
        if not message.id:
            continue
        assert not message.fuzzy, message.id
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        assert len(strings) == (catalogue.num_plurals if len(ids) > 1 else 1), message.id
        for text in strings:
            assert text.strip(), f"{lang}: {message.id!r} is not translated"
            assert placeholders(text) == placeholders(ids[-1]), (lang, message.id, text)


def test_the_pot_holds_every_string_the_sources_mark():
    method_map, options_map = parse_mapping_cfg(open(ROOT / "babel.cfg"))
    found = {message for _, _, message, _, _ in extract_from_dir(
        ROOT, method_map, options_map, keywords=KEYWORDS)}
    found = {m if isinstance(m, str) else tuple(m) for m in found}
    pot = {m.id for m in load(LOCALE / "messages.pot") if m.id}
    assert found == pot, "run make i18n"
    wrapped = set()
    for template in (ROOT / "kmood_lib" / "web" / "templates").glob("*.tpl"):
        wrapped.update(re.findall(r"""\b_(?:html)?\((["'])(.+?)\1[,)]""", template.read_text()))
    assert wrapped and {text.replace("\\'", "'") for _, text in wrapped} <= pot
    assert "Browser's choice" in pot and ("(at least {n} character)",
                                          "(at least {n} characters)") in pot


def test_no_compiled_catalogue_is_kept():
    assert list(LOCALE.rglob("*.mo")) == []


def test_no_template_takes_the_names_of_the_translation_helpers():
    """A `% for _, x in ...` would leave `_` rebound for the layout rendered after it."""
    taken = re.compile(r"^\s*%\s*(?:for\s+(?P<targets>[^:]+?)\s+in\b|(?P<name>[\w, ]+?)\s*=[^=])")
    helpers = {"_", "n_", "_html", "i18n"}
    for template in (ROOT / "kmood_lib" / "web" / "templates").glob("*.tpl"):
        for number, line in enumerate(template.read_text().splitlines(), 1):
            found = taken.match(line)
            if found:
                names = set(re.findall(r"\w+", found.group("targets") or found.group("name")))
                assert not names & helpers, f"{template.name}:{number}: {line.strip()}"


def test_the_pseudo_language_accents_every_word_and_keeps_what_is_not_words():
    from kmood_lib.core.i18n import pseudo

    assert pseudo("Save") == "⟦Šàṽé·⟧"
    said = pseudo("{n} entries on <strong>{day}</strong> &amp; more")
    assert said.startswith("⟦{n} éñţŕîéš öñ <strong>{day}</strong> &amp; ɱöŕé") and said[-1] == "⟧"
    pseudo_languages = Languages(pseudo=True)
    xa, xb = pseudo_languages.get("en_XA"), pseudo_languages.get("ar_XB")
    assert xa.gettext("{size} kB", size="3") == "⟦3 ķƁ·⟧"  # the value is not accented
    assert xa.gettext("Hello {name}", name="Ann") == "Hello Ann"  # never extracted: plain
    assert (xa.direction, xb.direction, xa.html_lang) == ("ltr", "rtl", "en-XA")
    assert xa.month_name(3) == "⟦Ṁàŕçĥ·⟧" and xa.number(1234) == "1,234"
    assert "en_XA" not in Languages().codes  # only where KMOOD_PSEUDO_LANGUAGES asks


def test_a_phrase_is_its_english_and_says_itself_in_another_language(languages):
    from kmood_lib.core.i18n import Phrase, pseudo

    said = Phrase("at most {n} characters", n=12)
    assert said == "at most 12 characters" and isinstance(said, str)
    assert Languages(pseudo=True).get("en_XA").gettext(said) == pseudo("at most {n} characters"
                                                                       ).format(n=12)
    assert languages.get("en").gettext(said) == "at most 12 characters"
    import pickle

    assert pickle.loads(pickle.dumps(said)).values == {"n": 12}
