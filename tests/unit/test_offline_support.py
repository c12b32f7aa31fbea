"""What the server does for offline logging (issue #24): the service worker's script, the log
form's device offset, and one log line per synced outbox batch."""

from __future__ import annotations

import json
import logging
import re
import uuid

import pytest

from tests.unit.test_journal_pages import csrf_of, log_form, post_form


@pytest.fixture
def alice(client_for):
    """Someone in Berlin with a metric and an activity, as the journal page tests have her."""
    client = client_for("alice", timezone="Europe/Berlin")
    client.post("/api/metrics", {"name": "sleep", "unit": "h", "min": 0, "max": 24})
    client.post("/api/activities", {"name": "running", "group": "sport"})
    return client


def test_the_service_worker_is_served_with_its_version_and_shell_and_never_cached(alice, wsgi):
    from tests.wsgi import Client

    stranger = Client(wsgi)  # the browser fetches it like a script, cookies or not
    response = stranger.get("/sw.js")
    assert response.status == 200
    assert response.headers["Content-Type"].startswith("text/javascript")
    assert response.headers["Cache-Control"] == "no-cache"
    version = re.search(r'const VERSION = "([0-9a-f]{12})";', response.text).group(1)
    shell = json.loads(re.search(r"const SHELL = (\[.*?\]);", response.text).group(1))
    page = alice.get("/").text
    assert f'href="{shell[0]}"' in page  # the stylesheet the pages use, at its version
    scripts = {url.split("?")[0] for url in shell if url.startswith("/static/js/")}
    assert {"/static/js/offline.js", "/static/js/outbox_panel.js"} <= scripts  # both halves
    for url in shell:
        assert re.fullmatch(r"/static/[a-z0-9/._-]+\?v=[0-9a-f]{12}", url), url
        assert stranger.get(url).status == 200, url
    assert "__VERSION__" not in response.text and "__SHELL__" not in response.text
    assert stranger.get("/sw.js").text == response.text and version


def test_pages_of_a_logged_in_person_carry_the_outbox_and_the_log_form_its_pieces(alice, wsgi):
    from tests.wsgi import Client

    page = alice.get("/").text
    assert re.search(r'<script defer src="/static/js/outbox\.js\?v=\w+"></script>', page)
    assert re.search(r'<script type="module" src="/static/js/offline\.js\?v=\w+"></script>',
                     page)
    assert re.search(r'<script type="module" src="/static/js/outbox_panel\.js\?v=\w+"></script>',
                     page)
    assert 'id="entry-form" data-outbox enctype="multipart/form-data" data-now' in page
    assert 'name="utc_offset" value=""' in page and 'id="outbox"' in page
    metric = alice.get("/api/metrics").json["metrics"][0]
    assert f'name="names_of_metrics" value="{{&quot;{metric["id"]}&quot;:&quot;sleep&quot;}}"' \
        in page
    login = Client(wsgi).get("/login").text
    assert "offline.js" not in login and "outbox_panel.js" not in login


def test_the_log_form_reads_its_date_and_time_with_the_device_offset_it_sends(alice):
    page, fields = log_form(alice, utc_offset="+05:30")
    assert post_form(alice, "/entries", fields, csrf_of(page)).status == 303
    assert alice.get("/api/entries").json["entries"][0]["occurred_at"] == \
        "2026-11-29T18:30:00+05:30"


@pytest.mark.parametrize("offset", ["+99:00", "junk", "+05:30:00x"])
def test_a_device_offset_that_is_not_one_is_refused_and_saves_nothing(alice, offset):
    page, fields = log_form(alice, utc_offset=offset)
    refused = post_form(alice, "/entries", fields, csrf_of(page))
    assert refused.status == 422 and "Date and time" in refused.text
    assert alice.get("/api/entries").json["entries"] == []


def test_a_synced_outbox_batch_is_one_log_line_with_what_became_of_it(alice, caplog):
    batch = str(uuid.uuid4())
    bodies = [{"mood": 4, "client_id": str(uuid.uuid4())},
              {"mood": 9, "client_id": str(uuid.uuid4())},  # refused
              {"mood": 2, "client_id": str(uuid.uuid4())}]
    bodies.append(dict(bodies[0]))  # a replay of the first
    caplog.set_level(logging.INFO, logger="kmood_lib.journal.outbox")
    for i, body in enumerate(bodies, start=1):
        alice.request("POST", "/api/entries", json_body=body,
                      headers={"X-Kmood-Outbox": f"{batch} {i}/{len(bodies)}"})
        lines = [r.getMessage() for r in caplog.records if "outbox sync" in r.getMessage()]
        assert len(lines) == (1 if i == len(bodies) else 0)
    assert lines == ["outbox sync for alice: 3 of 4 entries sent (2 new, 1 already here), "
                     "1 refused"]
    alice.request("POST", "/api/entries", json_body={"mood": 3},
                  headers={"X-Kmood-Outbox": "not a batch"})
    assert len([r for r in caplog.records if "outbox sync" in r.getMessage()]) == 1


def test_a_replay_is_the_entry_it_saved_even_when_its_body_would_no_longer_pass(alice):
    """The answer to a saved entry was lost; its metric was deleted before the outbox sent it
    again: the replay is still that entry (200), never a refusal that invites a second."""
    metric = alice.get("/api/metrics").json["metrics"][0]
    body = {"mood": 4, "client_id": str(uuid.uuid4()), "metrics": {"sleep": 7}}
    first = alice.post("/api/entries", body)
    assert first.status == 201
    assert alice.request("DELETE", f"/api/metrics/{metric['id']}").status == 204
    again = alice.post("/api/entries", body)
    assert again.status == 200 and again.json["id"] == first.json["id"]
    assert len(alice.get("/api/entries").json["entries"]) == 1
    fresh = alice.post("/api/entries", {**body, "client_id": str(uuid.uuid4())})
    assert fresh.status == 422  # a new entry with that body is still refused


def test_editing_an_entry_keeps_the_offset_it_was_logged_with(alice):
    """Logged on a device in New York (-05:00) by someone whose profile says Berlin: an edit
    of its note alone must not move it six hours."""
    page, fields = log_form(alice, utc_offset="-05:00")
    post_form(alice, "/entries", fields, csrf_of(page))
    entry = alice.get("/api/entries").json["entries"][0]
    assert entry["occurred_at"] == "2026-11-29T18:30:00-05:00"
    edit = alice.get(f"/entries/{entry['id']}/edit").text
    assert 'name="utc_offset" value="-05:00"' in edit
    posted = dict(re.findall(r'<input type="hidden" name="(utc_offset)" value="([^"]*)"', edit))
    fields = [("mood", "4"), ("note", "only the note changed"), ("date", "2026-11-29"),
              ("time", "18:30"), ("utc_offset", posted["utc_offset"])]
    assert post_form(alice, f"/entries/{entry['id']}/edit", fields, csrf_of(edit)).status == 303
    after = alice.get(f"/api/entries/{entry['id']}").json
    assert after["note"] == "only the note changed"
    assert after["occurred_at"] == "2026-11-29T18:30:00-05:00"


# --- a deleted entry stays deleted (#36 6a) ------------------------------------------------

def test_an_entry_sent_again_after_it_was_deleted_is_410_deleted_and_stays_deleted(
        alice, client_for, caplog):
    """An outbox lost the answer to a saved entry; the person deleted it on another device;
    the outbox sends it again: 410 `deleted`, nothing saved — also when its body would no
    longer pass (its metric deleted too) — and the kept entry list knows it is gone."""
    metric = alice.get("/api/metrics").json["metrics"][0]
    body = {"mood": 4, "client_id": str(uuid.uuid4()), "metrics": {"sleep": 7}}
    saved = alice.post("/api/entries", body).json
    assert [e["id"] for e in alice.get("/api/entries").json["entries"]] == [saved["id"]]
    assert alice.delete(f"/api/entries/{saved['id']}").status == 204
    assert alice.get("/api/entries").json["entries"] == []
    caplog.set_level(logging.INFO, logger="kmood_lib.journal.outbox")
    again = alice.request("POST", "/api/entries", json_body=body,
                          headers={"X-Kmood-Outbox": f"{uuid.uuid4()} 1/1"})
    assert again.status == 410 and again.json["error"]["code"] == "deleted"
    assert [r.getMessage() for r in caplog.records if "outbox sync" in r.getMessage()] == [
        "outbox sync for alice: 1 of 1 entries sent (0 new, 0 already here, 1 deleted since),"
        " 0 refused"]
    assert alice.request("DELETE", f"/api/metrics/{metric['id']}").status == 204
    assert alice.post("/api/entries", body).status == 410
    assert alice.post("/api/entries", {**body, "client_id": body["client_id"].upper()}
                      ).status == 410
    assert alice.get("/api/entries").json["entries"] == []
    assert alice.get(f"/api/entries/{saved['id']}").status == 404
    bob = client_for("bob")  # remembered per person: the same id is nothing to anyone else
    assert bob.post("/api/entries", {"mood": 2, "client_id": body["client_id"]}).status == 201


def test_the_save_itself_refuses_a_client_id_deleted_after_the_replay_was_asked(
        alice, services, conn):
    """Asked again inside the save's own transaction: a delete that commits between the
    replay check and the save still wins."""
    from zoneinfo import ZoneInfo

    from kmood_lib.journal import writes
    from kmood_lib.journal.entry_input import parse_entry, utc_now

    client_id = str(uuid.uuid4())
    saved = alice.post("/api/entries", {"mood": 3, "client_id": client_id}).json
    assert alice.delete(f"/api/entries/{saved['id']}").status == 204
    data = parse_entry({"mood": 3, "client_id": client_id}, tz=ZoneInfo("UTC"),
                       now=utc_now(services.clock), metric_defs={}, patch=False)
    user_id = alice.get("/api/me").json["id"]
    assert writes.create_entry(conn, user_id, data, "api", services.clock.now_ms()) == \
        writes.DELETED
    assert conn.execute("SELECT count(*) FROM entries").fetchone()[0] == 0


def test_the_log_form_posted_again_after_its_entry_was_deleted_says_so_and_saves_nothing(
        alice):
    page, fields = log_form(alice)
    assert post_form(alice, "/entries", fields, csrf_of(page)).status == 303
    [entry] = alice.get("/api/entries").json["entries"]
    confirm = alice.get(f"/entries/{entry['id']}/delete").text
    assert post_form(alice, f"/entries/{entry['id']}/delete", {}, csrf_of(confirm)).status == 303
    again = post_form(alice, "/entries", fields, csrf_of(page))
    assert again.status == 303 and again.headers["Location"] == "/?done=deleted_before"
    assert alice.get("/api/entries").json["entries"] == []
    assert "this entry was deleted after it was first saved" in alice.get(
        again.headers["Location"]).text


def test_a_deleted_entry_s_client_id_is_forgotten_by_the_worker_after_the_retention(
        alice, services, clock, conn):
    """KMOOD_DELETED_CLIENT_IDS_KEEP_S (90 days by default: an outbox keeps an entry until it
    is sent, so any bound is a choice): until then a replay stays refused; after it the
    worker's maintenance forgets the id, and a replay would save the entry again."""
    from kmood_lib.worker.maintenance import maintenance_steps
    from tests.conftest import PASSWORD

    body = {"mood": 4, "client_id": str(uuid.uuid4())}
    saved = alice.post("/api/entries", body).json
    assert alice.delete(f"/api/entries/{saved['id']}").status == 204
    prune = {name: step for name, _, step in maintenance_steps(services)}[
        "prune_deleted_client_ids"]
    keep_s = services.config.deleted_client_ids_keep_s
    assert keep_s == 90 * 24 * 3600
    clock.advance(keep_s - 1)
    prune(services, conn, clock.now_ms())
    assert alice.login("alice", PASSWORD).status == 201  # the 30-day session ran out meanwhile
    assert alice.post("/api/entries", body).status == 410
    clock.advance(2)
    prune(services, conn, clock.now_ms())
    assert conn.execute("SELECT count(*) FROM deleted_client_ids").fetchone()[0] == 0
    assert alice.post("/api/entries", body).status == 201


# --- the offline page (#38 item 6) ---------------------------------------------------------

def test_the_offline_page_names_the_missing_connection_and_links_to_log_without_a_log_form(
        alice, wsgi):
    """What the service worker keeps to show, under a page's own address, for a page that
    needs the server: the person's own page (their name, the outbox's scripts to count what
    waits), never the log form, never kept by the browser's cache."""
    from tests.wsgi import Client

    page = alice.get("/offline")
    assert page.status == 200 and page.headers["Cache-Control"] == "no-store"
    assert "<h1>No connection</h1>" in page.text
    assert "k-mood cannot be reached from this device just now" in page.text
    assert '<a class="button" href="/">Log an entry</a>' in page.text
    assert 'id="offline-waiting"' in page.text and "outbox_panel.js" in page.text
    assert 'id="entry-form"' not in page.text and 'name="mood"' not in page.text
    assert "alice" in page.text and 'data-user="' in page.text
    stranger = Client(wsgi).get("/offline")  # nobody's: the worker keeps no copy of this
    assert stranger.status in (302, 303) and "/login" in stranger.headers["Location"]

