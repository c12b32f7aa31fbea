"""Activity icons and the starter set in a real browser (issue #38.8), and the Activities bulk
bar shown only once something is ticked (#38.7)."""

from __future__ import annotations

import pytest
from selenium.webdriver.common.by import By

from tests.browser.conftest import (
    api_session,
    as_a_phone,
    click,
    console_errors,
    create_user,
    follow,
    login_by_cookie,
    overflowing,
    screenshot,
    violations,
)
from tests.helpers import http

STARTER = "section.starter"


def on_first_screen(driver, element) -> bool:
    """Whole on the first screen as the page opens, nothing over it."""
    return driver.execute_script("""
        const el = arguments[0], box = el.getBoundingClientRect();
        if (box.top < 0 || box.bottom > window.innerHeight || box.width === 0) return false;
        const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
        return hit === el || el.contains(hit);
    """, element)


def chips_per_row(driver, group: str) -> list[int]:
    """How many chips each row of a group's chips holds, top to bottom."""
    return driver.execute_script("""
        const rows = new Map();
        for (const chip of document.querySelectorAll(
            `details.activity-group[data-remember="group:${arguments[0]}"] .chips label`)) {
          const top = Math.round(chip.getBoundingClientRect().top);
          rows.set(top, (rows.get(top) || 0) + 1);
        }
        return [...rows.entries()].sort((a, b) => a[0] - b[0]).map((r) => r[1]);
    """, group)


def shoot(driver, name: str, dark: bool, whole_page: bool = False) -> None:
    """The page at 390 and 320 px as phones show it, each fitting its width."""
    for width in (390, 320):
        as_a_phone(driver, width, 844 if width == 390 else 640)
        driver.refresh()
        assert overflowing(driver) == [], (name, width)
        driver.execute_script("document.activeElement.blur()")
        screenshot(driver, f"{name}-{width}-{'dark' if dark else 'light'}", whole_page)


def test_a_new_person_takes_the_starter_set_and_logs_with_icons(app_stack, window):
    """The offer sits above the log form without pushing the mood or Save off the first
    screen; opened, two unticked, taken; the chips show their icons (unread), several a row;
    Settings lists the icons, and its bulk bar waits for a tick."""
    create_user(app_stack, "nina")
    driver = window((390, 844))
    as_a_phone(driver, 390, 844)
    login_by_cookie(driver, app_stack.url, "nina")
    for width, height in ((390, 844), (320, 568)):
        as_a_phone(driver, width, height)
        driver.refresh()
        offer = driver.find_element(By.CSS_SELECTOR, STARTER)
        assert on_first_screen(driver, offer.find_element(By.CSS_SELECTOR, "button[value=skip]"))
        for level in (1, 5):  # logging a mood at once: both ends of the row and Save in reach
            assert on_first_screen(driver, driver.find_element(By.CSS_SELECTOR,
                                                               f"label[for=mood-{level}]"))
        assert on_first_screen(driver, driver.find_element(By.CSS_SELECTOR,
                                                           "#entry-form .save-bar button"))
        print(f"starter offer at {width} px: {offer.size['height']} px high; the mood row ends"
              " at", driver.execute_script("return Math.round(document.querySelector("
                                           "'label[for=mood-5]').getBoundingClientRect().bottom)"))
    assert violations(driver) == []
    shoot(driver, "starter-offer", dark=False)
    as_a_phone(driver, 390, 844)
    offer = driver.find_element(By.CSS_SELECTOR, STARTER)
    click(driver, offer.find_element(By.TAG_NAME, "summary"))
    for name in ("party", "bad sleep"):
        click(driver, offer.find_element(By.CSS_SELECTOR, f"input[value='{name}'] + label"))
    screenshot(driver, "starter-offer-opened-390-light")
    follow(driver, offer.find_element(By.CSS_SELECTOR, "button[value=take]"))
    assert "Added 18 activities with their icons" in driver.page_source
    assert driver.find_elements(By.CSS_SELECTOR, STARTER) == []
    walk = driver.find_element(By.XPATH, "//div[@class='chips']/label[contains(., 'walk')]")
    icon = walk.find_element(By.CSS_SELECTOR, ".icon")
    assert icon.text == "🚶" and icon.get_attribute("aria-hidden") == "true"
    assert driver.execute_script(  # what a screen reader reads: the name alone
        "return window.getComputedStyle(arguments[0]).display", icon) != "none"
    click(driver, walk)
    assert driver.find_element(By.ID, walk.get_attribute("for")).is_selected()
    print("chips per row at 390 px, Health:", chips_per_row(driver, "Health"))  # grid: #38.1
    assert driver.execute_script(  # an icon never pushes its name onto a second line
        "return Math.max(...[...document.querySelectorAll('.chips label')].map("
        "(l) => l.getBoundingClientRect().height))") < 50
    assert violations(driver) == []
    shoot(driver, "log-chips-icons", dark=False)

    as_a_phone(driver, 390, 844)
    driver.get(app_stack.url + "/settings/activities")
    bar = driver.find_element(By.ID, "bulk")
    assert not bar.is_displayed()  # nothing ticked: no bar over the list
    listed = driver.find_element(By.XPATH, "//ul[@class='picks']/li[contains(., 'reading')]")
    assert listed.find_element(By.CSS_SELECTOR, ".icon").text == "📖"
    shoot(driver, "settings-activities-icons", dark=False, whole_page=True)
    as_a_phone(driver, 390, 844)
    bar = driver.find_element(By.ID, "bulk")
    box = driver.find_element(By.CSS_SELECTOR, "input[name=ids]")
    click(driver, box)
    assert bar.is_displayed() and driver.find_element(By.ID, "picked").text == "1 selected"
    print("bulk bar once ticked:", bar.size["height"], "px high")
    assert on_first_screen(driver, bar.find_element(By.CSS_SELECTOR, "button[type=submit]"))
    click(driver, box)
    assert not bar.is_displayed()
    assert console_errors(driver) == []


def test_an_icon_is_picked_or_typed_on_the_activity_page(app_stack, window):
    create_user(app_stack, "omar")
    auth = api_session(app_stack.url, "omar")
    made = http("POST", app_stack.url + "/api/activities", {"name": "chess", "group": "Hobbies"},
                auth)[2]
    driver = window((390, 844))
    as_a_phone(driver, 390, 844)
    login_by_cookie(driver, app_stack.url, "omar")
    driver.get(app_stack.url + f"/settings/activities/{made['id']}")
    click(driver, driver.find_element(By.CSS_SELECTOR, "input[value='🎮'] + label"))
    assert violations(driver) == []
    screenshot(driver, "settings-activity-icon-390-light")
    follow(driver, driver.find_element(By.CSS_SELECTOR, ".card button[type=submit]"))
    assert http("GET", app_stack.url + "/api/activities", headers=auth)[2][
        "activities"][0]["icon"] == "🎮"
    driver.get(app_stack.url + f"/settings/activities/{made['id']}")
    driver.find_element(By.NAME, "icon").send_keys("♟️")
    follow(driver, driver.find_element(By.CSS_SELECTOR, ".card button[type=submit]"))
    assert http("GET", app_stack.url + "/api/activities", headers=auth)[2][
        "activities"][0]["icon"] == "♟️"
    driver.get(app_stack.url + f"/settings/activities/{made['id']}")
    driver.find_element(By.NAME, "icon").send_keys("chess")
    follow(driver, driver.find_element(By.CSS_SELECTOR, ".card button[type=submit]"))
    assert "must be one emoji" in driver.find_element(By.CSS_SELECTOR, ".errors").text
    assert [e for e in console_errors(driver) if "422" not in e] == []  # the refusal's status


@pytest.mark.parametrize("dark", [True])
def test_the_starter_offer_and_icons_in_the_dark(app_stack, window, dark):
    create_user(app_stack, "dora")
    driver = window((390, 844), dark=dark)
    as_a_phone(driver, 390, 844)
    login_by_cookie(driver, app_stack.url, "dora")
    assert violations(driver) == []
    shoot(driver, "starter-offer", dark=dark)
    auth = api_session(app_stack.url, "dora")
    names = [a["name"] for g in http("GET", app_stack.url + "/api/activities/starter",
                                     headers=auth)[2]["groups"] for a in g["activities"]]
    http("POST", app_stack.url + "/api/activities/starter", {"names": names}, auth)
    driver.get(app_stack.url + "/")
    assert violations(driver) == []
    shoot(driver, "log-chips-icons", dark=dark)
    driver.get(app_stack.url + "/settings/activities")
    assert violations(driver) == []
    shoot(driver, "settings-activities-icons", dark=dark, whole_page=True)


def test_skipping_the_starter_set_without_javascript(app_stack, window):
    """A plain form with its CSRF field: skipped, it is gone for good."""
    create_user(app_stack, "pete")
    driver = window((390, 844), javascript=False)
    login_by_cookie(driver, app_stack.url, "pete")
    offer = driver.find_element(By.CSS_SELECTOR, STARTER)
    follow(driver, offer.find_element(By.CSS_SELECTOR, "button[value=skip]"))
    assert "No starter set" in driver.page_source
    driver.get(app_stack.url + "/")
    assert driver.find_elements(By.CSS_SELECTOR, STARTER) == []
    assert http("GET", app_stack.url + "/api/activities",
                headers=api_session(app_stack.url, "pete"))[2]["activities"] == []
