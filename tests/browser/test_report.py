"""The report in a real browser (issue #42): Chromium prints three months of it to PDF and
poppler's pdftotext reads it back; a link made on the page opens it logged out, and revoked
it shows nothing; the report and Settings → Sharing fit a 320 px phone and pass axe."""

from __future__ import annotations

import base64
import re
import subprocess
from datetime import timedelta

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

from tests.browser.conftest import (
    api_session,
    click,
    console_errors,
    create_user,
    login_by_cookie,
    looked_at,
    today_of,
)
from tests.helpers import http

DAYS = 92  # three months, one entry a day; every fifth day has a second, longer one
PAPER = {"A4": (8.27, 11.69), "Letter": (8.5, 11.0)}
# A day is a heading and one or two entries (about 6 lines of 10.5 pt), the figures and
# charts about 3 pages: 92 days fit in well under 20 pages of either paper.
MOST_PAGES = 20


def note_of(day) -> str:
    return f"Day {day:%d %b}: slept, worked, walked by the canal"


@pytest.fixture(scope="module")
def rosa(app_stack):
    create_user(app_stack, "rosa")
    auth = api_session(app_stack.url, "rosa")
    start = today_of() - timedelta(days=DAYS - 1)
    for i in range(DAYS):
        day = start + timedelta(days=i)
        walk = i % 3 != 0
        http("POST", app_stack.url + "/api/entries", {
            "mood": 4 if walk else 2, "occurred_at": f"{day}T08:30:00",
            "activities": ["walk", "work"] if walk else ["work"], "note_title": f"Morning {i}",
            "note": note_of(day)}, auth)
        if i % 5 == 0:
            http("POST", app_stack.url + "/api/entries", {
                "mood": 3, "occurred_at": f"{day}T21:00:00", "activities": ["reading"],
                "note": "Evening. " + "A longer thought about the week, " * 6}, auth)
    return app_stack


def pdf_text(driver, tmp_path, paper: str) -> list[str]:
    """The open page printed to PDF on `paper` as Chromium prints it (CDP Page.printToPDF),
    read back by pdftotext: one text per page."""
    width, height = PAPER[paper]
    printed = driver.execute_cdp_cmd("Page.printToPDF", {
        "paperWidth": width, "paperHeight": height, "preferCSSPageSize": False,
        "printBackground": True})
    path = tmp_path / f"report-{paper}.pdf"
    path.write_bytes(base64.b64decode(printed["data"]))
    text = subprocess.run(["pdftotext", "-layout", str(path), "-"], capture_output=True,
                          text=True, timeout=60, check=True).stdout
    return text.split("\f")[:-1] if text.endswith("\f") else text.split("\f")


def page_of(pages: list[str], text: str) -> int:
    found = [i for i, page in enumerate(pages) if text in page]
    assert len(found) == 1, (text, found)
    return found[0]


def test_three_months_print_to_pdf_whole_and_unbroken(rosa, window, tmp_path):
    driver = window()
    login_by_cookie(driver, rosa.url, "rosa")
    driver.get(rosa.url + "/stats?range=90")
    click(driver, driver.find_element(By.CSS_SELECTOR, "a[href='/report?range=90']"))
    click(driver, driver.find_element(By.CSS_SELECTOR, ".report-fold summary"))
    click(driver, driver.find_element(By.NAME, "entries"))
    click(driver, driver.find_element(By.CSS_SELECTOR, ".report-choice button[type=submit]"))
    WebDriverWait(driver, 10).until(EC.url_contains("entries=1"))
    assert driver.find_element(By.ID, "print-report").is_displayed()
    period = driver.find_element(By.CSS_SELECTOR, ".report-head .period strong").text
    average = driver.find_element(By.CSS_SELECTOR, ".figures .average").text.split()[0]
    days = [(day.find_element(By.TAG_NAME, "h3").text,
             [note.text for note in day.find_elements(By.CSS_SELECTOR, ".note")])
            for day in driver.find_elements(By.CSS_SELECTOR, ".report-day")]
    assert len(days) == 90 and sum(len(notes) for _, notes in days) == 108
    for paper in PAPER:
        pages = pdf_text(driver, tmp_path, paper)
        assert 3 <= len(pages) <= MOST_PAGES, (paper, len(pages))
        assert period in pages[0] and average in pages[0] and "Mood report" in pages[0]
        assert "History" not in pages[0]  # no navigation printed
        flat = [re.sub(r"\s+", " ", page) for page in pages]
        for heading, notes in days:
            # a day is never cut: its heading and each of its notes are on one page
            on = page_of(pages, heading)
            for note in notes:
                assert note[:60] in flat[on], (paper, heading, note[:60])
        for title, key in (("Mood over time", "monthly average"),
                           ("Activities with the clearest difference", "walk")):
            # a chart or table is on the page its heading is on
            assert key in pages[page_of(pages, title)].split(title, 1)[1], (paper, title)
        assert re.search(r"page 1 of \d+", pages[0]), paper  # the page's own margin box
        assert all(page.lstrip().startswith("Mood report, " + period) for page in pages[1:])
    assert console_errors(driver) == []


def test_a_link_shows_the_report_logged_out_until_it_is_revoked(rosa, window):
    driver = window()
    login_by_cookie(driver, rosa.url, "rosa")
    driver.get(rosa.url + "/report?range=30&entries=1")
    looked_at(driver, "report")
    driver.find_element(By.NAME, "name").send_keys("Dr. M.")
    click(driver, driver.find_element(By.CSS_SELECTOR, "#share button[type=submit]"))
    link = WebDriverWait(driver, 10).until(EC.presence_of_element_located((By.ID,
                                                                            "shared-link")))
    url = link.get_attribute("href")
    assert driver.find_element(By.ID, "copy-link").is_displayed()
    looked_at(driver, "settings-sharing")
    driver.delete_all_cookies()  # logged out: whoever was given the link
    driver.get(url)
    assert "Shared with Dr. M. until" in driver.find_element(By.CSS_SELECTOR, ".shared-note").text
    assert note_of(today_of()) in driver.page_source
    assert not driver.find_elements(By.CSS_SELECTOR, "nav, header.top, form")
    looked_at(driver, "report-shared")
    driver.get(rosa.url + "/entries")  # nothing else opens with it
    assert "/login" in driver.current_url
    login_by_cookie(driver, rosa.url, "rosa")
    driver.get(rosa.url + "/settings/sharing")
    click(driver, driver.find_element(By.CSS_SELECTOR, ".shared-links button[type=submit]"))
    WebDriverWait(driver, 10).until(EC.url_contains("done=link_revoked"))
    assert http("GET", url)[0] == 404
    assert console_errors(driver) == []
