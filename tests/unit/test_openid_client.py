"""The OpenID Connect client's checks, each on its own (SPEC §14, issue #41): a real HTTP
server on 127.0.0.1 answers as a provider would — discovery, keys, the token endpoint and
userinfo — with ID tokens made here, right but for one thing each. (The whole flow against a
real provider, oidc-provider, is tests/e2e/test_openid_connect.py; these run without node.)"""

from __future__ import annotations

import base64
import http.server
import json
import threading
import time
import urllib.parse

import pytest
from joserfc import jwt
from joserfc.jwk import OctKey, RSAKey

from kmood_lib.upstream.openid import OpenIDProvider, ProviderUnavailable, SignInRefused
from tests.helpers import wait_until

CLIENT_ID, SECRET = "k-mood", "s3cret:with/odd&chars"
NONCE = "the-nonce-k-mood-sent"
KEY = RSAKey.generate_key(2048, parameters={"kid": "key-1"})
OTHER = RSAKey.generate_key(2048, parameters={"kid": "key-2"})


class Answers(http.server.ThreadingHTTPServer):
    """path -> (status, headers, body); every request seen is kept in `asked`."""

    daemon_threads = True

    def __init__(self):
        super().__init__(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server_address[1]}"
        self.routes: dict[str, tuple[int, dict, bytes]] = {}
        self.asked: list[tuple[str, dict, bytes]] = []
        self.hold: dict[str, threading.Event] = {}  # path -> answered once it is set

    def json(self, path: str, document, status: int = 200) -> None:
        self.routes[path] = (status, {"Content-Type": "application/json"},
                             json.dumps(document).encode())


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def answer(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        path = urllib.parse.urlsplit(self.path).path
        self.server.asked.append((path, dict(self.headers), body))
        if path in self.server.hold:
            self.server.hold[path].wait(10)
        status, headers, data = self.server.routes.get(path, (404, {}, b"{}"))
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = answer


@pytest.fixture(scope="module")
def server():
    running = Answers()
    threading.Thread(target=running.serve_forever, kwargs={"poll_interval": 0.05},
                     daemon=True).start()
    yield running
    running.shutdown()
    running.server_close()


@pytest.fixture
def provider(server):
    """The server, answering as a good provider does (each test changes what it needs)."""
    server.routes.clear()
    server.asked.clear()
    server.hold.clear()
    server.json("/.well-known/openid-configuration", {
        "issuer": server.url, "authorization_endpoint": server.url + "/auth",
        "token_endpoint": server.url + "/token", "jwks_uri": server.url + "/jwks",
        "userinfo_endpoint": server.url + "/userinfo",
        "id_token_signing_alg_values_supported": ["RS256", "HS256", "none"],
        "code_challenge_methods_supported": ["S256"]})
    server.json("/jwks", {"keys": [KEY.as_dict(private=False)]})
    server.json("/userinfo", {"sub": "sub-1", "preferred_username": "ann",
                              "email": "ann@example.org", "email_verified": True,
                              "groups": ["family", 7, ""]})
    return server


def client(provider, **kwargs) -> OpenIDProvider:
    return OpenIDProvider(provider.url, CLIENT_ID, SECRET, "openid profile", "https://m/cb",
                          "k-mood tests", **kwargs)


def id_token(provider, key=KEY, header=None, **changes) -> str:
    now = int(time.time())
    claims = {"iss": provider.url, "sub": "sub-1", "aud": CLIENT_ID, "iat": now,
              "exp": now + 300, "nonce": NONCE, **changes}
    claims = {name: value for name, value in claims.items() if value is not None}
    return jwt.encode(header or {"alg": "RS256", "kid": key.kid}, claims, key)


def tokens(provider, token: str, **extra) -> None:
    provider.json("/token", {"id_token": token, "access_token": "at-1", **extra})


def finish(provider, **kwargs):
    return client(provider, **kwargs).finish("the-code", "the-verifier", NONCE)


def test_a_good_answer_is_the_person_with_their_userinfo(provider):
    tokens(provider, id_token(provider))
    person = finish(provider)
    assert (person.subject, person.name, person.email, person.email_verified) == (
        "sub-1", "ann", "ann@example.org", True)
    assert person.groups == {"family"}  # what is not a group's name is left out
    path, headers, body = next(asked for asked in provider.asked if asked[0] == "/token")
    form = dict(urllib.parse.parse_qsl(body.decode()))
    assert form == {"grant_type": "authorization_code", "code": "the-code",
                    "redirect_uri": "https://m/cb", "code_verifier": "the-verifier"}
    sent = base64.b64decode(headers["Authorization"].removeprefix("Basic ")).decode()
    assert sent == "k-mood:s3cret%3Awith%2Fodd%26chars"  # RFC 6749 2.3.1: each form-encoded


@pytest.mark.parametrize("changes, why", [
    ({"aud": "someone-else"}, "InvalidClaimError aud"),
    ({"aud": [CLIENT_ID, "another"]}, "MissingClaimError azp"),  # several audiences: azp must be k-mood
    ({"aud": [CLIENT_ID, "another"], "azp": "another"}, "InvalidClaimError azp"),
    ({"iss": "https://elsewhere.example"}, "InvalidClaimError iss"),
    ({"nonce": None}, "MissingClaimError nonce"),
    ({"nonce": "another"}, "InvalidClaimError nonce"),
    ({"exp": int(time.time()) - 120}, "ExpiredTokenError exp"),
    ({"iat": int(time.time()) + 600}, "InvalidClaimError iat"),
    ({"iat": None}, "MissingClaimError iat"),
    ({"sub": 42}, "InvalidClaimError sub"),
    ({"sub": "x" * 256}, "sub is not 1-255 characters"),
    ({"at_hash": {"not": "a hash"}}, "a claim of the wrong type"),
    ({"at_hash": "AAAAAAAAAAAAAAAAAAAAAA"}, "InvalidClaimError at_hash"),
])
def test_an_id_token_wrong_in_one_way_is_refused(provider, changes, why):
    tokens(provider, id_token(provider, **changes))
    with pytest.raises(SignInRefused) as refused:
        finish(provider)
    assert refused.value.reason.endswith(why)


def test_a_little_clock_skew_is_allowed(provider):
    tokens(provider, id_token(provider, exp=int(time.time()) - 30))
    assert finish(provider).subject == "sub-1"


@pytest.mark.parametrize("token, why", [
    # a MAC made with the provider's public key as the secret: an old confusion attack
    (lambda p: jwt.encode({"alg": "HS256", "kid": KEY.kid}, {"sub": "sub-1"}, OctKey.import_key(
        json.dumps(KEY.as_dict(private=False)).encode())), "UnsupportedAlgorithmError"),
    (lambda p: id_token(p, key=OTHER, header={"alg": "RS256", "kid": KEY.kid}),
     "BadSignatureError"),  # signed by another key, naming the provider's
    (lambda p: "not.a.jwt", "DecodeError"),
    (lambda p: "e30.e30.", "MissingAlgorithmError"),  # {} {} unsigned: "none" in all but name
])
def test_a_token_not_signed_by_the_providers_key_is_refused(provider, token, why):
    tokens(provider, token(provider))
    with pytest.raises(SignInRefused) as refused:
        finish(provider)
    assert refused.value.reason == f"the ID token's signature: {why}"


def test_a_new_key_is_fetched_once_and_a_token_without_kid_tries_each_key(provider):
    tokens(provider, id_token(provider))
    openid = client(provider)
    assert openid.finish("c", "v", NONCE).subject == "sub-1"
    provider.json("/jwks", {"keys": [KEY.as_dict(private=False), OTHER.as_dict(private=False)]})
    tokens(provider, id_token(provider, key=OTHER))  # signed with a key k-mood has not seen
    assert openid.finish("c", "v", NONCE).subject == "sub-1"
    fetched = [path for path, _, _ in provider.asked if path == "/jwks"]
    assert len(fetched) == 2
    tokens(provider, id_token(provider, key=OTHER, header={"alg": "RS256"}))  # no kid
    assert openid.finish("c", "v", NONCE).subject == "sub-1"
    assert len([path for path, _, _ in provider.asked if path == "/jwks"]) == 2


def test_userinfo_for_someone_else_refuses_and_cannot_replace_the_tokens_claims(provider):
    tokens(provider, id_token(provider, preferred_username="ann-in-token"))
    assert finish(provider).name == "ann-in-token"  # the ID token's own claim wins
    provider.json("/userinfo", {"sub": "sub-2", "preferred_username": "mallory"})
    with pytest.raises(SignInRefused, match="userinfo describes another subject"):
        finish(provider)


def test_the_bearer_token_is_never_carried_along_a_redirect(provider):
    tokens(provider, id_token(provider))
    provider.routes["/userinfo"] = (302, {"Location": provider.url + "/elsewhere"}, b"")
    person = finish(provider)
    assert person.subject == "sub-1" and person.name is None
    assert "/elsewhere" not in [path for path, _, _ in provider.asked]


@pytest.mark.parametrize("status, body, error", [
    (400, b'{"error": "invalid_grant"}', SignInRefused),
    (200, b"<html>not json</html>", SignInRefused),
    (200, b'{"id_token": 42}', SignInRefused),
    (502, b"bad gateway", ProviderUnavailable),
])
def test_a_token_endpoint_answer_that_is_no_answer_signs_nobody_in(provider, status, body,
                                                                   error):
    provider.routes["/token"] = (status, {"Content-Type": "application/json"}, body)
    with pytest.raises(error):
        finish(provider)


def test_a_provider_that_names_itself_otherwise_is_said_and_remembered_for_a_while(provider):
    provider.json("/.well-known/openid-configuration", {"issuer": provider.url + "/"})
    openid = client(provider)
    with pytest.raises(ProviderUnavailable, match="set KMOOD_OIDC_ISSUER to exactly that"):
        openid.metadata()
    asked = len(provider.asked)
    with pytest.raises(ProviderUnavailable, match="exactly that"):  # said again at once
        openid.authorization_url("state", "verifier", "nonce")
    assert len(provider.asked) == asked


def test_the_authorization_url_carries_pkce_state_nonce_and_prompt(provider):
    url = client(provider).authorization_url("the-state", "v" * 64, "the-nonce", "de", "login")
    parts = urllib.parse.urlsplit(url)
    query = dict(urllib.parse.parse_qsl(parts.query))
    challenge = base64.urlsafe_b64encode(__import__("hashlib").sha256(
        b"v" * 64).digest()).rstrip(b"=").decode()
    assert (parts.scheme + "://" + parts.netloc + parts.path) == provider.url + "/auth"
    assert query == {"response_type": "code", "client_id": CLIENT_ID,
                     "redirect_uri": "https://m/cb", "scope": "openid profile",
                     "state": "the-state", "nonce": "the-nonce", "code_challenge": challenge,
                     "code_challenge_method": "S256", "ui_locales": "de", "prompt": "login",
                     "max_age": "0"}


def test_over_https_the_browsers_binding_is_a_host_only_cookie_never_a_planted_one(
        provider, config, clock):
    """Behind HTTPS the cookie that binds a browser to its sign-ins is __Host- (no sibling
    subdomain can set it), and a value k-mood did not make is never reused."""
    from kmood_lib.bootstrap import bootstrap
    from kmood_lib.web.app import make_wsgi
    from tests.wsgi import Client

    services = bootstrap(config.with_overrides(
        oidc_issuer=provider.url, oidc_client_id=CLIENT_ID, cookie_secure=True,
        public_url="https://mood.example.org"), clock=clock)
    try:
        browser = Client(make_wsgi(services))
        browser.cookies["__Host-kmood_sign_in"] = "planted-by-a-neighbour"
        sent = browser.get("/login/oidc")
        assert sent.status == 303 and sent.headers["Location"].startswith(provider.url + "/auth?")
        made = next(c for c in sent.set_cookies if c.startswith("__Host-kmood_sign_in="))
        value = made.split(";")[0].split("=", 1)[1]
        assert value != "planted-by-a-neighbour" and len(value) == 43
        assert all(part in made for part in ("Path=/", "Secure", "HttpOnly", "SameSite=lax"))
    finally:
        services.hasher.close()


def test_a_provider_that_hangs_holds_at_most_two_server_threads(provider):
    """Checking an answer takes up to three calls to the provider: at most two run at once,
    and a third is told at once that the provider is busy, not left waiting."""
    tokens(provider, id_token(provider))
    provider.hold["/token"] = threading.Event()
    openid = client(provider)
    openid.metadata()
    results = []
    waiting = [threading.Thread(target=lambda: results.append(openid.finish("c", "v", NONCE)))
               for _ in range(2)]
    for thread in waiting:
        thread.start()
    wait_until(lambda: len([a for a in provider.asked if a[0] == "/token"]) == 2, 5,
               what="both at the token endpoint")
    started = time.monotonic()
    with pytest.raises(ProviderUnavailable, match="too many sign-ins are waiting"):
        openid.finish("c", "v", NONCE)
    assert time.monotonic() - started < 1
    provider.hold["/token"].set()
    for thread in waiting:
        thread.join(10)
    assert [person.subject for person in results] == ["sub-1", "sub-1"]
    assert openid.finish("c", "v", NONCE).subject == "sub-1"  # free again


def test_the_provider_says_when_the_person_proved_who_they_are(provider):
    proved = int(time.time()) - 30
    tokens(provider, id_token(provider, auth_time=proved))
    assert finish(provider).auth_time == proved
    for junk in ("yesterday", True, -5):
        tokens(provider, id_token(provider, auth_time=junk))
        try:
            assert finish(provider).auth_time is None
        except SignInRefused:  # (or the claims rules refuse it outright)
            pass
