"""Honest offline pages and compact chrome (issue #38, items 5-7 and part of 9), in headless
Chromium against the real server: offline, History, Year, Stats, Insights and Settings say
that the connection is missing, under their own address, through the real service worker;
the log page offline works as before and its waiting list shows each note's first line.
Online, with three years of imported history: every folding section shows a chevron and
says whether it is open, Settings' sections are one scrolling row with the open one in view,
averages carry their mood, and axe finds nothing at 320 and 390 px, light and dark."""

from __future__ import annotations

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from tests.browser.conftest import (
    as_a_phone,
    click,
    console_errors,
    create_user,
    login_by_cookie,
    look,
    overflowing,
    screenshot,
    violations,
)
from tests.browser.test_offline import gone, installed, network, put_form, waiting
from tests.e2e.conftest import Stack

NEEDS_THE_SERVER = {"/entries": "History", "/calendar": "Year", "/stats": "Stats",
                    "/insights": "Stats", "/settings": "Settings",
                    "/settings/reminders": "Settings"}


def kept_offline_page(driver) -> bool:
    return driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        caches.match("/offline").then((found) => done(found !== undefined));
    """)


def test_offline_pages_that_need_the_server_say_so_and_the_log_page_still_logs(
        window, tmp_path):
    stack = Stack(tmp_path).start(worker=False)
    try:
        create_user(stack, "noa")
        driver = window((390, 844))
        as_a_phone(driver, 390, 844)
        login_by_cookie(driver, stack.url, "noa")
        installed(driver, stack.url)
        driver.get(stack.url + "/")  # the log page as it opens plain: kept, the offline page too
        WebDriverWait(driver, 10).until(kept_offline_page)
        put_form(driver, [("mood", "2"), ("note", "\n  Missed the last train home\nand then"
                                                  " walked for an hour")])
        put_form(driver, [("mood", "4"), ("note_title", "Lunch"), ("note", "Soup with Ada")])

        gone(driver, stack)
        for path, tab in NEEDS_THE_SERVER.items():
            driver.get(stack.url + path)
            heading = driver.find_element(By.TAG_NAME, "h1").text
            assert heading == "No connection", (path, heading)
            assert driver.current_url == stack.url + path  # under its own address
            assert not driver.find_elements(By.ID, "entry-form"), path
            main = driver.find_element(By.ID, "main")
            assert "cannot be reached from this device" in main.text
            count = WebDriverWait(driver, 10).until(
                lambda d: d.find_element(By.ID, "offline-waiting").text)
            assert count == "2 entries are waiting on this device to be sent.", path
            log = driver.find_element(By.LINK_TEXT, "Log an entry")
            assert log.get_attribute("href") == stack.url + "/"
            current = driver.find_element(By.CSS_SELECTOR, ".tabs a[aria-current=page]")
            assert current.text == tab, path
            assert driver.find_element(By.ID, "offline-retry").get_attribute(
                "href") == stack.url + path
        status = driver.execute_script(
            "return performance.getEntriesByType('navigation')[0].responseStatus")
        assert status == 503  # as the server would answer when it cannot
        driver.get(stack.url + "/stats")  # loaded once, seen at 390 and 320 px, light and dark
        WebDriverWait(driver, 10).until(
            lambda d: d.find_element(By.ID, "offline-waiting").is_displayed())
        for width, scheme in ((390, "light"), (320, "light"), (390, "dark"), (320, "dark")):
            look(driver, (width, 844), scheme == "dark")
            assert driver.find_element(By.ID, "offline-waiting").is_displayed(), (width, scheme)
            assert overflowing(driver) == [], (width, scheme)
            assert violations(driver) == [], (width, scheme)
            screenshot(driver, f"offline-stats-{width}-{scheme}")

        look(driver, (390, 844), True)
        driver.get(stack.url + "/")  # the log page itself: the copy, its form, what waits
        assert driver.find_elements(By.ID, "entry-form")
        panel = driver.find_element(By.ID, "outbox")
        WebDriverWait(driver, 10).until(lambda d: "Waiting to sync (2)" in panel.text)
        lines = [p.text for p in panel.find_elements(By.CSS_SELECTOR, ".note-line")]
        assert sorted(lines) == ["Missed the last train home", "Soup with Ada"]
        assert "walked for an hour" not in panel.text  # the first line only
        screenshot(driver, "offline-outbox-notes-390-dark")
        click(driver, driver.find_element(By.CSS_SELECTOR, "label[for=mood-5]"))
        click(driver, driver.find_element(By.CSS_SELECTOR,
                                          "#entry-form .save-bar button[type=submit]"))
        waiting(driver, 3)  # logging offline works as it did
        network(driver, online=True)
        assert [m for m in console_errors(driver) if "ERR_" not in m
                and "Failed to load resource" not in m] == []
    finally:
        stack.stop()


def test_nothing_offline_without_a_kept_page_says_where_to_log(window, tmp_path):
    """Logged out since (the kept pages are forgotten at logout), offline: a page that needs
    the server is a plain 'not reachable' page, not someone's log form."""
    stack = Stack(tmp_path).start(worker=False)
    try:
        create_user(stack, "ivo")
        driver = window((390, 844))
        login_by_cookie(driver, stack.url, "ivo")
        installed(driver, stack.url)
        WebDriverWait(driver, 10).until(kept_offline_page)
        driver.get(stack.url + "/logout")
        click(driver, driver.find_element(By.CSS_SELECTOR, "#logout-form button[type=submit]"))
        WebDriverWait(driver, 10).until(lambda d: "/login" in d.current_url)
        assert not kept_offline_page(driver)
        gone(driver, stack)
        driver.get(stack.url + "/entries")
        assert driver.find_element(By.TAG_NAME, "h1").text == "k-mood is not reachable"
        assert "needs the server" in driver.find_element(By.TAG_NAME, "body").text
        assert not driver.find_elements(By.ID, "entry-form")
        assert "ivo" not in driver.page_source
    finally:
        stack.stop()


def ax_disclosure(driver, name: str) -> dict:
    """The accessibility tree's node of the summary named `name`: its role and whether it
    says it is expanded (what a screen reader announces)."""
    driver.execute_cdp_cmd("Accessibility.enable", {})
    nodes = driver.execute_cdp_cmd("Accessibility.getFullAXTree", {})["nodes"]
    for node in nodes:
        if (node.get("name") or {}).get("value") == name and not node.get("ignored"):
            properties = {p["name"]: p["value"].get("value") for p in node.get("properties", [])}
            return {"role": node["role"]["value"], "expanded": properties.get("expanded")}
    raise AssertionError(f"no node named {name!r}")


def chevron(driver, summary) -> str:
    """The marker drawn before a summary: its transform (a turned chevron), or 'none'."""
    return driver.execute_script("""
        const style = getComputedStyle(arguments[0], "::before");
        return style.content === "none" || style.borderRightWidth === "0px"
          ? "none" : style.transform;
    """, summary)


LOOKS = [((390, 844), False), ((390, 844), True), ((320, 844), False), ((320, 844), True)]


def test_chevrons_one_row_of_settings_and_averages_with_their_mood(pia, window):
    """With three years of imported history, at 390 and 320 px, light and dark: each page
    loaded once (Settings once a width: its row is scrolled to the open section as it loads)
    and seen in every size and scheme."""
    driver = window((390, 844))
    driver.set_script_timeout(60)
    look(driver, *LOOKS[0])
    login_by_cookie(driver, pia.url, "pia")
    problems = {}

    for width in (390, 320):
        look(driver, (width, 844), False)
        driver.get(pia.url + "/settings/import")  # a section far along the row
        nav = driver.find_element(By.CSS_SELECTOR, "nav.settings-nav")
        links = nav.find_elements(By.TAG_NAME, "a")
        for dark in (False, True):
            look(driver, (width, 844), dark)
            seen_in_row(driver, nav, links, width, dark)
        links[0].send_keys("")  # focus the first, then Tab along the row to the last
        for _ in links[1:]:
            driver.switch_to.active_element.send_keys(Keys.TAB)
        for dark in (False, True):
            look(driver, (width, 844), dark)
            variant = f"{width}-{'dark' if dark else 'light'}"
            assert driver.switch_to.active_element == links[-1], variant
            # the keyboard brought it into view
            assert driver.execute_script(IN_ROW, nav, links[-1]), variant
            problems["/settings/import", variant] = violations(driver)

    look(driver, *LOOKS[0])
    driver.get(pia.url + "/stats")
    for size, dark in LOOKS:
        look(driver, size, dark)
        variant = f"{size[0]}-{'dark' if dark else 'light'}"
        summary = driver.find_element(By.XPATH, "//p[contains(., 'average mood')]"
                                                "//span[@class='average']")
        number, label = summary.text.split(None, 1)
        assert float(number) and label in ("awful", "bad", "meh", "good", "rad"), (
            variant, summary.text)
        table = driver.find_element(By.CSS_SELECTOR, "#activities ~ .table-wrap")
        assert table.find_elements(By.CSS_SELECTOR, "td.num .average svg.face"), variant
        problems["/stats", variant] = violations(driver)  # axe's scrollable-region-focusable at 320
        assert overflowing(driver) == [], variant
        screenshot(driver, f"stats-averages-{variant}")

    look(driver, *LOOKS[0])
    driver.get(pia.url + "/insights")
    method = driver.find_element(By.XPATH, "//summary[.='How is this computed?']")
    closed = {}
    for size, dark in LOOKS:
        look(driver, size, dark)
        variant = f"{size[0]}-{'dark' if dark else 'light'}"
        closed[variant] = chevron(driver, method)
        assert closed[variant] != "none", variant
        if (size[0], dark) == (390, False):
            assert ax_disclosure(driver, "How is this computed?") == {
                "role": "DisclosureTriangle", "expanded": False}
    look(driver, *LOOKS[0])
    click(driver, method)
    for size, dark in LOOKS:
        look(driver, size, dark)
        variant = f"{size[0]}-{'dark' if dark else 'light'}"
        WebDriverWait(driver, 5).until(  # turned (a short turn, then still)
            lambda d, before=closed[variant]: chevron(d, method) not in ("none", before))
        if (size[0], dark) == (390, False):
            assert ax_disclosure(driver, "How is this computed?") == {
                "role": "DisclosureTriangle", "expanded": True}
        problems["/insights", variant] = violations(driver)
        screenshot(driver, f"insights-averages-{variant}")

    look(driver, *LOOKS[0])
    driver.get(pia.url + "/entries")
    search = driver.find_element(  # its title goes on to say what is active (#38.4)
        By.XPATH, "//summary[starts-with(normalize-space(.), 'Search and filter')]")
    for size, dark in LOOKS:
        look(driver, size, dark)
        variant = f"{size[0]}-{'dark' if dark else 'light'}"
        assert chevron(driver, search) != "none", variant
        problems["/entries", variant] = violations(driver)
    assert {where: found for where, found in problems.items() if found} == {}
    assert console_errors(driver) == []


IN_ROW = ("const n = arguments[0].getBoundingClientRect(), c = arguments[1]"
          ".getBoundingClientRect(); return c.left >= n.left && c.right <= n.right;")


def seen_in_row(driver, nav, links, width: int, dark: bool) -> None:
    """Settings' sections as one row that scrolls, the open one in view, the page unmoved."""
    variant = f"{width}-{'dark' if dark else 'light'}"
    assert len({round(link.rect["y"]) for link in links}) == 1, variant  # one row, not four
    assert nav.rect["height"] < 60, (variant, nav.rect)  # was ~200 px at 390 (four rows of pills)
    print(f"settings nav at {width}: {nav.rect['height']:.0f} px high")
    current = nav.find_element(By.CSS_SELECTOR, "a[aria-current=page]")
    assert current.text == "Import & export"
    assert driver.execute_script("return arguments[0].scrollWidth > arguments[0].clientWidth",
                                 nav), variant  # it scrolls...
    assert driver.execute_script(IN_ROW, nav, current), variant  # ...and the open one is in view
    assert driver.execute_script("return window.scrollY") == 0, variant  # the page did not move
    screenshot(driver, f"settings-nav-{variant}", whole_page=False)
