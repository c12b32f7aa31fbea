"""k-mood in the person's language, in a real browser (issue #40, SPEC §13): the login page's
language switch, the setting in Settings → Profile, seen at a phone's 390 and 320 px, light
and dark, with axe."""

from __future__ import annotations

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from tests.browser.conftest import (
    PHONE,
    create_user,
    follow,
    login_by_cookie,
    look,
    overflowing,
    screenshot,
    violations,
)

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
