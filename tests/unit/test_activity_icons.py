"""Activity icons (issue #38.8): one emoji and nothing else, through the API, Settings and the
log form; the starter set a new person's log page offers; a Daylio backup's icons."""

from __future__ import annotations

import re

import pytest

from kmood_lib.core.emoji import icon_problem, is_one_emoji
from kmood_lib.portability.daylio.icons import GROUP_CIRCLES, tag_icons
from tests.unit.test_daylio_backup import ENTRIES, MOODS, backup
from tests.unit.test_daylio_csv import run
from tests.unit.test_journal_pages import csrf_of, post_form

ONE_EMOJI = ["🚶", "❤️", "❤", "⚽", "👩🏽‍💻", "🏃🏻‍♀️", "👨‍👩‍👧‍👦", "🇵🇱", "1️⃣", "#⃣",
             "🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f", "🛋️", "©️"]
NOT_ONE = ["", "a", "1", "walk", "🚶🚶", "🚶 🚶", "🚶a", "a🚶", "\u202e🚶", "🚶\u200b",
           "🚶\u2066", "\u200d🚶", "🚶\u200d", "🚶\u200d\u200d🏃", "🏻", "🇵", "🇵🇱🇩🇪",
           "\x00", "🚶\n", "\ufe0f", "1\u20e3\u20e3", "🏴\U000e0067", "✓" * 17, "🏃" * 16]


@pytest.mark.parametrize("text", ONE_EMOJI)
def test_one_emoji_of_any_shape_is_an_icon(text):
    assert is_one_emoji(text) and icon_problem(text) is None


@pytest.mark.parametrize("text", NOT_ONE)
def test_anything_but_one_emoji_is_refused(text):
    assert not is_one_emoji(text)
    assert icon_problem(text) is not None


def test_an_icon_longer_than_the_bound_is_refused_before_it_is_read():
    family = "👨\u200d" * 8 + "👦"  # 17 code points, each part an emoji
    assert icon_problem(family) == "must be one emoji (at most 16 characters)"


@pytest.fixture
def alice(client_for):
    return client_for("alice")


def test_the_api_gives_changes_and_takes_an_icon_and_refuses_anything_else(alice):
    created = alice.post("/api/activities", {"name": "walk", "group": "Health", "icon": " 🚶 "})
    assert created.status == 201 and created.json["icon"] == "🚶"
    path = f"/api/activities/{created.json['id']}"
    for bad in ("walk", "🚶🚶", "\u202e🚶", 7, ["🚶"], "🏃" * 17):
        refused = alice.patch(path, {"icon": bad, "name": "renamed"})
        assert refused.status == 422 and "icon" in refused.json["error"]["fields"], bad
    assert alice.post("/api/activities", {"name": "x", "icon": "xx"}).status == 422
    listed = alice.get("/api/activities").json["activities"]
    assert [(a["name"], a["icon"]) for a in listed] == [("walk", "🚶")]  # nothing changed
    assert alice.patch(path, {"icon": "🏃🏻‍♀️"}).json["icon"] == "🏃🏻‍♀️"
    assert alice.patch(path, {"name": "run"}).json["icon"] == "🏃🏻‍♀️"  # kept when not given
    assert alice.patch(path, {"icon": None}).json["icon"] is None
    assert alice.patch(path, {"icon": "🚶"}).json["icon"] == "🚶"
    assert alice.patch(path, {"icon": ""}).json["icon"] is None


def test_settings_picks_an_icon_from_the_list_or_takes_one_typed(alice):
    made = alice.post("/api/activities", {"name": "reading", "group": "Hobbies"}).json
    page = f"/settings/activities/{made['id']}"
    form = alice.get(page).text
    assert 'name="icon_pick" value="📖"' in form and 'id="icon-none" checked' in form
    picked = post_form(alice, page, {"name": "reading", "group": "Hobbies", "icon_pick": "📖",
                                     "icon": ""}, csrf_of(form))
    assert picked.status == 303
    assert alice.get("/api/activities").json["activities"][0]["icon"] == "📖"
    assert re.search(r'name="icon_pick" value="📖" id="icon-\d+" checked', alice.get(page).text)
    typed = post_form(alice, page, {"name": "reading", "group": "Hobbies", "icon_pick": "📖",
                                    "icon": "🦉"}, csrf_of(form))  # typed wins over picked
    assert typed.status == 303
    own = alice.get(page).text  # an icon not on the list is offered first, picked
    assert re.search(r'name="icon_pick" value="🦉" id="icon-0" checked', own)
    refused = post_form(alice, page, {"name": "reading", "group": "", "icon_pick": "",
                                      "icon": "owl \u202e"}, csrf_of(form))
    assert refused.status == 422 and "must be one emoji" in refused.text
    kept = alice.get("/api/activities").json["activities"][0]
    assert (kept["icon"], kept["group"]) == ("🦉", "Hobbies")
    cleared = post_form(alice, page, {"name": "reading", "group": "Hobbies", "icon_pick": "",
                                      "icon": ""}, csrf_of(form))
    assert cleared.status == 303
    assert alice.get("/api/activities").json["activities"][0]["icon"] is None


def test_the_icon_shows_before_the_name_in_settings_and_on_the_log_form_unread(alice):
    alice.post("/api/activities", {"name": "walk", "icon": "🚶"})
    alice.post("/api/activities", {"name": "plain"})
    icon = '<span class="icon" aria-hidden="true">🚶</span>'
    assert icon + '<span dir="auto">walk</span>' in alice.get("/settings/activities").text
    log = alice.get("/").text
    assert re.search(r'<label for="activity-\d+" dir="auto">' + re.escape(icon) + "walk</label>",
                     log)
    assert re.search(r'<label for="activity-\d+" dir="auto">plain</label>', log)


def starter_names(page: str) -> list[str]:
    return re.findall(r'name="take" value="([^"]+)"', page)


def test_a_new_person_is_offered_the_starter_set_and_takes_the_ones_ticked(alice):
    home = alice.get("/").text
    offered = starter_names(home)
    assert len(offered) == 20 and "good sleep" in offered and "Start with 20 common activities?" in home
    taken = post_form(alice, "/activities/starter", [("answer", "take"), ("take", "walk"),
                                                     ("take", "reading"), ("take", "party")],
                      csrf_of(home))
    assert taken.status == 303 and taken.headers["Location"] == "/?done=activities_started&n=3"
    listed = {a["name"]: (a["group"], a["icon"])
              for a in alice.get("/api/activities").json["activities"]}
    assert listed == {"walk": ("Health", "🚶"), "reading": ("Hobbies", "📖"),
                      "party": ("Social", "🎉")}
    again = alice.get("/?done=activities_started&n=3").text
    assert starter_names(again) == [] and "Added 3 activities with their icons" in again
    assert alice.get("/api/activities/starter").json["offered"] is False


def test_skipping_the_starter_set_makes_nothing_and_it_is_not_offered_again(alice):
    home = alice.get("/").text
    skipped = post_form(alice, "/activities/starter", [("answer", "skip"), ("take", "walk")],
                        csrf_of(home))
    assert skipped.headers["Location"] == "/?done=activities_skipped"
    assert alice.get("/api/activities").json["activities"] == []
    assert starter_names(alice.get("/").text) == []


def test_the_starter_set_is_not_offered_once_the_person_has_an_activity(alice):
    assert alice.get("/api/activities/starter").json["offered"] is True
    alice.post("/api/entries", {"mood": 4, "activities": ["my own"]})
    assert starter_names(alice.get("/").text) == []
    alice.delete(f"/api/activities/{alice.get('/api/activities').json['activities'][0]['id']}")
    assert starter_names(alice.get("/").text) == []  # answered for good, not only while it has one


def test_a_forged_starter_answer_is_refused_and_changes_nothing(alice):
    home = alice.get("/").text
    forged = post_form(alice, "/activities/starter", [("answer", "take"), ("take", "walk"),
                                                      ("take", "<script>")], csrf_of(home))
    assert forged.status == 422
    no_csrf = post_form(alice, "/activities/starter", [("answer", "take"), ("take", "walk")],
                        None)
    assert no_csrf.status == 403
    assert alice.post("/api/activities/starter", {"names": ["walk", "nope"]}).status == 422
    assert alice.post("/api/activities/starter", {"names": "walk"}).status == 422
    assert alice.post("/api/activities/starter", {"names": ["walk"] * 101}).status == 422
    assert alice.post("/api/activities/starter", {"take": ["walk"]}).status == 422
    assert alice.get("/api/activities").json["activities"] == []
    assert len(starter_names(alice.get("/").text)) == 20


def test_the_api_takes_the_starter_set_once(alice):
    offer = alice.get("/api/activities/starter").json
    names = [a["name"] for g in offer["groups"] for a in g["activities"]]
    assert offer["offered"] is True and len(names) == 20
    assert alice.post("/api/activities/starter", {"names": names}).json == {
        "created": 20, "offered": False}
    icons = {a["icon"] for a in alice.get("/api/activities").json["activities"]}
    assert None not in icons and len(icons) == 20
    assert alice.post("/api/activities/starter", {"names": names}).json["created"] == 0


# --- Daylio ------------------------------------------------------------------------------

def test_daylio_tags_get_the_icon_their_name_says_then_their_shared_icon_then_their_group():
    icons = tag_icons([
        ("Reading", 12, "Hobbies"),            # its name says what it is
        ("books again", 12, "Hobbies"),        # shows the same Daylio icon as "reading"
        ("good sleep", 355, "Sleep"), ("naps", 7, "Sleep"),  # a group named for what it holds
        ("walk", 40, "Outside"), ("cycling", 40, "Outside"),
        ("something", 40, "Outside"),          # the named tags showing icon 40 disagree
        ("thing one", 1, "Custom A"), ("thing two", 2, "Custom B"),
        ("loose", 3, None), ("odd number", True, "Custom A"),
        ("exercise", True, "Custom A"),       # not a number: True is not icon 1
    ], {"Hobbies": 0, "Sleep": 1, "Outside": 2, "Custom A": 3, "Custom B": 4})
    assert icons == {"Reading": "📖", "books again": "📖", "good sleep": "😴", "naps": "😴",
                     "walk": "🚶", "cycling": "🚴", "something": GROUP_CIRCLES[2],
                     "thing one": GROUP_CIRCLES[3], "thing two": GROUP_CIRCLES[4],
                     "loose": None, "odd number": GROUP_CIRCLES[3], "exercise": "💪"}


def icons_of(conn, user_id: int) -> dict[str, str | None]:
    return dict(conn.execute("SELECT name, icon FROM activities WHERE user_id = ?",
                             (user_id,)).fetchall())


def test_a_daylio_backup_brings_icons_and_keeps_the_persons_own(conn, make_user, client_for):
    bob = client_for("bob")
    bob.post("/api/activities", {"name": "work", "icon": "🧑‍💻"})  # chosen here: it stays
    user_id = conn.execute("SELECT id FROM users WHERE username = 'bob'").fetchone()[0]
    tags = [{"id": 1, "name": "work", "id_tag_group": 1, "state": 0, "icon": 97},
            {"id": 2, "name": "running", "id_tag_group": 2, "state": 0, "icon": 43},
            {"id": 3, "name": "jogging", "id_tag_group": 2, "state": 0, "icon": 43},
            {"id": 4, "name": "chess club", "id_tag_group": 3, "state": 0, "icon": 5},
            {"id": 5, "name": "old hobby", "id_tag_group": 0, "state": 1, "icon": 8}]
    groups = [{"id": 1, "name": "Work stuff", "order": 0}, {"id": 2, "name": "Sport", "order": 1},
              {"id": 3, "name": "Clubs", "order": 2}]
    document = {"version": 15, "customMoods": MOODS, "tags": tags, "tag_groups": groups,
                "dayEntries": ENTRIES[:2], "metadata": {"created_at": 1}}
    report = run(conn, user_id, backup(document))
    assert report["imported"] == 2
    assert icons_of(conn, user_id) == {"work": "🧑‍💻", "running": "🏃", "jogging": "🏃",
                                       "chess club": GROUP_CIRCLES[2], "old hobby": None}


def test_the_migration_answers_the_starter_set_for_people_who_already_log(conn, client_for):
    client_for("new")
    client_for("logs").post("/api/entries", {"mood": 3})
    client_for("tags").post("/api/activities", {"name": "walk"})
    conn.execute("UPDATE users SET starter_answered_at = NULL")  # as before 0027 ran
    from kmood_lib.core.migrate import MIGRATIONS_DIR

    update = (MIGRATIONS_DIR / "0027_activity_icons.sql").read_text().split("UPDATE users")[1]
    conn.execute("UPDATE users" + update.split(";")[0])
    answered = dict(conn.execute("SELECT username, starter_answered_at IS NOT NULL FROM users"))
    assert answered == {"new": 0, "logs": 1, "tags": 1}
