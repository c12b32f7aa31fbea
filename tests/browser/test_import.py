"""Importing Daylio history in a real browser: upload a CSV with a custom mood name, map it on
the report page, confirm, and find the entries in history and the year view (issue #12)."""

from __future__ import annotations

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
    look,
    screenshot,
)
from tests.unit.test_daylio_csv import NEWEST, csv_bytes

ROWS = ["2025-06-03,June 3,Tuesday,8:15 pm,Chill,reading | tea,,Evening,quiet <b>evening</b>",
        "2025-06-02,June 2,Monday,7:40 AM,good,work,,,standup<br>then coffee",
        "2025-06-01,June 1,Sunday,13:05,Chill,hike,,,",
        "2025-05-31,May 31,Saturday,09:00,pretty awful,,,,"]


# Each page of the import seen on a phone in light and on a desktop in dark.
LOOKS = [(PHONE, False, "phone-light"), (DESKTOP, True, "desktop-dark")]


def each_look(driver):
    """Show the open page in each of LOOKS in turn, yielding the name its screenshots take."""
    for size, dark, name in LOOKS:
        look(driver, size, dark)
        yield name


def test_upload_map_a_custom_mood_confirm_and_find_the_entries(app_stack, window, tmp_path):
    """One import, the person's taps made once on the phone, each page it leads to seen in
    every look."""
    create_user(app_stack, "imp")
    path = tmp_path / "daylio_export.csv"
    path.write_bytes(csv_bytes(NEWEST, *ROWS))
    driver = window(PHONE)
    look(driver, *LOOKS[0][:2])
    login_by_cookie(driver, app_stack.url, "imp")
    driver.get(app_stack.url + "/settings/import")
    for name in each_look(driver):
        screenshot(driver, f"import-upload-{name}")
    look(driver, *LOOKS[0][:2])
    driver.find_element(By.CSS_SELECTOR, "input[type=file]").send_keys(str(path))
    follow(driver, driver.find_element(By.CSS_SELECTOR, "form button[type=submit]"))
    for name in each_look(driver):
        report = driver.find_element(By.ID, "import-report").text
        assert "4 entries readable, from 31 May 2025 to 3 Jun 2025" in report, name
        # One screen: a row of five levels per name; "pretty awful" comes with awful picked
        # (a default name inside it), "Chill" with nothing: the person taps good.
        assert "“Chill”" in driver.page_source and "“pretty awful”" in driver.page_source
        levels = {i: [box.get_attribute("value") for box in driver.find_elements(
            By.CSS_SELECTOR, f"input[name=map_level_{i}]") if box.is_selected()] for i in (0, 1)}
        assert levels == {0: [], 1: ["1"]}, name
    look(driver, *LOOKS[0][:2])
    click(driver, driver.find_element(By.CSS_SELECTOR, "label[for=map-0-4]"))
    for name in each_look(driver):
        screenshot(driver, f"import-report-{name}")
    look(driver, *LOOKS[0][:2])
    follow(driver, driver.find_element(By.CSS_SELECTOR, "form[action^='/settings/import/']"
                                                        " button[type=submit]"))
    for name in each_look(driver):
        result = driver.find_element(By.ID, "import-result").text
        assert "4 entries imported; 0 skipped" in result, name
        screenshot(driver, f"import-result-{name}")
    look(driver, *LOOKS[0][:2])
    follow(driver, driver.find_element(By.LINK_TEXT, "See them in History"))
    for name in each_look(driver):
        cards = entry_cards(driver)
        assert len(cards) == 4, name
        assert "Chill" in cards[0].text and "20:15" in cards[0].text, name
        assert "quiet evening" in cards[0].text and "Evening" in cards[0].text, name
        assert "standup\nthen coffee" in cards[1].text, name
    look(driver, *LOOKS[0][:2])
    driver.get(app_stack.url + "/calendar?year=2025")
    for name in each_look(driver):
        days = {cell.get_attribute("title") or cell.text for cell in
                driver.find_elements(By.CSS_SELECTOR, ".pixels td a")}
        assert len(days) == 4, (name, days)
        screenshot(driver, f"import-year-{name}")
    assert console_errors(driver) == []
