"""Single sign-on in a real browser against a real OpenID provider (SPEC §14, issue #41):
linking from Settings (the form's answer takes the browser to the provider: the page's CSP
must let it), signing in with the login page's button, a sign-in no account holds, and the
pages it adds, looked at on a phone and a desktop, light and dark, and checked by axe."""

from __future__ import annotations

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
    login,
    looked_at,
)
from tests.e2e.conftest import Stack
from tests.oidc_provider import Provider

ACCOUNTS = {"ann.at.provider": {"preferred_username": "ann", "email": "ann@example.org",
                                "email_verified": True}}


@pytest.fixture(scope="module")
def sso_stack(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("sso")
    stack = Stack(tmp_path)
    provider = Provider(tmp_path, stack.url, ACCOUNTS).start()
    stack.env.update(provider.env(KMOOD_OIDC_NAME="Authelia", KMOOD_SSO_LINK_BY_EMAIL="1"))
    stack.start(worker=False)
    create_user(stack, "ann", admin=True)
    create_user(stack, "bob")
    stack.provider = provider
    yield stack
    provider.stop()
    assert stack.stop() == {"server": 0}
    assert "Traceback" not in stack.server_log.read_text()


def sign_in_at_provider(driver, login_name: str) -> None:
    """The provider's own login form (oidc-provider's development one)."""
    field = WebDriverWait(driver, 10).until(EC.presence_of_element_located((By.NAME, "login")))
    field.send_keys(login_name)
    driver.find_element(By.NAME, "password").send_keys("any")
    follow(driver, driver.find_element(By.CSS_SELECTOR, "button[type=submit]"))



def test_a_person_links_their_account_and_signs_in_with_it(sso_stack, window):
    url = sso_stack.url
    driver = window(DESKTOP)
    login(driver, url, "ann")
    driver.get(url + "/settings")
    link = driver.find_element(By.CSS_SELECTOR, "form[action='/login/oidc/link'] button")
    assert link.text == "Link Authelia"
    looked_at(driver, "settings-single-sign-on")
    driver.find_element(By.CSS_SELECTOR, "form[action='/login/oidc/link'] input[name=password]"
                        ).send_keys(PASSWORD)
    follow(driver, link)  # the form's answer: on to the provider (CSP form-action lets it)
    assert driver.current_url.startswith(sso_stack.provider.issuer + "/interaction/")
    sign_in_at_provider(driver, "ann.at.provider")
    WebDriverWait(driver, 10).until(EC.url_to_be(url + "/settings?done=sso_linked"))
    assert "your account there is linked to this one" in driver.page_source
    follow(driver, driver.find_element(By.CSS_SELECTOR, "form[action='/logout'] button"))
    WebDriverWait(driver, 10).until(EC.url_to_be(url + "/login"))
    button = driver.find_element(By.ID, "single-sign-on")
    assert button.text == "Sign in with Authelia"  # (looked at below, with a refusal on it)
    # the provider remembers ann: its answer comes straight back, and she is in
    follow(driver, button)
    WebDriverWait(driver, 10).until(EC.url_to_be(url + "/"))
    assert driver.find_elements(By.CSS_SELECTOR, "form[action='/entries']")
    assert console_errors(driver) == []


def test_a_sign_in_no_account_holds_shows_the_id_to_link(sso_stack, window):
    url = sso_stack.url
    driver = window(DESKTOP)
    driver.get(url + "/login?next=/stats")
    follow(driver, driver.find_element(By.ID, "single-sign-on"))
    sign_in_at_provider(driver, "0b6f3c2e-7d4a-4f7e-9a55-2f1d0c9e8b71")  # an opaque sub
    WebDriverWait(driver, 10).until(EC.url_contains("/login/oidc/callback"))
    said = driver.find_element(By.CSS_SELECTOR, "[role=alert]").text
    assert "no k-mood account is linked to that sign-in yet" in said
    assert "0b6f3c2e-7d4a-4f7e-9a55-2f1d0c9e8b71" in said
    looked_at(driver, "login-single-sign-on-not-linked")
    # the page is the refusal's own (403): Chromium says so, and nothing else went wrong
    assert [e for e in console_errors(driver) if "(Forbidden)" not in e] == []


def test_household_links_a_member_by_their_id_at_the_provider(sso_stack, window):
    url = sso_stack.url
    driver = window(DESKTOP)
    login(driver, url, "ann")
    driver.get(url + "/settings/users")
    bobs = driver.find_element(By.XPATH, "//li[.//strong[text()='bob']]"
                                         "//form[.//input[@name='method'][@value='oidc']]")
    bobs.find_element(By.NAME, "subject").send_keys("bob-at-the-provider")
    follow(driver, bobs.find_element(By.CSS_SELECTOR, "button[type=submit]"))
    assert "single sign-on now signs them in" in driver.page_source
    assert "bob-at-the-provider" in driver.page_source
    looked_at(driver, "household-single-sign-on")
