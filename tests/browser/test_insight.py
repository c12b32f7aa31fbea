"""Year in pixels and stats in a real browser (issue #10)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

from tests.browser.conftest import (
    DESKTOP,
    PHONE,
    api_session,
    click,
    console_errors,
    create_user,
    entry_cards,
    follow,
    login_by_cookie,
    look,
    overflowing,
    screenshot,
    store_insights,
    today_of,
    violations,
    years_before,
)
from tests.helpers import http, wait_until


@pytest.fixture(scope="module")
def cara(app_stack):
    create_user(app_stack, "cara")
    auth = api_session(app_stack.url, "cara")
    start = today_of() - timedelta(days=120)
    for i in range(0, 120, 2):
        http("POST", app_stack.url + "/api/entries", {
            "mood": [3, 4, 5, 2, 4, 3, 1][i % 7], "activities": [["walk"], ["work"], []][i % 3],
            "occurred_at": f"{start + timedelta(days=i)}T{9 + i % 12:02d}:00:00"}, auth)
    for days in (7 * 365, 7 * 365 - 30, 7 * 365 - 41):  # isolated entries, years before (#39)
        http("POST", app_stack.url + "/api/entries", {
            "mood": 4, "occurred_at": f"{start - timedelta(days=days)}T09:00:00"}, auth)
    return app_stack


def test_a_back_dated_entry_is_found_in_the_year_view_by_clicking_its_day(cara, window):
    driver = window(PHONE)
    login_by_cookie(driver, cara.url, "cara")
    last_month = (today_of().replace(day=1) - timedelta(days=1)).replace(day=13)
    click(driver, driver.find_element(By.CSS_SELECTOR, "label[for=mood-5]"))
    driver.find_element(By.NAME, "note").send_keys("back-dated birthday")
    field = driver.find_element(By.NAME, "date")
    driver.execute_script("arguments[0].value = arguments[1]", field, last_month.isoformat())
    click(driver, driver.find_element(By.CSS_SELECTOR, "#entry-form button[type=submit]"))
    WebDriverWait(driver, 10).until(EC.url_contains("done=logged"))
    driver.get(f"{cara.url}/calendar?year={last_month.year}")
    day = driver.find_element(By.CSS_SELECTOR, f"a[href='/days/{last_month}']")
    screenshot(driver, "calendar-phone-light")
    follow(driver, day)
    WebDriverWait(driver, 10).until(EC.url_contains(f"/days/{last_month}"))
    assert any("back-dated birthday" in card.text for card in entry_cards(driver))
    assert console_errors(driver) == []


# The sizes and schemes each page is seen in, with the names its screenshots have kept.
LOOKS = [(PHONE, False, "phone-light"), (PHONE, True, "phone-dark"),
         ((320, 700), False, "phone320-light"), ((320, 700), True, "phone320-dark"),
         (DESKTOP, False, "desktop-light"), (DESKTOP, True, "desktop-dark")]
PHONE_AND_DESKTOP = [one for one in LOOKS if one[0] != (320, 700)]


def test_the_stats_page_shows_its_charts(cara, window):
    """Stats and the year, each loaded once and seen on a phone and a desktop, light and dark."""
    driver = window(PHONE)
    look(driver, *PHONE_AND_DESKTOP[0][:2])
    login_by_cookie(driver, cara.url, "cara")
    driver.get(cara.url + "/stats?range=365")
    for size, dark, variant in PHONE_AND_DESKTOP:
        look(driver, size, dark)
        charts = driver.find_elements(By.CSS_SELECTOR, "svg.chart")
        assert len(charts) == 4, variant
        assert all(c.size["width"] > 250 for c in charts), variant  # readable on a 390 px phone
        assert driver.find_elements(By.CSS_SELECTOR, "table.data tbody tr"), variant
        screenshot(driver, f"stats-{variant}")
    look(driver, *LOOKS[0][:2])
    driver.get(cara.url + "/stats?range=all")  # the chart starts where the history does
    for size, dark, variant in LOOKS:
        look(driver, size, dark)
        note = driver.find_element(By.CSS_SELECTOR, ".chart-note")
        assert note.text.startswith("3 earlier entries from ") and note.text.endswith(
            ", before a gap of 7 years, are not drawn."), (variant, note.text)
        assert overflowing(driver) == [], variant
        screenshot(driver, f"stats-all-{variant}")
    look(driver, *PHONE_AND_DESKTOP[0][:2])
    driver.get(cara.url + "/calendar")
    for size, dark, variant in PHONE_AND_DESKTOP:
        look(driver, size, dark)
        screenshot(driver, f"calendar-{variant}")
    assert console_errors(driver) == []


@pytest.fixture(scope="module")
def ivy(app_stack):
    """Three years of days with a planted effect (running), cold days, a sleep metric and 30
    activities of noise, written straight into the server's database file."""
    from kmood_lib.core import db
    from tests.insight_data import Plan, plant

    create_user(app_stack, "ivy")
    conn = db.connect(app_stack.env["KMOOD_DB"], 10_000)
    try:
        uid = conn.execute("SELECT id FROM users WHERE username = 'ivy'").fetchone()[0]
        plant(conn, uid, seed=7, plan=Plan(noise=30, sleep=True, entries_per_day=(1, 1, 2)),
              last=today_of() - timedelta(days=1))
        for years in (1, 2):  # on this day (on 29 February only leap years have one)
            day = years_before(today_of(), years)
            if day is None:
                continue
            conn.execute("UPDATE entries SET note_title = ?, note = ? WHERE user_id = ? AND"
                         " local_date = ?", (f"{years} year{'s' if years > 1 else ''} back",
                                             "Walked by the river after work.", uid,
                                             day.isoformat()))
    finally:
        conn.close()
    store_insights(app_stack.env, "ivy")  # as the worker would after a change it was told of
    return app_stack


def test_the_insights_page_shows_each_finding_with_its_interval(ivy, window):
    """Reached from Stats once, its method opened once, and seen at a phone's 390 and 320 px
    and on a desktop, light and dark."""
    driver = window(PHONE)
    look(driver, *LOOKS[0][:2])
    login_by_cookie(driver, ivy.url, "ivy")
    driver.get(ivy.url + "/stats?range=all")  # Insights opens on the range Stats is on
    follow(driver, driver.find_element(By.CSS_SELECTOR, "a[href='/insights?range=all']"))
    method = driver.find_element(By.CSS_SELECTOR, "details.method")
    click(driver, method.find_element(By.TAG_NAME, "summary"))
    for size, dark, variant in LOOKS:
        look(driver, size, dark)
        cards = driver.find_elements(By.CSS_SELECTOR, "li.finding")
        names = [c.find_element(By.TAG_NAME, "h3").text.split()[0] for c in cards]
        assert names[0] == "running" and "sleep" in names, variant  # the planted ones
        assert "On days you logged running" in driver.find_element(By.TAG_NAME, "main").text, \
            variant
        for card in cards:
            chart = card.find_element(By.CSS_SELECTOR, "svg.chart")
            assert chart.size["width"] >= 240, variant  # its labels readable on a 320 px phone
        assert "Benjamini–Hochberg" in method.text, variant
        assert overflowing(driver) == [], variant
        assert violations(driver) == [], variant  # axe-core, with the method opened
        screenshot(driver, f"insights-{variant}")
    assert console_errors(driver) == []


def test_the_insights_page_works_without_javascript(ivy, window):
    driver = window(PHONE, javascript=False)
    login_by_cookie(driver, ivy.url, "ivy")
    driver.get(ivy.url + "/insights?range=365")
    assert driver.find_elements(By.CSS_SELECTOR, "li.finding")
    assert driver.find_element(By.CSS_SELECTOR, "nav.ranges a[aria-current=page]").text == (
        "Last year")
    click(driver, driver.find_element(By.CSS_SELECTOR, "details.method summary"))
    assert "resamples" in driver.find_element(By.CSS_SELECTOR, "details.method").text


def stored_ranges(stack, username: str) -> dict[str, int]:
    """The ranges the worker has stored for a person, each with its journal version."""
    from kmood_lib.core import db

    conn = db.connect(stack.env["KMOOD_DB"], 10_000)
    try:
        return dict(conn.execute(
            "SELECT s.range, s.version FROM stored_insights s JOIN users u ON u.id = s.user_id"
            " WHERE u.username = ?", (username,)).fetchall())
    finally:
        conn.close()


def test_after_a_change_the_page_shows_the_stored_insights_as_updating_until_the_worker_is_done(
        ivy, window):
    """The worker's stored result is shown at once after a change, with a note, and replaced
    by the new one once the worker (queued by the visit itself) has computed it."""
    from kmood_lib.core import db

    driver = window(PHONE)
    login_by_cookie(driver, ivy.url, "ivy")
    before = stored_ranges(ivy, "ivy")
    assert len(before) == 3
    conn = db.connect(ivy.env["KMOOD_DB"], 10_000)
    try:  # a change the server did not see: no job is queued for it
        conn.execute("UPDATE journal_versions SET version = version + 1 WHERE user_id ="
                     " (SELECT id FROM users WHERE username = 'ivy')")
    finally:
        conn.close()
    driver.get(ivy.url + "/insights?range=all")
    notice = driver.find_element(By.ID, "insights-updating")
    assert "on their way" in notice.text
    assert driver.find_elements(By.CSS_SELECTOR, "li.finding")  # the stored ones, at once
    for size, dark, variant in LOOKS[:4]:
        look(driver, size, dark)
        assert overflowing(driver) == [], variant
        assert violations(driver) == [], variant
        screenshot(driver, f"insights-updating-{variant}", whole_page=False)
    wait_until(lambda: min(stored_ranges(ivy, "ivy").values()) > max(before.values()), 60,
               interval=0.2, what="the worker storing the newer result")
    driver.get(ivy.url + "/insights?range=all")
    assert not driver.find_elements(By.ID, "insights-updating")
    assert driver.find_elements(By.CSS_SELECTOR, "li.finding")
