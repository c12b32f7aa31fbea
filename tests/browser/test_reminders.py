"""Reminders in a real browser: create one with the time picker and weekday toggles, send a
test to a fake webhook on 127.0.0.1 and see the answer (issue #13)."""

from __future__ import annotations

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from tests.browser.conftest import (
    DESKTOP,
    PHONE,
    Stack,
    click,
    console_errors,
    create_user,
    follow,
    login,
    look,
    screenshot,
)
from tests.fakes import FakeUpstream, Reply


def test_create_a_reminder_and_send_a_test(tmp_path, window):
    with FakeUpstream() as hook:
        hook.route("*", lambda record: Reply({"ok": True}))
        stack = Stack(tmp_path, KMOOD_ALLOW_PRIVATE_NOTIFY_URLS="1").start(worker=False)
        create_user(stack, "rita")
        driver = window(PHONE)
        login(driver, stack.url, "rita")
        for size, dark, name in ((PHONE, False, "phone-light"), (DESKTOP, True, "desktop-dark")):
            look(driver, size, dark)  # a phone, then a desktop in dark: the same person's two
            driver.get(stack.url + "/settings/reminders")
            form = driver.find_element(By.CSS_SELECTOR, "form.reminder-form")
            driver.execute_script("arguments[0].value = '21:15'",
                                  form.find_element(By.NAME, "time"))
            for box in form.find_elements(By.CSS_SELECTOR, "input[name=weekday]"):
                if box.get_attribute("value") in ("5", "6"):  # untick the weekend
                    click(driver, box)
            Select(form.find_element(By.NAME, "channel")).select_by_value("webhook")
            form.find_element(By.NAME, "url").send_keys(hook.url + f"/hook-{name}")
            form.find_element(By.NAME, "token").send_keys("tk_browser")
            screenshot(driver, f"reminders-new-{name}")
            follow(driver, form.find_element(By.CSS_SELECTOR, "button[type=submit]"))
            listing = driver.find_element(By.CSS_SELECTOR, ".list.reminders").text
            assert "21:15 Mon, Tue, Wed, Thu, Fri" in listing
            assert "Webhook to 127.0.0.1" in listing
            screenshot(driver, f"reminders-list-{name}")
            follow(driver, driver.find_elements(By.CSS_SELECTOR, ".list.reminders a")[-1])
            follow(driver, driver.find_element(By.XPATH, "//button[.='Send a test now']"))
            result = driver.find_element(By.ID, "test-result").text
            assert result == "Test sent: the channel answered HTTP 200."
            screenshot(driver, f"reminder-tested-{name}")
            assert console_errors(driver) == []
        paths = [r["path"] for r in hook.requests]
        assert paths == ["/hook-phone-light", "/hook-desktop-dark"]
        assert all(r["headers"]["Authorization"] == "Bearer tk_browser" for r in hook.requests)
        assert stack.stop() == {"server": 0}
