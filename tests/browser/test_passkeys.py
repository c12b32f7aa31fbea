"""Passkeys in a real browser with Chromium's virtual authenticator (SPEC §14, issue #41), on
http://localhost (a secure context, and a host name a passkey can belong to): add one in
Settings, sign out, sign in with it (no user name typed), remove it; and the answers k-mood
must refuse: one used twice, one made for another origin, a counter that went backwards."""

from __future__ import annotations

import sqlite3

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

from tests.browser.conftest import (
    DESKTOP,
    PASSWORD,
    console_errors,
    create_user,
    follow,
    looked_at,
)
from tests.e2e.conftest import Stack


@pytest.fixture(scope="module")
def passkey_stack(tmp_path_factory):
    stack = Stack(tmp_path_factory.mktemp("passkeys"))
    stack.url = f"http://localhost:{stack.port}"
    stack.env.update({"KMOOD_PASSKEYS": "1", "KMOOD_PUBLIC_URL": stack.url})
    stack.start(worker=False)
    create_user(stack, "ann", admin=True)
    yield stack
    assert stack.stop() == {"server": 0}
    assert "Traceback" not in stack.server_log.read_text()


def authenticator(driver) -> str:
    """A platform authenticator that keeps passkeys and verifies its user (a screen lock)."""
    driver.execute_cdp_cmd("WebAuthn.enable", {"enableUI": False})
    return driver.execute_cdp_cmd("WebAuthn.addVirtualAuthenticator", {"options": {
        "protocol": "ctap2", "transport": "internal", "hasResidentKey": True,
        "hasUserVerification": True, "isUserVerified": True,
        "automaticPresenceSimulation": True}})["authenticatorId"]


def add_passkey(driver, url: str, name: str, password: str = PASSWORD) -> None:
    """Settings' form for a new passkey, filled in and sent (the authenticator answers)."""
    driver.get(url + "/settings#passkeys")
    add = driver.find_element(By.ID, "passkey-add")
    assert add.is_displayed()
    for field, value in (("name", name), ("password", password)):
        add.find_element(By.NAME, field).clear()  # (a second try: the page is the same one)
        add.find_element(By.NAME, field).send_keys(value)
    add.find_element(By.CSS_SELECTOR, "button").click()


def password_login(driver, url: str) -> None:
    driver.get(url + "/login")
    driver.find_element(By.NAME, "username").send_keys("ann")
    driver.find_element(By.NAME, "password").send_keys(PASSWORD)
    follow(driver, driver.find_element(By.CSS_SELECTOR, "form[action='/login'] button"))


def test_a_passkey_is_added_signed_in_with_and_removed(passkey_stack, window):
    url = passkey_stack.url
    driver = window(DESKTOP)
    authenticator(driver)
    password_login(driver, url)
    add_passkey(driver, url, "my laptop", password="not it")
    said = WebDriverWait(driver, 10).until(
        EC.visibility_of_element_located((By.ID, "passkey-add-error")))
    assert "current password is not right" in said.text
    add_passkey(driver, url, "my laptop")
    WebDriverWait(driver, 10).until(EC.url_contains("done=passkey_added"))
    assert "my laptop" in driver.find_element(By.CSS_SELECTOR, ".passkeys").text
    follow(driver, driver.find_element(By.CSS_SELECTOR, "form[action='/logout'] button"))
    button = WebDriverWait(driver, 10).until(
        EC.visibility_of_element_located((By.ID, "passkey-sign-in")))
    button.click()  # no user name: the passkey says whose it is
    WebDriverWait(driver, 10).until(EC.url_to_be(url + "/"))
    driver.get(url + "/settings")
    assert "last used" in driver.find_element(By.CSS_SELECTOR, ".passkeys").text
    # removed: gone from the list, and this browser stays signed in
    follow(driver, driver.find_element(By.CSS_SELECTOR, ".passkeys button[type=submit]"))
    assert "done=passkey_removed" in driver.current_url
    assert not driver.find_elements(By.CSS_SELECTOR, ".passkeys")
    # (the one refusal: the wrong password given first)
    assert [e for e in console_errors(driver) if "/settings/passkeys/new" not in e] == []


# One sign-in ceremony done by hand in the page, its answer sent twice, or changed first.
CEREMONY = """
const [change, done] = [arguments[0], arguments[arguments.length - 1]];
const token = {"X-Form-Token": document.getElementById("passkey-sign-in").dataset.formToken,
               "Content-Type": "application/json"};
const b64 = (buffer) => btoa(String.fromCharCode(...new Uint8Array(buffer)))
  .replace(/\\+/g, "-").replace(/\\//g, "_").replace(/=+$/, "");
const bytes = (text) => Uint8Array.from(atob(text.replace(/-/g, "+").replace(/_/g, "/")
  + "===".slice((text.length + 3) % 4)), (c) => c.charCodeAt(0));
(async () => {
  const begun = await (await fetch("/login/passkey/options", {method: "POST", headers: token,
                                                              body: "{}"})).json();
  const made = await navigator.credentials.get({publicKey: {
    ...begun.options, challenge: bytes(begun.options.challenge)}});
  let clientData = b64(made.response.clientDataJSON);
  if (change === "origin") {
    const said = JSON.parse(new TextDecoder().decode(made.response.clientDataJSON));
    said.origin = "http://evil.example";
    clientData = b64(new TextEncoder().encode(JSON.stringify(said)));
  }
  const body = JSON.stringify({ceremony: begun.ceremony, credential: {
    id: made.id, rawId: b64(made.rawId), type: made.type, clientExtensionResults: {},
    response: {clientDataJSON: clientData,
               authenticatorData: b64(made.response.authenticatorData),
               signature: b64(made.response.signature),
               userHandle: b64(made.response.userHandle)}}});
  const statuses = [];
  for (const _ of (change === "twice" ? [1, 2] : [1])) {
    statuses.push((await fetch("/login/passkey", {method: "POST", headers: token, body})).status);
  }
  done(statuses);
})().catch((error) => done(String(error)));
"""


def test_answers_k_mood_must_refuse_are_refused(passkey_stack, window):
    url = passkey_stack.url
    driver = window(DESKTOP)
    authenticator(driver)
    password_login(driver, url)
    add_passkey(driver, url, "a key to be cloned")
    WebDriverWait(driver, 10).until(EC.url_contains("done=passkey_added"))
    looked_at(driver, "settings-passkeys")
    follow(driver, driver.find_element(By.CSS_SELECTOR, "form[action='/logout'] button"))
    WebDriverWait(driver, 10).until(EC.visibility_of_element_located((By.ID, "passkey-sign-in")))
    log_from = passkey_stack.server_log.stat().st_size
    # the same answer twice: signed in once, then its challenge is gone
    assert driver.execute_async_script(CEREMONY, "twice") == [200, 400]
    driver.delete_all_cookies()
    driver.get(url + "/login")
    # an answer made for another origin (a phishing page's): refused
    assert driver.execute_async_script(CEREMONY, "origin") == [401]
    # a counter lower than the one k-mood holds: a cloned authenticator, refused
    with sqlite3.connect(passkey_stack.env["KMOOD_DB"]) as db:
        db.execute("UPDATE passkeys SET sign_count = 1000000 WHERE name = 'a key to be cloned'")
    assert driver.execute_async_script(CEREMONY, "") == [401]
    log = passkey_stack.server_log.read_text()[log_from:]
    assert log.count("sign-in method=passkey user=ann ok") == 1
    assert "refused (a ceremony not begun in this browser, used or expired)" in log
    assert ('sign-in method=passkey refused (sign-in: Unexpected client data origin'
            ' "http://evil.example"') in log
    assert "was not greater than current count of 1000000" in log

