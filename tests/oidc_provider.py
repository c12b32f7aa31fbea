"""A real OpenID provider on 127.0.0.1 for the single sign-on tests: panva's oidc-provider
(tools/oidc, installed by `make test-tools`), started with node, and a small cookie-keeping
HTTP client that signs in at it as a browser would (its development login form)."""

from __future__ import annotations

import http.cookiejar
import json
import re
import shutil
import subprocess
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from tests.helpers import ROOT, free_port, wait_until

TOOL = ROOT / "tools" / "oidc"
CLIENT_ID = "kmood-tests"
CLIENT_SECRET = "a-client-secret-for-the-tests-only"


def need_provider() -> str:
    """node's path, or the test is skipped saying what is missing."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: the single sign-on tests run a real OpenID provider"
                    " (oidc-provider) with it")
    if not (TOOL / "node_modules" / "oidc-provider").is_dir():
        pytest.fail("tools/oidc/node_modules is missing: run make test-tools (npm ci there)")
    return node


class Provider:
    """oidc-provider with one confidential client for a k-mood at `public_url`, and accounts
    (login name -> claims). restart() is a key rotation: a new signing key, a new kid."""

    def __init__(self, tmp_path: Path, public_url: str, accounts: dict[str, dict]):
        self.node = need_provider()
        self.port = free_port()
        self.issuer = f"http://127.0.0.1:{self.port}"
        self.config_path = tmp_path / "oidc-provider.json"
        self.log_path = tmp_path / "oidc-provider.log"
        self.public_url = public_url
        self.accounts = accounts
        self.generation = 0
        self.proc: subprocess.Popen | None = None

    def start(self) -> Provider:
        self.generation += 1
        self.config_path.write_text(json.dumps({
            "client_id": CLIENT_ID, "client_secret": CLIENT_SECRET,
            "redirect_uris": [self.public_url + "/login/oidc/callback"],
            "post_logout_redirect_uris": [self.public_url + "/login?signed_out=1"],
            "key_id": f"key-{self.generation}", "accounts": self.accounts}))
        log = open(self.log_path, "ab")
        already = self.log_path.stat().st_size
        self.proc = subprocess.Popen([self.node, str(TOOL / "provider.mjs"), str(self.port),
                                      str(self.config_path)], cwd=TOOL, stdout=log,
                                     stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        wait_until(lambda: f"listening {self.issuer}" in self.log_path.read_text()[already:]
                   or self.proc.poll() is not None, 20, what="the OpenID provider")
        assert self.proc.poll() is None, self.log_path.read_text()
        return self

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)

    def restart(self) -> None:
        """The provider signs with a new key from now on (its old sessions are gone too)."""
        self.stop()
        self.start()

    def misbehave(self, mode: str) -> None:
        """The next ID token the token endpoint hands out is wrong in this one way."""
        request = urllib.request.Request(self.issuer + "/_test/misbehave", data=mode.encode(),
                                         method="POST")
        with urllib.request.urlopen(request, timeout=10) as answer:
            assert answer.status == 204

    def env(self, **extra: str) -> dict[str, str]:
        """k-mood's settings for this provider."""
        return {"KMOOD_OIDC_ISSUER": self.issuer, "KMOOD_OIDC_CLIENT_ID": CLIENT_ID,
                "KMOOD_OIDC_CLIENT_SECRET": CLIENT_SECRET, "KMOOD_OIDC_NAME": "Test SSO",
                "KMOOD_OIDC_SCOPES": "openid profile email groups",
                "KMOOD_PUBLIC_URL": self.public_url, **extra}


class _Stay(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None  # every redirect is the caller's to follow (or not)


class Browser:
    """Cookies and one request at a time, redirects left to the caller, as a test needs to
    stop at the provider's answer (to replay it, or hand it to another browser)."""

    def __init__(self):
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar),
                                                  _Stay())

    def go(self, url: str, form: dict | None = None) -> tuple[int, dict, str]:
        data = urllib.parse.urlencode(form).encode() if form is not None else None
        request = urllib.request.Request(url, data=data)
        try:
            with self.opener.open(request, timeout=20) as answer:
                return answer.status, dict(answer.headers), answer.read().decode()
        except urllib.error.HTTPError as answer:
            return answer.code, dict(answer.headers), answer.read().decode()

    def cookie(self, name: str) -> str | None:
        return next((c.value for c in self.jar if c.name == name), None)

    def provider_answer(self, start: str, login: str) -> str:
        """From `start` (k-mood's /login/oidc) through the provider's login form as `login`,
        to the URL the provider sends the browser back to k-mood with (not opened)."""
        url, back = start, None
        for _ in range(12):
            status, headers, body = self.go(url)
            if status in (302, 303) and "/login/oidc/callback" in headers["Location"]:
                back = urllib.parse.urljoin(url, headers["Location"])
                break
            if status in (302, 303):
                url = urllib.parse.urljoin(url, headers["Location"])
                continue
            assert status == 200 and 'name="login"' in body, (status, body[:500])
            action = re.search(r'<form[^>]*action="([^"]+)"', body).group(1)
            status, headers, body = self.go(urllib.parse.urljoin(url, action),
                                            {"prompt": "login", "login": login,
                                             "password": "any"})
            assert status in (302, 303), (status, body[:500])
            url = urllib.parse.urljoin(url, headers["Location"])
        assert back is not None, "the provider never sent the browser back"
        return back
