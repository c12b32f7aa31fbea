"""Offline logging (issue #24, SPEC §12): the real service worker and IndexedDB outbox in
headless Chromium, against real server processes that go away and come back.

"Offline" is Chromium's own network emulation (DevTools protocol): the page's requests fail and
`navigator.onLine` is false. "Unreachable" is the server process stopped: the browser believes
it is online and the service worker has to catch the failed post."""

from __future__ import annotations

import shutil
import sqlite3
from datetime import datetime, timezone
from pathlib import Path

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from tests.browser.conftest import (
    PASSWORD,
    api_session,
    click,
    console_errors,
    create_user,
    login,
    login_by_cookie,
    replaced,
    screenshot,
)
from tests.e2e.conftest import Stack
from tests.helpers import ROOT, healthy, http, spawn, wait_until

INDIA = "Asia/Kolkata"  # +05:30 all year: a device offset no server default could produce


def network(driver, online: bool, latency_ms: int = 0) -> None:
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.emulateNetworkConditions", {
        "offline": not online, "latency": latency_ms, "downloadThroughput": -1,
        "uploadThroughput": -1})


def installed(driver, url: str) -> None:
    """The service worker controls the page (it claims its pages when it activates)."""
    driver.get(url + "/")
    try:  # a page that opened while the worker was still activating is not claimed: reload
        for _ in range(5):
            try:
                WebDriverWait(driver, 3).until(lambda d: d.execute_script(
                    "return !!navigator.serviceWorker.controller"))
                return
            except Exception:
                driver.get(url + "/")
        raise TimeoutError
    except Exception:
        raise AssertionError(driver.execute_async_script("""
            const done = arguments[arguments.length - 1];
            navigator.serviceWorker.getRegistrations().then((r) => done(r.map((x) => [
              x.scope, x.active && x.active.state, x.waiting && x.waiting.state,
              x.installing && x.installing.state])), (e) => done(String(e)));
        """), driver.current_url, console_errors(driver)) from None


def signed_in(open_browser, stack, name: str, **options):
    """A new person's browser (from `window` or `browser`), logged in, its pages under the
    service worker."""
    create_user(stack, name)
    driver = open_browser(**options)
    login_by_cookie(driver, stack.url, name)
    installed(driver, stack.url)
    return driver


def outbox(driver) -> list[dict]:
    """What waits in this browser's outbox, read from IndexedDB directly (any page)."""
    return driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        const req = indexedDB.open("kmood", 1);
        req.onupgradeneeded = () => req.result.createObjectStore("outbox", {keyPath: "client_id"})
          .createIndex("created", "created");
        req.onerror = () => done([{error: String(req.error)}]);
        req.onsuccess = () => {
          const all = req.result.transaction("outbox").objectStore("outbox").index("created").getAll();
          all.onsuccess = () => { req.result.close(); done(all.result); };
        };
    """)


def waiting(driver, n: int, timeout: float = 15) -> list[dict]:
    try:
        WebDriverWait(driver, timeout).until(lambda d: len(outbox(d)) == n)
    except Exception:
        raise AssertionError((outbox(driver), driver.current_url, console_errors(driver))) from None
    return outbox(driver)


def entries(stack, name: str) -> list[dict]:
    return http("GET", stack.url + "/api/entries?limit=500",
                headers=api_session(stack.url, name))[2]["entries"]


def log_entry(driver, mood: int, *, tick=(), new: str = "", title: str = "",
              when: tuple[str, str] | None = None) -> None:
    """Fill the log form as a thumb would and press Save."""
    click(driver, driver.find_element(By.CSS_SELECTOR, f"label[for=mood-{mood}]"))
    for name in tick:
        click(driver, driver.find_element(By.XPATH, f"//form[@id='entry-form']//label[.='{name}']"))
    if new:
        driver.find_element(By.NAME, "new_activities").send_keys(new)
    if title:
        driver.find_element(By.NAME, "note_title").send_keys(title)
    if when:  # typed into the native pickers: set as the picker would, with its input event
        driver.execute_script("""
            for (const [name, value] of [["date", arguments[0]], ["time", arguments[1]]]) {
              const field = document.querySelector(`#entry-form [name=${name}]`);
              field.value = value;
              field.dispatchEvent(new Event("input", {bubbles: true}));
            }""", *when)
    click(driver, driver.find_element(By.CSS_SELECTOR, "#entry-form .save-bar button[type=submit]"))


def test_three_entries_logged_offline_survive_a_reload_and_a_restart_and_sync_once(
        browser, tmp_path):
    stack = Stack(tmp_path).start(worker=True)
    try:
        three_offline_entries(stack, browser, str(tmp_path / "profile"))
    finally:
        stack.stop()


def gone(driver, stack) -> None:
    """Offline: the page's network off (navigator.onLine false) and the server away too (the
    DevTools emulation does not reach the service worker, a phone's lost signal does)."""
    network(driver, online=False)
    stack.stop()


def three_offline_entries(stack, browser, profile: str) -> None:
    create_user(stack, "ola")
    http("POST", stack.url + "/api/activities", {"name": "walk"}, api_session(stack.url, "ola"))
    driver = browser(profile=profile)
    driver.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": INDIA})
    login(driver, stack.url, "ola")
    installed(driver, stack.url)
    # Online: saved at once, listed under Today. Ola's account keeps UTC while the device is
    # in India, so its date is given: the account's today at 00:01 India time, in the past
    # and on the log page's day whatever the hour (from 18:30 UTC India is a day ahead).
    today = datetime.now(timezone.utc).date().isoformat()
    log_entry(driver, 3, title="at home", when=(today, "00:01"))
    WebDriverWait(driver, 10).until(lambda d: "done=logged" in d.current_url)
    driver.get(stack.url + "/")  # the log page as it opens plain: the copy kept for offline

    gone(driver, stack)
    driver.get(stack.url + "/")  # the copy the worker kept
    assert driver.execute_script("return navigator.onLine") is False
    assert driver.find_elements(By.ID, "entry-form"), driver.page_source[:500]
    edit = driver.find_element(By.CSS_SELECTOR, ".entries a[href$='/edit']")
    WebDriverWait(driver, 10).until(lambda d: "online-only" in edit.get_attribute("class"))
    assert edit.get_attribute("aria-disabled") == "true"  # edits need the server
    log_entry(driver, 4, tick=["walk"], title="on the train")
    waiting(driver, 1)
    assert "Saved on this device" in driver.find_element(By.ID, "outbox-notice").text
    log_entry(driver, 2, new="tunnel")
    log_entry(driver, 5, when=("2026-11-30", "08:15"))
    kept = waiting(driver, 3)
    assert len({item["client_id"] for item in kept}) == 3
    assert [item["body"]["mood"] for item in kept] == [4, 2, 5]

    driver.get(stack.url + "/")  # still offline: the page and what waits are there
    panel = driver.find_element(By.ID, "outbox")
    WebDriverWait(driver, 10).until(lambda d: "Waiting to sync (3)" in panel.text)
    assert "not reachable" in panel.text
    screenshot(driver, "offline-outbox-phone-light")
    driver.quit()  # the browser closes; its profile stays

    stack.start(worker=True)
    assert [e["note_title"] for e in entries(stack, "ola")] == ["at home"]
    again = browser(profile=profile)  # opened again, online
    again.get(stack.url + "/")
    if "/login" in again.current_url:
        login(again, stack.url, "ola")
    wait_until(lambda: len(entries(stack, "ola")) == 4, 20, what="3 entries synced")
    waiting(again, 0)
    saved = sorted(entries(stack, "ola"), key=lambda e: e["id"])[1:]
    assert [(e["mood"], e["activities"], e["note_title"]) for e in saved] == [
        (4, ["walk"], "on the train"), (2, ["tunnel"], ""), (5, [], "")]
    assert all(e["occurred_at"].endswith("+05:30") for e in saved), saved
    assert saved[2]["occurred_at"] == "2026-11-30T08:15:00+05:30"
    assert [e["client_id"] for e in saved] == [item["client_id"] for item in kept]
    again.get(stack.url + "/")  # another page load syncs again, and one more run after it
    assert sync(again) == {"sent": 0, "deleted": 0, "refused": 0, "waiting": 0,
                           "outcome": "done"}
    assert len(entries(stack, "ola")) == 4  # added nothing
    assert "outbox sync for ola: 3 of 3 entries sent (3 new, 0 already here), 0 refused" in \
        stack.server_log.read_text()
    assert console_errors(again) == []


def put_items(driver, n: int, note: str) -> None:
    driver.execute_async_script("""
        const [n, note, done] = arguments;
        (async () => {
          for (let i = 0; i < n; i++) {
            await self.kmoodOutbox.put(self.kmoodOutbox.fromForm(
              [["mood", String(i % 5 + 1)], ["note", `${note} ${i}`], ["date", "2026-12-01"],
               ["time", `10:${String(i).padStart(2, "0")}`],
               ["owner", document.body.dataset.user]], Date.now() + i));
          }
        })().then(() => done(), (e) => done(String(e)));
    """, n, note)


def test_a_sync_cut_by_a_killed_server_finishes_after_the_restart_with_each_entry_once(
        window, tmp_path):
    stack = Stack(tmp_path).start(worker=False)
    try:
        driver = signed_in(window, stack, "kai")

        # Unreachable while the browser thinks it is online: the worker catches the post.
        stack.stop()
        log_entry(driver, 3, title="server away")
        WebDriverWait(driver, 15).until(lambda d: "done=queued" in d.current_url)
        # the panel counts the outbox once the page has read it (IndexedDB, after load)
        WebDriverWait(driver, 15).until(
            lambda d: "Waiting to sync (1)" in d.find_element(By.ID, "outbox").text)
        put_items(driver, 19, "batch")
        waiting(driver, 20)

        stack.start(worker=False)
        network(driver, online=True, latency_ms=150)  # slow enough to be cut halfway
        driver.execute_script("self.kmoodOutbox.sync()")
        wait_until(lambda: len(entries(stack, "kai")) >= 5, 30, what="a few synced")
        stack.server.kill()  # kill -9 in the middle of the run
        stack.server.wait(10)
        assert 5 <= len(entries_in(stack)) < 20

        stack.server = spawn(["kmood.py"], stack.env, stack.server_log)
        wait_until(lambda: healthy(stack.url), 30, what="the server back")
        network(driver, online=True)
        driver.get(stack.url + "/")  # a page load syncs again
        waiting(driver, 0, timeout=30)
        saved = entries(stack, "kai")
        assert len(saved) == 20 and len({e["client_id"] for e in saved}) == 20
        assert sorted(e["note"] for e in saved) == sorted(
            [""] + [f"batch {i}" for i in range(19)])
        assert console_errors(driver) == [] or all(
            "Failed to load resource" in m or "ERR_" in m for m in console_errors(driver))
    finally:
        stack.stop()


def entries_in(stack) -> list:
    with sqlite3.connect(stack.env["KMOOD_DB"]) as conn:
        return conn.execute("SELECT client_id FROM entries").fetchall()


def put_form(driver, pairs: list[tuple[str, str]]) -> None:
    driver.execute_async_script("""
        const [pairs, done] = arguments;
        const owned = pairs.concat([["owner", document.body.dataset.user]]);
        self.kmoodOutbox.put(self.kmoodOutbox.fromForm(owned)).then(() => done(), (e) => done(String(e)));
    """, pairs)


def sync(driver) -> dict:
    return driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        self.kmoodOutbox.sync().then(done, (e) => done({error: String(e)}));
    """)


def test_an_entry_the_server_refuses_stays_with_its_message_and_the_others_sync(
        app_stack, window):
    driver = signed_in(window, app_stack, "rae")
    http("POST", app_stack.url + "/api/metrics", {"name": "sleep"}, api_session(app_stack.url, "rae"))
    driver.get(app_stack.url + "/")  # the form now has the metric
    metric = driver.find_element(By.CSS_SELECTOR, "input[name^='metric_'][type=number]")
    field = metric.get_attribute("name")
    long_name = "a" * 70
    names = f'{{"{field.split("_")[1]}": "sleep"}}'
    for pairs in ([("mood", "4"), ("note", "first")],
                  [("mood", "2"), ("new_activities", f"ok, {long_name}"), ("note", "second"),
                   (field, "6.5"), ("names_of_metrics", names), ("lat", "52.5"),
                   ("lon", "13.4"), ("date", "2026-11-20"), ("time", "07:45"),
                   ("utc_offset", "-03:00")],
                  [("mood", "5"), ("note", "third")]):
        put_form(driver, pairs)
    report = sync(driver)
    assert report == {"sent": 2, "deleted": 0, "refused": 1, "waiting": 0, "outcome": "done"}
    assert sorted(e["note"] for e in entries(app_stack, "rae")) == ["first", "third"]
    [refused] = outbox(driver)
    assert refused["status"] == "refused" and "activities" in refused["message"]
    assert "1-64 characters" in refused["message"] and long_name[:30] in refused["message"]

    driver.get(app_stack.url + "/")
    panel = driver.find_element(By.ID, "outbox")
    WebDriverWait(driver, 10).until(lambda d: "Waiting to sync (1)" in panel.text)
    assert "Refused by the server" in panel.text
    screenshot(driver, "offline-refused-phone-light")
    assert sync(driver)["sent"] == 0  # a refused one is not sent again by itself
    click(driver, panel.find_element(By.XPATH, ".//button[.='Edit']"))
    form = driver.find_element(By.ID, "entry-form")
    value = lambda name: form.find_element(By.NAME, name).get_attribute("value")  # noqa: E731
    assert value("note") == "second" and form.find_element(By.ID, "mood-2").is_selected()
    assert (value(field), value("lat"), value("lon")) == ("6.5", "52.5", "13.4")
    assert (value("date"), value("time"), value("utc_offset")) == ("2026-11-20", "07:45",
                                                                   "-03:00")
    assert value("new_activities") == f"ok, {long_name}"
    assert [i["status"] for i in outbox(driver)] == ["refused"]  # kept until saved again
    typed = form.find_element(By.NAME, "new_activities")
    typed.clear()
    typed.send_keys("ok, a shorter name")
    click(driver, form.find_element(By.CSS_SELECTOR, ".save-bar button[type=submit]"))
    wait_until(lambda: len(entries(app_stack, "rae")) == 3, 15, what="the fixed one sent")
    waiting(driver, 0)
    fixed = next(e for e in entries(app_stack, "rae") if e["note"] == "second")
    assert fixed["client_id"] == refused["client_id"] and fixed["metrics"] == {"sleep": 6.5}
    assert fixed["occurred_at"] == "2026-11-20T07:45:00-03:00"
    assert sorted(fixed["activities"]) == ["a shorter name", "ok"]
    assert [m for m in console_errors(driver) if "/api/entries" not in m or "422" not in m] == []


def test_two_tabs_sending_the_same_ten_entries_at_once_make_ten(app_stack, browser):
    driver = signed_in(browser, app_stack, "tia")
    network(driver, online=True, latency_ms=100)
    first = driver.current_window_handle
    driver.switch_to.new_window("tab")
    driver.get(app_stack.url + "/entries")
    network(driver, online=True, latency_ms=100)
    tabs = [first, driver.current_window_handle]
    put_items(driver, 10, "tab")  # kept while both tabs are open; nothing sends them yet
    for tab in tabs:  # both start sending (as does showing a tab) before either has finished
        driver.switch_to.window(tab)
        driver.execute_script("self.kmoodOutbox.sync().then((r) => { window.kmoodReport = r; })")
    for tab in tabs:
        driver.switch_to.window(tab)
        WebDriverWait(driver, 30).until(lambda d: d.execute_script("return window.kmoodReport"))
    saved = entries(app_stack, "tia")
    assert len(saved) == 10 and len({e["client_id"] for e in saved}) == 10
    waiting(driver, 0)


def test_a_session_that_ended_offline_keeps_the_entries_until_the_next_login(
        app_stack, window):
    driver = signed_in(window, app_stack, "sam")
    put_items(driver, 2, "while away")
    with sqlite3.connect(app_stack.env["KMOOD_DB"]) as conn:  # the session ends meanwhile
        conn.execute("DELETE FROM sessions WHERE user_id = (SELECT id FROM users"
                     " WHERE username = 'sam')")
    driver.execute_script("dispatchEvent(new Event('online'))")  # the signal comes back
    WebDriverWait(driver, 10).until(lambda d: d.find_element(By.ID, "outbox-login").is_displayed())
    assert "log in again" in driver.find_element(By.ID, "outbox").text
    assert len(outbox(driver)) == 2 and entries(app_stack, "sam") == []
    assert driver.find_element(By.CSS_SELECTOR, "#outbox-login a").get_attribute(
        "href").endswith("/login?next=/")
    driver.get(app_stack.url + "/")  # the log page itself now sends to the log-in page...
    assert "/login" in driver.current_url
    assert driver.execute_async_script("""  // ...and its copy kept for offline use is gone
        const done = arguments[arguments.length - 1];
        caches.match("/").then((found) => done(found === undefined));
    """)
    driver.find_element(By.NAME, "username").send_keys("sam")
    driver.find_element(By.NAME, "password").send_keys(PASSWORD)
    click(driver, driver.find_element(By.CSS_SELECTOR, "form button[type=submit]"))
    wait_until(lambda: len(entries(app_stack, "sam")) == 2, 20, what="synced after login")
    waiting(driver, 0)


def test_logging_out_with_entries_waiting_offers_to_keep_or_discard_them(app_stack, window):
    driver = signed_in(window, app_stack, "lou")
    put_form(driver, [("mood", "3"), ("new_activities", "b" * 70)])
    sync(driver)  # refused: it waits for the person
    driver.get(app_stack.url + "/logout")
    choice = WebDriverWait(driver, 10).until(
        lambda d: d.find_element(By.ID, "outbox-choice") if d.find_element(
            By.ID, "outbox-choice").is_displayed() else None)
    assert "1 entry is waiting on this device" in choice.text
    screenshot(driver, "offline-logout-phone-light")
    click(driver, driver.find_element(By.CSS_SELECTOR, "#logout-form button[type=submit]"))
    WebDriverWait(driver, 10).until(lambda d: "/login" in d.current_url)
    assert len(outbox(driver)) == 1  # kept: the default
    login(driver, app_stack.url, "lou")
    driver.get(app_stack.url + "/logout")
    WebDriverWait(driver, 10).until(lambda d: d.find_element(By.ID, "outbox-choice").is_displayed())
    click(driver, driver.find_element(By.ID, "discard-outbox"))
    click(driver, driver.find_element(By.CSS_SELECTOR, "#logout-form button[type=submit]"))
    WebDriverWait(driver, 10).until(lambda d: "/login" in d.current_url)
    assert outbox(driver) == []


def new_release(tmp_path) -> Path:
    """A copy of k-mood whose stylesheet changed: the next release, deployed."""
    release = tmp_path / "release-2"
    release.mkdir()
    for name in ("kmood.py", "kmood_worker.py"):
        shutil.copy(ROOT / name, release / name)
    for name in ("kmood_lib", "migrations"):
        shutil.copytree(ROOT / name, release / name,
                        ignore=shutil.ignore_patterns("__pycache__"))
    css = release / "kmood_lib" / "web" / "static" / "style.css"
    css.write_text(css.read_text() + "\n/* release 2 */\n")
    return release


def test_a_new_release_offers_a_reload_and_the_outbox_outlives_it(browser, tmp_path):
    stack = Stack(tmp_path).start(worker=False)
    try:
        driver = signed_in(browser, stack, "uma")
        put_form(driver, [("mood", "3"), ("new_activities", "c" * 70)])
        sync(driver)  # refused: it stays until the person decides
        driver.get(stack.url + "/")
        old_css = driver.find_element(By.CSS_SELECTOR, "link[rel=stylesheet]").get_attribute("href")
        note = driver.find_element(By.NAME, "note")
        note.send_keys("half-typed")

        stack.stop()  # the upgrade: the next release on the same port and database
        stack.server = spawn(["kmood.py"], stack.env, stack.server_log, cwd=new_release(tmp_path))
        wait_until(lambda: healthy(stack.url), 30, what="release 2")
        driver.execute_script("document.dispatchEvent(new Event('visibilitychange'))")
        banner = WebDriverWait(driver, 20).until(
            lambda d: d.find_elements(By.ID, "update-banner"))[0]
        assert "A new version of k-mood is ready" in banner.text
        assert note.get_attribute("value") == "half-typed"  # nothing reloaded by itself
        screenshot(driver, "offline-new-version-phone-light")

        page = driver.find_element(By.TAG_NAME, "html")
        click(driver, banner.find_element(By.TAG_NAME, "button"))
        WebDriverWait(driver, 15).until(lambda d: replaced(page))
        WebDriverWait(driver, 15).until(lambda d: d.find_elements(By.CSS_SELECTOR, "link[rel=stylesheet]"))
        new_css = driver.find_element(By.CSS_SELECTOR, "link[rel=stylesheet]").get_attribute("href")
        assert new_css != old_css
        shells = driver.execute_async_script("""
            const done = arguments[arguments.length - 1];
            caches.keys().then((keys) => done(keys.filter((k) => k.startsWith("kmood-shell-"))));
        """)
        assert len(shells) == 1  # the old release's files are gone
        assert [item["status"] for item in outbox(driver)] == ["refused"]
        assert not driver.find_elements(By.ID, "update-banner")
    finally:
        stack.stop()


def test_the_outbox_reads_a_form_as_the_server_does_and_decides_each_answer(app_stack, window):
    """The sync's decisions, one by one, in the browser that runs them."""
    create_user(app_stack, "dee")
    driver = window()
    driver.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": INDIA})
    login(driver, app_stack.url, "dee")
    given = "0f8fad5b-d9cb-469f-a165-70867728950e"
    seen = driver.execute_script("""
        const o = self.kmoodOutbox;
        const form = (extra) => o.fromForm([
          ["mood", "4"], ["activity", "walk"], ["activity", "tea"],
          ["new_activities", " new one, \\nanother ,"], ["note_title", " Title "],
          ["note", "a\\r\\nb\\rc"], ["metric_7", "7,5"], ["metric_8", "lots"], ["metric_9", ""],
          ["names_of_metrics", '{"7": "sleep", "8": "energy", "9": "empty"}'],
          ["lat", "52.5"], ["lon", "13.4"], ["song_artist", "A"],
          ["song_title", "T"], ["date", "2026-11-30"], ["time", "08:15"], ...extra], 1000);
        return {
          decide: [200, 201, 400, 422, 401, 403, 404, 409, 500, 503, 413, 408, 429, 410]
            .map(o.decide),
          plain: form([["client_id", arguments[0]], ["owner", "7"]]),
          offset: form([["utc_offset", "-03:00"], ["client_id", "not-a-uuid"]]),
          noon: o.occurredAt("2026-11-30", ""),
        };
    """, given)
    assert seen["decide"] == ["sent", "sent", "refused", "refused", "login", "forbidden",
                              "refused", "refused", "stop", "stop", "refused", "stop", "stop",
                              "deleted"]
    assert seen["plain"] == {
        "client_id": given, "created": 1000, "status": "waiting", "message": None, "owner": 7,
        "body": {"client_id": given, "mood": 4, "activities": ["walk", "tea", "new one",
                                                               "another"],
                 "note_title": "Title", "note": "a\nb\nc",
                 "occurred_at": "2026-11-30T08:15:00+05:30",
                 "metrics": {"sleep": 7.5, "energy": "lots"},
                 "location": {"lat": 52.5, "lon": 13.4},
                 "song": {"artist": "A", "title": "T", "album": None, "source": "manual"}}}
    assert seen["offset"]["owner"] is None
    other = seen["offset"]["body"]
    assert other["occurred_at"] == "2026-11-30T08:15:00-03:00"
    assert other["client_id"] != "not-a-uuid" and len(other["client_id"]) == 36
    assert seen["noon"] == "2026-11-30T12:00:00+05:30"


def test_an_entry_deleted_since_it_was_saved_leaves_the_outbox_as_done(app_stack, window):
    """The outbox still holds an entry the server saved (the answer was lost) and the person
    has deleted since, on another device: the sync's 410 `deleted` drops it as done — not
    kept as a refusal — the entry stays deleted, and the log page says why it went (#36 6a)."""
    driver = signed_in(window, app_stack, "eve")
    eve = int(driver.execute_script("return document.body.dataset.user"))
    other_device = api_session(app_stack.url, "eve")
    client_id = "3b241101-e2bb-4255-8caf-4136c566a962"
    status, _, saved = http("POST", app_stack.url + "/api/entries",
                            {"mood": 4, "client_id": client_id}, other_device)
    assert status == 201
    assert http("DELETE", f"{app_stack.url}/api/entries/{saved['id']}",
                headers=other_device)[0] == 204
    driver.execute_async_script("""
        const [owner, clientId, done] = arguments;
        self.kmoodOutbox.put({client_id: clientId, created: Date.now(), status: "waiting",
          message: null, owner, body: {client_id: clientId, mood: 4, activities: [],
                                       metrics: {}}}).then(() => done());
    """, eve, client_id)
    driver.get(app_stack.url + "/")  # the page sends what waits as it opens
    waiting(driver, 0)
    WebDriverWait(driver, 10).until(
        lambda d: d.find_element(By.ID, "outbox-deleted").is_displayed())
    assert not driver.find_element(By.ID, "outbox").is_displayed()
    assert entries(app_stack, "eve") == []


def test_an_entry_the_busy_server_cannot_save_now_is_kept_and_sent_once_later(
        window, tmp_path):
    """A 503 (another process held the write lock past the busy timeout) saves nothing there:
    the worker keeps the entry instead of showing an error page, and it is sent once later."""
    stack = Stack(tmp_path, KMOOD_BUSY_TIMEOUT_MS="300").start(worker=False)
    try:
        driver = signed_in(window, stack, "bea")
        blocker = sqlite3.connect(stack.env["KMOOD_DB"], isolation_level=None)
        blocker.execute("BEGIN IMMEDIATE")  # a long write elsewhere: the save cannot get in
        try:
            log_entry(driver, 5, title="while busy")
            WebDriverWait(driver, 15).until(lambda d: "done=queued" in d.current_url)
            assert "could not take it just now" in driver.find_element(
                By.CSS_SELECTOR, "main > .notice").text
            assert not driver.find_element(By.ID, "outbox-notice").is_displayed()
            [kept] = waiting(driver, 1)
            assert kept["body"]["note_title"] == "while busy"
        finally:
            blocker.execute("ROLLBACK")
            blocker.close()
        driver.get(stack.url + "/")  # a page load sends it
        waiting(driver, 0)
        saved = entries(stack, "bea")
        assert [(e["note_title"], e["client_id"]) for e in saved] == [
            ("while busy", kept["client_id"])]
    finally:
        stack.stop()


def test_on_a_shared_device_each_person_s_waiting_entries_go_only_to_their_own_account(
        app_stack, window):
    """Ann leaves an entry waiting and logs out keeping it; Ben logs in on the same browser:
    he neither sees nor sends it. When Ann is back, it goes to her account."""
    create_user(app_stack, "ben")
    driver = signed_in(window, app_stack, "ann")
    ann = int(driver.execute_script("return document.body.dataset.user"))
    driver.get(app_stack.url + "/logout")
    click(driver, driver.find_element(By.CSS_SELECTOR, "#logout-form button[type=submit]"))
    WebDriverWait(driver, 10).until(lambda d: "/login" in d.current_url)
    assert driver.execute_async_script("""  // her log page is not kept for the next person
        const done = arguments[arguments.length - 1];
        caches.match("/").then((found) => done(found === undefined));
    """)
    driver.execute_async_script("""  // what Ann logged with no connection, before she left
        const [owner, done] = arguments;
        const req = indexedDB.open("kmood", 1);
        req.onsuccess = () => {
          const tx = req.result.transaction("outbox", "readwrite");
          tx.objectStore("outbox").put({client_id: "6f1c2c57-3d4e-4c1a-9a59-0e0c6d5f2a11",
            created: Date.now(), status: "waiting", message: null, owner,
            body: {client_id: "6f1c2c57-3d4e-4c1a-9a59-0e0c6d5f2a11", mood: 2,
                   note: "ann's private note", activities: [], metrics: {}}});
          tx.oncomplete = () => { req.result.close(); done(); };
        };
    """, ann)
    login(driver, app_stack.url, "ben")
    driver.get(app_stack.url + "/")
    assert sync(driver) == {"sent": 0, "deleted": 0, "refused": 0, "waiting": 0,
                            "outcome": "done"}
    assert entries(app_stack, "ben") == [] and len(outbox(driver)) == 1
    assert not driver.find_element(By.ID, "outbox").is_displayed()
    assert "ann's private note" not in driver.page_source
    driver.get(app_stack.url + "/logout")
    assert not driver.find_element(By.ID, "outbox-choice").is_displayed()  # none of his
    click(driver, driver.find_element(By.CSS_SELECTOR, "#logout-form button[type=submit]"))
    WebDriverWait(driver, 10).until(lambda d: "/login" in d.current_url)
    login(driver, app_stack.url, "ann")
    wait_until(lambda: [e["note"] for e in entries(app_stack, "ann")] == ["ann's private note"],
               20, what="Ann's entry sent as Ann")
    waiting(driver, 0)
    assert entries(app_stack, "ben") == []


def test_a_back_dated_entry_refused_once_keeps_its_date_when_fixed(app_stack, window):
    """A form shown again with its errors holds what was typed: Save after the fix must not
    turn its date and time into "now"."""
    driver = signed_in(window, app_stack, "bo")
    log_entry(driver, 4, new="d" * 70, when=("2026-11-01", "09:00"))
    WebDriverWait(driver, 10).until(lambda d: d.find_elements(By.CSS_SELECTOR, ".errors"))
    typed = driver.find_element(By.NAME, "new_activities")
    typed.clear()
    typed.send_keys("dentist")
    click(driver, driver.find_element(By.CSS_SELECTOR, "#entry-form .save-bar button[type=submit]"))
    WebDriverWait(driver, 10).until(lambda d: "done=logged" in d.current_url)
    [saved] = entries(app_stack, "bo")
    assert saved["occurred_at"].startswith("2026-11-01T09:00:00")
