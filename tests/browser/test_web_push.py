"""The service worker's side of Web Push (issue #43), in headless Chromium: a push message
delivered through DevTools (ServiceWorker.deliverPushMessage) is shown as the reminder's
notification, and a tap on it opens the log page for the day the reminder was for, in the
window that is open. The device list and "Notify this device" are looked at on a phone."""

from __future__ import annotations

import json
import time

import pytest
from selenium.webdriver.common.by import By

from tests.browser.conftest import (
    PHONE,
    api_session,
    console_errors,
    create_user,
    login_by_cookie,
    looked_at,
)
from tests.helpers import http
from tests.push_service import SOME_KEYS

PUSHED = {"title": "k-mood", "body": "Wie war dein Tag?", "tag": "kmood-reminder-7",
          "url": "/?day=2026-12-01&at=21:00"}


class Session:
    """A DevTools session on one target, over the browser's own connection (chromedriver
    speaks only to the page, and pushes and service workers are not the page's)."""

    def __init__(self, devtools, target_id: str):
        self.devtools = devtools
        self.events: list[dict] = []
        self.id = devtools.send("Target.attachToTarget", targetId=target_id,
                                flatten=True)["sessionId"]

    def send(self, method: str, **params) -> dict:
        self.devtools.sent += 1
        asked = self.devtools.sent
        self.devtools.socket.send(json.dumps({"id": asked, "sessionId": self.id,
                                              "method": method, "params": params}))
        while True:
            answer = self.read()
            if answer.get("id") == asked:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer["result"]

    def read(self) -> dict:
        message = json.loads(self.devtools.socket.recv())
        if message.get("sessionId") == self.id and "method" in message:
            self.events.append(message)
        return message

    def event(self, name: str, holds, timeout_s: float = 10) -> dict:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            for event in self.events:
                if event["method"] == name and holds(event["params"]):
                    return event["params"]
            self.read()
        raise AssertionError(f"no {name} within {timeout_s} s")

    def close(self) -> None:
        self.devtools.send("Target.detachFromTarget", sessionId=self.id)


@pytest.fixture
def chromium(shared_chromiums):
    chromium = shared_chromiums[False]
    yield chromium
    chromium.close()


def notifications(driver) -> list[dict]:
    return driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        navigator.serviceWorker.ready.then((r) => r.getNotifications()).then((shown) => done(
            shown.map((n) => ({title: n.title, body: n.body, tag: n.tag, data: n.data}))));""")


def test_a_pushed_reminder_is_shown_and_its_tap_opens_the_log_page_for_its_day(app_stack,
                                                                               chromium):
    create_user(app_stack, "nora")
    driver = chromium.open(PHONE)
    chromium.devtools.send("Browser.grantPermissions", origin=app_stack.url,
                           permissions=["notifications"], browserContextId=chromium.context)
    login_by_cookie(driver, app_stack.url, "nora")
    assert driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        navigator.serviceWorker.ready.then(() => done("ready"));""") == "ready"
    driver.get(app_stack.url + "/entries")  # a page the worker controls, open in the window
    page = Session(chromium.devtools, driver.current_window_handle)
    try:
        page.send("ServiceWorker.enable")
        registration = page.event("ServiceWorker.workerRegistrationUpdated", lambda p: any(
            r["scopeURL"] == app_stack.url + "/" and not r["isDeleted"]
            for r in p["registrations"]))
        registration_id = next(r["registrationId"] for r in registration["registrations"]
                               if r["scopeURL"] == app_stack.url + "/")
        page.send("ServiceWorker.deliverPushMessage", origin=app_stack.url + "/",
                  registrationId=registration_id, data=json.dumps(PUSHED))
    finally:
        page.close()
    deadline = time.monotonic() + 30  # the worker is started for the push: slow under load
    while not (shown := notifications(driver)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert [(n["title"], n["body"], n["tag"]) for n in shown] == [
        ("k-mood", "Wie war dein Tag?", "kmood-reminder-7")], (registration,
                                                               console_errors(driver))
    assert shown[0]["data"] == {"url": "/?day=2026-12-01&at=21:00"}
    # the tap: the worker's own notificationclick, dispatched in the worker
    worker = next(t for t in chromium.devtools.send("Target.getTargets")["targetInfos"]
                  if t["type"] == "service_worker" and t["url"].startswith(app_stack.url))
    inside = Session(chromium.devtools, worker["targetId"])
    try:
        inside.send("Runtime.evaluate", awaitPromise=True, expression="""
            self.registration.getNotifications().then((shown) => {
              self.dispatchEvent(new NotificationEvent("notificationclick",
                                                       {notification: shown[0]}));
              return shown.length;
            })""")
    finally:
        inside.close()
    deadline = time.monotonic() + 30
    while "day=2026-12-01" not in driver.current_url and time.monotonic() < deadline:
        time.sleep(0.1)
    assert driver.current_url == app_stack.url + "/?day=2026-12-01&at=21:00"
    assert driver.find_element(By.NAME, "date").get_attribute("value") == "2026-12-01"
    assert driver.find_element(By.NAME, "time").get_attribute("value") == "21:00"
    assert notifications(driver) == []  # closed by the tap
    assert [e for e in console_errors(driver) if "notificationclick" not in e] == []


def test_the_devices_section_fits_a_phone_and_says_how_to_turn_it_on(app_stack, window):
    create_user(app_stack, "otto")
    auth = api_session(app_stack.url, "otto")
    for n, label in enumerate(("Chrome on Android", "Firefox on Linux")):
        assert http("POST", app_stack.url + "/api/push/subscriptions", {
            "endpoint": f"https://push.example/{n}", "label": label,
            "keys": SOME_KEYS}, auth)[0] == 201
    driver = window(PHONE)
    login_by_cookie(driver, app_stack.url, "otto")
    driver.get(app_stack.url + "/settings/reminders#devices")
    button = driver.find_element(By.ID, "push-subscribe")
    assert button.is_displayed() and button.text == "Notify this device"
    assert not driver.find_element(By.ID, "push-unsupported").is_displayed()
    assert driver.execute_script("return Notification.permission") == "default"  # not asked
    assert [li.find_element(By.TAG_NAME, "strong").text for li in driver.find_elements(
        By.CSS_SELECTOR, ".device-list li")] == ["Chrome on Android", "Firefox on Linux"]
    looked_at(driver, "reminders-devices")
    assert console_errors(driver) == []
