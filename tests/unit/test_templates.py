"""Note templates (issue #26): made and changed over the API and in Settings, picked on the log
form (with or without script), carried by the JSON export, and brought in from a Daylio
backup's writing templates."""

from __future__ import annotations

import json
import re

import pytest

from tests.helpers import multipart
from tests.unit.test_daylio_backup import MOODS, TAGS, backup
from tests.unit.test_daylio_csv import run


@pytest.fixture
def alice(client_for):
    return client_for("alice")


def test_templates_are_made_changed_and_deleted_over_the_api(alice):
    made = alice.post("/api/templates", {"name": "Evening", "note_title": "Today",
                                         "note": "What went well?\nWhat would I change?"})
    assert made.status == 201
    template = made.json
    assert alice.get("/api/templates").json["templates"] == [template]
    changed = alice.patch(f"/api/templates/{template['id']}", {"note_title": ""})
    assert changed.status == 200 and changed.json["note_title"] == ""
    for body, field in (({"name": "x"}, "note"), ({"name": "", "note": "n"}, "name"),
                        ({"name": "a\x00b", "note": "n"}, "name"),
                        ({"name": "Evening", "note": "twice"}, "name"),
                        ({"name": "n", "note": "x" * 20001}, "note"),
                        ({"name": "n", "note": "x", "colour": "red"}, "colour")):
        refused = alice.post("/api/templates", body)
        assert refused.status == 422 and field in refused.json["error"]["fields"], body
    emptied = alice.patch(f"/api/templates/{template['id']}", {"note": ""})
    assert emptied.status == 422  # neither a title nor a note left
    assert alice.request("DELETE", f"/api/templates/{template['id']}").status == 204
    assert alice.get("/api/templates").json["templates"] == []


def test_the_log_form_starts_from_a_template_without_script(alice):
    template = alice.post("/api/templates", {"name": "Gratitude", "note_title": "Thankful",
                                             "note": "Three good things:"}).json
    page = alice.get("/").text
    link = re.search(r'<a class="chip-link" href="/\?template=(\d+)"[^>]*>Gratitude</a>', page)
    assert link and int(link.group(1)) == template["id"]
    assert 'data-note="Three good things:"' in page
    started = alice.get(f"/?template={template['id']}").text
    assert 'name="note_title" value="Thankful"' in started
    assert ">Three good things:</textarea>" in started
    for odd in ("999", "abc", "", "1e3"):
        assert ">Three good things:</textarea>" not in alice.get(f"/?template={odd}").text


def test_another_users_template_is_never_offered_or_used(alice, client_for):
    template = alice.post("/api/templates", {"name": "Private", "note": "alice's words"}).json
    bob = client_for("bob")
    assert "alice's words" not in bob.get(f"/?template={template['id']}").text
    assert bob.get("/api/templates").json["templates"] == []


def test_settings_make_change_and_delete_a_template_without_script(alice, conn):
    page = alice.get("/settings/templates").text
    token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
    made = alice.request("POST", "/settings/templates", form={
        "csrf_token": token, "name": "Morning", "note_title": "", "note": "Plan:\r\nEnergy:"})
    assert made.status == 303
    [template] = alice.get("/api/templates").json["templates"]
    assert template["note"] == "Plan:\nEnergy:"
    refused = alice.request("POST", "/settings/templates", form={
        "csrf_token": token, "name": "Morning", "note": "again"})
    assert refused.status == 422 and "a template with this name exists" in refused.text
    assert alice.request("POST", f"/settings/templates/{template['id']}", form={
        "csrf_token": token, "name": "Mornings", "note_title": "AM", "note": "Plan:"}
    ).status == 303
    assert alice.get("/api/templates").json["templates"][0]["name"] == "Mornings"
    confirm = alice.get(f"/settings/templates/{template['id']}/delete").text
    assert 'Delete the template “<bdi dir="auto">Mornings</bdi>”?' in confirm
    assert alice.request("POST", f"/settings/templates/{template['id']}/delete",
                         form={"csrf_token": token}).status == 303
    assert alice.get("/api/templates").json["templates"] == []


def test_templates_travel_in_the_json_export(alice, client_for):
    alice.post("/api/templates", {"name": "Evening", "note": "How was today?"})
    alice.post("/api/entries", {"mood": 4})
    exported = alice.get("/api/export?format=json").json
    assert exported["templates"] == [{"name": "Evening", "note_title": "",
                                      "note": "How was today?"}]
    bob = client_for("bob")
    bob.post("/api/templates", {"name": "evening", "note": "bob's own"})  # the same name: kept
    body, content_type = multipart({}, {"file": json.dumps(exported).encode()})
    report = bob.request("POST", "/api/import/daylio", body=body, content_type=content_type)
    assert report.status == 200
    assert [t["note"] for t in bob.get("/api/templates").json["templates"]] == ["bob's own"]


def test_a_daylio_backup_brings_its_writing_templates(conn, make_user):
    make_user("ann", timezone="Europe/Berlin")
    ann = conn.execute("SELECT id FROM users WHERE username = 'ann'").fetchone()[0]
    document = {"version": 15, "customMoods": MOODS, "tags": TAGS, "tag_groups": [],
                "dayEntries": [], "metadata": {"created_at": 1},
                "writingTemplates": [
                    {"id": 1, "title": "Evening", "order": 0,
                     "body": "<p>What happened today?</p><p>How did it <b>feel</b>?</p>"},
                    {"id": 2, "title": "", "body": "<p>orphan</p>", "order": 1}]}
    dry = run(conn, ann, backup(document), dry_run=True)
    assert any("1 note template would be added" in line for line in dry["restored"])
    report = run(conn, ann, backup(document))
    assert "1 note template added" in report["restored"]
    assert any("writing template without a title" in w for w in report["warnings"])
    [(name, note)] = conn.execute("SELECT name, note FROM note_templates WHERE user_id = ?",
                                  (ann,)).fetchall()
    assert name == "Evening" and note == "What happened today?\nHow did it feel?"
