"""Importing Daylio history in a real browser: upload a CSV with a custom mood name, map it on
the report page, confirm, and find the entries in history and the year view (issue #12)."""

from __future__ import annotations

import pytest
from selenium.webdriver.common.by import By

from tests.browser.conftest import (
    DESKTOP,
    PHONE,
    click,
    console_errors,
    create_user,
    entry_cards,
    follow,
    login_by_cookie,
    screenshot,
)
from tests.unit.test_daylio_csv import NEWEST, csv_bytes

ROWS = ["2025-06-03,June 3,Tuesday,8:15 pm,Chill,reading | tea,,Evening,quiet <b>evening</b>",
        "2025-06-02,June 2,Monday,7:40 AM,good,work,,,standup<br>then coffee",
        "2025-06-01,June 1,Sunday,13:05,Chill,hike,,,",
        "2025-05-31,May 31,Saturday,09:00,pretty awful,,,,"]


@pytest.mark.parametrize("size, dark, name", [(PHONE, False, "phone-light"),
                                              (DESKTOP, True, "desktop-dark")])
def test_upload_map_a_custom_mood_confirm_and_find_the_entries(app_stack, window, tmp_path,
                                                               size, dark, name):
    user = f"imp{name.split('-')[0]}"
    create_user(app_stack, user)
    path = tmp_path / "daylio_export.csv"
    path.write_bytes(csv_bytes(NEWEST, *ROWS))
    driver = window(size, dark=dark)
    login_by_cookie(driver, app_stack.url, user)
    driver.get(app_stack.url + "/settings/import")
    screenshot(driver, f"import-upload-{name}")
    driver.find_element(By.CSS_SELECTOR, "input[type=file]").send_keys(str(path))
    follow(driver, driver.find_element(By.CSS_SELECTOR, "form button[type=submit]"))
    report = driver.find_element(By.ID, "import-report").text
    assert "4 entries readable, from 2025-05-31 to 2025-06-03" in report
    # One screen: a row of five levels per name; "pretty awful" comes with awful picked
    # (a default name inside it), "Chill" with nothing: the person taps good.
    assert "“Chill”" in driver.page_source and "“pretty awful”" in driver.page_source
    levels = {i: [box.get_attribute("value") for box in driver.find_elements(
        By.CSS_SELECTOR, f"input[name=map_level_{i}]") if box.is_selected()] for i in (0, 1)}
    assert levels == {0: [], 1: ["1"]}
    click(driver, driver.find_element(By.CSS_SELECTOR, "label[for=map-0-4]"))
    screenshot(driver, f"import-report-{name}")
    follow(driver, driver.find_element(By.CSS_SELECTOR, "form[action^='/settings/import/']"
                                                        " button[type=submit]"))
    result = driver.find_element(By.ID, "import-result").text
    assert "4 entries imported; 0 skipped" in result
    screenshot(driver, f"import-result-{name}")
    follow(driver, driver.find_element(By.LINK_TEXT, "See them in History"))
    cards = entry_cards(driver)
    assert len(cards) == 4
    assert "Chill" in cards[0].text and "20:15" in cards[0].text
    assert "quiet evening" in cards[0].text and "Evening" in cards[0].text
    assert "standup\nthen coffee" in cards[1].text
    driver.get(app_stack.url + "/calendar?year=2025")
    days = {cell.get_attribute("title") or cell.text for cell in
            driver.find_elements(By.CSS_SELECTOR, ".pixels td a")}
    assert len(days) == 4, days
    screenshot(driver, f"import-year-{name}")
    assert console_errors(driver) == []
