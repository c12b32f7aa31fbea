"""Settings and admin pages in a real browser (issue #10)."""

from __future__ import annotations

import random

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

from kmood_lib.core import db
from kmood_lib.queue import jobs, sweeps
from tests.browser.conftest import (
    DESKTOP,
    PASSWORD,
    PHONE,
    Stack,
    api_session,
    click,
    console_errors,
    create_user,
    entry_cards,
    follow,
    login_by_cookie,
    look,
    running_stack,
    screenshot,
)
from tests.entry import TEST_KINDS
from tests.helpers import http, multipart
from tests.images import noise_png


def submit(driver, form_selector: str) -> None:
    follow(driver, driver.find_element(By.CSS_SELECTOR, f"{form_selector} button[type=submit]"))


def test_a_renamed_mood_label_shows_on_the_log_form(app_stack, window):
    create_user(app_stack, "dana")
    driver = window(PHONE)
    login_by_cookie(driver, app_stack.url, "dana")
    follow(driver, driver.find_element(By.LINK_TEXT, "Settings"))
    follow(driver, driver.find_element(By.LINK_TEXT, "Mood labels"))
    field = driver.find_element(By.NAME, "label_5")
    field.clear()
    field.send_keys("on top of the world")
    submit(driver, "form[action='/settings/moods']")
    WebDriverWait(driver, 10).until(EC.url_contains("done=saved"))
    follow(driver, driver.find_element(By.LINK_TEXT, "Log"))
    assert "on top of the world" in driver.find_element(By.CSS_SELECTOR, "label[for=mood-5]").text
    assert console_errors(driver) == []


def test_an_api_token_is_shown_once(app_stack, window):
    create_user(app_stack, "eli")
    driver = window(DESKTOP)
    login_by_cookie(driver, app_stack.url, "eli")
    driver.get(app_stack.url + "/settings/tokens")
    driver.find_element(By.NAME, "name").send_keys("shortcut")
    submit(driver, "form[action='/settings/tokens']")
    secret = WebDriverWait(driver, 10).until(
        EC.presence_of_element_located((By.ID, "new-token"))).text
    assert secret.startswith("kmood_")
    assert http("GET", app_stack.url + "/api/me",
                headers={"Authorization": f"Bearer {secret}"})[2]["username"] == "eli"
    screenshot(driver, "token-created-desktop-light")
    driver.get(app_stack.url + "/settings/tokens")
    assert secret not in driver.page_source and "shortcut" in driver.page_source
    assert console_errors(driver) == []


def test_a_household_member_sees_none_of_the_admins_entries(app_stack, window):
    create_user(app_stack, "fran", admin=True)
    http("POST", app_stack.url + "/api/entries", {"mood": 5, "note": "fran's private note"},
         api_session(app_stack.url, "fran"))
    driver = window(PHONE)
    login_by_cookie(driver, app_stack.url, "fran")
    driver.get(app_stack.url + "/settings/users")
    driver.find_element(By.NAME, "username").send_keys("gus")
    driver.find_element(By.CSS_SELECTOR, "form[action='/settings/users'] [name=password]"
                        ).send_keys(PASSWORD)
    submit(driver, "form[action='/settings/users']")
    WebDriverWait(driver, 10).until(EC.url_contains("done=created"))
    assert "gus" in driver.find_element(By.TAG_NAME, "main").text
    screenshot(driver, "household-phone-light")
    assert console_errors(driver) == []
    login_by_cookie(driver, app_stack.url, "gus")  # the same phone, handed to the new member
    driver.get(app_stack.url + "/entries")
    assert entry_cards(driver) == [] and "fran's private note" not in driver.page_source
    driver.get(app_stack.url + "/admin/jobs")
    assert "403" in driver.title


def test_an_admin_sees_the_queue_and_retries_an_exhausted_job(tmp_path, window):
    stack = Stack(tmp_path).start(worker=False)  # nothing may claim the job behind our back
    create_user(stack, "hal", admin=True)
    conn = db.connect(str(tmp_path / "kmood.db"), 10_000)
    kinds, policy = sweeps.JobKinds(TEST_KINDS), jobs.Policy(
        max_attempts=1, lease_ms=60_000, backoff_base_s=1, backoff_cap_s=1, cooldown_ms=0,
        retention_ms=0)
    conn.execute("CREATE TABLE IF NOT EXISTS test_work (id INTEGER PRIMARY KEY,"
                 " behaviour TEXT NOT NULL DEFAULT 'ok', done_at INTEGER)")
    sweeps.enqueue(conn, kinds, "test_work", "work:1", {"id": 1}, 0, policy)
    claimed = jobs.claim(conn, "test-worker", 0, 1, 60_000)
    jobs.fail(conn, claimed[0], "test-worker", "upstream answered 503", 0, policy,
              random.Random(1))
    assert jobs.list_jobs(conn, "exhausted")
    driver = window(DESKTOP)
    login_by_cookie(driver, stack.url, "hal")
    follow(driver, driver.find_element(By.LINK_TEXT, "Settings"))
    follow(driver, driver.find_element(By.LINK_TEXT, "Jobs"))
    main = driver.find_element(By.TAG_NAME, "main").text
    assert "upstream answered 503" in main and "exhausted" in main
    assert "No background worker is running." in main  # this stack runs no worker
    assert "No worker has ever run against this database." in main
    screenshot(driver, "jobs-desktop-light")
    look(driver, PHONE, True)  # the admin on a phone in dark
    driver.get(stack.url + "/")
    alert = driver.find_element(By.CSS_SELECTOR, "main [role=alert]")
    assert "kmood_worker.py" in alert.text
    screenshot(driver, "no-worker-banner-phone-dark")
    follow(driver, alert.find_element(By.LINK_TEXT, "Jobs and workers"))
    assert driver.current_url.endswith("/admin/jobs")
    look(driver, DESKTOP, False)  # and back at the desk, on the page the banner led to
    click(driver, driver.find_element(By.CSS_SELECTOR, "form[action$='/retry'] button"))
    WebDriverWait(driver, 10).until(EC.url_contains("done=retried"))
    assert "Queued to run again." in driver.page_source
    assert jobs.list_jobs(conn)[0]["status"] == "queued"
    conn.close()
    assert console_errors(driver) == []
    assert stack.stop() == {"server": 0}


@pytest.fixture(scope="module")
def app_stack(tmp_path_factory):
    """This module's server and worker, with a storage quota for Settings to show."""
    yield from running_stack(tmp_path_factory, KMOOD_STORAGE_QUOTA_BYTES="52428800")


SETTINGS_PAGES = [("settings-profile", "/settings"), ("settings-moods", "/settings/moods"),
                  ("settings-activities", "/settings/activities"),
                  ("settings-metrics", "/settings/metrics"), ("settings-tokens", "/settings/tokens"),
                  ("settings-household", "/settings/users"), ("admin-jobs", "/admin/jobs")]


@pytest.fixture(scope="module")
def ivy(app_stack):
    create_user(app_stack, "ivy", admin=True)
    auth = api_session(app_stack.url, "ivy")
    http("POST", app_stack.url + "/api/metrics", {"name": "sleep", "unit": "h", "min": 0,
                                                  "max": 24}, auth)
    for name, group in (("running", "sport"), ("friends", "social"), ("reading", None)):
        http("POST", app_stack.url + "/api/activities", {"name": name, "group": group}, auth)
    http("POST", app_stack.url + "/api/tokens", {"name": "phone"}, auth)
    status, _, entry = http("POST", app_stack.url + "/api/entries", {"mood": 4}, auth)
    body, content_type = multipart({}, {"photo": noise_png(900, 700)})
    assert http("POST", f"{app_stack.url}/api/entries/{entry['id']}/photos", body,
                {**auth, "Content-Type": content_type})[0] == 201
    return app_stack


# The sizes and schemes each page is seen in, with the names its screenshots have kept. The
# phone comes first: Settings' row of sections is scrolled to the open one when the page loads
# (settings_nav.js) at a phone's width, and on a desktop there is nothing to scroll.
LOOKS = [(PHONE, False, "phone-light"), (PHONE, True, "phone-dark"),
         (DESKTOP, False, "desktop-light"), (DESKTOP, True, "desktop-dark")]


def test_screenshots_of_the_settings_pages(ivy, window):
    """Each page loaded once and seen on a phone and a desktop, light and dark."""
    driver = window(PHONE)
    look(driver, *LOOKS[0][:2])
    login_by_cookie(driver, ivy.url, "ivy")
    for name, path in SETTINGS_PAGES:
        look(driver, *LOOKS[0][:2])
        driver.get(ivy.url + path)
        for size, dark, variant in LOOKS:
            look(driver, size, dark)
            assert driver.find_element(By.TAG_NAME, "h1").text == "Settings", (path, variant)
            if path == "/settings":
                shown = driver.find_element(By.ID, "storage").find_element(By.XPATH,
                                                                           "following::div")
                assert "of 52 MB" in shown.text and "left" in shown.text, variant
            screenshot(driver, f"{name}-{variant}")
    assert console_errors(driver) == []
