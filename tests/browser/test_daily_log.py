"""The daily loop on a phone (issue #38.1, #38.2): with three years imported, ~150 activities
and nine note templates, a mood, two usual activities, a note and Save are five taps with no
scrolling at 390 and 320 px, light and dark; back-dating is the date line at the top; editing
is the same form, with Save and the note on the first screen. Before #38 (measured on main the
same way): the note was 526 px down at 390×844 and 916 px at 320×700; back-dating scrolled
842 px and 1 210 px; the edit page was 5.9 and 7.6 screens high with the note 4 155 px down."""

from __future__ import annotations

from datetime import timedelta

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from tests.browser.conftest import (
    DESKTOP,
    api_session,
    click,
    console_errors,
    create_user,
    login,
    login_by_cookie,
    look,
    overflowing,
    replaced,
    screenshot,
    today_of,
    violations,
)
from tests.browser.test_phone_fit import tappable
from tests.helpers import http

SAVE = "#entry-form .save-bar button[type=submit]"
USUAL = "fieldset.activities > .chips label"


@pytest.fixture(scope="module")
def pia9(pia):
    """Pia's three imported years, with the nine templates a long-time Daylio user brings."""
    auth = api_session(pia.url, "pia")
    create_user(pia, "lou")  # and a person who renamed the moods at length
    lou = api_session(pia.url, "lou")
    for level, label in enumerate(("miserable", "not so good", "okay", "pretty good",
                                   "wonderful"), 1):
        assert http("PATCH", pia.url + f"/api/moods/{level}", {"label": label}, lou)[0] == 200
    for name in ("Evening", "Morning pages", "Gratitude", "Work day", "Weekend", "Therapy",
                 "Migraine", "Travel", "Dream"):
        assert http("POST", pia.url + "/api/templates", {
            "name": name, "note_title": name, "note": f"{name}:\n- \n- "}, auth)[0] == 201
    return pia


# The phone sizes and schemes the daily loop is seen in: each page it opens is loaded once.
LOOKS = [((390, 844), False), ((390, 844), True), ((320, 700), False), ((320, 700), True)]


def shot(size: tuple[int, int], dark: bool) -> str:
    """A look's name in the screenshots: 390-light, 320-dark."""
    return f"{size[0]}-{'dark' if dark else 'light'}"


def each_look(driver, looks=LOOKS):
    """Show the open page in each of `looks` in turn, yielding its name."""
    for size, dark in looks:
        look(driver, size, dark)
        yield shot(size, dark)


class Thumb:
    """Taps as a thumb does, once, on a page seen at each of LOOKS: counts the taps and, at each
    look, the pixels scrolled first to reach a target that is off screen or under a bar (the
    least scrolling that shows it)."""

    def __init__(self, driver):
        self.driver, self.taps = driver, 0
        self.scrolled = {shot(*one): 0 for one in LOOKS}

    def scroll_y(self) -> float:
        return self.driver.execute_script("return window.scrollY")

    def tap(self, element) -> None:
        for name in each_look(self.driver):
            if not tappable(self.driver, element):
                before = self.scroll_y()
                self.driver.execute_script("arguments[0].scrollIntoView({block: 'nearest'})",
                                           element)
                self.scrolled[name] += abs(self.scroll_y() - before)
            assert tappable(self.driver, element), (name,
                                                    element.get_attribute("outerHTML")[:160])
        before = self.scroll_y()
        element.click()  # once, at the last look (the narrowest)
        self.taps += 1
        assert self.scroll_y() == before, "the page moved under the thumb"


NOT_SCROLLED = {shot(*one): 0 for one in LOOKS}


def moods_broken_mid_word(driver) -> list[str]:
    """The words of the mood labels that start on one line and end on another (a label of
    several words may wrap between them; a word cut short by "…" is on one line)."""
    return driver.execute_script("""
        return Array.from(document.querySelectorAll('.moods label span')).flatMap((span) => {
          const text = span.firstChild, broken = [];
          for (const word of text.data.matchAll(/\\S+/g)) {
            const range = document.createRange();
            range.setStart(text, word.index);
            range.setEnd(text, word.index + word[0].length);
            const lines = new Set(Array.from(range.getClientRects(), (b) => Math.round(b.top)));
            if (lines.size > 1) broken.push(word[0]);
          }
          return broken;
        });""")


def first_row_of_chips(driver) -> int:
    return driver.execute_script(f"""
        const tops = Array.from(document.querySelectorAll('{USUAL}'))
          .map((l) => Math.round(l.getBoundingClientRect().top));
        return tops.filter((t) => t === tops[0]).length;""")


def newest(url: str) -> dict:
    return http("GET", url + "/api/entries?limit=1",
                headers=api_session(url, "pia"))[2]["entries"][0]


def on_day(url: str, day) -> list[dict]:
    return http("GET", url + f"/api/entries?from={day}&to={day}",
                headers=api_session(url, "pia"))[2]["entries"]


def pick_date(driver, field, day) -> None:
    """What a native date picker does once a day is chosen: the value, and its events."""
    driver.execute_script("""
        arguments[0].value = arguments[1];
        for (const kind of ["input", "change"])
          arguments[0].dispatchEvent(new Event(kind, {bubbles: true}));""", field, day)


def save_and_wait(thumb: Thumb) -> None:
    page = thumb.driver.find_element(By.TAG_NAME, "html")
    thumb.tap(thumb.driver.find_element(By.CSS_SELECTOR, SAVE))
    WebDriverWait(thumb.driver, 10).until(lambda d: replaced(page))


def a_day_last_month():
    return (today_of().replace(day=1) - timedelta(days=1)).replace(day=15)


def test_the_daily_loop_takes_no_scrolling_on_a_phone(pia9, window):
    """At 390×844 and 320×700, light and dark: each tap made once, on a page seen (and its
    targets checked) in every look."""
    driver = window(LOOKS[0][0])
    look(driver, *LOOKS[0])
    login_by_cookie(driver, pia9.url, "pia")
    for name in each_look(driver):
        assert moods_broken_mid_word(driver) == [], name
        assert first_row_of_chips(driver) >= 4, name  # a dense grid, not one pill a row

    # Mood, two usual activities, a short note typed, Save: five taps, nothing scrolled.
    thumb = Thumb(driver)
    thumb.tap(driver.find_element(By.CSS_SELECTOR, "label[for=mood-4]"))
    usual = driver.find_elements(By.CSS_SELECTOR, USUAL)[:2]
    names = [label.text.replace("\n", " ") for label in usual]
    for label in usual:
        thumb.tap(label)
    note = driver.find_element(By.NAME, "note")
    thumb.tap(note)
    note.send_keys("a short note")
    assert thumb.scrolled == NOT_SCROLLED  # at each look: where it had to scroll, how far
    for name in each_look(driver):
        assert thumb.scroll_y() == 0, name
        screenshot(driver, f"daily-log-{name}-first-screen", whole_page=False)
    save_and_wait(thumb)
    assert (thumb.taps, thumb.scrolled) == (5, NOT_SCROLLED)
    saved = newest(pia9.url)
    assert (saved["mood"], sorted(saved["activities"]), saved["note"]) == (
        4, sorted(names), "a short note")

    # Back-dating to a day last month: mood, the date line, the date (its picker), Save.
    driver.get(pia9.url + "/")
    thumb = Thumb(driver)
    thumb.tap(driver.find_element(By.CSS_SELECTOR, "label[for=mood-2]"))
    for name in each_look(driver):
        assert driver.find_element(By.ID, "when-text").text == "Now", name
    thumb.tap(driver.find_element(By.CSS_SELECTOR, "details.when > summary"))
    day = a_day_last_month()
    date = driver.find_element(By.NAME, "date")
    thumb.tap(date)
    pick_date(driver, date, day.isoformat())
    time = driver.find_element(By.NAME, "time").get_attribute("value")
    for name in each_look(driver):
        assert driver.find_element(By.ID, "when-text").text == (
            f"{day:%a} {day.day} {day:%b %Y}, {time}"), name
    client_id = driver.find_element(By.NAME, "client_id").get_attribute("value")
    save_and_wait(thumb)
    assert (thumb.taps, thumb.scrolled) == (4, NOT_SCROLLED)
    [saved] = [e for e in on_day(pia9.url, day) if e["client_id"] == client_id]
    assert saved["mood"] == 2 and saved["occurred_at"].startswith(f"{day.isoformat()}T{time}")

    # Editing an entry of several activities: its own ticked and shown, the rest folded, the
    # note and Save on the first screen, the page under two and a half screens.
    several = next(e for e in http("GET", pia9.url + "/api/entries?limit=200&from=2025-01-01",
                                   headers=api_session(pia9.url, "pia"))[2]["entries"]
                   if len(e["activities"]) >= 5)
    driver.get(pia9.url + f"/entries/{several['id']}/edit")
    for name in each_look(driver):
        ticked = [label.text.replace("\n", " ") for label in driver.find_elements(
            By.CSS_SELECTOR, "fieldset.activities > .chips input:checked + label")]
        assert sorted(ticked) == sorted(several["activities"]), name
        assert driver.find_element(By.CSS_SELECTOR, "details.more-activities").get_attribute(
            "open") is None
        for target in (driver.find_element(By.NAME, "note"),
                       driver.find_element(By.CSS_SELECTOR, SAVE)):
            assert tappable(driver, target), (name, target.get_attribute("outerHTML")[:160])
        screens = driver.execute_script(
            "return document.documentElement.scrollHeight / window.innerHeight")
        assert screens < 2.5, (name, screens)
        assert moods_broken_mid_word(driver) == [], name
        screenshot(driver, f"daily-edit-{name}-first-screen", whole_page=False)
        screenshot(driver, f"daily-edit-{name}")

    # long mood labels at 320: smaller type, then "…", never split
    login_by_cookie(driver, pia9.url, "lou")
    for name in each_look(driver, [one for one in LOOKS if one[0][0] == 320]):
        assert moods_broken_mid_word(driver) == [], name
        screenshot(driver, f"daily-log-long-moods-{name}", whole_page=False)
    login_by_cookie(driver, pia9.url, "pia")
    assert console_errors(driver) == []

    # The date, the templates and the other activities open in place, and still fit: at each
    # width once (axe runs over every page in test_accessibility).
    for summary in ("details.when", "details.use-template", "details.more-activities"):
        click(driver, driver.find_element(By.CSS_SELECTOR, summary + " > summary"))
    for name in each_look(driver, [((390, 844), False), ((320, 700), True)]):
        assert len(driver.find_elements(By.CSS_SELECTOR, "#templates a")) == 9, name
        assert driver.find_element(By.NAME, "new_activities").is_displayed(), name
        assert overflowing(driver) == [], name
        assert violations(driver) == [], name
        screenshot(driver, f"daily-log-{name}-opened")
    assert console_errors(driver) == []


def test_the_log_and_edit_forms_on_a_desktop(pia9, window):
    driver = window(DESKTOP)
    login_by_cookie(driver, pia9.url, "pia")
    click(driver, driver.find_element(By.CSS_SELECTOR, "details.use-template > summary"))
    assert overflowing(driver) == [] and violations(driver) == []
    screenshot(driver, "daily-log-desktop-light")
    entry = newest(pia9.url)
    driver.get(pia9.url + f"/entries/{entry['id']}/edit")
    screenshot(driver, "daily-edit-desktop-light")
    assert console_errors(driver) == []


def test_without_javascript_a_day_last_month_and_a_new_activity_are_logged(pia9, window):
    """The date line is a <details> holding the fields: it opens without script, and the
    form posts them with a new activity typed after the note."""
    driver = window((390, 844), javascript=False)
    login(driver, pia9.url, "pia")
    click(driver, driver.find_element(By.CSS_SELECTOR, "label[for=mood-1]"))
    click(driver, driver.find_element(By.CSS_SELECTOR, "details.when > summary"))
    day = a_day_last_month()
    pick_date(driver, driver.find_element(By.NAME, "date"), day.isoformat())
    time = driver.find_element(By.NAME, "time")
    time.clear()
    time.send_keys("0715AM")
    driver.find_element(By.NAME, "new_activities").send_keys("cold swim")
    page = driver.find_element(By.TAG_NAME, "html")
    click(driver, driver.find_element(By.CSS_SELECTOR, SAVE))
    WebDriverWait(driver, 10).until(lambda d: replaced(page))
    assert "Entry logged." in driver.find_element(By.CSS_SELECTOR, ".notice").text
    [saved] = [e for e in on_day(pia9.url, day) if "cold swim" in e["activities"]]
    assert saved["mood"] == 1 and saved["occurred_at"].startswith(f"{day.isoformat()}T07:15")
