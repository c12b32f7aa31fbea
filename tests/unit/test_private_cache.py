"""Nothing behind a login is shown from the browser's cache to a logged-out person or to
someone else (issue #36.2): photos and memos are kept only to be revalidated, pages and JSON
are never stored, and logging out clears the site's HTTP cache. Static files keep their
year-long versioned caching."""

from __future__ import annotations

import re

import pytest

from tests import images
from tests.images import upload
from tests.unit.test_memo_ranges import add_memo
from tests.wsgi import Client

REVALIDATE = "private, no-cache"


@pytest.fixture
def alice(client_for):
    return client_for("alice")


@pytest.fixture
def private_files(alice, conn) -> list[str]:
    """The URLs of one photo, its thumbnail and one memo of alice's."""
    entry = alice.post("/api/entries", {"mood": 4, "note": "at the lake"}).json["id"]
    [photo] = upload(alice, entry, images.webp()).json["photos"]
    return [photo["url"], photo["thumb_url"], f"/memos/{add_memo(conn, entry)}"]


def test_photos_and_memos_are_kept_only_to_be_asked_for_again(alice, private_files):
    for url in private_files:
        first = alice.get(url)
        assert first.status == 200 and first.headers["Cache-Control"] == REVALIDATE, url
        again = alice.get(url, headers={"If-None-Match": first.headers["Etag"]})
        assert again.status == 304 and again.body == b"", url  # a copy's use costs a lookup
        assert again.headers["Cache-Control"] == REVALIDATE


def test_a_kept_copy_is_never_confirmed_to_a_logged_out_person_or_another_user(
        alice, private_files, client_for, wsgi):
    bob, nobody = client_for("bob"), Client(wsgi)
    for url in private_files:
        kept = {"If-None-Match": alice.get(url).headers["Etag"]}
        refused = nobody.get(url, headers=kept)
        assert refused.status == 303 and refused.headers["Location"].startswith("/login?"), url
        assert bob.get(url, headers=kept).status == 404, url


@pytest.mark.parametrize("leave", ["page", "api"])
def test_logging_out_clears_the_site_s_http_cache_and_keeps_its_storage(alice, leave):
    me = alice.get("/api/me").json
    left = (alice.post("/logout", form={"csrf_token": me["csrf_token"]}) if leave == "page"
            else alice.delete("/api/session"))
    assert left.status in (303, 204)
    assert left.headers["Clear-Site-Data"] == '"cache"'  # not "storage": the outbox stays
    assert alice.get("/api/me").status == 401


def test_pages_and_json_behind_a_login_are_never_stored(alice):
    for path in ("/", "/entries", "/settings", "/api/me", "/api/entries"):
        answer = alice.get(path)
        assert answer.status == 200 and answer.headers["Cache-Control"] == "no-store", path


def test_static_files_keep_their_year_long_caching_also_when_revalidated(alice):
    css = re.search(r'href="(/static/style\.css\?v=[0-9a-f]{12})"', alice.get("/").text).group(1)
    fresh = alice.get(css)
    assert fresh.headers["Cache-Control"] == "public, max-age=31536000, immutable"
    plain = alice.get("/static/style.css")
    again = alice.get("/static/style.css", headers={"If-Modified-Since":
                                                    plain.headers["Last-Modified"]})
    assert again.status == 304 and again.headers["Cache-Control"] == "public, max-age=3600"
