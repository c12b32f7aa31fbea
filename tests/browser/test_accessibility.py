"""Every page, with three years of imported history and ~150 activities behind it, fits every
phone (no sideways scrolling at 320, 360, 390 and 412 px) and axe-core finds nothing on it,
phone and desktop, light and dark (issue #23). Each page is loaded once and looked at in every
variant through the browser's emulation (in dark, axe's colour rules: the rest read the same
document and layout as in light). axe-core is vendored into the test tree, pinned
(never served by k-mood), and run in the page through Selenium."""

from __future__ import annotations

from tests.browser.conftest import (
    DESKTOP,
    LANGUAGE_RULES,
    PHONE,
    console_errors,
    each_page,
    login_by_cookie,
    look,
    overflowing,
    screenshot,
    shot_name,
    variant_name,
    violations,
)
from tests.plain_words import PLAIN_WORDS_JS

# Every phone width and the desktop in light; in dark (the same layout, other colours) the
# looks axe and the screenshots need.
LOOKS = [((width, 844), False) for width in (320, 360, 390, 412)] + [(DESKTOP, False)] + [
    (PHONE, True), (DESKTOP, True)]
NARROWEST = (320, 844)
SHOTS = {((390, 844), True), ((390, 844), False), (DESKTOP, False), (DESKTOP, True)}


def test_every_page_fits_every_phone_and_axe_finds_nothing(pia, window):
    driver = window(PHONE)
    driver.set_script_timeout(60)
    look(driver, PHONE, dark=False)
    login_by_cookie(driver, pia.url, "pia")
    overflow, axe = {}, {}
    for path in each_page(driver, pia):
        for size, dark in LOOKS:
            look(driver, size, dark)
            where = f"{path} {variant_name(size, dark)}"
            if size != DESKTOP and (found := overflowing(driver)):
                overflow[where] = found
            if size in (PHONE, DESKTOP) and (found := violations(driver)):
                axe[where] = found
            if (size, dark) in SHOTS:
                # a phone's whole page in light; else (the same layout in dark, the desktop)
                # the first screen
                screenshot(driver, f"history3y-{shot_name(path)}-{shot_variant(size, dark)}",
                           whole_page=not dark and size != DESKTOP)
        look(driver, PHONE, dark=False)  # the next page opens as a phone
    assert (overflow, axe) == ({}, {})  # (pages reaching past a phone's edge, axe's finds)
    assert console_errors(driver) == []


def shot_variant(size: tuple[int, int], dark: bool) -> str:
    """The names the screenshots have had: history3y-entries-320-dark, -desktop-light."""
    scheme = "dark" if dark else "light"
    return f"desktop-{scheme}" if size == DESKTOP else f"{size[0]}-{scheme}"


def speaking(driver, language: str) -> None:
    """The browser asks for `language` first (Accept-Language), as a phone set to it would."""
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.setExtraHTTPHeaders", {"headers": {
        "Accept-Language": f"{language},en;q=0.5"}})


def test_every_page_in_the_pseudo_language_leaves_no_word_untranslated(pia, window):
    """SPEC §13's proof, in the browser after the scripts ran: in en-XA (every word accented and
    a third longer) every word a page or its scripts show came through a catalogue
    (tests/plain_words.py), logged out and in; with the longer words no page scrolls sideways
    at 320 px and axe finds nothing. In ar-XB the pages lay out right to left within the
    phone; German and Polish (the longest words, Polish's three plurals) fit 390 px
    (screenshots of the log, Stats and Insights)."""
    driver = window(NARROWEST)
    look(driver, NARROWEST, dark=False)
    speaking(driver, "en-XA")
    plain, overflow, axe = {}, {}, {}

    def walk(path: str) -> None:
        assert driver.find_element("tag name", "html").get_attribute("lang") == "en-XA", path
        if found := driver.execute_script(PLAIN_WORDS_JS):
            plain[path] = found
        if found := overflowing(driver):
            overflow[f"en-XA {path}"] = found
        if found := violations(driver, only=LANGUAGE_RULES):  # the rest: the English walk
            axe[path] = found

    driver.get(pia.url + "/login")  # logged out
    walk("/login")
    login_by_cookie(driver, pia.url, "pia")
    for path in each_page(driver, pia):
        walk(path)
    assert plain == {}
    look(driver, PHONE, dark=False)
    for language, paths in (("ar-XB", ["/", "/entries", "/stats"]),
                            ("de", ["/", "/stats", "/insights"]),
                            ("pl", ["/", "/stats", "/insights"])):
        speaking(driver, language)
        for path in paths:
            driver.get(pia.url + path)
            html = driver.find_element("tag name", "html")
            assert html.get_attribute("lang") == language, (language, path)
            assert html.get_attribute("dir") == ("rtl" if language == "ar-XB" else "ltr")
            if found := overflowing(driver):
                overflow[f"{language} {path}"] = found
            screenshot(driver, f"language-{language}-{shot_name(path)}-390", whole_page=False)
    assert (overflow, axe) == ({}, {}), (overflow, axe)
    assert console_errors(driver) == []
