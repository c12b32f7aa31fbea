"""k-mood in the person's language, in a real browser (issue #40, SPEC §13): the login page's
language switch, the setting in Settings → Profile, seen at a phone's 390 and 320 px, light
and dark, with axe; and what the scripts write, in the pseudo-language en-XA."""

from __future__ import annotations

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

from kmood_lib.core.i18n import Languages, pseudo
from tests.browser.conftest import (
    PHONE,
    api_session,
    as_a_phone,
    click,
    console_errors,
    create_user,
    follow,
    login_by_cookie,
    look,
    overflowing,
    screenshot,
    violations,
)
from tests.browser.test_offline import gone, installed
from tests.e2e.conftest import Stack
from tests.helpers import http
from tests.plain_words import PLAIN_WORDS_JS

LOOKS = [(PHONE, False, "phone-light"), (PHONE, True, "phone-dark"),
         ((320, 700), False, "phone320-light"), ((320, 700), True, "phone320-dark")]


@pytest.fixture(scope="module")
def lena(app_stack):
    create_user(app_stack, "lena")
    return app_stack


def html_lang(driver) -> str:
    return driver.find_element(By.TAG_NAME, "html").get_attribute("lang")


def test_the_login_page_switches_to_german_and_a_setting_of_polish_follows_the_person(
        lena, window):
    driver = window(PHONE)
    driver.get(lena.url + "/login")
    follow(driver, driver.find_element(By.CSS_SELECTOR, "nav.languages a[lang='de']"))
    assert html_lang(driver) == "de"
    assert driver.find_element(By.TAG_NAME, "h1").text == "Anmelden"
    for size, dark, variant in LOOKS:
        look(driver, size, dark)
        assert overflowing(driver) == [], variant
        assert violations(driver) == [], variant
        screenshot(driver, f"login-de-{variant}", whole_page=False)
    login_by_cookie(driver, lena.url, "lena")
    driver.get(lena.url + "/settings")
    Select(driver.find_element(By.NAME, "language")).select_by_value("pl")
    follow(driver, driver.find_element(By.CSS_SELECTOR, "form[action='/settings/profile']"
                                                       " button[type=submit]"))
    assert html_lang(driver) == "pl"
    for size, dark, variant in LOOKS:
        look(driver, size, dark)
        assert overflowing(driver) == [], variant
        assert violations(driver) == [], variant
        screenshot(driver, f"settings-profile-pl-{variant}")


# Where a tab label's line breaks inside a word other than at a soft hyphen (hyphens: manual
# for the look: a phone may have no hyphenation dictionary for the language).
BROKEN_WORDS_JS = r"""
const style = document.createElement("style");
style.textContent = "nav.tabs a { hyphens: manual !important; }";
document.head.append(style);
const broken = [];
for (const span of document.querySelectorAll("nav.tabs a span")) {
  const text = span.firstChild, s = text.data;
  let lastTop = null;
  for (let i = 0; i < s.length; i++) {
    const range = document.createRange();
    range.setStart(text, i);
    range.setEnd(text, i + 1);
    const box = [...range.getClientRects()].filter((r) => r.width > 0).pop();
    if (!box) continue;  // a soft hyphen where the line does not break
    if (lastTop !== null && box.top > lastTop + 2 && !"\u00ad -".includes(s[i - 1]))
      broken.push(s.replace(/\u00ad/g, "") + " after " + s.slice(0, i).replace(/\u00ad/g, ""));
    lastTop = box.top;
  }
}
style.remove();
return broken;
"""


def test_the_tab_labels_keep_their_words_whole_on_a_320_px_phone_in_every_language(
        lena, window):
    """Five tabs on 320 px, the current one in bold: a label is on one line, or breaks at a
    soft hyphen the translation carries; never "Setting / s" or "Historiq / ue"."""
    auth = api_session(lena.url, "lena")
    driver = window((320, 700))
    login_by_cookie(driver, lena.url, "lena")
    as_a_phone(driver, 320, 700)  # a window cannot be that narrow: the phone is emulated
    broken = {}
    try:
        for code in Languages().codes:
            assert http("PATCH", lena.url + "/api/me", {"language": code}, auth)[0] == 200
            for path in ("/", "/entries", "/calendar", "/stats", "/settings"):
                driver.get(lena.url + path)
                found = driver.execute_script(BROKEN_WORDS_JS)
                if found:
                    broken[f"{code} {path}"] = found
    finally:
        http("PATCH", lena.url + "/api/me", {"language": "en"}, auth)
    assert broken == {}


def plain_words_in(driver, element) -> list[str]:
    """tests/plain_words.py's browser walk, over one element and what it holds."""
    walk = PLAIN_WORDS_JS.replace("document.documentElement", "arguments[0]").replace(
        'document.querySelectorAll("*")', 'arguments[0].querySelectorAll("*")')
    assert walk.count("arguments[0]") == 2
    return driver.execute_script(walk, element)


def test_what_the_scripts_write_is_in_the_persons_language(window, tmp_path):
    """Two refused entries in the outbox, the date line and the log-out question in en-XA: the
    scripts say them with the words the page handed them, plural forms and dates included; and
    logged out, offline, the service worker's own page too."""
    stack = Stack(tmp_path, KMOOD_PSEUDO_LANGUAGES="1").start(worker=False)
    try:
        pseudo_outbox(window, stack)
    finally:
        stack.stop()


def pseudo_outbox(window, stack) -> None:
    url = stack.url
    create_user(stack, "xavi")
    auth = api_session(url, "xavi")
    assert http("PATCH", url + "/api/me", {"language": "en_XA"}, auth)[0] == 200
    driver = window(PHONE)
    login_by_cookie(driver, url, "xavi")
    installed(driver, url)
    assert html_lang(driver) == "en-XA"
    me = int(driver.execute_script("return document.body.dataset.user"))
    driver.execute_async_script("""
        const [owner, done] = arguments;
        const item = (n) => ({client_id: `00000000-0000-4000-8000-00000000000${n}`,
          created: Date.now(), status: "refused", message: null, refused_status: 422, owner,
          body: {mood: 3, activities: ["walk"], metrics: {}, note: "", note_title: "",
                 occurred_at: "2024-03-02T21:15:00+00:00"}});
        Promise.all([1, 2].map((n) => self.kmoodOutbox.put(item(n)))).then(() => done());
    """, me)
    driver.get(url + "/")
    items = WebDriverWait(driver, 10).until(lambda d: d.find_elements(
        By.CSS_SELECTOR, "#outbox-items li"))
    xa = Languages(pseudo=True).get("en_XA")
    refused = xa.gettext("Refused by the server: {reason}",
                         reason=xa.gettext("The server refused this entry ({status}).",
                                           status=422))
    assert refused in items[0].text and pseudo("Discard") in items[0].text
    assert plain_words_in(driver, driver.find_element(By.ID, "outbox-items")) == []

    date = driver.find_element(By.NAME, "date")
    driver.execute_script("""
        const [date, time] = [arguments[0], arguments[0].form.elements.time];
        date.value = "2024-03-02"; time.value = "21:15";
        date.dispatchEvent(new Event("input"));
    """, date)
    day = xa.gettext("{weekday} {day} {month} {year}", weekday=xa.weekday_name(5, "abbreviated"),
                     day="2", month=xa.month_name(3, "abbreviated"), year="2024")
    assert driver.find_element(By.ID, "when-text").get_attribute("textContent") == xa.gettext(
        "{date}, {time}", date=day, time="21:15")

    driver.get(url + "/logout")
    waiting = WebDriverWait(driver, 10).until(
        lambda d: d.find_element(By.ID, "outbox-waiting").text or None)
    assert waiting == xa.ngettext("{n} entry is waiting on this device to be sent.",
                                  "{n} entries are waiting on this device to be sent.", 2)
    assert console_errors(driver) == []
    screenshot(driver, "logout-outbox-en-XA-phone-light", whole_page=False)

    click(driver, driver.find_element(By.CSS_SELECTOR, "#logout-form button[type=submit]"))
    WebDriverWait(driver, 10).until(lambda d: "/login" in d.current_url)
    gone(driver, stack)  # no kept page now: the service worker says it alone
    driver.get(url + "/entries")
    assert html_lang(driver) == "en-XA"
    assert driver.find_element(By.TAG_NAME, "h1").text == pseudo("k-mood is not reachable")
    assert plain_words_in(driver, driver.find_element(By.TAG_NAME, "html")) == []
