"""Single sign-on with OpenID Connect against a real provider (SPEC §14, issue #41):
oidc-provider on 127.0.0.1, the real server, and a cookie-keeping client that signs in at the
provider's own login form. The good sign-in, linking, newcomers, and every hostile case the
issue names: a wrong aud, a wrong iss, an expired token, a nonce mismatch, a foreign key, no
signature, a replayed answer and code, a wrong state, a rotated key, an off-site next."""

from __future__ import annotations

import re
import sqlite3
import urllib.parse

import pytest

from tests.e2e.conftest import PASSWORD, Stack
from tests.helpers import http
from tests.oidc_provider import Browser, Provider

pytestmark = pytest.mark.slow

ACCOUNTS = {
    "alice": {"preferred_username": "alice", "email": "alice@example.org",
              "email_verified": True, "groups": ["family"]},
    "bob": {"preferred_username": "bob", "groups": ["family", "kmood-admins"]},
    "eve": {"preferred_username": "eve", "groups": ["strangers"]},
    # dora has a k-mood account with her address; mallory says it is hers, unverified
    "dora-at-provider": {"preferred_username": "dora-sso", "email": "Dora@Example.org",
                         "email_verified": True},
    "mallory": {"preferred_username": "mallory", "email": "dora@example.org",
                "email_verified": False, "groups": ["family"]},
    "dora-again": {"preferred_username": "dora2", "email": "dora@example.org",
                   "email_verified": True},
}


@pytest.fixture
def sso(stack_factory, tmp_path):
    """start(**env) -> (stack, provider): k-mood (ann, an admin with a password) and its
    provider, both running."""
    made = []

    def start(accounts=ACCOUNTS, users=("ann",), reachable=True, **env):
        stack = stack_factory()
        provider = Provider(tmp_path, stack.url, accounts).start()
        made.append(provider)
        stack.env.update(provider.env(**env))
        if not reachable:  # gone before k-mood starts, so it never learns the provider's ways
            provider.stop()
        for name in users:
            stack.create_user(name)
        stack.start(worker=False)
        return stack, provider

    yield start
    for provider in made:
        provider.stop()


@pytest.fixture(scope="module")
def household(tmp_path_factory):
    """One k-mood and provider for the tests that share their settings: newcomers in the
    group "family" get an account (admins from "kmood-admins")."""
    tmp_path = tmp_path_factory.mktemp("household")
    stack = Stack(tmp_path)
    provider = Provider(tmp_path, stack.url, ACCOUNTS).start()
    stack.env.update(provider.env(KMOOD_SSO_AUTO_CREATE="1", KMOOD_SSO_MEMBER_GROUP="family",
                                  KMOOD_SSO_ADMIN_GROUP="kmood-admins",
                                  KMOOD_SSO_LINK_BY_EMAIL="1"))
    stack.create_user("ann")
    stack.create_user("dora")
    stack.start(worker=False)
    admin = stack.log_in("ann")
    dora = http("GET", stack.url + "/api/me", headers=stack.log_in("dora"))[2]["id"]
    status, _, _ = http("POST", stack.url + f"/settings/users/{dora}/email", urllib.parse.urlencode(
        {"csrf_token": admin["X-CSRF-Token"], "email": "dora@example.org"}).encode(),
        {**admin, "Content-Type": "application/x-www-form-urlencoded"})
    assert status == 200  # (followed to Household)
    yield stack, provider
    provider.stop()
    stack.stop()
    assert "Traceback" not in stack.server_log.read_text()


class Log:
    """What the server logs from now on."""

    def __init__(self, stack):
        self.path, self.start = stack.server_log, stack.server_log.stat().st_size

    def lines(self, containing: str) -> list[str]:
        text = self.path.read_text()[self.start:]
        return [line for line in text.splitlines() if containing in line]


def hidden(body: str, name: str) -> str:
    return re.search(rf'name="{name}" value="([^"]*)"', body).group(1)


def password_log_in(stack, browser: Browser, name: str) -> None:
    _, _, page = browser.go(stack.url + "/login")
    status, headers, _ = browser.go(stack.url + "/login", {
        "csrf_token": hidden(page, "csrf_token"), "username": name, "password": PASSWORD,
        "next": "/"})
    assert status == 303 and browser.cookie("kmood_session"), status


def with_params(url: str, **changes) -> str:
    """The URL with these query parameters changed (None: removed)."""
    parts = urllib.parse.urlsplit(url)
    query = {**dict(urllib.parse.parse_qsl(parts.query)), **changes}
    return parts._replace(query=urllib.parse.urlencode(
        {name: value for name, value in query.items() if value is not None})).geturl()


def me(stack, browser: Browser) -> str | None:
    status, _, body = browser.go(stack.url + "/api/me")
    return re.search(r'"username":"([^"]+)"', body).group(1) if status == 200 else None


def sign_in(stack, browser: Browser, login: str, after: str = "/stats") -> tuple[int, dict, str]:
    back = browser.provider_answer(
        stack.url + "/login/oidc?" + urllib.parse.urlencode({"next": after}), login)
    return browser.go(back)


def test_a_person_links_their_account_then_signs_in_with_it(sso):
    stack, provider = sso(users=("ann", "cleo"))
    stranger = Browser()
    status, _, page = sign_in(stack, stranger, "alice")
    # nobody is linked to alice at the provider yet, and newcomers get no account
    assert status == 403 and "no k-mood account is linked" in page
    assert "alice" in page and stranger.cookie("kmood_session") is None
    ann = Browser()
    password_log_in(stack, ann, "ann")
    _, _, settings = ann.go(stack.url + "/settings")
    assert "Link <bdi dir=\"auto\">Test SSO</bdi>" in settings
    status, headers, _ = ann.go(stack.url + "/login/oidc/link",
                                {"csrf_token": hidden(settings, "csrf_token"), "password": "x"})
    assert status == 403  # not without her password
    status, headers, _ = ann.go(stack.url + "/login/oidc/link",
                                {"csrf_token": hidden(settings, "csrf_token"),
                                 "password": PASSWORD})
    assert status == 303 and headers["Location"].startswith(provider.issuer + "/auth?")
    assert "prompt=login" in headers["Location"]  # whoever is signed in there signs in again
    back = ann.provider_answer(headers["Location"], "alice")
    status, headers, _ = ann.go(back)
    assert (status, headers["Location"]) == (303, "/settings?done=sso_linked")
    _, _, settings = ann.go(stack.url + "/settings")
    assert "your account there is linked to this one" in settings
    # from now on alice at the provider is ann here, in any browser
    for browser in (stranger, Browser()):
        status, headers, _ = sign_in(stack, browser, "alice", after="/calendar")
        assert (status, headers["Location"]) == (303, "/calendar")
        assert me(stack, browser) == "ann"
    # and nobody else may link her: cleo's link is refused
    cleo = Browser()
    password_log_in(stack, cleo, "cleo")
    _, _, settings = cleo.go(stack.url + "/settings")
    _, headers, _ = cleo.go(stack.url + "/login/oidc/link",
                            {"csrf_token": hidden(settings, "csrf_token"), "password": PASSWORD})
    status, headers, _ = cleo.go(cleo.provider_answer(headers["Location"], "alice"))
    assert (status, headers["Location"]) == (303, "/settings?done=sso_taken")
    # a sign-in answered in a browser that meanwhile holds someone's session rotates it
    shared = Browser()
    back = shared.provider_answer(stack.url + "/login/oidc", "alice")
    password_log_in(stack, shared, "cleo")
    cleos = shared.cookie("kmood_session")
    assert shared.go(back)[0] == 303 and me(stack, shared) == "ann"
    assert shared.cookie("kmood_session") != cleos
    assert me(stack, cleo) == "cleo"  # her other browser keeps its own session
    with sqlite3.connect(stack.env["KMOOD_DB"]) as db:
        assert db.execute("SELECT count(*) FROM sessions s JOIN users u ON u.id = s.user_id"
                          " WHERE u.username = 'cleo'").fetchone()[0] == 1
    stack.stop()
    log = stack.server_log.read_text()
    assert "sign-in method=oidc subject='alice' refused (not linked)" in log
    assert "sign-in method=oidc linked user=ann" in log
    assert log.count("sign-in method=oidc user=ann ok") == 3 and "Traceback" not in log
    assert "sign-in method=oidc link for user=cleo refused (the subject is another" in log


def test_newcomers_in_the_group_get_an_account_and_admins_theirs(household):
    stack, _ = household
    log = Log(stack)
    for login, admin in (("alice", False), ("bob", True)):
        browser = Browser()
        status, headers, _ = sign_in(stack, browser, login)
        assert (status, headers["Location"]) == (303, "/stats")
        status, _, body = browser.go(stack.url + "/api/me")
        assert f'"username":"{login}"' in body and f'"is_admin":{str(admin).lower()}' in body
    status, _, page = sign_in(stack, Browser(), "eve")
    assert status == 403 and "only members of the group chosen for k-mood" in page
    assert log.lines("sign-in method=oidc subject='eve' refused (not in the group)")


def test_a_verified_email_links_the_account_that_has_it_once(household):
    stack, _ = household
    log = Log(stack)
    # mallory's provider says dora's address is hers but has not verified it: no link (and
    # though she is in the group, the name is hers: a member "mallory" is made, not dora)
    browser = Browser()
    assert sign_in(stack, browser, "mallory")[0] == 303 and me(stack, browser) == "mallory"
    browser = Browser()
    assert sign_in(stack, browser, "dora-at-provider")[0] == 303 and me(stack, browser) == "dora"
    assert log.lines("sign-in method=oidc linked user=dora by the verified email address")
    # dora's account is linked now: another account with her address does not take it over
    assert sign_in(stack, Browser(), "dora-again")[0] == 403  # (and not in the group)
    assert log.lines("subject='dora-again' refused (not in the group)")
    assert sign_in(stack, browser := Browser(), "dora-at-provider")[0] == 303
    assert me(stack, browser) == "dora"


def test_an_id_token_that_fails_a_check_signs_nobody_in(household):
    stack, provider = household
    reasons = {"wrong-aud": "the ID token's claims: InvalidClaimError aud",
               "wrong-iss": "the ID token's claims: InvalidClaimError iss",
               "expired": "the ID token's claims: ExpiredTokenError exp",
               "nonce": "the ID token's claims: InvalidClaimError nonce",
               "foreign-key": "the ID token's signature: BadSignatureError",
               "alg-none": "the ID token's signature: UnsupportedAlgorithmError"}
    for mode, reason in reasons.items():
        log = Log(stack)
        browser = Browser()
        back = browser.provider_answer(stack.url + "/login/oidc", "alice")
        provider.misbehave(mode)
        status, headers, page = browser.go(back)
        assert status == 401 and "could not be verified" in page, mode
        assert browser.cookie("kmood_session") is None and "Location" not in headers
        refused = log.lines("sign-in method=oidc refused")
        assert len(refused) == 1 and refused[0].endswith(f"refused ({reason})"), refused
        # the provider behaves again: the same person signs in
        assert sign_in(stack, browser, "alice")[0] == 303 and me(stack, browser) == "alice"


def test_an_answer_is_used_once_by_the_browser_that_asked_for_it(household):
    stack, _ = household
    log = Log(stack)
    first = Browser()
    back = first.provider_answer(stack.url + "/login/oidc", "alice")
    # another browser handed this answer (a link in a message) gets nothing, and uses it up
    thief = Browser()
    status, _, page = thief.go(back)
    assert status == 400 and "not started in this browser" in page
    status, _, _ = first.go(back)
    assert status == 400 and first.cookie("kmood_session") is None
    # a good answer, then the same answer again: the state is gone
    back = first.provider_answer(stack.url + "/login/oidc", "alice")
    assert first.go(back)[0] == 303
    signed_in = first.cookie("kmood_session")
    status, _, _ = first.go(back)
    assert status == 400 and first.cookie("kmood_session") == signed_in
    # a code already redeemed, with a new state: the provider refuses it
    old_code = urllib.parse.parse_qs(urllib.parse.urlsplit(back).query)["code"][0]
    second = Browser()
    status, _, page = second.go(with_params(second.provider_answer(
        stack.url + "/login/oidc", "alice"), code=old_code))
    assert status == 401 and "could not be verified" in page
    # a code never redeemed but sent for another browser's request: PKCE binds the code to
    # the request it answers (the verifier k-mood kept for that one)
    theirs = Browser().provider_answer(stack.url + "/login/oidc", "alice")
    unused = urllib.parse.parse_qs(urllib.parse.urlsplit(theirs).query)["code"][0]
    third = Browser()
    status, _, page = third.go(with_params(third.provider_answer(
        stack.url + "/login/oidc", "alice"), code=unused))
    assert status == 401 and "could not be verified" in page
    # an answer naming another issuer (RFC 9207: a mix-up between providers), or an error
    fourth = Browser()
    back = fourth.provider_answer(stack.url + "/login/oidc", "alice")
    assert fourth.go(with_params(back, iss="https://evil.example"))[0] == 400
    back = fourth.provider_answer(stack.url + "/login/oidc", "alice")
    status, _, page = fourth.go(with_params(back, code=None, error="access_denied"))
    assert status == 401 and "did not sign you in" in page
    # a state nobody began
    status, _, _ = first.go(stack.url + "/login/oidc/callback?code=x&state=made-up")
    assert status == 400
    for browser in (second, third, fourth):
        assert browser.cookie("kmood_session") is None
    assert len(log.lines("refused (a state not begun in this browser, used or expired)")) == 4
    assert len(log.lines("refused (the token endpoint answered HTTP 400 (invalid_grant))")) == 2
    assert log.lines("refused (the answer names issuer 'https://evil.example')")
    assert log.lines("refused by the provider ('access_denied')")


def test_a_key_rotated_at_the_provider_is_fetched_again(household):
    stack, provider = household
    log = Log(stack)
    assert sign_in(stack, Browser(), "alice")[0] == 303  # k-mood holds this key now
    provider.restart()  # signs with a new one from now on
    browser = Browser()
    assert sign_in(stack, browser, "alice")[0] == 303 and me(stack, browser) == "alice"
    assert not log.lines("refused")


def test_next_never_leaves_the_site(household):
    stack, _ = household
    for target in ("https://evil.example/", "//evil.example/x", "/%2F/evil.example",
                   "/\\evil.example", "javascript:alert(1)"):
        status, headers, _ = sign_in(stack, Browser(), "alice", after=target)
        assert (status, headers["Location"]) == (303, "/"), target


def test_with_passwords_off_the_provider_is_the_way_in_and_out(sso):
    stack, provider = sso(KMOOD_PASSWORD_LOGIN="off", KMOOD_SSO_AUTO_CREATE="1")
    browser = Browser()
    status, headers, _ = browser.go(stack.url + "/login?next=/history")
    assert (status, headers["Location"]) == (303, "/login/oidc?next=%2Fhistory")
    status, _, page = browser.go(stack.url + "/login?lang=de")  # choosing a language stays
    assert status == 200 and 'id="single-sign-on"' in page and 'name="password"' not in page
    status, headers, _ = sign_in(stack, browser, "alice")
    assert status == 303
    _, headers, page = browser.go(stack.url + "/logout")
    assert f"form-action 'self' {provider.issuer}" in headers["Content-Security-Policy"]
    status, headers, _ = browser.go(stack.url + "/logout", {"csrf_token": hidden(page,
                                                                                 "csrf_token")})
    leave = urllib.parse.urlsplit(headers["Location"])
    assert status == 303 and f"{leave.scheme}://{leave.netloc}" == provider.issuer
    assert dict(urllib.parse.parse_qsl(leave.query)) == {
        "client_id": "kmood-tests", "post_logout_redirect_uri": stack.url + "/login?signed_out=1"}
    assert browser.cookie("kmood_session") is None
    # back from the provider's logout: the page says so (in the language chosen above) and
    # does not send them off again
    status, _, page = browser.go(stack.url + "/login?signed_out=1")
    assert status == 200 and "Du bist abgemeldet." in page


def test_an_unreachable_provider_is_said_and_changes_nothing(sso):
    stack, _ = sso(reachable=False)
    browser = Browser()
    status, _, page = browser.go(stack.url + "/login/oidc")
    assert status == 503 and "could not be reached" in page
    assert browser.cookie("kmood_sign_in") is None
    stack.stop()
    assert "Traceback" not in stack.server_log.read_text()


def test_answers_that_fail_count_against_the_address(sso):
    stack, provider = sso(KMOOD_LOGIN_MAX_FAILURES_PER_ADDRESS="2", KMOOD_SSO_AUTO_CREATE="1")
    browser = Browser()
    # an answer to no request this browser began costs nothing (a page elsewhere could link
    # here a hundred times to spend the household's attempts)
    for _ in range(5):
        assert browser.go(stack.url + "/login/oidc/callback?code=x&state=y")[0] == 400
    for _ in range(2):  # two answers that fail their checks
        back = browser.provider_answer(stack.url + "/login/oidc", "alice")
        provider.misbehave("nonce")
        assert browser.go(back)[0] == 401
    back = browser.provider_answer(stack.url + "/login/oidc", "alice")
    status, headers, _ = browser.go(back)  # even a good one waits now
    assert status == 429 and int(headers["Retry-After"]) > 0
    assert browser.cookie("kmood_session") is None


def test_doctor_reads_the_providers_discovery_and_keys(household):
    from tests.e2e.test_doctor import doctor

    stack, provider = household
    code, levels, out = doctor(stack.env, "--network")
    line = next(line for line in out.splitlines() if "single-sign-on" in line)
    assert levels["single-sign-on"] == {"ok"} and "1 signing key(s)" in line
    assert f"redirect URI {stack.url}/login/oidc/callback" in line
    # an issuer written otherwise than the provider writes it fails, saying what to set
    code, levels, out = doctor({**stack.env, "KMOOD_OIDC_ISSUER": provider.issuer + "/"},
                               "--network")
    assert levels["single-sign-on"] == {"fail"}
    assert "set KMOOD_OIDC_ISSUER to exactly that" in out and provider.issuer in out


def test_signing_in_again_at_the_provider_is_a_fresh_sign_in(household):
    """An account single sign-on made has no password: it may set one (or add a passkey)
    only within minutes of proving who it is — at the provider, asked to sign in anew."""
    stack, provider = household
    browser = Browser()
    assert sign_in(stack, browser, "bob")[0] == 303  # (bob: made at his first sign-in)
    status, headers, _ = browser.go(stack.url + "/login/oidc?again=1&next=/settings")
    query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(headers["Location"]).query))
    assert status == 303 and (query["prompt"], query["max_age"]) == ("login", "0")
    status, headers, _ = browser.go(browser.provider_answer(headers["Location"], "bob"))
    assert (status, headers["Location"]) == (303, "/settings")
    _, _, page = browser.go(stack.url + "/settings")
    status, headers, _ = browser.go(stack.url + "/settings/password", {
        "csrf_token": hidden(page, "csrf_token"), "new_password": "bob's own password",
        "repeat_password": "bob's own password"})
    assert status == 303 and "done=password" in headers["Location"]
