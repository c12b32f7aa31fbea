"""The shared Chromium's windows (tests/browser/conftest.py `window`): a window handed to a
test holds nothing the window before it left — no login, no stored data, no service worker,
no cached response, no permission, no emulation, no timeout, no console message."""

from __future__ import annotations

from selenium.webdriver.common.by import By

from tests.browser.conftest import (
    PHONE,
    as_a_phone,
    console_errors,
    create_user,
    dark_media,
    login_by_cookie,
)

LEAVE = """
    const done = arguments[arguments.length - 1];
    localStorage.setItem("left", "behind");
    sessionStorage.setItem("left", "behind");
    document.cookie = "left=behind; path=/; max-age=3600";
    const opened = indexedDB.open("left-behind", 1);
    opened.onupgradeneeded = () => opened.result.createObjectStore("things");
    opened.onsuccess = () => {
      opened.result.close();
      caches.open("left-behind").then((cache) => cache.put("/left-behind", new Response("x")))
        .then(() => fetch("/static/style.css"))  // into the HTTP cache
        .then(() => done("ok"), (e) => done(String(e)));
    };
"""

FOUND = """
    const done = arguments[arguments.length - 1];
    Promise.all([
      indexedDB.databases().then((all) => all.map((d) => d.name)),
      caches.keys(),
      navigator.serviceWorker.getRegistrations().then((all) => all.map((r) => r.scope)),
      navigator.permissions.query({name: "geolocation"}).then((p) => p.state),
      fetch(arguments[0], {cache: "only-if-cached", mode: "same-origin"})
        .then((r) => "cached " + r.status, () => "not cached"),
    ]).then(([databases, caches, workers, geolocation, css]) => done({
      cookie: document.cookie, local: localStorage.length, session: sessionStorage.length,
      databases, caches, workers, geolocation, css,
      width: screen.width, agent: navigator.userAgent, touch: navigator.maxTouchPoints,
      dark: matchMedia("(prefers-color-scheme: dark)").matches,
      zone: Intl.DateTimeFormat().resolvedOptions().timeZone}),
      (e) => done({error: String(e)}));
"""


def found(driver, url: str) -> dict:
    """What this window holds for the app's origin, read on a page that runs no script of the
    app's (the page's own would register the service worker again)."""
    driver.get(url + "/healthz")
    return driver.execute_async_script(FOUND, url + "/static/style.css")


def test_a_window_holds_nothing_the_window_before_it_left(app_stack, shared_chromiums):
    create_user(app_stack, "wes")
    chromium = shared_chromiums[False]
    driver = chromium.open(PHONE)
    try:
        new = found(driver, app_stack.url)  # as a window opens: no emulation
        login_by_cookie(driver, app_stack.url, "wes")
        driver.execute_async_script("""  // the service worker installed, its caches filled
            navigator.serviceWorker.ready.then(arguments[arguments.length - 1]);""")
        assert driver.execute_async_script(LEAVE) == "ok"
        chromium.devtools.send("Browser.grantPermissions", origin=app_stack.url,
                               permissions=["geolocation"], browserContextId=chromium.context)
        as_a_phone(driver, 320)
        dark_media(driver)
        driver.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": "Asia/Kolkata"})
        driver.set_script_timeout(5)
        driver.execute_script("console.error('left behind')")
        before = found(driver, app_stack.url)
        # all of it is there while the window is open: what the next one must not see
        assert before["cookie"] == "left=behind" and before["local"] == 1
        assert before["session"] == 1 and "left-behind" in before["databases"]
        assert "left-behind" in before["caches"] and before["workers"]
        assert before["geolocation"] == "granted" and before["css"] == "cached 200"
        assert (before["width"], before["touch"], before["dark"]) == (320, 5, True)
        assert before["zone"] in ("Asia/Kolkata", "Asia/Calcutta")  # ICU's older name
        assert "Android" in before["agent"]
    finally:
        chromium.close()

    driver = chromium.open(PHONE)
    try:
        assert console_errors(driver) == []
        assert driver.timeouts.script == 30
        assert driver.get_cookies() == []
        after = found(driver, app_stack.url)
        assert after == new == {**after, "cookie": "", "local": 0, "session": 0,
                                "databases": [], "caches": [], "workers": [],
                                "geolocation": "prompt", "css": "not cached", "touch": 0,
                                "dark": False, "zone": "UTC"}
        assert after["width"] != 320 and "Android" not in after["agent"]
        driver.get(app_stack.url + "/")
        assert "/login" in driver.current_url  # not logged in
        assert driver.find_elements(By.NAME, "password")
    finally:
        chromium.close()
