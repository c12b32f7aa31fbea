"""Default mood labels per language (SPEC §13, issue #40): a new account's five labels are
said in the language it is made in — the setup page's browser, the household page's admin —
and in English where no language is known (the command line, the tests' own accounts). A
person's own labels are never changed by it."""

from __future__ import annotations

import pytest

from kmood_lib.accounts import users
from kmood_lib.core.i18n import Languages, pseudo
from tests.unit.test_journal_pages import csrf_of, post_form
from tests.wsgi import Client

ENGLISH = {5: "rad", 4: "good", 3: "meh", 2: "bad", 1: "awful"}


@pytest.fixture
def env(env):
    return {**env, "KMOOD_PSEUDO_LANGUAGES": "1"}  # en-XA: every translated word accented


def labels_of(client: Client) -> dict[int, str]:
    return {m["level"]: m["label"] for m in client.get("/api/moods").json["moods"]}


def set_up(wsgi, **headers) -> Client:
    """The first account, made on /setup by a browser that sends `headers`."""
    browser = Client(wsgi)
    assert browser.get("/setup", headers=headers).status == 200
    made = browser.post("/setup", headers=headers, form={
        "username": "root", "password": "p" * 10, "timezone": "UTC",
        "csrf_token": browser.cookies["kmood_form"]})
    assert made.status == 303
    return browser


def test_the_english_defaults_are_the_five_labels_as_before():
    assert users.DEFAULT_MOOD_LABELS == ENGLISH
    assert users.default_mood_labels(Languages().get("en").gettext) == ENGLISH


@pytest.mark.parametrize("header", [None, "en-US,en;q=0.9", "zz, it;q=0.5"])
def test_an_account_set_up_in_english_or_an_unknown_language_gets_the_english_labels(
        wsgi, header):
    browser = set_up(wsgi, **({"Accept-Language": header} if header else {}))
    assert labels_of(browser) == ENGLISH


def test_an_account_set_up_from_a_german_browser_gets_the_german_labels(wsgi):
    browser = set_up(wsgi, **{"Accept-Language": "de-DE,de;q=0.9"})
    assert labels_of(browser) == users.default_mood_labels(Languages().get("de").gettext)


def test_the_labels_come_from_the_catalogue_of_the_language_the_account_is_made_in(wsgi):
    browser = set_up(wsgi, **{"Accept-Language": "en-XA"})
    said = labels_of(browser)
    assert said == {level: pseudo(label) for level, label in ENGLISH.items()}
    assert said != ENGLISH


def test_a_member_gets_the_language_of_the_admin_who_adds_them_and_no_one_else_changes(
        wsgi, client_for):
    admin = client_for("root", admin=True)
    bob = client_for("bob")
    assert admin.patch("/api/moods/3", {"label": "so-so"}).status == 200
    assert admin.patch("/api/me", {"language": "en_XA"}).status == 200
    page = admin.get("/settings/users")
    added = post_form(admin, "/settings/users", {"username": "kid", "password": "p" * 10},
                      csrf_of(page.text))
    assert added.status == 303
    kid = Client(wsgi)
    assert kid.login("kid", "p" * 10).status == 201
    assert labels_of(kid) == {level: pseudo(label) for level, label in ENGLISH.items()}
    assert labels_of(admin) == {**ENGLISH, 3: "so-so"}  # their own, as they were
    assert labels_of(bob) == ENGLISH


def test_an_account_made_without_a_language_keeps_the_english_labels(make_user, conn):
    person = make_user("cli")
    assert {row["level"]: row["label"] for row in conn.execute(
        "SELECT level, label FROM mood_labels WHERE user_id = ?", (person.id,))} == ENGLISH


def test_a_translation_that_would_not_fit_a_label_stays_english():
    said = users.default_mood_labels(lambda label: "x" * 40 if label == "meh" else "")
    assert said == ENGLISH


def test_an_import_counts_a_label_still_at_its_default_in_any_language_as_no_ones_own():
    from kmood_lib.portability import restore

    defaults = restore.default_labels()
    for code in Languages().codes:
        for level, label in users.default_mood_labels(Languages().get(code).gettext).items():
            assert label in defaults[level], (code, level)
    assert all(ENGLISH[level] in defaults[level] for level in ENGLISH)
