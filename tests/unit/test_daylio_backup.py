"""Daylio `.daylio` backup import, from backups built here the way the app writes them (ZIP,
base64 wrapped at 76 characters, JSON): moods by group (1 = best), renamed and custom moods,
0-based months, offsets, date-only entries (issue #12)."""

from __future__ import annotations

import base64
import io
import json
import textwrap
import zipfile
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from kmood_lib.portability import importer
from kmood_lib.portability.daylio.backup import read_member
from kmood_lib.portability.daylio.plan import DaylioFormatError, Limits
from tests.fakes import FakeClock
from tests.unit.test_daylio_csv import NEWEST, csv_bytes, journal, journal_rows, picked, run
from tests.unit.test_journal_pages import csrf_of, post_form

MOODS = [
    {"id": 1, "custom_name": "", "mood_group_id": 1, "mood_group_order": 0,
     "predefined_name_id": 1, "state": 0},
    {"id": 2, "custom_name": "Pretty good", "mood_group_id": 2, "mood_group_order": 0,
     "predefined_name_id": 2, "state": 0},  # a renamed predefined mood
    {"id": 3, "custom_name": "", "mood_group_id": 3, "predefined_name_id": 3, "state": 0},
    {"id": 4, "custom_name": "", "mood_group_id": 4, "predefined_name_id": 4, "state": 0},
    {"id": 5, "custom_name": "", "mood_group_id": 5, "predefined_name_id": 5, "state": 0},
    {"id": 6, "custom_name": "null", "mood_group_id": 2, "mood_group_order": 1,
     "predefined_name_id": -1, "state": 0},  # "null" is a real name
    {"id": 7, "custom_name": "Tired", "mood_group_id": 4, "mood_group_order": 1,
     "predefined_name_id": -1, "state": 1},  # archived, still used by old entries
]
TAGS = [{"id": 1, "name": "work", "id_tag_group": 1, "state": 0},
        {"id": 2, "name": "running", "id_tag_group": 2, "state": 0},
        {"id": 3, "name": "old hobby", "id_tag_group": 0, "state": 1}]
GROUPS = [{"id": 1, "name": "Work stuff", "order": 0}, {"id": 2, "name": "Sport", "order": 1}]


def day_entry(ident: int, local: datetime | None, offset_h: float, mood: int, tags=(),
              note="", title="", day=None, utc_ms: int | None = None) -> dict:
    """An entry as the app writes it: local fields, 0-based month, UTC ms + offset."""
    if local is None:  # no time recorded
        y, m, d = day
        fields = {"year": y, "month": m - 1, "day": d, "hour": -1, "minute": -1}
        instant = int(datetime(y, m, d, 12, tzinfo=timezone.utc).timestamp() * 1000)
    else:
        fields = {"year": local.year, "month": local.month - 1, "day": local.day,
                  "hour": local.hour, "minute": local.minute}
        aware = local.replace(tzinfo=timezone(timedelta(hours=offset_h)))
        instant = int(aware.timestamp() * 1000)
    return {"id": ident, **fields, "datetime": utc_ms if utc_ms is not None else instant,
            "timeZoneOffset": int(offset_h * 3600 * 1000), "mood": mood, "note": note,
            "note_title": title, "tags": list(tags), "assets": [], "isFavorite": False}


ENTRIES = [
    day_entry(101, datetime(2022, 12, 31, 23, 30), 1, 6, tags=[1, 3], note="<b>hi</b><br>there",
              title="New year&#39;s eve"),  # December is month 11
    day_entry(102, datetime(2023, 3, 26, 10, 0), 2, 2, tags=[2]),  # just after the DST change
    day_entry(103, datetime(2023, 3, 25, 10, 0), 1, 7),  # the day before it, archived mood
    day_entry(104, None, 2, 1, day=(2023, 4, 1), note="no time recorded"),
    day_entry(105, datetime(2023, 5, 1, 0, 30), 2, 3),  # its UTC date is 2023-04-30
    day_entry(106, datetime(2023, 6, 1, 9, 0), 0, 4,
              utc_ms=int(datetime(2023, 6, 1, 7, 0, tzinfo=timezone.utc).timestamp() * 1000)),
    day_entry(107, datetime(2023, 6, 2, 9, 0), 2, 5),
]


def backup(document: dict | None = None, *, wrap=True, extra: dict | None = None,
           plain=False) -> bytes:
    document = document or {
        "version": 15, "customMoods": MOODS, "tags": TAGS, "tag_groups": GROUPS,
        "dayEntries": ENTRIES, "goals": [{"id": 1}], "reminders": [{"hour": 20}],
        "prefs": [{"key": "PIN_LOCK", "value": "1"}], "pin": "1234",
        "metadata": {"number_of_entries": len(ENTRIES), "created_at": 1690000000000}}
    text = json.dumps(document, indent=2 if plain else None).encode()
    if not plain:
        text = base64.b64encode(text)
        if wrap:
            text = "\n".join(textwrap.wrap(text.decode(), 76)).encode()
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("backup.daylio", text)
        archive.writestr("assets/photos/2023/1.jpg", b"\xff\xd8\xff fake photo")
        for name, data in (extra or {}).items():
            archive.writestr(name, data)
    return out.getvalue()


@pytest.fixture
def ann(make_user, conn):
    make_user("ann", timezone="Europe/Berlin")
    return conn.execute("SELECT id FROM users WHERE username = 'ann'").fetchone()[0]


def test_a_backup_is_read_exactly(conn, ann):
    report = run(conn, ann, backup())
    assert report["imported"] == 7 and report["format"] == "daylio-backup"
    assert report["problems"] == []
    rows = {e["note"] or e["day"]: e for e in journal_rows(conn, ann)}
    when = ("day", "minute", "offset_s", "time_known", "mood")
    eve = rows["hi\nthere"]
    assert picked(eve, *when, "label", "title", "note") == {
        "day": "2022-12-31", "minute": 23 * 60 + 30, "offset_s": 3600, "time_known": 1,
        "mood": 4, "label": "null", "title": "New year's eve", "note": "hi\nthere"}
    assert eve["activities"] == "old hobby|work"  # the archived tag still resolves
    assert picked(rows["2023-03-26"], *when, "label") == {
        "day": "2023-03-26", "minute": 600, "offset_s": 7200, "time_known": 1, "mood": 4,
        "label": "Pretty good"}
    assert picked(rows["2023-03-25"], *when, "label") == {
        "day": "2023-03-25", "minute": 600, "offset_s": 3600, "time_known": 1, "mood": 2,
        "label": "Tired"}
    assert picked(rows["no time recorded"], *when, "label") == {  # date-only: stored at noon
        "day": "2023-04-01", "minute": 720, "offset_s": 7200, "time_known": 0, "mood": 5,
        "label": None}
    assert picked(rows["2023-05-01"], *when, "label") == {  # its own local day
        "day": "2023-05-01", "minute": 30, "offset_s": 7200, "time_known": 1, "mood": 3,
        "label": None}
    # An anonymised entry (offset zeroed, instant disagreeing): the local fields win and the
    # wall time is read in the user's zone.
    assert picked(rows["2023-06-01"], *when) == {
        "day": "2023-06-01", "minute": 540, "offset_s": 7200, "time_known": 1, "mood": 2}
    assert picked(rows["2023-06-02"], *when) == {
        "day": "2023-06-02", "minute": 540, "offset_s": 7200, "time_known": 1, "mood": 1}
    groups = dict(conn.execute("SELECT a.name, g.name FROM activities a LEFT JOIN"
                               " activity_groups g ON g.id = a.group_id WHERE a.user_id = ?",
                               (ann,)).fetchall())
    assert groups == {"work": "Work stuff", "running": "Sport", "old hobby": None}
    assert any("disagrees" in w for w in report["warnings"])
    ignored = " | ".join(report["ignored"])
    assert "PIN" in ignored
    assert any("a goal (no name)" in w for w in report["warnings"])  # {"id": 1}: nothing to read
    assert any("1 file under assets/ belongs" in w for w in report["warnings"])  # no entry's
    assert "1234" not in json.dumps(report)
    levels = {m["name"]: m["level"] for m in report["moods"]}
    assert levels == {"rad": 5, "Pretty good": 4, "null": 4, "meh": 3, "bad": 2, "Tired": 2,
                      "awful": 1}


def test_a_date_only_entry_shows_no_time_and_stays_out_of_hour_stats(conn, client_for):
    bea = client_for("bea", timezone="Europe/Berlin")
    user_id = conn.execute("SELECT id FROM users WHERE username = 'bea'").fetchone()[0]
    run(conn, user_id, backup())
    found = bea.get("/api/entries?from=2023-04-01&to=2023-04-01").json["entries"]
    assert [(e["occurred_at"], e["time_known"]) for e in found] == [
        ("2023-04-01T12:00:00+02:00", False)]
    assert bea.get("/api/entries?from=2023-05-01&to=2023-05-01").json["entries"][0][
        "time_known"] is True
    hours = bea.get("/api/stats/weekday").json["hours"]
    assert sum(h["count"] for h in hours) == 6 and hours[12]["count"] == 0
    assert "no time" in bea.get("/entries?from=2023-04-01&to=2023-04-01").text
    assert "1 Apr 2023 (no time)" in bea.get(f"/entries/{found[0]['id']}/edit").text
    assert bea.patch(f"/api/entries/{found[0]['id']}",
                     {"occurred_at": "2023-04-01T08:15:00"}).json["time_known"] is True
    assert bea.patch(f"/api/entries/{found[0]['id']}", {"time_known": False}).status == 422


@pytest.mark.parametrize("variant", ["unwrapped", "plain", "pretty"])
def test_tool_rewritten_backups_are_read_too(conn, ann, variant):
    data = backup(wrap=False) if variant == "unwrapped" else backup(plain=True)
    assert run(conn, ann, data)["imported"] == 7


def test_a_backup_twice_and_a_csv_of_the_same_history_add_nothing(conn, ann):
    assert run(conn, ann, backup())["imported"] == 7
    again = run(conn, ann, backup())
    assert (again["imported"], again["duplicates"]) == (0, 7)
    # The same history exported as CSV by the app (a different file, no ids): matched on
    # local day, minute, mood and note.
    rows = ['2023-03-26,March 26,Sunday,10:00,Pretty good,running,,,',
            '2022-12-31,December 31,Saturday,11:30 pm,null,work | old hobby,,'
            '"New year\'s eve","<b>hi</b><br>there"']
    csv_report = run(conn, ann, csv_bytes(NEWEST, *rows),
                     mood_map={"pretty good": 4, "null": 4})
    assert (csv_report["imported"], csv_report["duplicates"]) == (0, 2)
    # ...and a second backup months later (new metadata, one new entry) adds only that entry.
    document = json.loads(base64.b64decode(zipfile.ZipFile(io.BytesIO(backup())).read(
        "backup.daylio")))
    document["metadata"] = {"number_of_entries": 8, "created_at": 1700000000000}
    document["dayEntries"].append(day_entry(108, datetime(2023, 7, 1, 8, 0), 2, 1))
    later = run(conn, ann, backup(document))
    assert (later["imported"], later["duplicates"]) == (1, 7)


def test_an_unknown_mood_or_tag_id_or_impossible_day_refuses_the_whole_backup(conn, ann):
    document = json.loads(base64.b64decode(zipfile.ZipFile(io.BytesIO(backup())).read(
        "backup.daylio")))
    document["dayEntries"][1]["mood"] = 99
    document["dayEntries"][2]["tags"] = [1, 42]
    document["dayEntries"][3]["month"], document["dayEntries"][3]["day"] = 1, 30  # 30 February
    with pytest.raises(importer.ImportRefused) as refused:
        run(conn, ann, backup(document))
    assert refused.value.report["problems"] == [
        "entry 102: mood id 99 is not in customMoods",
        "entry 103: tag id [42] not in tags",
        "entry 104: 2023-02-30 is not a real day (month is 0-based in backups)"]
    assert journal(conn, ann) == []


@pytest.mark.parametrize("make, message", [
    (lambda: backup()[:200], "not a ZIP archive"),
    (lambda: b"PK\x03\x04" + b"\0" * 40, "not a ZIP archive"),
    (lambda: zip_of({"other.json": b"{}"}), "no backup.daylio"),
    (lambda: zip_of({"backup.daylio": b"!!!! not base64 ????"}), "neither JSON nor base64"),
    (lambda: zip_of({"backup.daylio": base64.b64encode(b"{not json")}), "not hold valid JSON"),
    (lambda: zip_of({"backup.daylio": base64.b64encode(b"\xff\xfe{}")}), "UTF-8"),
    (lambda: zip_of({"backup.daylio": b"[1, 2]"}), "not an object"),
    (lambda: zip_of({"backup.daylio": b'{"customMoods": []}'}), "no dayEntries"),
])
def test_broken_backups_are_refused_clearly_and_change_nothing(conn, ann, make, message):
    before = journal(conn, ann)
    with pytest.raises(DaylioFormatError, match=message):
        run(conn, ann, make())
    assert journal(conn, ann) == before


def zip_of(files: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return out.getvalue()


def bomb(size: int, *, chunk: int = 1024 * 1024) -> bytes:
    """A ZIP whose backup.daylio inflates to `size` bytes of A (a zip bomb, in small)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        with archive.open("backup.daylio", "w", force_zip64=True) as member:
            for _ in range(size // chunk):
                member.write(b"A" * chunk)
    return out.getvalue()


SMALL = Limits(max_bytes=1024 * 1024, max_rows=3)


def test_a_member_past_the_byte_limit_is_refused_before_it_is_inflated(conn, ann):
    data = bomb(4 * 1024 * 1024)
    assert len(data) < 20_000
    with pytest.raises(DaylioFormatError, match=r"backup.daylio holds more than 1 MiB.*"
                                                r"KMOOD_IMPORT_MAX_BYTES"):
        importer.import_file(conn, ann, ZoneInfo("UTC"), data, {}, FakeClock(), limits=SMALL)
    assert journal(conn, ann) == []


def test_a_member_that_inflates_past_what_it_declares_stops_at_the_limit():
    """The declared size is the archive's word: the bytes inflated are counted too."""
    archive = zipfile.ZipFile(io.BytesIO(bomb(4 * 1024 * 1024)))
    archive.getinfo("backup.daylio").file_size = 10  # what a forged header would say
    with pytest.raises(DaylioFormatError, match="cannot be read|holds more than"):
        read_member(archive, "backup.daylio", SMALL)
    archive = zipfile.ZipFile(io.BytesIO(bomb(4 * 1024 * 1024)))
    archive.getinfo("backup.daylio").file_size = 512 * 1024
    with pytest.raises(DaylioFormatError):
        read_member(archive, "backup.daylio", SMALL)


def test_more_entries_than_the_row_limit_are_refused_whole(conn, ann):
    with pytest.raises(DaylioFormatError, match="more than 3 entries.*KMOOD_IMPORT_MAX_ROWS"):
        importer.import_file(conn, ann, ZoneInfo("UTC"), backup(), {}, FakeClock(), limits=SMALL)
    rows = [f"2024-01-0{d},,,18:00,good,,,,n{d}" for d in range(1, 5)]
    with pytest.raises(DaylioFormatError, match="more than 3 entries"):
        importer.import_file(conn, ann, ZoneInfo("UTC"), csv_bytes(NEWEST, *rows), {}, FakeClock(),
                             limits=SMALL)
    assert importer.import_file(conn, ann, ZoneInfo("UTC"), csv_bytes(NEWEST, *rows[:3]), {},
                                FakeClock(), limits=SMALL)["imported"] == 3


def test_every_tag_comes_along_archived_as_it_was_in_daylio(conn, ann):
    document = {"version": 15, "customMoods": MOODS, "tag_groups": GROUPS,
                "tags": TAGS + [{"id": 9, "name": "never used", "id_tag_group": 1,
                                 "state": 0}],
                "dayEntries": ENTRIES[:1], "metadata": {"created_at": 1}}
    run(conn, ann, backup(document))
    found = {r[0]: (r[1], r[2]) for r in conn.execute(
        "SELECT a.name, a.archived_at IS NOT NULL, g.name FROM activities a LEFT JOIN"
        " activity_groups g ON g.id = a.group_id WHERE a.user_id = ?", (ann,))}
    assert found == {"work": (0, "Work stuff"), "running": (0, "Sport"),
                     "old hobby": (1, None), "never used": (0, "Work stuff")}


def test_daylio_reminders_are_named_with_their_times_to_set_up_here(conn, ann):
    document = {"version": 15, "customMoods": MOODS, "tags": TAGS, "tag_groups": GROUPS,
                "dayEntries": ENTRIES[:1], "metadata": {"created_at": 1},
                "reminders": [{"id": 1, "hour": 21, "minute": 30, "state": 0},
                              {"id": 2, "hour": 8, "minute": 5, "state": 1},
                              {"id": 3, "hour": 99, "minute": 0}]}
    report = run(conn, ann, backup(document), dry_run=True)
    [line] = [i for i in report["ignored"] if "reminder" in i]
    assert line.startswith("Daylio reminders at 21:30, 08:05 (off): not made")
    assert "Settings → Reminders" in line


HIDDEN_CHARS = "\u200b\u2028\u2029\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\ufeff"


def names_hold_hidden_characters(conn) -> list[str]:
    """Every stored name (activities, groups, metrics, labels, goals, templates) holding one
    of the characters a name may not."""
    found = []
    for sql in ("SELECT name FROM activities", "SELECT name FROM activity_groups",
                "SELECT name FROM metrics", "SELECT mood_label FROM entries",
                "SELECT label FROM mood_labels", "SELECT name FROM goals",
                "SELECT name FROM note_templates"):
        found += [row[0] for row in conn.execute(sql) if row[0] and any(
            c in row[0] for c in HIDDEN_CHARS)]
    return found


def test_invisible_and_direction_changing_characters_leave_a_backup_s_names_said_so(
        conn, ann):
    """A backup cannot be fixed where it was made: a tag, group, mood, goal or template name
    holding a character a name may not hold (an override, an isolate, a zero-width space) is
    imported without it — what goes shows nothing itself — and the report says where (#36 6d).
    """
    moods = [dict(m) for m in MOODS]
    moods[5] = {**moods[5], "custom_name": "\u2067null\u2069"}
    tags = [{**TAGS[0], "name": "\u202ekrow"}, {**TAGS[1], "name": "run\u200bning"}, TAGS[2]]
    groups = [{**GROUPS[0], "name": "Work\ufeff stuff"}, {**GROUPS[1], "name": "\u200b"}]
    document = {"version": 15, "customMoods": moods, "tags": tags, "tag_groups": groups,
                "dayEntries": ENTRIES[:2], "metadata": {"created_at": 1},
                "goals": [{"id": 1, "goal_id": 1, "name": "Floss\u2028daily", "id_tag": -1,
                           "repeat_type": 2, "repeat_value": 3, "state": 0}],
                "writingTemplates": [{"title": "Even\u202ding", "body": "How was it?"}]}
    report = run(conn, ann, backup(document))
    assert report["imported"] == 2
    assert names_hold_hidden_characters(conn) == []
    activities = dict(conn.execute(
        "SELECT a.name, g.name FROM activities a LEFT JOIN activity_groups g"
        " ON g.id = a.group_id WHERE a.user_id = ?", (ann,)).fetchall())
    assert activities == {"krow": "Work stuff", "running": None, "old hobby": None}
    assert [e[5] for e in journal(conn, ann)] == ["null", "Pretty good"]
    assert [r[0] for r in conn.execute("SELECT name FROM goals")] == ["Floss daily"]
    assert [r[0] for r in conn.execute("SELECT name FROM note_templates")] == ["Evening"]
    said = "\n".join(report["warnings"])
    for line in ("U+202E RIGHT-TO-LEFT OVERRIDE taken out of the activity 'krow'",
                 "U+200B ZERO WIDTH SPACE taken out of the activity 'running'",
                 "U+FEFF ZERO WIDTH NO-BREAK SPACE taken out of the group 'Work stuff'",
                 "U+2067 RIGHT-TO-LEFT ISOLATE taken out of the mood name 'null'",
                 "U+2028 LINE SEPARATOR taken out of the name 'Floss daily'",
                 "U+202D LEFT-TO-RIGHT OVERRIDE taken out of the name 'Evening'"):
        assert line in said, (line, report["warnings"])
    assert run(conn, ann, backup(document))["imported"] == 0  # still idempotent


def test_editing_a_date_only_entry_keeps_it_date_only_until_a_time_is_given(conn, client_for):
    """The edit form shows no time for it, and saving another mood leaves it as it was logged
    (before, the form posted 12:00 and the entry became one logged at noon)."""
    bea = client_for("bea", timezone="Europe/Berlin")
    user_id = conn.execute("SELECT id FROM users WHERE username = 'bea'").fetchone()[0]
    run(conn, user_id, backup())
    entry = bea.get("/api/entries?from=2023-04-01&to=2023-04-01").json["entries"][0]
    page = bea.get(f"/entries/{entry['id']}/edit").text
    assert 'name="time" value=""' in page
    fields = [("mood", "4"), ("date", "2023-04-01"), ("time", ""),
              ("utc_offset", "+02:00")]
    assert post_form(bea, f"/entries/{entry['id']}/edit", fields, csrf_of(page)).status == 303
    kept = bea.get(f"/api/entries/{entry['id']}").json
    assert (kept["mood"], kept["occurred_at"], kept["time_known"]) == (
        4, "2023-04-01T12:00:00+02:00", False)
    fields[2] = ("time", "08:15")
    assert post_form(bea, f"/entries/{entry['id']}/edit", fields, csrf_of(page)).status == 303
    timed = bea.get(f"/api/entries/{entry['id']}").json
    assert (timed["occurred_at"], timed["time_known"]) == ("2023-04-01T08:15:00+02:00", True)
