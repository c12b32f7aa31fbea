"""User B can neither read, list, change nor delete user A's objects, through any route."""

import pytest

from tests import images
from tests.images import upload
from tests.push_service import SOME_KEYS


@pytest.fixture
def world(client_for):
    alice, bob = client_for("alice"), client_for("bob")
    a = {
        "token": alice.post("/api/tokens", {"name": "a-token"}).json["id"],
        "metric": alice.post("/api/metrics", {"name": "secret-metric"}).json["id"],
        "activity": alice.post("/api/activities", {"name": "secret-activity"}).json["id"],
        "reminder": alice.post("/api/reminders", {"time": "21:00", "channel": "webhook",
                                                  "url": "https://example.org/a-hook"}).json["id"],
    }
    a["entry"] = alice.post("/api/entries", {
        "mood": 2, "note": "alice private note", "activities": ["secret-activity"],
        "metrics": {"secret-metric": 1}}).json["id"]
    a["photo"] = upload(alice, a["entry"], images.webp()).json["photos"][0]["id"]
    a["template"] = alice.post("/api/templates", {"name": "secret-template",
                                                  "note": "alice private template"}).json["id"]
    a["goal"] = alice.post("/api/goals", {"name": "secret-goal", "target": 2}).json["id"]
    a["device"] = alice.post("/api/push/subscriptions", {
        "endpoint": "https://push.example/secret", "label": "secret-phone",
        "keys": SOME_KEYS}).json["id"]
    return alice, bob, a


def snapshot(alice, a):
    return {
        "entry": alice.get(f"/api/entries/{a['entry']}").json,
        "lists": [alice.get(p).json for p in ("/api/entries", "/api/activities", "/api/metrics",
                                              "/api/tokens", "/api/moods", "/api/me",
                                              "/api/reminders", "/api/templates",
                                              "/api/goals", "/api/push/subscriptions")],
    }


FOREIGN_OBJECT_ROUTES = [
    ("GET", "/api/entries/{entry}", None),
    ("PATCH", "/api/entries/{entry}", {"mood": 5}),
    ("DELETE", "/api/entries/{entry}", None),
    ("PATCH", "/api/activities/{activity}", {"name": "stolen"}),
    ("DELETE", "/api/activities/{activity}", None),
    ("PATCH", "/api/metrics/{metric}", {"name": "stolen"}),
    ("DELETE", "/api/metrics/{metric}", None),
    ("DELETE", "/api/tokens/{token}", None),
    ("GET", "/api/reminders/{reminder}", None),
    ("PATCH", "/api/reminders/{reminder}", {"time": "03:00"}),
    ("DELETE", "/api/reminders/{reminder}", None),
    ("POST", "/api/reminders/{reminder}/test", None),
    ("DELETE", "/api/push/subscriptions/{device}", None),
    ("POST", "/api/push/subscriptions/{device}/test", None),
    ("POST", "/api/entries/{entry}/photos", None),
    ("PUT", "/api/entries/{entry}/photos/order", {"order": []}),
    ("DELETE", "/api/photos/{photo}", None),
    ("PATCH", "/api/templates/{template}", {"name": "stolen"}),
    ("DELETE", "/api/templates/{template}", None),
    ("GET", "/api/goals/{goal}", None),
    ("PATCH", "/api/goals/{goal}", {"name": "stolen"}),
    ("DELETE", "/api/goals/{goal}", None),
    ("GET", "/api/goals/{goal}/checkins", None),
    ("POST", "/api/goals/{goal}/checkins", {}),
]


@pytest.mark.parametrize("method,template,body", FOREIGN_OBJECT_ROUTES)
def test_another_users_object_is_a_404_and_stays_unchanged(world, method, template, body):
    alice, bob, a = world
    before = snapshot(alice, a)
    response = bob.request(method, template.format(**a), json_body=body)
    assert response.status == 404, (method, template, response.status)
    assert snapshot(alice, a) == before


def test_every_object_route_with_an_id_is_in_the_cross_user_matrix(wsgi):
    covered = {(m, t.split("{")[0]) for m, t, _ in FOREIGN_OBJECT_ROUTES}
    with_ids = {(r.method, r.rule.split("<")[0]) for r in wsgi.bottle.routes
                if "<" in r.rule and r.rule.startswith("/api/") and
                r.config.get("auth", "user") == "user" and not r.rule.startswith("/api/moods/")}
    assert with_ids <= covered, with_ids - covered


@pytest.mark.parametrize("path,key", [("/api/entries", "entries"), ("/api/activities", "activities"),
                                      ("/api/metrics", "metrics"), ("/api/tokens", "tokens"),
                                      ("/api/templates", "templates"), ("/api/goals", "goals"),
                                      ("/api/reminders", "reminders")])
def test_lists_show_only_the_users_own_objects(world, path, key):
    alice, bob, _ = world
    assert alice.get(path).json[key] != []
    assert bob.get(path).json[key] == []


@pytest.mark.parametrize("action", ["group", "archive", "restore", "delete"])
def test_another_users_activities_in_a_bulk_change_are_a_404_and_change_nothing(world, action):
    """All or none: one foreign id among the person's own stops the whole change."""
    alice, bob, a = world
    own = bob.post("/api/activities", {"name": "bobs"}).json
    before, bobs_before = snapshot(alice, a), bob.get("/api/activities").json
    for ids in ([a["activity"]], [own["id"], a["activity"]]):
        body = {"ids": ids, "action": action} | ({"group": "stolen"} if action == "group" else {})
        assert bob.post("/api/activities/bulk", body).status == 404, ids
    assert snapshot(alice, a) == before and bob.get("/api/activities").json == bobs_before


def test_search_and_stats_see_only_the_users_own_entries(world):
    alice, bob, _ = world
    assert bob.get("/api/entries?q=private").json["entries"] == []
    assert bob.get("/api/entries?activity=secret-activity").json["entries"] == []
    assert bob.get("/api/stats/summary").json["count"] == 0
    assert bob.get("/api/stats/activities").json["activities"] == []
    assert bob.get("/api/stats/calendar?year=2026").json["days"] == {}
    assert alice.get("/api/stats/summary").json["count"] == 1


def test_insights_see_only_the_users_own_days_also_when_another_users_are_cached(world,
                                                                                 clock, conn):
    alice, bob, _ = world
    today = clock.now().date()
    alice.post("/api/entries", {"mood": 5, "note": "alice a year ago",
                                "occurred_at": today.replace(year=today.year - 1).isoformat()
                                + "T10:00:00Z"})
    span = f"/api/insights?from={today.year - 2}-01-01&to={today}"
    mine = alice.get(span).json  # computed and cached for alice first
    assert mine["days"] == 2 and mine["on_this_day"][0]["entry"]["note"] == "alice a year ago"
    # the same range at the same journal version number: only the user tells them apart
    conn.execute("INSERT OR REPLACE INTO journal_versions (user_id, version) SELECT u.id,"
                 " (SELECT version FROM journal_versions j JOIN users a ON a.id = j.user_id"
                 "  WHERE a.username = 'alice') FROM users u WHERE u.username = 'bob'")
    theirs = bob.get(span).json
    assert theirs["days"] == 0 and theirs["on_this_day"] == [] and theirs["not_enough"] == []
    assert "alice" not in bob.get("/insights").text


def test_another_users_metric_or_mood_labels_cannot_be_used(world):
    alice, bob, _ = world
    response = bob.post("/api/entries", {"mood": 3, "metrics": {"secret-metric": 1}})
    assert response.status == 422
    bob.patch("/api/moods/2", {"label": "bob's bad"})
    assert alice.get("/api/moods").json["moods"][3] == {"level": 2, "label": "bad"}


# --- the pages: every page route that takes an id answers another user's object with 404 ----

RELEASE = "11111111-1111-4111-8111-111111111111"


@pytest.fixture
def page_world(world, conn, clock):
    """Alice's objects as the pages reach them: also a group, a pending upload and a cover."""
    from kmood_lib.portability import pending_imports

    alice, bob, a = world
    alice.post("/api/activities", {"name": "grouped", "group": "secret-group"})
    a["group"] = conn.execute("SELECT id FROM activity_groups").fetchone()[0]
    alice_id = conn.execute("SELECT id FROM users WHERE username = 'alice'").fetchone()[0]
    a["upload"] = pending_imports.stash_upload(conn, alice_id, b"full_date,mood\n", {}, {},
                                               clock.now_ms())
    song = alice.post("/api/entries", {"mood": 3, "song": {"artist": "A", "title": "T",
                                                           "source": "manual"}}).json["id"]
    conn.execute("INSERT INTO song_lookups (lookup_key, found, release_mbid, fetched_at)"
                 " SELECT lookup_key, 1, ?, 0 FROM songs WHERE entry_id = ?", (RELEASE, song))
    conn.execute("INSERT INTO covers (release_mbid, content_type, image, fetched_at)"
                 " VALUES (?, 'image/jpeg', x'ffd8ff', 0)", (RELEASE,))
    assert alice.get(f"/covers/{RELEASE}").status == 200
    a["release"] = RELEASE
    a["memo"] = conn.execute("INSERT INTO voice_memos (entry_id, position, sha256, content_type,"
                             " created_at, data) VALUES (?, 1, 'x', 'audio/mp4', 0, x'00')"
                             " RETURNING id", (a["entry"],)).fetchone()[0]
    assert alice.get(f"/memos/{a['memo']}").status == 200
    a["passkey"] = conn.execute("INSERT INTO passkeys (user_id, credential_id, public_key, name,"
                                " created_at) VALUES (?, x'01', x'02', 'hers', 0) RETURNING id",
                                (alice_id,)).fetchone()[0]
    a["shared"] = conn.execute(
        "INSERT INTO shared_reports (user_id, secret_hash, name, date_from, date_to,"
        " with_entries, with_photos, created_at, expires_at) VALUES (?, 'x', 'secret doctor',"
        " '2026-01-01', '2026-12-31', 1, 1, 0, 9e15) RETURNING id", (alice_id,)).fetchone()[0]
    return alice, bob, a


FOREIGN_PAGE_ROUTES = [
    ("GET", "/entries/{entry}/edit", {}),
    ("POST", "/entries/{entry}/edit", {"mood": "5", "note": "stolen"}),
    ("GET", "/entries/{entry}/delete", {}),
    ("POST", "/entries/{entry}/delete", {}),
    ("GET", "/settings/activities/{activity}", {}),
    ("POST", "/settings/activities/{activity}", {"name": "stolen"}),
    ("GET", "/settings/activities/delete?ids={activity}", {}),
    ("POST", "/settings/activities/delete", {"ids": "{activity}"}),
    ("POST", "/settings/activities/bulk", {"ids": "{activity}", "action": "archive"}),
    ("POST", "/settings/activities/{activity}/archive", {"archived": "1"}),
    ("GET", "/settings/activities/{activity}/delete", {}),
    ("POST", "/settings/activities/{activity}/delete", {}),
    ("POST", "/settings/metrics/{metric}", {"name": "stolen"}),
    ("GET", "/settings/metrics/{metric}/delete", {}),
    ("POST", "/settings/metrics/{metric}/delete", {}),
    ("POST", "/settings/groups/{group}", {"name": "stolen"}),
    ("POST", "/settings/groups/{group}/delete", {}),
    ("POST", "/settings/tokens/{token}/revoke", {}),
    ("GET", "/settings/reminders/{reminder}", {}),
    ("POST", "/settings/reminders/{reminder}", {"time": "03:00", "channel": "webhook",
                                                "url": "https://example.org/b"}),
    ("POST", "/settings/reminders/{reminder}/switch", {"enabled": "0"}),
    ("POST", "/settings/reminders/{reminder}/test", {}),
    ("GET", "/settings/reminders/{reminder}/delete", {}),
    ("POST", "/settings/reminders/{reminder}/delete", {}),
    ("GET", "/settings/import/{upload}", {}),
    ("POST", "/settings/import/{upload}", {}),
    ("POST", "/settings/import/{upload}/cancel", {}),
    ("GET", "/covers/{release}", {}),
    ("GET", "/photos/{photo}", {}),
    ("GET", "/memos/{memo}", {}),
    ("GET", "/photos/{photo}/thumb", {}),
    ("POST", "/photos/{photo}/delete", {}),
    ("POST", "/photos/{photo}/earlier", {}),
    ("POST", "/entries/{entry}/photos", {}),
    ("POST", "/settings/templates/{template}", {"name": "stolen", "note": "x"}),
    ("GET", "/settings/templates/{template}/delete", {}),
    ("POST", "/settings/templates/{template}/delete", {}),
    ("GET", "/goals/{goal}", {}),
    ("POST", "/goals/{goal}", {"name": "stolen", "target": "1", "period": "week"}),
    ("POST", "/goals/{goal}/checkin", {"done": "1"}),
    ("GET", "/goals/{goal}/delete", {}),
    ("POST", "/goals/{goal}/delete", {}),
    ("POST", "/settings/passkeys/{passkey}/delete", {}),
    ("POST", "/settings/sharing/{shared}/revoke", {}),
    ("POST", "/settings/reminders/devices/{device}/test", {}),
    ("POST", "/settings/reminders/devices/{device}/delete", {}),
]


def page_snapshot(conn) -> dict:
    return {table: [tuple(r) for r in conn.execute(f"SELECT * FROM {table} ORDER BY 1")]
            for table in ("entries", "entry_activities", "activities", "activity_groups",
                          "metrics", "entry_metrics", "api_tokens", "reminders", "reminder_deliveries",
                          "pending_imports", "jobs", "photos", "photo_files",
                          "note_templates", "goals", "goal_checkins", "passkeys",
                          "shared_reports", "push_subscriptions")}


@pytest.mark.parametrize("method,template,form", FOREIGN_PAGE_ROUTES)
def test_another_users_object_is_a_404_page_and_stays_unchanged(page_world, conn, method,
                                                                template, form):
    alice, bob, a = page_world
    before = page_snapshot(conn)
    form = {name: value.format(**a) for name, value in form.items()}
    response = bob.request(method, template.format(**a), form=form if method == "POST" else None)
    assert response.status == 404, (method, template, response.status)
    assert "secret" not in response.text and "alice" not in response.text
    assert page_snapshot(conn) == before


def test_a_day_shows_only_the_persons_own_entries_of_it(page_world):
    alice, bob, a = page_world
    day = alice.get(f"/api/entries/{a['entry']}").json["occurred_at"][:10]
    assert "alice private note" in alice.get(f"/days/{day}").text
    page = bob.get(f"/days/{day}")
    assert page.status == 200 and "Nothing logged on this day." in page.text
    assert "alice" not in page.text and "secret" not in page.text


# Page routes whose parameter names no object: each shows only the person's own entries.
NOT_OBJECTS = {("GET", "/days/")}


def test_every_page_route_with_an_id_is_in_the_cross_user_matrix(wsgi):
    covered = {(m, t.split("{")[0]) for m, t, _ in FOREIGN_PAGE_ROUTES} | NOT_OBJECTS
    with_ids = {(r.method, r.rule.split("<")[0]) for r in wsgi.bottle.routes
                if "<" in r.rule and not r.rule.startswith(("/api/", "/static/"))
                and r.config.get("auth", "user") == "user"}
    assert with_ids <= covered, with_ids - covered
