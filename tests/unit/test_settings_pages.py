"""Settings and admin pages without JavaScript (issue #10)."""

from __future__ import annotations

import re

import pytest

from tests.conftest import PASSWORD
from tests.unit.test_journal_pages import csrf_of, post_form
from tests.wsgi import Client


@pytest.fixture
def admin(client_for):
    return client_for("root")


def csrf(client, path="/settings") -> str:
    return csrf_of(client.get(path).text)


def test_profile_time_zone_picker_offers_canonical_zones_only(admin):
    page = admin.get("/settings").text
    zones = re.findall(r'<option value="([^"]+)"', page)
    assert "Europe/Berlin" in zones and "UTC" in zones and "America/Argentina/Buenos_Aires" in zones
    for bad in ("localtime", "Factory", "posixrules", "Etc/GMT+5", "US/Eastern"):
        assert bad not in zones, bad
    assert '<optgroup label="Europe">' in page
    saved = post_form(admin, "/settings/profile", {"timezone": "Asia/Tokyo",
                                                   "listenbrainz_user": "lb_me",
                                                   "lastfm_user": ""}, csrf(admin))
    assert saved.status == 303
    me = admin.get("/api/me").json
    assert me["timezone"] == "Asia/Tokyo" and me["listenbrainz_user"] == "lb_me"
    bad = post_form(admin, "/settings/profile", {"timezone": "Mars/Olympus"}, csrf(admin))
    assert bad.status == 422 and "unknown timezone" in bad.text
    assert admin.get("/api/me").json["timezone"] == "Asia/Tokyo"


def test_changing_the_password_ends_other_sessions(admin, wsgi):
    other = Client(wsgi)
    assert other.login("root", PASSWORD).status == 201
    wrong = post_form(admin, "/settings/password", {"old_password": "nope", "new_password":
                      "a new secret", "repeat_password": "a new secret"}, csrf(admin))
    assert wrong.status == 422 and "Current password" in wrong.text
    page = admin.get("/settings").text
    assert re.search(r'<input type="checkbox" name="revoke_api_tokens" value="1" checked>', page)
    app = Client(wsgi)
    app.bearer = admin.post("/api/tokens", {"name": "phone"}).json["token"]
    done = post_form(admin, "/settings/password", {"old_password": PASSWORD, "new_password":
                     "a new secret", "repeat_password": "a new secret",
                     "revoke_api_tokens": "1"}, csrf(admin))
    assert done.status == 303 and done.headers["Location"] == "/settings?done=password_tokens"
    assert "your API tokens revoked" in admin.get(done.headers["Location"]).text
    assert other.get("/api/me").status == 401 and admin.get("/api/me").status == 200
    assert app.get("/api/me").status == 401
    assert Client(wsgi).login("root", "a new secret").status == 201
    app.bearer = admin.post("/api/tokens", {"name": "tablet"}).json["token"]
    unticked = post_form(admin, "/settings/password", {"old_password": "a new secret",
                         "new_password": "another one", "repeat_password": "another one"},
                         csrf(admin))
    assert unticked.headers["Location"] == "/settings?done=password"
    assert app.get("/api/me").status == 200


def test_mood_labels_are_renamed_and_show_on_the_log_form(admin):
    fields = {f"label_{i}": label for i, label in
              enumerate(["awful", "bad", "okay", "good", "wonderful"], start=1)}
    assert post_form(admin, "/settings/moods", fields, csrf(admin)).status == 303
    assert "wonderful" in admin.get("/").text
    bad = post_form(admin, "/settings/moods", {**fields, "label_3": "x\u0000"}, csrf(admin))
    assert bad.status == 422
    assert admin.get("/api/moods").json["moods"][2]["label"] == "okay"


def test_activities_and_groups_are_managed_with_forms(admin):
    token = csrf(admin, "/settings/activities")
    assert post_form(admin, "/settings/activities", {"name": "yoga", "group": "sport"},
                     token).status == 303
    duplicate = post_form(admin, "/settings/activities", {"name": "YOGA"}, token)
    assert duplicate.status == 422 and "exists" in duplicate.text
    activity = admin.get("/api/activities").json["activities"][0]
    entry = admin.post("/api/entries", {"mood": 4, "activities": ["yoga"]}).json
    assert post_form(admin, f"/settings/activities/{activity['id']}",
                     {"name": "Yoga", "group": "body"}, token).status == 303
    assert admin.get(f"/api/entries/{entry['id']}").json["activities"] == ["Yoga"]
    confirm = admin.get(f"/settings/activities/{activity['id']}/delete").text
    assert "removed from 1 entry" in confirm
    group = re.search(r'action="/settings/groups/(\d+)"', admin.get("/settings/activities").text)
    assert post_form(admin, f"/settings/groups/{group.group(1)}", {"name": "Body & mind"},
                     token).status == 303
    assert admin.get("/api/activities").json["activities"][0]["group"] == "Body & mind"
    assert post_form(admin, f"/settings/activities/{activity['id']}/delete", {},
                     token).status == 303
    assert admin.get(f"/api/entries/{entry['id']}").json["activities"] == []


def test_a_name_that_would_display_as_another_is_refused_on_the_form_naming_the_character(
        admin):
    """"\u202egnp.exe" shows as "exe.png": the activity form says which character it may not
    hold, keeps what was typed, and makes nothing (#36 6d)."""
    token = csrf(admin, "/settings/activities")
    refused = post_form(admin, "/settings/activities", {"name": "\u202egnp.exe",
                                                        "group": "files"}, token)
    assert refused.status == 422
    assert "must not contain U+202E RIGHT-TO-LEFT OVERRIDE" in refused.text
    assert 'value="\u202egnp.exe"' in refused.text
    assert admin.get("/api/activities").json["activities"] == []


def test_metrics_are_created_edited_and_deleted(admin):
    token = csrf(admin, "/settings/metrics")
    assert post_form(admin, "/settings/metrics", {"name": "sleep", "unit": "h", "min": "0",
                                                  "max": "24"}, token).status == 303
    metric = admin.get("/api/metrics").json["metrics"][0]
    assert (metric["min"], metric["max"], metric["unit"]) == (0, 24, "h")
    bad = post_form(admin, f"/settings/metrics/{metric['id']}",
                    {"name": "sleep", "min": "9", "max": "1"}, token)
    assert bad.status == 422 and "must not exceed max" in bad.text
    assert post_form(admin, "/settings/metrics", {"name": "x", "min": "lots"}, token).status == 422
    admin.post("/api/entries", {"mood": 3, "metrics": {"sleep": 8}})
    assert "1 recorded value" in admin.get(f"/settings/metrics/{metric['id']}/delete").text
    assert post_form(admin, f"/settings/metrics/{metric['id']}/delete", {}, token).status == 303
    assert admin.get("/api/metrics").json["metrics"] == []


def test_an_api_token_is_shown_once_and_can_be_revoked(admin, wsgi):
    token = csrf(admin, "/settings/tokens")
    created = post_form(admin, "/settings/tokens", {"name": "phone"}, token)
    assert created.status == 201
    secret = re.search(r'id="new-token">([^<]+)<', created.text).group(1)
    assert secret not in admin.get("/settings/tokens").text  # never shown again
    api = Client(wsgi)
    api.bearer = secret
    assert api.get("/api/me").json["username"] == "root"
    token_id = admin.get("/api/tokens").json["tokens"][0]["id"]
    assert post_form(admin, f"/settings/tokens/{token_id}/revoke", {}, token).status == 303
    assert api.get("/api/me").status == 401


def test_an_admin_adds_a_member_who_sees_only_their_own_journal(admin, wsgi):
    admin.post("/api/entries", {"mood": 5, "note": "the admin's secret"})
    token = csrf(admin, "/settings/users")
    assert post_form(admin, "/settings/users", {"username": "kid", "password": "kid password"},
                     token).status == 303
    kid = Client(wsgi)
    assert kid.login("kid", "kid password").status == 201
    assert "the admin's secret" not in kid.get("/entries").text
    assert kid.get("/api/entries").json["entries"] == []
    assert kid.get("/settings/users").status == 403 and kid.get("/admin/jobs").status == 403
    kid_id = kid.get("/api/me").json["id"]
    kids_app = Client(wsgi)
    kids_app.bearer = kid.post("/api/tokens", {"name": "phone"}).json["token"]
    assert kids_app.get("/api/me").status == 200
    assert post_form(admin, f"/settings/users/{kid_id}/password", {"password": "reset secret"},
                     token).status == 303
    assert kid.get("/api/me").status == 401 and kids_app.get("/api/me").status == 401
    confirm = admin.get(f"/settings/users/{kid_id}/delete").text
    assert "kid" in confirm and "0 entries" in confirm
    assert post_form(admin, f"/settings/users/{kid_id}/delete", {}, token).status == 303
    assert Client(wsgi).login("kid", "reset secret").status == 401
    me = admin.get("/api/me").json["id"]
    assert post_form(admin, f"/settings/users/{me}/delete", {}, token).status == 409


def test_the_jobs_page_lists_trouble_and_retries(admin, services, conn):
    from kmood_lib.bootstrap import bootstrap
    from kmood_lib.web.app import make_wsgi
    from tests.entry import TEST_KINDS, create_test_tables

    create_test_tables(services.config.db_path)
    qs = bootstrap(services.config, clock=services.clock, job_kinds=TEST_KINDS)
    client = Client(make_wsgi(qs))
    assert client.login("root", PASSWORD).status == 201
    conn.execute("INSERT INTO jobs (kind, key, payload, status, attempts, max_attempts,"
                 " run_after, last_error, created_at, updated_at) VALUES ('test_work', 'work:1',"
                 " '{\"id\": 1}', 'exhausted', 3, 3, 0, 'boom: upstream said 503', 0, 0)")
    page = client.get("/admin/jobs").text
    assert "boom: upstream said 503" in page and "3 of 3 attempts" in page
    job_id = conn.execute("SELECT id FROM jobs").fetchone()[0]
    done = post_form(client, f"/admin/jobs/{job_id}/retry", {}, csrf_of(page))
    assert done.status == 303
    assert tuple(conn.execute("SELECT status, attempts FROM jobs").fetchone()) == ("queued", 0)
    again = post_form(client, f"/admin/jobs/{job_id}/retry", {}, csrf_of(page))
    assert again.status == 409 and "already queued" in again.text
    kind = post_form(client, "/admin/jobs/retry", {"kind": "nope"}, csrf_of(page))
    assert kind.status == 422
    qs.hasher.close()


@pytest.mark.slow  # runs kmood.py five times
def test_users_cli_lists_resets_and_deletes(tmp_path):
    from tests.helpers import base_env, run

    env = base_env(tmp_path / "k.db")
    for name in ("ann", "ben"):
        assert run(["kmood.py", "create-user", name, "--password-stdin"], env,
                   input="long secret\n").returncode == 0
    listed = run(["kmood.py", "users", "list"], env)
    assert listed.returncode == 0 and "ann" in listed.stdout and "admin" in listed.stdout
    reset = run(["kmood.py", "users", "reset-password", "BEN", "--password-stdin"], env,
                input="another secret\n")
    assert reset.returncode == 0 and "session(s) ended, 0 API token(s) revoked" in reset.stdout
    dry = run(["kmood.py", "users", "delete", "ben"], env)
    assert dry.returncode == 2 and "would delete ben" in dry.stdout
    gone = run(["kmood.py", "users", "delete", "ben", "--yes"], env)
    assert gone.returncode == 0 and "ben" not in run(["kmood.py", "users", "list"], env).stdout
    last = run(["kmood.py", "users", "delete", "ann", "--yes"], env)
    assert last.returncode == 2 and "only admin" in last.stderr
    missing = run(["kmood.py", "users", "delete", "nobody", "--yes"], env)
    assert missing.returncode == 2 and "no user" in missing.stderr


def test_another_users_objects_are_404_on_every_settings_route(admin, client_for):
    activity = admin.post("/api/activities", {"name": "mine", "group": "g"}).json
    metric = admin.post("/api/metrics", {"name": "mine"}).json
    token = admin.post("/api/tokens", {"name": "mine"}).json
    group_id = re.search(r'action="/settings/groups/(\d+)"',
                         admin.get("/settings/activities").text).group(1)
    bob = client_for("bob")
    token_field = csrf(bob)
    for path in (f"/settings/activities/{activity['id']}/delete",
                 f"/settings/metrics/{metric['id']}/delete"):
        assert bob.get(path).status == 404, path
    for path, fields in ((f"/settings/activities/{activity['id']}", {"name": "x"}),
                         (f"/settings/activities/{activity['id']}/delete", {}),
                         (f"/settings/metrics/{metric['id']}", {"name": "x"}),
                         (f"/settings/metrics/{metric['id']}/delete", {}),
                         (f"/settings/groups/{group_id}", {"name": "x"}),
                         (f"/settings/groups/{group_id}/delete", {}),
                         (f"/settings/tokens/{token['id']}/revoke", {})):
        assert post_form(bob, path, fields, token_field).status == 404, path
    assert admin.get("/api/activities").json["activities"][0]["name"] == "mine"
    assert admin.get("/api/metrics").json["metrics"][0]["name"] == "mine"
    assert len(admin.get("/api/tokens").json["tokens"]) == 1


def test_an_archived_activity_leaves_the_log_form_but_stays_on_its_entries(admin):
    entry = admin.post("/api/entries", {"mood": 3, "activities": ["chess", "tea"]}).json
    chess = next(a for a in admin.get("/api/activities").json["activities"]
                 if a["name"] == "chess")
    token = csrf(admin, "/settings/activities")
    assert post_form(admin, f"/settings/activities/{chess['id']}/archive", {"archived": "1"},
                     token).status == 303
    assert admin.get(f"/api/activities/{chess['id']}").status == 405  # no GET one; list it
    listed = {a["name"]: a["archived"] for a in admin.get("/api/activities").json["activities"]}
    assert listed == {"chess": True, "tea": False}
    assert ">chess</label>" not in admin.get("/").text and ">tea</label>" in admin.get("/").text
    edit = admin.get(f"/entries/{entry['id']}/edit").text
    assert 'value="chess"' in edit and "checked" in edit.split('value="chess"')[1][:60]
    assert admin.get(f"/api/entries/{entry['id']}").json["activities"] == ["chess", "tea"]
    assert admin.patch(f"/api/activities/{chess['id']}", {"archived": "yes"}).status == 422
    assert admin.patch(f"/api/activities/{chess['id']}", {"archived": False}).json[
        "archived"] is False
    assert ">chess</label>" in admin.get("/").text


class Links(__import__("html.parser").parser.HTMLParser):
    """Every link's href and aria-current, as a browser reads them (entities decoded)."""

    def __init__(self):
        super().__init__()
        self.links: list[tuple[str, str | None]] = []

    def handle_starttag(self, tag, attrs):
        if tag == "a":
            found = dict(attrs)
            self.links.append((found.get("href"), found.get("aria-current")))


def current_links(html: str) -> list[str]:
    parser = Links()
    parser.feed(html)
    marked = [href for href, current in parser.links if current == "page"]
    assert {current for _, current in parser.links} <= {None, "page", "false"}
    return marked


@pytest.mark.parametrize("path,expected", [
    ("/settings/moods", ["/settings", "/settings/moods"]),
    ("/settings/reminders", ["/settings", "/settings/reminders"]),
    ("/admin/jobs", ["/settings", "/admin/jobs"]),
    ("/stats?range=30", ["/stats", "/stats?range=30"]),
    ("/", ["/"]),
])
def test_the_page_a_person_is_on_is_marked_current_in_its_menus(admin, path, expected):
    assert current_links(admin.get(path).text) == expected


def names_and_groups(client) -> dict:
    return {a["name"]: (a["group"], a["archived"], a["entries"])
            for a in client.get("/api/activities").json["activities"]}


def test_several_activities_are_moved_archived_restored_and_deleted_at_once(admin):
    for activities in (["run", "swim"], ["swim"], ["chess"], ["run", "swim", "chess"]):
        admin.post("/api/entries", {"mood": 4, "activities": activities})
    ids = {a["name"]: a["id"] for a in admin.get("/api/activities").json["activities"]}
    page = admin.get("/settings/activities").text
    assert f'name="ids" value="{ids["run"]}" id="pick-{ids["run"]}" form="bulk"' in page
    token = csrf(admin, "/settings/activities")
    both = [("ids", ids["run"]), ("ids", ids["swim"])]

    moved = post_form(admin, "/settings/activities/bulk",
                      both + [("action", "group"), ("to_group", "Sport")], token)
    assert moved.status == 303
    assert moved.headers["Location"] == "/settings/activities?done=activities_grouped&n=2"
    assert "Moved 2 activities to the group." in admin.get(moved.headers["Location"]).text
    assert names_and_groups(admin) == {"run": ("Sport", False, 2), "swim": ("Sport", False, 3),
                                       "chess": (None, False, 2)}

    archived = post_form(admin, "/settings/activities/bulk", both + [("action", "archive")],
                         token)
    assert archived.headers["Location"].endswith("done=activities_archived&n=2")
    log_form = admin.get("/").text
    assert ">run</label>" not in log_form and ">swim</label>" not in log_form
    assert ">chess</label>" in log_form
    post_form(admin, "/settings/activities/bulk", [("ids", ids["run"]), ("action", "restore")],
              token)
    assert names_and_groups(admin)["run"] == ("Sport", False, 2)
    assert names_and_groups(admin)["swim"] == ("Sport", True, 3)

    ungrouped = post_form(admin, "/settings/activities/bulk",
                          both + [("action", "group"), ("to_group", " ")], token)
    assert ungrouped.headers["Location"].endswith("done=activities_ungrouped&n=2")
    assert names_and_groups(admin)["run"][0] is None

    asked = post_form(admin, "/settings/activities/bulk", both + [("action", "delete")], token)
    assert asked.status == 303 and len(names_and_groups(admin)) == 3  # nothing deleted yet
    confirm = admin.get(asked.headers["Location"]).text
    assert "Delete 2 activities?" in confirm
    assert "removed from 3 entries (an entry with several of them counts once)" in confirm
    assert ">run</span>" in confirm and ">chess</span>" not in confirm
    done = post_form(admin, "/settings/activities/delete", both, token)
    assert done.headers["Location"].endswith("done=activities_deleted&n=2")
    assert names_and_groups(admin) == {"chess": (None, False, 2)}
    entries = admin.get("/api/entries").json["entries"]
    assert sorted(e["activities"] for e in entries) == [[], [], ["chess"], ["chess"]]


def test_a_bulk_action_without_a_choice_changes_nothing_and_keeps_the_ticks(admin):
    for name in ("tea", "coffee"):
        admin.post("/api/activities", {"name": name})
    tea = next(a for a in admin.get("/api/activities").json["activities"] if a["name"] == "tea")
    token = csrf(admin, "/settings/activities")
    before = names_and_groups(admin)
    nothing = post_form(admin, "/settings/activities/bulk", [("action", "archive")], token)
    assert nothing.status == 422 and "select at least one activity" in nothing.text
    unknown = post_form(admin, "/settings/activities/bulk",
                        [("ids", tea["id"]), ("action", "melt")], token)
    assert unknown.status == 422 and 'must be one of <bdi dir="auto">group, archive' in unknown.text
    assert f'value="{tea["id"]}" id="pick-{tea["id"]}" form="bulk" checked' in unknown.text
    for ids in ([("ids", "x")], [("ids", "99999999999999999999")], []):
        assert post_form(admin, "/settings/activities/delete", ids, token).status == 422
        assert admin.get("/settings/activities/delete?" + "&".join(
            f"{k}={v}" for k, v in ids)).status == 422
    assert names_and_groups(admin) == before


def test_one_activity_has_its_own_page_to_rename_regroup_archive_or_delete(admin):
    admin.post("/api/entries", {"mood": 4, "activities": ["yoga"]})
    yoga = admin.get("/api/activities").json["activities"][0]
    page = admin.get(f"/settings/activities/{yoga['id']}").text
    assert "Used in 1 entry." in page and 'value="yoga"' in page
    token = csrf_of(page)
    refused = post_form(admin, f"/settings/activities/{yoga['id']}",
                        {"name": "x" * 65, "group": "body"}, token)
    assert refused.status == 422 and "Used in 1 entry." in refused.text
    assert 'value="body"' in refused.text  # what was typed is kept, on the same page
    assert admin.get("/settings/activities/999999").status == 404
