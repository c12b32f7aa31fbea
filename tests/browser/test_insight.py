"""Year in pixels and stats in a real browser (issue #10)."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

from tests.browser.conftest import (
    DESKTOP,
    PHONE,
    click,
    console_errors,
    create_user,
    follow,
    screenshot,
)
from tests.browser.test_journal import api_session, entry_cards, login
from tests.helpers import http


@pytest.fixture(scope="module")
def cara(app_stack):
    create_user(app_stack, "cara")
    auth = api_session(app_stack.url, "cara")
    start = date.today() - timedelta(days=120)
    for i in range(0, 120, 2):
        http("POST", app_stack.url + "/api/entries", {
            "mood": [3, 4, 5, 2, 4, 3, 1][i % 7], "activities": [["walk"], ["work"], []][i % 3],
            "occurred_at": f"{start + timedelta(days=i)}T{9 + i % 12:02d}:00:00"}, auth)
    return app_stack


def test_a_back_dated_entry_is_found_in_the_year_view_by_clicking_its_day(cara, browser):
    driver = browser(PHONE)
    login(driver, cara.url, "cara")
    last_month = (date.today().replace(day=1) - timedelta(days=1)).replace(day=13)
    click(driver, driver.find_element(By.CSS_SELECTOR, "label[for=mood-5]"))
    driver.find_element(By.NAME, "note").send_keys("back-dated birthday")
    field = driver.find_element(By.NAME, "date")
    driver.execute_script("arguments[0].value = arguments[1]", field, last_month.isoformat())
    click(driver, driver.find_element(By.CSS_SELECTOR, "#entry-form button[type=submit]"))
    WebDriverWait(driver, 10).until(EC.url_contains("done=logged"))
    driver.get(f"{cara.url}/calendar?year={last_month.year}")
    day = driver.find_element(
        By.CSS_SELECTOR, f"a[href='/entries?from={last_month}&to={last_month}']")
    screenshot(driver, "calendar-phone-light")
    follow(driver, day)
    WebDriverWait(driver, 10).until(EC.url_contains(f"from={last_month}"))
    assert any("back-dated birthday" in card.text for card in entry_cards(driver))
    assert console_errors(driver) == []


@pytest.mark.parametrize("size,size_name", [(PHONE, "phone"), (DESKTOP, "desktop")])
@pytest.mark.parametrize("dark", [False, True])
def test_the_stats_page_shows_its_charts(cara, browser, size, size_name, dark):
    driver = browser(size, dark=dark)
    login(driver, cara.url, "cara")
    driver.get(cara.url + "/stats?range=365")
    charts = driver.find_elements(By.CSS_SELECTOR, "svg.chart")
    assert len(charts) == 4
    assert all(c.size["width"] > 250 for c in charts)  # readable on a 390 px phone
    assert driver.find_elements(By.CSS_SELECTOR, "table.data tbody tr")
    scheme = "dark" if dark else "light"
    screenshot(driver, f"stats-{size_name}-{scheme}")
    driver.get(cara.url + "/calendar")
    screenshot(driver, f"calendar-{size_name}-{scheme}")
    assert console_errors(driver) == []
