"""Back to where you were, a day and a month (issue #38.3 and .4), with three years of imported
history at 390x844: filtered History -> edit -> save lands on the same filters with the entry
and the message in view, a delete on its neighbour; a Year day opens a day view with its
entries in the first half of the first screen; any month is two taps from History."""

from __future__ import annotations

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from tests.browser.conftest import (
    DESKTOP,
    as_a_phone,
    click,
    console_errors,
    entry_cards,
    follow,
    login_by_cookie,
    look,
    overflowing,
    replaced,
    screenshot,
    violations,
)
from tests.browser.test_phone_fit import tappable

MARCH = "/entries?from=2025-03-01&to=2025-03-31"  # "last March": pia's today is in 2026
PHONE_TALL = (390, 844)


def on_screen(driver, element) -> bool:
    """Wholly within the viewport and not covered (by the notice, the tab bar)."""
    return tappable(driver, element)


def tap(driver, element) -> None:
    """A tap on what is on screen as it is (no scrolling), waiting for the page it opens."""
    assert tappable(driver, element), element.text
    page = driver.find_element(By.TAG_NAME, "html")
    element.click()
    WebDriverWait(driver, 10).until(lambda d: replaced(page))
    as_a_phone(driver, *PHONE_TALL)


def test_a_month_is_two_taps_and_an_edit_or_delete_goes_back_to_the_filtered_list(pia, window):
    driver = window(PHONE_TALL)
    as_a_phone(driver, *PHONE_TALL)
    login_by_cookie(driver, pia.url, "pia")
    driver.get(pia.url + "/entries")
    panel = driver.find_element(By.CSS_SELECTOR, "details.filter-panel")
    assert panel.get_attribute("open") is None  # folded: the entries start on the first screen
    assert driver.execute_script("return arguments[0].getBoundingClientRect().top",
                                 entry_cards(driver)[0]) < PHONE_TALL[1] / 2
    jump = driver.find_element(By.CSS_SELECTOR, "details.months > summary")
    assert tappable(driver, jump)
    jump.click()  # tap 1
    march = driver.find_element(By.CSS_SELECTOR, f"details.months a[href='{MARCH}']")
    assert march.accessible_name.startswith("March 2025: ")  # "Mar 46" on the screen
    screenshot(driver, "days-history-months-phone-390-light", whole_page=False)
    tap(driver, march)  # tap 2
    assert driver.current_url == pia.url + MARCH
    assert driver.execute_script("return window.scrollY") == 0
    summary = driver.find_element(By.CSS_SELECTOR, "details.filter-panel > summary")
    assert summary.text == "Search and filter · March 2025"  # folded, saying what is active
    cards = entry_cards(driver)
    assert driver.execute_script("return arguments[0].getBoundingClientRect().top",
                                 cards[0]) < PHONE_TALL[1] / 2
    assert all("Mar 2025" in card.find_element(By.CSS_SELECTOR, "a[href*='/edit']")
               .get_attribute("textContent") for card in cards)
    screenshot(driver, "days-history-march-phone-390-light", whole_page=False)

    edited = cards[12]
    edited_id = edited.get_attribute("id")
    follow(driver, edited.find_element(By.PARTIAL_LINK_TEXT, "Edit"))
    as_a_phone(driver, *PHONE_TALL)
    click(driver, driver.find_element(By.CSS_SELECTOR, "label[for=mood-1]"))
    follow(driver, driver.find_element(By.CSS_SELECTOR, "#entry-form button[type=submit]"))
    as_a_phone(driver, *PHONE_TALL)
    assert driver.current_url == f"{pia.url}{MARCH}&done=saved#{edited_id}"
    notice = driver.find_element(By.CSS_SELECTOR, ".notice")
    card = driver.find_element(By.ID, edited_id)
    assert notice.text == "Saved." and on_screen(driver, notice)
    assert on_screen(driver, card.find_element(By.CSS_SELECTOR, ".badge"))
    assert "awful" in card.text
    screenshot(driver, "days-history-saved-phone-390-light", whole_page=False)

    cards = entry_cards(driver)
    doomed = next(i for i, c in enumerate(cards) if c.get_attribute("id") == edited_id) + 1
    neighbour_id = cards[doomed + 1].get_attribute("id")
    follow(driver, cards[doomed].find_element(By.PARTIAL_LINK_TEXT, "Delete"))
    follow(driver, driver.find_element(By.CSS_SELECTOR, "button.danger"))
    as_a_phone(driver, *PHONE_TALL)
    assert driver.current_url == f"{pia.url}{MARCH}&done=deleted#{neighbour_id}"
    notice = driver.find_element(By.CSS_SELECTOR, ".notice")
    assert notice.text == "Entry deleted." and on_screen(driver, notice)
    assert on_screen(driver, driver.find_element(By.CSS_SELECTOR, f"#{neighbour_id} .badge"))
    assert console_errors(driver) == []


def test_a_day_of_the_year_opens_with_its_entries_first(pia, window):
    driver = window(PHONE_TALL)
    as_a_phone(driver, *PHONE_TALL)
    login_by_cookie(driver, pia.url, "pia")
    driver.get(pia.url + "/calendar?year=2025")
    follow(driver, driver.find_element(By.CSS_SELECTOR, "a[href='/days/2025-03-14']"))
    as_a_phone(driver, *PHONE_TALL)
    assert driver.find_element(By.TAG_NAME, "h1").text == "Fri 14 Mar 2025"
    cards = entry_cards(driver)
    assert cards and driver.execute_script("return arguments[0].getBoundingClientRect().top",
                                           cards[0]) < PHONE_TALL[1] / 2
    count = len(cards)
    assert f"{count} entr{'y' if count == 1 else 'ies'} · March 2025" in driver.find_element(
        By.CSS_SELECTOR, ".day-facts").text
    screenshot(driver, "days-day-phone-390-light", whole_page=False)
    tap(driver, driver.find_element(By.CSS_SELECTOR, ".day-nav a[rel=next]"))
    assert driver.current_url == pia.url + "/days/2025-03-15"  # pia logged every day
    tap(driver, driver.find_element(By.CSS_SELECTOR, ".day-nav a[rel=prev]"))
    assert driver.current_url == pia.url + "/days/2025-03-14"
    assert console_errors(driver) == []


# The sizes and schemes the month list and the day are seen in, with their screenshots' names
# (390 px in light is test_accessibility's and test_phone_fit's).
LOOKS = [((390, 844), True, "phone-390-dark"), ((320, 844), False, "phone-320-light"),
         ((320, 844), True, "phone-320-dark"), (DESKTOP, False, "desktop-light")]


def test_the_month_list_and_the_day_fit_and_pass_axe(pia, window):
    """The month list open (axe and the phone-fit test see History with it folded); each page
    loaded once and seen in every size and scheme."""
    driver = window(PHONE_TALL)
    look(driver, *LOOKS[0][:2])
    login_by_cookie(driver, pia.url, "pia")
    found = {}
    for path in (MARCH + "&mood=5&mood=4&q=walk", "/days/2025-03-14"):
        look(driver, *LOOKS[0][:2])
        driver.get(pia.url + path)
        for details in driver.find_elements(By.CSS_SELECTOR, "details.months, "
                                                             "details.filter-panel"):
            driver.execute_script("arguments[0].open = true", details)
        name = "history-months" if path.startswith("/entries") else "day"
        for size, dark, variant in LOOKS:
            look(driver, size, dark)
            problems = overflowing(driver) + violations(driver)
            if problems:
                found[path, variant] = problems
            screenshot(driver, f"days-{name}-{variant}")
    assert found == {}
