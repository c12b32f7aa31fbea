"""Back to where you were through the real server (issue #38.3): over raw HTTP to waitress, an
edit or delete form's `back` goes back to the list it names, and a hostile one never becomes
another site, a header of its own or a 500."""

from __future__ import annotations

import urllib.parse
from http.client import HTTPConnection, HTTPResponse

from tests.e2e.conftest import Stack
from tests.helpers import http

MARCH = "/entries?from=2025-03-01&to=2025-03-31"


def post_form(stack: Stack, path: str, body: bytes, auth: dict) -> HTTPResponse:
    """A form post as a browser without JavaScript sends it, its answer not followed."""
    conn = HTTPConnection("127.0.0.1", stack.port, timeout=30)
    conn.request("POST", path, body=body, headers={
        "Cookie": auth["Cookie"], "Content-Type": "application/x-www-form-urlencoded"})
    response = conn.getresponse()
    response.read()
    conn.close()
    return response


def form(auth: dict, back: bytes, **fields: str) -> bytes:
    """The fields url-encoded, then `back` exactly as given (already encoded, or not)."""
    return (urllib.parse.urlencode({**fields, "csrf_token": auth["X-CSRF-Token"]}).encode()
            + b"&back=" + back)


def test_a_form_goes_back_to_its_list_and_a_hostile_back_goes_nowhere_else(tmp_path):
    stack = Stack(tmp_path).start(worker=False)
    stack.create_user("ana")
    auth = stack.log_in("ana")
    ids = [http("POST", stack.url + "/api/entries", {
        "mood": 3, "occurred_at": f"2025-03-{day}T10:00:00"}, auth)[2]["id"] for day in (12, 13, 14)]
    edit = dict(mood="4", date="2025-03-13", time="10:00")

    saved = post_form(stack, f"/entries/{ids[1]}/edit",
                      form(auth, urllib.parse.quote(MARCH, safe="").encode(), **edit), auth)
    assert saved.status == 303
    assert saved.getheader("Location") == f"{MARCH}&done=saved#entry-{ids[1]}"
    for hostile in (b"https://evil.example/", b"//evil.example", b"/%5Cevil.example",
                    b"javascript:alert(1)", b"/entries%0D%0ASet-Cookie:%20session=stolen",
                    b"%2Fentries%0D%0ALocation:%20https://evil.example",
                    b"/entries?q=" + b"a" * 100_000):
        answer = post_form(stack, f"/entries/{ids[1]}/edit", form(auth, hostile, **edit), auth)
        assert answer.status == 303, hostile[:60]
        assert answer.getheader("Location") == f"/entries?done=saved#entry-{ids[1]}"
        assert answer.getheader("Set-Cookie") is None
    refused = post_form(stack, f"/entries/{ids[1]}/edit", form(auth, b"/entries?q=%FF",
                                                               **dict(edit, mood="1")), auth)
    assert refused.status == 400  # not UTF-8: the whole form is refused, nothing saved
    assert http("GET", f"{stack.url}/api/entries/{ids[1]}", headers=auth)[2]["mood"] == 4

    gone = post_form(stack, f"/entries/{ids[1]}/delete",
                     form(auth, b"%2Fdays%2F2025-03-13"), auth)
    assert gone.getheader("Location") == "/days/2025-03-13?done=deleted"  # nothing beside it
    gone = post_form(stack, f"/entries/{ids[2]}/delete", form(auth, b"//evil.example"), auth)
    assert gone.status == 303
    assert gone.getheader("Location") == f"/entries?done=deleted#entry-{ids[0]}"
    assert stack.stop() == {"server": 0}
    assert "Traceback" not in stack.server_log.read_text()
