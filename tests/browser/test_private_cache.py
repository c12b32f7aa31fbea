"""A shared browser never shows the last person's photos (issue #36.2). In Chromium, a photo
kept for a year was shown from the cache after logging out, and handed to the next person's
`fetch` with a 200. Now it is kept only to be asked for again, and logging out clears the
site's HTTP cache."""

from __future__ import annotations

import sqlite3

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from tests import images
from tests.browser.conftest import (
    PHONE,
    api_session,
    click,
    create_user,
    follow,
    login,
)
from tests.helpers import http

FETCH = """
    const [url, cache, done] = arguments;
    fetch(url, {cache, mode: "same-origin"}).then(
        (r) => done({status: r.status, type: r.headers.get("Content-Type")}),
        (e) => done({error: String(e)}));
"""


@pytest.fixture(scope="module")
def household(app_stack):
    create_user(app_stack, "alice")
    create_user(app_stack, "bob")
    return app_stack


def add_photo(driver, stack, tmp_path) -> str:
    """Alice picks a photo on the edit page of a new entry; the photo's URL."""
    auth = api_session(stack.url, "alice")
    entry = http("POST", stack.url + "/api/entries", {"mood": 4, "note": "private"}, auth)[2]["id"]
    path = tmp_path / "IMG_0001.jpg"
    path.write_bytes(images.phone_jpeg(640, 480))
    driver.get(f"{stack.url}/entries/{entry}/edit")
    driver.find_element(By.ID, "photo-files").send_keys(str(path))
    follow(driver, driver.find_element(By.CSS_SELECTOR, "#photos form[enctype] button[type=submit]"))
    [photo] = http("GET", f"{stack.url}/api/entries/{entry}", None, auth)[2]["photos"]
    return photo["url"]


def shows_the_photo(driver) -> bool:
    return driver.execute_script("return document.contentType").startswith("image/")


def log_out(driver, url: str) -> None:
    driver.get(url + "/logout")
    click(driver, driver.find_element(By.CSS_SELECTOR, "#logout-form button[type=submit]"))
    WebDriverWait(driver, 10).until(lambda d: "/login" in d.current_url)


def test_after_logging_out_nobody_sees_the_photo_from_the_cache(household, window, tmp_path):
    driver = window(PHONE)
    login(driver, household.url, "alice")
    photo = add_photo(driver, household, tmp_path)
    driver.get(household.url + photo)
    assert shows_the_photo(driver)
    log_out(driver, household.url)
    # The cache was cleared: not even a stale copy is left to show without asking.
    assert "error" in driver.execute_async_script(FETCH, photo, "only-if-cached")
    driver.get(household.url + photo)
    assert not shows_the_photo(driver) and "/login" in driver.current_url
    login(driver, household.url, "bob")
    assert driver.execute_async_script(FETCH, photo, "default")["status"] == 404


def test_a_session_that_ended_without_logging_out_leaves_no_photo_to_the_next_person(
        household, window, tmp_path):
    driver = window(PHONE)
    login(driver, household.url, "alice")
    photo = add_photo(driver, household, tmp_path)
    driver.get(household.url + photo)
    assert shows_the_photo(driver)
    with sqlite3.connect(household.env["KMOOD_DB"]) as conn:  # her session expires
        conn.execute("DELETE FROM sessions WHERE user_id = (SELECT id FROM users"
                     " WHERE username = 'alice')")
    driver.get(household.url + photo)
    assert not shows_the_photo(driver) and "/login" in driver.current_url
    login(driver, household.url, "bob")
    answer = driver.execute_async_script(FETCH, photo, "default")
    assert answer["status"] == 404 and not answer["type"].startswith("image/")
