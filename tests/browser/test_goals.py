"""Goals and note templates in a real browser (issue #26): a template fills the log form in
place, a goal is checked off with one tap, and the pages fit a phone in light and dark."""

from __future__ import annotations

from datetime import timedelta

import pytest
from selenium.webdriver.common.by import By

from tests.browser.conftest import (
    DESKTOP,
    PHONE,
    api_session,
    as_a_phone,
    click,
    console_errors,
    create_user,
    dark_media,
    follow,
    login_by_cookie,
    look,
    overflowing,
    screenshot,
    today_of,
    violations,
)
from tests.helpers import http


@pytest.fixture(scope="module")
def gus(app_stack):
    create_user(app_stack, "gus")
    auth = api_session(app_stack.url, "gus")
    url = app_stack.url
    today = today_of()
    for back in range(0, 70):
        day = today - timedelta(days=back)
        if back % 7 in (0, 2, 4) or back % 5 == 0:
            http("POST", url + "/api/entries", {
                "mood": 3 + back % 3, "activities": ["walk"] if back % 7 in (0, 2, 4) else
                ["reading"], "occurred_at": f"{day.isoformat()}T09:00:00"}, auth)
    start = (today - timedelta(days=70)).isoformat()
    for goal in ({"name": "Walk", "activity": "walk", "target": 3, "start_date": start},
                 {"name": "Stretch in the morning", "target": 5, "start_date": start},
                 {"name": "Read a book", "activity": "reading", "period": "month", "target": 6,
                  "start_date": start}):
        assert http("POST", url + "/api/goals", goal, auth)[0] == 201
    for template in ({"name": "Evening", "note_title": "Today",
                      "note": "What went well?\nWhat would I do differently?"},
                     {"name": "Gratitude", "note": "Three good things:\n1.\n2.\n3."}):
        assert http("POST", url + "/api/templates", template, auth)[0] == 201
    return app_stack


def test_a_template_fills_the_form_and_a_goal_is_checked_off_with_one_tap(gus, window):
    driver = window(PHONE)
    as_a_phone(driver, 390, 844)
    login_by_cookie(driver, gus.url, "gus")  # the log page
    click(driver, driver.find_element(By.CSS_SELECTOR, "details.use-template > summary"))
    click(driver, driver.find_element(By.XPATH, "//p[@id='templates']/a[.='Evening']"))
    assert driver.find_element(By.CSS_SELECTOR, "details.use-template").get_attribute(
        "open") is None  # picked: the list closes
    assert driver.find_element(By.NAME, "note_title").get_attribute("value") == "Today"
    assert driver.find_element(By.NAME, "note").get_attribute("value") == (
        "What went well?\nWhat would I do differently?")
    assert "?template=" not in driver.current_url  # filled in place, no page load
    card = driver.find_element(By.ID, "goals")
    assert card  # the heading
    stretch = driver.find_element(By.XPATH, "//li[contains(@class,'goal')]"
                                            "[.//a[.='Stretch in the morning']]")
    assert "0 of 5 this week" in stretch.text
    follow(driver, stretch.find_element(By.CSS_SELECTOR, "button[type=submit]"))
    stretch = driver.find_element(By.XPATH, "//li[contains(@class,'goal')]"
                                            "[.//a[.='Stretch in the morning']]")
    assert "1 of 5 this week" in stretch.text and "✓ Done today" in stretch.text
    assert console_errors(driver) == []


# The sizes and schemes each page is seen in, with the names its screenshots have kept.
LOOKS = [(PHONE, False, "phone-light"), (PHONE, True, "phone-dark"),
         ((320, 700), False, "phone320-light"), ((320, 700), True, "phone320-dark"),
         (DESKTOP, False, "desktop-light"), (DESKTOP, True, "desktop-dark")]


def test_the_goals_and_templates_pages_fit_and_read_well(gus, window):
    """Each page loaded once and seen at a phone's 390 and 320 px and on a desktop, light and
    dark; a Settings page once a phone width, as its row of sections is scrolled to the open
    one when it loads (settings_nav.js)."""
    driver = window(PHONE)
    look(driver, *LOOKS[0][:2])
    login_by_cookie(driver, gus.url, "gus")
    problems = {}
    for path, name in (("/goals", "goals"), ("/settings/templates", "templates"),
                       ("/", "log-goals")):
        for size, dark, variant in LOOKS:
            look(driver, size, dark)
            if size == PHONE and not dark or (
                    size == (320, 700) and not dark and path.startswith("/settings")):
                driver.get(gus.url + path)
            found = overflowing(driver) + violations(driver)
            if found:
                problems[path, variant] = found
            screenshot(driver, f"{name}-{variant}")
    assert problems == {}
    assert console_errors(driver) == []


def test_a_new_goal_s_days_start_empty_and_a_refusal_is_said_beside_the_field(gus, window):
    """#38.9: "Days" started at 3, so typing 3 gave 33 and the form refused without a word."""
    driver = window(PHONE)
    as_a_phone(driver, 390, 844)
    login_by_cookie(driver, gus.url, "gus")
    driver.get(gus.url + "/goals")
    form = driver.find_element(By.CSS_SELECTOR, "form[action='/goals']")
    days = form.find_element(By.NAME, "target")
    assert days.get_attribute("value") == ""
    form.find_element(By.NAME, "name").send_keys("Swim")
    days.send_keys("3")
    assert days.get_attribute("value") == "3"
    days.send_keys("3")  # 33: more days than a week has
    follow(driver, form.find_element(By.CSS_SELECTOR, "button[type=submit]"))
    days = driver.find_element(By.NAME, "target")
    error = driver.find_element(By.ID, "target-error")
    assert error.text == "must be a whole number of days from 1 to 7 a week"
    assert error.is_displayed() and days.get_attribute("aria-invalid") == "true"
    assert days.get_attribute("value") == "33"
    assert driver.execute_script(  # beside the field: right under it, in the same label
        "return arguments[0].closest('label') === arguments[1].closest('label')", days, error)
    click(driver, days)
    for variant, width in (("light", 390), ("dark", 320)):
        if variant == "dark":
            dark_media(driver)
        as_a_phone(driver, width, 844)
        assert violations(driver) == [], variant
        screenshot(driver, f"goal-form-refused-{width}-{variant}")
    days = driver.find_element(By.NAME, "target")
    days.clear()
    days.send_keys("3")
    follow(driver, driver.find_element(By.CSS_SELECTOR, "form[action='/goals'] button"))
    swim = driver.find_element(By.XPATH, "//li[contains(@class,'goal')][.//a[.='Swim']]")
    assert "0 of 3 this week" in swim.text
    assert not swim.find_elements(By.CSS_SELECTOR, ".strip")  # no lone square under its bar
    assert [m for m in console_errors(driver) if "status of 422" not in m] == []
