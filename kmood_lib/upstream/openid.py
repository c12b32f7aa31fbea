"""The OpenID provider k-mood signs people in with (SPEC §14): discovery, the authorization
request (code flow with PKCE S256, state and nonce), the code exchanged for tokens, the ID
token verified — its signature against the provider's JWKS (fetched again when a key is new:
a rotation), then `iss`, `aud`/`azp`, `exp`/`iat` within a small skew and the `nonce` — and
userinfo for the claims a provider keeps out of the ID token (Authelia's default).

Authlib states the protocol (PKCE, the ID token's claims rules); joserfc, Authlib's own JOSE
library, checks the signature; the HTTP goes through upstream.http (one deadline per call,
bounded answers). The provider is the admin's own, so a private address is allowed. Authlib
and joserfc (requirements-sso.txt) are imported when a provider is configured, not before:
a household without single sign-on runs without them.
"""

from __future__ import annotations

import base64
import json
import logging
import secrets
import threading
import time
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass

from kmood_lib.core.errors import SignInRefused
from kmood_lib.upstream.http import UpstreamError, exchange, usable_json

__all__ = ["OpenIDProvider", "Person", "ProviderUnavailable", "SignInRefused"]

log = logging.getLogger(__name__)

TIMEOUT_S = 5.0  # each call to the provider, in all (it is the household's own, nearby)
MAX_ANSWER = 1024 * 1024
METADATA_TTL_S = 3600.0  # the discovery document and the keys are read again after this long
FAILURE_MEMORY_S = 30.0  # after the provider could not be read, say so at once for this long
MAX_FINISHING = 2  # answers being checked with the provider at once (each up to 3 calls)
LEEWAY_S = 60  # clock skew allowed between k-mood and the provider for exp and iat
MAX_GROUPS = 1000
# Signatures k-mood accepts: the provider's public keys only (never "none", never a MAC).
ASYMMETRIC = ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512",
              "EdDSA")  # (not "Ed25519": Authlib cannot check an at_hash made with it)


class ProviderUnavailable(Exception):
    """The provider could not be asked: unreachable, slow, an error page, a document that is
    not what OpenID Connect describes. Said to the person as "try again"; logged with why."""


@dataclass(frozen=True)
class Metadata:
    issuer: str
    authorization_endpoint: str
    token_endpoint: str
    jwks_uri: str
    userinfo_endpoint: str | None
    end_session_endpoint: str | None
    client_auth: str  # client_secret_basic | client_secret_post | none
    algorithms: tuple[str, ...]


@dataclass(frozen=True)
class Person:
    """Who the provider says signed in: `subject` is the one thing an account is found by."""

    subject: str
    name: str | None  # the KMOOD_OIDC_USERNAME_CLAIM, to name an account made now
    email: str | None
    email_verified: bool
    groups: frozenset[str]
    auth_time: int | None = None  # when they last proved who they are there (seconds)


def _url(document: dict, name: str, required: bool = True) -> str | None:
    value = document.get(name)
    if value is None and not required:
        return None
    parts = urllib.parse.urlsplit(value) if isinstance(value, str) else None
    if parts is None or parts.scheme not in ("http", "https") or not parts.netloc:
        raise ProviderUnavailable(f"its discovery document has no usable {name}")
    return value


class OpenIDProvider:
    """The relying party's side, for one provider and one client. Thread-safe: the discovery
    document and the JWKS are cached for every request thread."""

    def __init__(self, issuer: str, client_id: str, client_secret: str, scopes: str,
                 redirect_uri: str, user_agent: str, *, username_claim: str = "preferred_username",
                 groups_claim: str = "groups", clock: Callable[[], float] = time.time,
                 timeout_s: float = TIMEOUT_S):
        self.issuer = issuer
        self.client_id = client_id
        self.client_secret = client_secret
        self.scopes = scopes
        self.redirect_uri = redirect_uri
        self.user_agent = user_agent
        self.username_claim = username_claim
        self.groups_claim = groups_claim
        self.clock = clock
        self.timeout_s = timeout_s
        from authlib.oauth2.rfc7636 import create_s256_code_challenge
        from authlib.oidc.core import CodeIDToken
        from joserfc import errors, jwk, jwt

        self._challenge, self._claims, self._jwt = create_s256_code_challenge, CodeIDToken, jwt
        self._errors, self._key_sets = errors, jwk.KeySet
        self._lock = threading.Lock()  # guards the cached values below
        self._fetching = threading.Lock()  # one thread reads the discovery document at a time
        self._metadata: Metadata | None = None
        self._metadata_at = 0.0
        self._failed: tuple[float, str] | None = None  # when discovery last failed, and why
        self._keys = None  # a joserfc KeySet
        self._keys_at = 0.0
        self._finishing = threading.BoundedSemaphore(MAX_FINISHING)

    # --- talking to the provider ---

    def _call(self, method: str, url: str, what: str, headers: dict | None = None,
              form: dict | None = None) -> tuple[int, object]:
        payload = urllib.parse.urlencode(form).encode() if form is not None else None
        sent = {"Accept": "application/json", **(headers or {})}
        if payload is not None:
            sent["Content-Type"] = "application/x-www-form-urlencoded"
        try:  # a credential is never carried on to wherever a redirect points
            answer = exchange(method, url, user_agent=self.user_agent,
                              deadline=time.monotonic() + self.timeout_s, headers=sent,
                              payload=payload, max_bytes=MAX_ANSWER,
                              follow_redirects=method == "GET" and "Authorization" not in sent)
        except (UpstreamError, ValueError) as exc:  # ValueError: a URL urllib cannot read
            raise ProviderUnavailable(f"{what}: {exc}") from None
        try:
            return answer.status, usable_json(json.loads(answer.body.decode("utf-8")))
        except (UnicodeDecodeError, ValueError, RecursionError):
            return answer.status, None

    def metadata(self) -> Metadata:
        """The provider's discovery document, read at most once an hour by one thread at a
        time; after a failure, for FAILURE_MEMORY_S, the failure is said again at once (a
        provider that is down holds no server thread for long)."""
        cached = self._cached_metadata()
        if cached is not None:
            return cached
        with self._fetching:
            cached = self._cached_metadata()  # read by another thread meanwhile
            if cached is not None:
                return cached
            try:
                found = self._discover()
            except ProviderUnavailable as exc:
                with self._lock:
                    self._failed = (time.monotonic(), str(exc))
                raise
            with self._lock:
                self._metadata, self._metadata_at, self._failed = found, time.monotonic(), None
            return found

    def _cached_metadata(self) -> Metadata | None:
        with self._lock:
            if (self._metadata is not None
                    and time.monotonic() - self._metadata_at < METADATA_TTL_S):
                return self._metadata
            if self._failed is not None and time.monotonic() - self._failed[0] < FAILURE_MEMORY_S:
                raise ProviderUnavailable(self._failed[1])
        return None

    def warm(self) -> None:
        """Read the discovery document on a thread of its own, if it is not at hand: pages
        that name the provider's addresses (their CSP) never wait for it."""
        def read():
            try:
                self.metadata()
            except ProviderUnavailable as exc:
                log.warning("single sign-on: the provider could not be read (%s)", exc)

        if self._fetching.locked():
            return
        with self._lock:
            if self._metadata is not None:
                return
        threading.Thread(target=read, name="openid-discovery", daemon=True).start()

    def _discover(self) -> Metadata:
        status, document = self._call(
            "GET", self.issuer.rstrip("/") + "/.well-known/openid-configuration", "discovery")
        if status != 200 or not isinstance(document, dict):
            raise ProviderUnavailable(f"discovery answered HTTP {status} without a document")
        if document.get("issuer") != self.issuer:
            raise ProviderUnavailable(
                f"the provider names itself {str(document.get('issuer'))[:200]!r}: set"
                f" KMOOD_OIDC_ISSUER to exactly that")
        methods = document.get("code_challenge_methods_supported")
        if isinstance(methods, list) and "S256" not in methods:
            raise ProviderUnavailable("the provider does not offer PKCE with S256")
        offered = document.get("token_endpoint_auth_methods_supported")
        offered = offered if isinstance(offered, list) else ["client_secret_basic"]
        if not self.client_secret:
            client_auth = "none"
        elif "client_secret_basic" in offered or "client_secret_post" not in offered:
            client_auth = "client_secret_basic"
        else:
            client_auth = "client_secret_post"
        algorithms = document.get("id_token_signing_alg_values_supported")
        algorithms = tuple(a for a in algorithms if a in ASYMMETRIC) if isinstance(
            algorithms, list) else ("RS256",)
        if not algorithms:
            raise ProviderUnavailable("the provider signs ID tokens only with algorithms k-mood"
                                      " does not accept (none, or a shared secret)")
        return Metadata(self.issuer, _url(document, "authorization_endpoint"),
                        _url(document, "token_endpoint"), _url(document, "jwks_uri"),
                        _url(document, "userinfo_endpoint", required=False),
                        _url(document, "end_session_endpoint", required=False),
                        client_auth, algorithms)

    def _key_set(self, fresh: bool):
        """The provider's signing keys, read again when `fresh` or an hour old (a key it has
        withdrawn is not trusted for longer)."""
        with self._lock:
            if (self._keys is not None and not fresh
                    and time.monotonic() - self._keys_at < METADATA_TTL_S):
                return self._keys
        status, document = self._call("GET", self.metadata().jwks_uri, "jwks")
        keys = document.get("keys") if isinstance(document, dict) else None
        if status != 200 or not isinstance(keys, list):
            raise ProviderUnavailable(f"its JWKS answered HTTP {status} without keys")
        usable = [k for k in keys if isinstance(k, dict) and k.get("use", "sig") == "sig"
                  and k.get("kty") in ("RSA", "EC", "OKP")]
        try:
            found = self._key_sets.import_key_set({"keys": usable})
        except (self._errors.JoseError, ValueError, TypeError) as exc:
            raise ProviderUnavailable(f"its JWKS holds a key k-mood cannot read: {exc}") from None
        with self._lock:
            self._keys, self._keys_at = found, time.monotonic()
        return found

    def signing_keys(self) -> int:
        """How many signing keys the provider publishes now (read afresh: for `doctor`)."""
        return len(self._key_set(fresh=True).keys)

    # --- the sign-in ---

    @staticmethod
    def new_secrets() -> dict:
        """What one authorization request keeps until the browser is back: its PKCE verifier
        and its nonce."""
        return {"verifier": secrets.token_urlsafe(48), "nonce": secrets.token_urlsafe(32)}

    def authorization_url(self, state: str, verifier: str, nonce: str, ui_locales: str = "",
                          prompt: str = "") -> str:
        """Where to send the browser to sign in (the code flow, PKCE S256, state, nonce);
        `prompt=login` asks the person to sign in there again even if they are already (with
        max_age=0: the ID token's auth_time then says they just did)."""
        metadata = self.metadata()
        params = {"response_type": "code", "client_id": self.client_id,
                  "redirect_uri": self.redirect_uri, "scope": self.scopes, "state": state,
                  "nonce": nonce, "code_challenge": self._challenge(verifier),
                  "code_challenge_method": "S256"}
        if ui_locales:
            params["ui_locales"] = ui_locales
        if prompt:
            params["prompt"] = prompt
            params["max_age"] = "0"
        joiner = "&" if urllib.parse.urlsplit(metadata.authorization_endpoint).query else "?"
        return metadata.authorization_endpoint + joiner + urllib.parse.urlencode(params)

    def finish(self, code: str, verifier: str, nonce: str) -> Person:
        """Exchange the code (with the verifier), verify the ID token, read userinfo — at most
        MAX_FINISHING at once: a provider that hangs holds no more server threads."""
        if not self._finishing.acquire(blocking=False):
            raise ProviderUnavailable("too many sign-ins are waiting on the provider")
        try:
            return self._finish(code, verifier, nonce)
        finally:
            self._finishing.release()

    def _finish(self, code: str, verifier: str, nonce: str) -> Person:
        metadata = self.metadata()
        tokens = self._exchange_code(metadata, code, verifier)
        claims = self._verified_claims(metadata, tokens, nonce)
        if metadata.userinfo_endpoint and isinstance(tokens.get("access_token"), str):
            claims = {**self._userinfo(metadata, tokens["access_token"], claims["sub"]), **claims}
        return self._person(claims)

    def _exchange_code(self, metadata: Metadata, code: str, verifier: str) -> dict:
        form = {"grant_type": "authorization_code", "code": code,
                "redirect_uri": self.redirect_uri, "code_verifier": verifier}
        headers = {}
        if metadata.client_auth == "client_secret_basic":  # RFC 6749 §2.3.1: each form-encoded
            pair = (urllib.parse.quote_plus(self.client_id) + ":"
                    + urllib.parse.quote_plus(self.client_secret))
            headers["Authorization"] = "Basic " + base64.b64encode(pair.encode()).decode()
        else:
            form["client_id"] = self.client_id
            if metadata.client_auth == "client_secret_post":
                form["client_secret"] = self.client_secret
        status, tokens = self._call("POST", metadata.token_endpoint, "token", headers, form)
        if status != 200 or not isinstance(tokens, dict):
            error = tokens.get("error") if isinstance(tokens, dict) else None
            raise SignInRefused(f"the token endpoint answered HTTP {status}"
                                + (f" ({str(error)[:100]})" if error else ""))
        if not isinstance(tokens.get("id_token"), str):
            raise SignInRefused("the token endpoint sent no ID token")
        return tokens

    def _verified_claims(self, metadata: Metadata, tokens: dict, nonce: str) -> dict:
        value = tokens["id_token"]
        try:
            try:
                token = self._decode(value, self._key_set(fresh=False), metadata.algorithms)
            except self._errors.InvalidKeyIdError:  # a key the provider signs with since
                token = self._decode(value, self._key_set(fresh=True), metadata.algorithms)
        except self._errors.JoseError as exc:
            raise SignInRefused(f"the ID token's signature: {type(exc).__name__}") from None
        except (ValueError, TypeError):
            raise SignInRefused("the ID token is not a JWT") from None
        options = {"iss": {"essential": True, "value": self.issuer},
                   "aud": {"essential": True, "value": self.client_id},
                   "sub": {"essential": True}, "exp": {"essential": True},
                   "iat": {"essential": True}}
        params = {"nonce": nonce, "client_id": self.client_id}
        if isinstance(tokens.get("access_token"), str):
            params["access_token"] = tokens["access_token"]  # checked against an at_hash
        claims = self._claims(token.claims, token.header, options, params)
        try:
            claims.validate(now=int(self.clock()), leeway=LEEWAY_S)
        except self._errors.JoseError as exc:
            raise SignInRefused(f"the ID token's claims: {type(exc).__name__}"
                                f" {getattr(exc, 'claim', '') or exc}") from None
        except (TypeError, ValueError, AttributeError):  # a claim of a shape no rule expects
            raise SignInRefused("the ID token's claims: a claim of the wrong type") from None
        subject = claims.get("sub")
        if not isinstance(subject, str) or not 0 < len(subject) <= 255:
            raise SignInRefused("the ID token's claims: sub is not 1-255 characters")
        return dict(claims)

    def _decode(self, value: str, keys, algorithms: tuple[str, ...]):
        """The token verified with the key its header names; a token that names none is
        tried with each key (a provider with one key often leaves `kid` out)."""
        try:
            return self._jwt.decode(value, keys, algorithms)
        except self._errors.InvalidKeyIdError:
            header = value.split(".", 1)[0] if isinstance(value, str) else ""
            try:
                named = "kid" in json.loads(base64.urlsafe_b64decode(header + "=" * (-len(
                    header) % 4)))
            except (ValueError, TypeError, UnicodeDecodeError):
                named = True  # not a header at all: the first error stands
            if named:
                raise
        for key in keys:
            try:
                return self._jwt.decode(value, key, algorithms)
            except self._errors.JoseError:
                continue
        raise self._errors.BadSignatureError()

    def _userinfo(self, metadata: Metadata, access_token: str, subject: str) -> dict:
        """The userinfo endpoint's claims, when it answers JSON for the same person; else none
        (the ID token's own claims still sign the person in)."""
        try:
            status, claims = self._call("GET", metadata.userinfo_endpoint, "userinfo",
                                        {"Authorization": "Bearer " + access_token})
        except ProviderUnavailable as exc:
            log.warning("sign-in method=oidc: userinfo skipped (%s)", exc)
            return {}
        if status != 200 or not isinstance(claims, dict):
            log.warning("sign-in method=oidc: userinfo answered HTTP %s without claims", status)
            return {}
        if claims.get("sub") != subject:
            raise SignInRefused("userinfo describes another subject than the ID token")
        return claims

    def _person(self, claims: dict) -> Person:
        name = claims.get(self.username_claim)
        email = claims.get("email")
        groups = claims.get(self.groups_claim)
        if isinstance(groups, str):
            groups = [groups]
        groups = [g for g in groups[:MAX_GROUPS] if isinstance(g, str) and g] if isinstance(
            groups, list) else []
        proved = claims.get("auth_time")
        return Person(claims["sub"], name if isinstance(name, str) else None,
                      email if isinstance(email, str) and len(email) <= 320 else None,
                      claims.get("email_verified") is True, frozenset(groups),
                      int(proved) if isinstance(proved, (int, float)) and not isinstance(
                          proved, bool) and 0 < proved < 1e11 else None)

    def logout_url(self, post_logout_redirect_uri: str) -> str | None:
        """RP-initiated logout at the provider, when it offers it (from the cached discovery
        document: logging out never waits on the provider); else None."""
        with self._lock:
            metadata = self._metadata
        if metadata is None:
            self.warm()
            return None
        if not metadata.end_session_endpoint:
            return None
        params = {"client_id": self.client_id,
                  "post_logout_redirect_uri": post_logout_redirect_uri}
        joiner = "&" if urllib.parse.urlsplit(metadata.end_session_endpoint).query else "?"
        return metadata.end_session_endpoint + joiner + urllib.parse.urlencode(params)

    def browser_urls(self) -> list[str]:
        """Where signing in or out sends the browser: the issuer, and its authorization and
        end-session endpoints once known (for a page's CSP; never waits on the provider, but
        sets out to read them when they are not known yet)."""
        with self._lock:
            metadata = self._metadata
        if metadata is None:
            self.warm()
            return [self.issuer]
        return [self.issuer, metadata.authorization_endpoint,
                *([metadata.end_session_endpoint] if metadata.end_session_endpoint else [])]
