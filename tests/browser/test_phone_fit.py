"""The log page and the activities list on a phone with ~150 activities (issue #23): the usual
activities and Save in the first screen, the rest folded and filtered, many moved at once.
Every page's fit at 320-412 px is checked with axe-core in test_accessibility.py."""

from __future__ import annotations

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from tests.browser.conftest import (
    api_session,
    as_a_phone,
    click,
    console_errors,
    create_user,
    login_by_cookie,
    replaced,
    screenshot,
)
from tests.helpers import http


def tappable(driver, element) -> bool:
    """On screen as it is, with nothing over it (the save bar, the tab bar): a thumb can hit
    it without scrolling."""
    return driver.execute_script("""
        const el = arguments[0], box = el.getBoundingClientRect();
        if (box.top < 0 || box.bottom > window.innerHeight || box.width === 0) return false;
        const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
        return hit === el || el.contains(hit);
    """, element)


def test_good_and_two_usual_activities_take_four_taps_and_no_scrolling(pia, window):
    """With ~150 activities (issue #23.2): Save sat 2 327 px down; now the mood, the most used
    activities and Save share the first screen."""
    driver = window((390, 844))
    as_a_phone(driver, 390, 844)
    login_by_cookie(driver, pia.url, "pia")
    driver.get(pia.url + "/")
    good = driver.find_element(By.CSS_SELECTOR, "label[for=mood-4]")
    usual = driver.find_elements(By.CSS_SELECTOR, "fieldset.activities > .chips label")[:2]
    save = driver.find_element(By.CSS_SELECTOR, "#entry-form .save-bar button[type=submit]")
    names = [label.text for label in usual]
    for element in (good, *usual, save):
        assert tappable(driver, element), element.text
    page = driver.find_element(By.TAG_NAME, "html")
    for tap in (good, *usual):
        tap.click()
        assert driver.execute_script("return window.scrollY") == 0
    screenshot(driver, "log-150-activities-phone-first-screen", whole_page=False)
    as_a_phone(driver, 390, 844)
    save.click()  # the fourth tap
    WebDriverWait(driver, 10).until(lambda d: replaced(page))
    newest = http("GET", pia.url + "/api/entries?limit=1",
                  headers=api_session(pia.url, "pia"))[2]["entries"][0]
    assert newest["mood"] == 4 and sorted(newest["activities"]) == sorted(names)
    screenshot(driver, "log-150-activities-phone-light")


def test_the_folded_activities_narrow_to_what_is_typed(pia, window):
    driver = window((390, 844))
    as_a_phone(driver, 390, 844)
    login_by_cookie(driver, pia.url, "pia")
    driver.get(pia.url + "/")
    more = driver.find_element(By.CSS_SELECTOR, "details.more-activities")
    assert more.get_attribute("open") is None
    more.find_element(By.TAG_NAME, "summary").click()
    box = more.find_element(By.CSS_SELECTOR, ".chip-filter")
    box.send_keys("activity 14")
    shown = [label.text for label in more.find_elements(By.CSS_SELECTOR, ".chips label")
             if label.is_displayed()]
    assert shown and all("activity 14" in name for name in shown), shown
    box.send_keys(Keys.CONTROL, "a")
    box.send_keys(Keys.BACKSPACE)
    assert len([label for label in more.find_elements(By.CSS_SELECTOR, ".chips label")
                if label.is_displayed()]) > 100


def test_ten_of_150_activities_move_to_a_group_in_one_go(pia, window):
    """Issue #23.5: select several, then one action for all of them, in reach of the thumb
    (the action bar stays on screen however long the list)."""
    driver = window((390, 844))
    as_a_phone(driver, 390, 844)
    login_by_cookie(driver, pia.url, "pia")
    driver.get(pia.url + "/settings/activities")
    apply = driver.find_element(By.CSS_SELECTOR, "#bulk button[type=submit]")
    action = driver.find_element(By.ID, "bulk-action")
    assert not driver.find_element(By.ID, "bulk").is_displayed()  # nothing ticked: no bar
    assert not driver.find_element(By.ID, "to-group").is_displayed() or action.get_attribute(
        "value") == "group"
    driver.find_element(By.CSS_SELECTOR, ".list-filter").send_keys("activity 01")
    shown = [li for li in driver.find_elements(By.CSS_SELECTOR, ".picks li") if li.is_displayed()]
    assert len(shown) == 10
    assert driver.find_element(By.CSS_SELECTOR, ".pick-group .count").text == "10 of 150"
    pick_all = next(b for b in driver.find_elements(By.CSS_SELECTOR, ".pick-all")
                    if b.is_displayed())
    click(driver, pick_all)
    assert driver.find_element(By.ID, "picked").text == "10 selected"
    assert tappable(driver, action) and apply.is_enabled()
    search = driver.find_element(By.CSS_SELECTOR, ".list-filter")
    search.send_keys(Keys.BACKSPACE, "2")  # "activity 02": the ten ticked are out of sight
    assert driver.find_element(By.ID, "picked").text == \
        "10 selected (10 not shown by the filter)"
    search.send_keys(Keys.BACKSPACE, "1")
    assert tappable(driver, apply)
    driver.find_element(By.CSS_SELECTOR, "#to-group input").send_keys("Evenings")
    screenshot(driver, "settings-activities-bulk-phone-light")
    as_a_phone(driver, 390, 844)
    page = driver.find_element(By.TAG_NAME, "html")
    apply.click()
    WebDriverWait(driver, 10).until(lambda d: replaced(page))
    assert "Moved 10 activities to the group." in driver.page_source
    grouped = [a["name"] for a in http("GET", pia.url + "/api/activities",
                                       headers=api_session(pia.url, "pia"))[2]["activities"]
               if a["group"] == "Evenings"]
    assert grouped == [f"activity {i:03d}" for i in range(10, 20)]
    assert console_errors(driver) == []


def test_activity_groups_fold_and_stay_folded_on_this_device(pia, window):
    """SPEC §10: groups collapsible, remembered; a group holding a ticked activity opens."""
    create_user(pia, "gus")
    auth = api_session(pia.url, "gus")
    for name, group in (("run", "Sport"), ("swim", "Sport"), ("friends", "Social"),
                        ("family", "Social")):
        http("POST", pia.url + "/api/activities", {"name": name, "group": group}, auth)
    entry = http("POST", pia.url + "/api/entries", {"mood": 4, "activities": ["swim"]},
                 auth)[2]
    driver = window((390, 844))
    as_a_phone(driver, 390, 844)
    login_by_cookie(driver, pia.url, "gus")

    def groups() -> dict:
        return {g.find_element(By.TAG_NAME, "summary").text.split()[0]: g.get_attribute("open")
                is not None for g in driver.find_elements(By.CSS_SELECTOR, "details.activity-group")}

    assert groups() == {"Social": True, "Sport": True}
    sport = driver.find_element(By.CSS_SELECTOR,
                                "details.activity-group[data-remember='group:Sport'] summary")
    click(driver, sport)
    assert groups() == {"Social": True, "Sport": False}
    driver.get(pia.url + "/")
    assert groups() == {"Social": True, "Sport": False}
    shown = [label.text for label in driver.find_elements(By.CSS_SELECTOR, ".chips label")
             if label.is_displayed()]
    assert shown == ["family", "friends"]
    driver.get(pia.url + f"/entries/{entry['id']}/edit")  # swim is ticked: Sport opens
    assert groups() == {"Social": True, "Sport": True}
    driver.get(pia.url + "/")
    assert groups() == {"Social": True, "Sport": False}
    assert console_errors(driver) == []


def test_a_field_focused_under_the_save_bar_is_brought_into_view(pia, window):
    """WCAG 2.4.11: the keyboard's focus is never hidden by the bars at the bottom (the page's
    scroll-padding tells the browser how much of the screen they cover)."""
    driver = window((390, 844))
    as_a_phone(driver, 390, 844)
    login_by_cookie(driver, pia.url, "pia")
    driver.get(pia.url + "/")
    field = driver.find_element(By.NAME, "new_activities")
    bar_top = driver.execute_script(
        "return document.querySelector('#entry-form .save-bar').getBoundingClientRect().top")
    assert driver.execute_script("return arguments[0].getBoundingClientRect().bottom",
                                 field) > bar_top  # as the page opens: under the bar
    driver.execute_script("arguments[0].focus()", field)
    WebDriverWait(driver, 5).until(lambda d: d.execute_script("""
        const bar = document.querySelector('#entry-form .save-bar').getBoundingClientRect();
        const box = arguments[0].getBoundingClientRect();
        return box.top >= 0 && box.bottom <= bar.top;""", field))
