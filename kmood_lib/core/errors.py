"""The domain's refusals, one family. Each carries what an edge needs to answer it as data —
the HTTP status it stands for, the fields that were wrong, headers such as Retry-After — so
the web (one error plugin) and the CLI never read an object's kind out of a message."""

from __future__ import annotations


class DomainError(Exception):
    """A request the domain refuses. `message` is what a person or client is told; `fields`
    names each bad field with what is wrong; `extra` is more of the answer (an import report)."""

    status = 422
    code: str | None = None  # the JSON error's code, when more than the status says

    def __init__(self, message: str, fields: dict[str, str] | None = None, *,
                 headers: dict[str, str] | None = None, extra: dict | None = None):
        super().__init__(message)
        self.message = message
        self.fields = dict(fields or {})
        self.headers = dict(headers or {})
        self.extra = dict(extra or {})


class ValidationError(DomainError):
    """Input that cannot be accepted; `fields` maps each bad field to what is wrong with it."""

    def __init__(self, fields: dict[str, str], message: str | None = None):
        super().__init__(message or "invalid input: " + ", ".join(sorted(fields)), fields)


class MalformedInput(ValidationError):
    """Input that is not even of the right form (a cursor this server never handed out): 400."""

    status = 400


class NotFound(DomainError):
    """No such object for this user (another user's object is also 'not found'). `kind` is
    what was looked for ("entry", "reminder"), `detail` a hint for a person."""

    status = 404

    def __init__(self, kind: str, detail: str | None = None):
        super().__init__(f"no such {kind}" + (f" ({detail})" if detail else ""))
        self.kind = kind
        self.detail = detail


class Unauthorized(DomainError):
    """Credentials that do not prove who is asking (a wrong password)."""

    status = 401


class Conflict(DomainError):
    """The request clashes with the state it would change (a taken name, the last admin)."""

    status = 409


class TooMany(DomainError):
    """Refused for now to slow an attacker down; try again after `retry_after_s` seconds."""

    status = 429

    def __init__(self, message: str, retry_after_s: int):
        super().__init__(message, headers={"Retry-After": str(retry_after_s)})
        self.retry_after_s = retry_after_s


class Busy(DomainError):
    """The server cannot take this on right now; try again after `retry_after_s` seconds."""

    status = 503

    def __init__(self, message: str, retry_after_s: int):
        super().__init__(message, headers={"Retry-After": str(retry_after_s)})
        self.retry_after_s = retry_after_s


class StorageFull(DomainError):
    """The disk (or the database's own size limit) is full: nothing was written. Retry-After
    keeps clients (an outbox, a script) from retrying in a tight loop until space is freed."""

    status = 507

    def __init__(self, message: str, retry_after_s: int = 30):
        super().__init__(message, headers={"Retry-After": str(retry_after_s)})
        self.retry_after_s = retry_after_s


class UnsupportedMedia(DomainError):
    """A file of a kind this server does not take (an SVG, a PDF, an image it cannot decode)."""

    status = 415


class TooLarge(DomainError):
    """More than a configured limit allows (bytes of a photo, photos on an entry)."""

    status = 413


class SignInRefused(Exception):
    """An answer to a sign-in (the OpenID provider's, a passkey's) that does not prove who is
    signing in: nobody is signed in, nothing is stored. Not a DomainError: the person is told
    only that it failed; `reason` is for the log."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason
