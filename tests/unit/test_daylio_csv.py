"""Daylio CSV import: every header generation and quirk of real exports, built here as small
synthetic files; atomic (every row or none) and idempotent (issue #12)."""

from __future__ import annotations

from zoneinfo import ZoneInfo

import pytest

from kmood_lib.portability import importer
from kmood_lib.portability.daylio.dates import localised_day, parse_time
from kmood_lib.portability.daylio.moods import parse_mood_map, suggest_level
from kmood_lib.portability.daylio.notes import html_to_text
from kmood_lib.portability.daylio.plan import DaylioFormatError
from tests.fakes import FakeClock

BOM = "\ufeff"
NEWEST = "full_date,date,weekday,time,mood,activities,scales,note_title,note"


def csv_bytes(header: str, *rows: str, bom: bool = True, newline: str = "\n") -> bytes:
    return ((BOM if bom else "") + newline.join((header, *rows)) + newline).encode("utf-8")


@pytest.fixture
def ann(make_user, conn):
    make_user("ann", timezone="Europe/Berlin")
    return conn.execute("SELECT id FROM users WHERE username = 'ann'").fetchone()[0]


def run(conn, user_id: int, data: bytes, mood_map=None, dry_run=False) -> dict:
    return importer.import_file(conn, user_id, ZoneInfo("Europe/Berlin"), data, mood_map or {},
                                FakeClock(), dry_run=dry_run)


def journal(conn, user_id: int) -> list[tuple]:
    """Every user-data row of the user, for before/after comparisons."""
    return [tuple(r) for r in conn.execute(
        "SELECT e.local_date, e.local_minute, e.utc_offset_s, e.time_known, e.mood,"
        " e.mood_label, e.note_title, e.note, e.source,"
        " (SELECT group_concat(a.name, '|') FROM (SELECT a.name FROM entry_activities ea"
        "   JOIN activities a ON a.id = ea.activity_id WHERE ea.entry_id = e.id"
        "   ORDER BY a.name_key) a),"
        " (SELECT group_concat(m.name || '=' || em.value, '|') FROM entry_metrics em"
        "   JOIN metrics m ON m.id = em.metric_id WHERE em.entry_id = e.id)"
        " FROM entries e WHERE e.user_id = ? ORDER BY e.occurred_at, e.id", (user_id,))]


JOURNAL_FIELDS = ("day", "minute", "offset_s", "time_known", "mood", "label", "title", "note",
                  "source", "activities", "metrics")


def journal_rows(conn, user_id: int) -> list[dict]:
    """journal() with each value named (JOURNAL_FIELDS)."""
    return [dict(zip(JOURNAL_FIELDS, row, strict=True)) for row in journal(conn, user_id)]


def picked(row: dict, *names: str) -> dict:
    return {name: row[name] for name in names}


def vocabulary(conn, user_id: int) -> list[tuple]:
    return [tuple(r) for r in conn.execute(
        "SELECT 'activity', name, NULL FROM activities WHERE user_id = ? UNION ALL"
        " SELECT 'metric', name, unit || ':' || coalesce(max_value, '') FROM metrics"
        " WHERE user_id = ? ORDER BY 1, 2", (user_id, user_id))]


@pytest.mark.parametrize("header", [
    "full_date,date,weekday,time,mood,activities,note",
    "full_date,date,weekday,time,mood,activities,note_title,note",
    NEWEST,
])
@pytest.mark.parametrize("bom, newline", [(True, "\n"), (False, "\r\n")])
def test_each_header_generation_with_or_without_bom_and_crlf(conn, ann, header, bom, newline):
    columns = header.split(",")
    values = {"full_date": "2023-10-16", "date": "October 16", "weekday": "Monday",
              "time": "18:52", "mood": "good", "activities": "work | reading",
              "scales": "", "note_title": "A title", "note": "fine"}
    row = ",".join(values[c] for c in columns)
    report = run(conn, ann, csv_bytes(header, row, bom=bom, newline=newline))
    assert report["imported"] == 1 and report["problems"] == []
    (entry,) = journal(conn, ann)
    assert entry[:6] == ("2023-10-16", 18 * 60 + 52, 7200, 1, 4, None)  # CEST; 'good' is level 4
    assert entry[6] == ("A title" if "note_title" in columns else "")
    assert entry[7:] == ("fine", "daylio", "reading|work", None)


def test_the_oldest_header_rebuilds_the_day_from_year_and_a_localised_date(conn, ann):
    header = "year,date,weekday,time,mood,activities,note"
    rows = ['2019,June 22,Saturday,9:03,rad,,"en"', "2019,22. Juni,Samstag,9:04,rad,,de",
            "2019,22 juin,samedi,9:05,rad,,fr", "2019,16 de octubre,miércoles,9:06,rad,,es",
            "2019,3 marzo,domenica,9:07,rad,,it", "2019,5 de dezembro,quinta,9:08,rad,,pt",
            "2019,7 września,sobota,9:09,rad,,pl", "2019,1 Jan,Tue,9:10,rad,,abbreviated"]
    assert run(conn, ann, csv_bytes(header, *rows))["imported"] == len(rows)
    days = {e[7]: e[0] for e in journal(conn, ann)}
    assert days == {"en": "2019-06-22", "de": "2019-06-22", "fr": "2019-06-22",
                    "es": "2019-10-16", "it": "2019-03-03", "pt": "2019-12-05",
                    "pl": "2019-09-07", "abbreviated": "2019-01-01"}


def test_a_localised_date_that_cannot_be_read_names_its_line(conn, ann):
    header = "year,date,weekday,time,mood,activities,note"
    with pytest.raises(importer.ImportRefused) as refused:
        run(conn, ann, csv_bytes(header, "2019,June 22,Sat,9:03,rad,,", "2019,Brumaire 3,,9:03,rad,,"))
    assert refused.value.report["problems"] == [
        "line 3: cannot read a day and a month from the date 'Brumaire 3'"]
    assert journal(conn, ann) == []


@pytest.mark.parametrize("cell, minutes", [
    ("18:52", 18 * 60 + 52), ("9:03", 9 * 60 + 3), ("6:50 pm", 18 * 60 + 50),
    ("10:04 AM", 10 * 60 + 4), ("12:05 AM", 5), ("12:30 PM", 12 * 60 + 30), (" 7:00 p.m. ", 19 * 60),
])
def test_both_time_styles(cell, minutes):
    assert parse_time(cell) == minutes


@pytest.mark.parametrize("cell", ["25:00", "13:00 PM", "0:00 am", "9:3", "noon", "", "１２:００"])
def test_times_that_are_not_times(cell):
    with pytest.raises(ValueError):
        parse_time(cell)


def test_mixed_time_styles_in_one_file_newest_first_and_several_in_one_minute(conn, ann):
    rows = ["2024-01-02,,,6:50 pm,meh,,,,evening", "2024-01-02,,,12:05 AM,bad,,,,just after midnight",
            "2024-01-01,,,23:59,awful,,,,same minute", "2024-01-01,,,23:59,awful,,,,same minute",
            "2024-01-01,,,23:59,rad,,,,same minute other mood"]
    assert run(conn, ann, csv_bytes(NEWEST, *rows))["imported"] == 5
    found = [(e[0], e[1], e[4], e[7]) for e in journal(conn, ann)]
    assert found == [("2024-01-01", 1439, 1, "same minute"), ("2024-01-01", 1439, 1, "same minute"),
                     ("2024-01-01", 1439, 5, "same minute other mood"),
                     ("2024-01-02", 5, 2, "just after midnight"), ("2024-01-02", 1130, 3, "evening")]


def test_html_notes_become_plain_text_and_quoted_commas_survive(conn, ann):
    rows = ['2024-01-01,,,10:00,good,,,"Title &amp; <b>bold</b>","one<br>two<br/>three &lt;3 &#128578;"',
            '2024-01-01,,,11:00,good,,,,"said ""hi"", then left"']
    assert run(conn, ann, csv_bytes(NEWEST, *rows))["imported"] == 2
    (first, second) = journal(conn, ann)
    assert first[6:8] == ("Title & bold", "one\ntwo\nthree <3 🙂")
    assert second[7] == 'said "hi", then left'
    assert html_to_text("a <i>b</i> <script>x</script>") == "a b x"  # tags dropped, text kept


def test_activities_are_split_trimmed_and_empty_ones_dropped(conn, ann):
    row = '2024-01-01,,,10:00,good,"work |  | friends / family | <3 [x] 🎉 |",,,'
    assert run(conn, ann, csv_bytes(NEWEST, row))["imported"] == 1
    assert journal(conn, ann)[0][9] == "<3 [x] 🎉|friends / family|work"


def test_trailing_spaces_and_case_in_mood_names_and_the_old_fugly(conn, ann):
    rows = ["2024-01-01,,,10:00,RAD  ,,,,", "2024-01-01,,,11:00, Fugly,,,,"]
    assert run(conn, ann, csv_bytes(NEWEST, *rows))["imported"] == 2
    assert [(e[4], e[5]) for e in journal(conn, ann)] == [(5, None), (2, "Fugly")]


def test_unknown_mood_names_stop_the_import_listing_each_with_count_and_lines(conn, ann):
    rows = ["2024-01-03,,,10:00,Sad,,,,", "2024-01-02,,,10:00,ok-ish,,,,",
            "2024-01-01,,,10:00,sad ,,,,", "2024-01-01,,,11:00,good,,,,"]
    with pytest.raises(importer.ImportRefused) as refused:
        run(conn, ann, csv_bytes(NEWEST, *rows))
    report = refused.value.report
    assert report["unknown_moods"] == [
        {"name": "Sad", "rows": 2, "first": ["line 2", "line 4"], "suggested": None},
        {"name": "ok-ish", "rows": 1, "first": ["line 3"], "suggested": None}]
    assert "Nothing was imported" in report["message"] and "'Sad' (2 rows" in report["message"]
    assert journal(conn, ann) == []
    report = run(conn, ann, csv_bytes(NEWEST, *rows),
                 mood_map=parse_mood_map('{"sad": 2, "OK-ISH": 3}'))
    assert report["imported"] == 4
    assert [(e[4], e[5]) for e in journal(conn, ann)] == [(2, "sad"), (4, None), (3, "ok-ish"),
                                                         (2, "Sad")]


def test_the_users_own_labels_are_known_names(conn, ann):
    conn.execute("UPDATE mood_labels SET label = 'Not so good [-]' WHERE user_id = ? AND level = 2",
                 (ann,))
    report = run(conn, ann, csv_bytes(NEWEST, "2024-01-01,,,10:00,not so good [-],,,,"))
    assert report["imported"] == 1 and journal(conn, ann)[0][4:6] == (2, None)


@pytest.mark.parametrize("text, expected", [
    ('{"sad": 2, "Not so good [-]": 2}', {"sad": 2, "not so good [-]": 2}),
    ("sad=2, ok = 3", {"sad": 2, "ok": 3}),
    ('{"Ärger": "1"}', {"ärger": 1}),
    ("", {}),
])
def test_mood_maps_in_json_or_the_short_form(text, expected):
    assert parse_mood_map(text) == expected


@pytest.mark.parametrize("text", ['{"sad": 6}', "sad", "sad=two", '["sad"]', "{bad json",
                                  '{"": 2}', '{"sad": true}'])
def test_bad_mood_maps_are_refused_clearly(text):
    with pytest.raises(ValueError):
        parse_mood_map(text)


def test_scales_become_metrics_with_units_and_the_rest_is_a_warning(conn, ann):
    row = ('2024-01-01,,,10:00,good,,"Sleep Quality: 8/10 points | Sleep Time: 7:30 |'
           ' Vibes: very | Steps: 9000",,')
    report = run(conn, ann, csv_bytes(NEWEST, row))
    assert report["imported"] == 1
    assert report["warnings"] == ["line 2: scale 'Vibes: very' not understood, left out"]
    metrics = journal(conn, ann)[0][10].split("|")
    assert sorted(metrics) == ["Sleep Quality=8.0", "Sleep Time=7.5", "Steps=9000.0"]
    assert vocabulary(conn, ann) == [("metric", "Sleep Quality", "points:10.0"),
                                     ("metric", "Sleep Time", "h:"), ("metric", "Steps", ":")]


def test_a_scale_value_outside_its_metrics_range_is_left_out_and_said_once(conn, ann):
    """The metric takes the range of the first row that names it; a later value past it is
    left out with a warning — for a new row only: importing the file again says nothing."""
    data = csv_bytes(NEWEST, '2024-01-02,,,10:00,good,,"Sleep Quality: 8/10 points",,',
                     '2024-01-01,,,10:00,bad,,"Sleep Quality: 12/10 points",,')
    report = run(conn, ann, data)
    assert report["imported"] == 2
    assert report["warnings"] == ["line 3: Sleep Quality 12 is outside the metric's range,"
                                  " left out"]
    assert [row[10] for row in journal(conn, ann)] == [None, "Sleep Quality=8.0"]
    again = run(conn, ann, data)
    assert again["imported"] == 0 and again["warnings"] == []


def test_unknown_columns_are_ignored_and_reported(conn, ann):
    report = run(conn, ann, csv_bytes(NEWEST + ",color", "2024-01-01,,,10:00,good,,,,,blue"))
    assert report["imported"] == 1 and report["ignored"] == ["columns not read: color"]


def test_the_same_file_twice_adds_nothing_and_identical_rows_stay_two(conn, ann):
    rows = ["2024-01-01,,,10:00,good,,,,same", "2024-01-01,,,10:00,good,,,,same",
            "2024-01-01,,,11:00,bad,walk,,,other"]
    data = csv_bytes(NEWEST, *rows)
    assert run(conn, ann, data)["imported"] == 3
    again = run(conn, ann, data)
    assert (again["imported"], again["duplicates"]) == (0, 3)
    assert len(journal(conn, ann)) == 3
    # Another export of the same history (different columns, CRLF): matched by local day,
    # minute, mood and note, as multisets.
    other = csv_bytes("full_date,date,weekday,time,mood,activities,note",
                      "2024-01-01,Jan 1,Mon,10:00 AM,good,,same",
                      "2024-01-01,Jan 1,Mon,10:00 AM,good,,same",
                      "2024-01-01,Jan 1,Mon,10:00 AM,good,,same",
                      newline="\r\n")
    third = run(conn, ann, other)
    assert (third["imported"], third["duplicates"]) == (1, 2)  # only the third copy is new


def test_a_dry_run_reports_and_writes_nothing(conn, ann):
    report = run(conn, ann, csv_bytes(NEWEST, "2024-01-01,,,10:00,good,new thing,,,x"),
                 dry_run=True)
    assert (report["imported"], report["dry_run"]) == (1, True)
    assert report["message"].startswith("Would import 1 entry")
    assert journal(conn, ann) == [] and vocabulary(conn, ann) == []


def test_one_bad_row_in_a_thousand_imports_nothing_and_every_problem_is_listed(conn, ann):
    rows = [f"2023-{1 + i % 12:02d}-{1 + i % 28:02d},,,{i % 24}:{i % 60:02d},good,a | b,,,n{i}"
            for i in range(1000)]
    rows[500] = "2023-02-30,,,10:00,good,,,,impossible day"
    rows[700] = "2023-03-01,,,10:61,good,,,,impossible time"
    rows[900] = "2023-03-01,,,10:00,good,,,,too,many,cells"
    before = (journal(conn, ann), vocabulary(conn, ann))
    with pytest.raises(importer.ImportRefused) as refused:
        run(conn, ann, csv_bytes(NEWEST, *rows))
    problems = refused.value.report["problems"]
    assert problems == [
        "line 502: the date '2023-02-30' is not a real day (day is out of range for month)",
        "line 702: cannot read the time '10:61'",
        "line 902: 11 cells where the header has 9"]
    assert (journal(conn, ann), vocabulary(conn, ann)) == before


@pytest.mark.parametrize("data, message", [
    (b"", "the file is empty"),
    (csv_bytes("date,mood,note", "x,y,z"), "not a Daylio CSV header"),
    (csv_bytes("full_date,time,mood,activities,note,note", "a,b,c,d,e,f"), "names a column twice"),
    ("full_date,time,mood,activities,note\n2024-01-01,10:00,good,,caf\xe9\n".encode("latin-1"),
     "not UTF-8"),
])
def test_files_that_are_not_daylio_csv_are_refused_clearly(conn, ann, data, message):
    with pytest.raises(DaylioFormatError, match=message):
        run(conn, ann, data)
    assert journal(conn, ann) == []


def test_control_characters_and_oversized_fields_are_row_problems(conn, ann):
    rows = ["2024-01-01,,,10:00,good,bad\x01name,,,", "2024-01-01,,,10:00,good,,,," + "x" * 20_001]
    with pytest.raises(importer.ImportRefused) as refused:
        run(conn, ann, csv_bytes(NEWEST, *rows))
    assert [p.split(":")[0] for p in refused.value.report["problems"]] == ["line 2", "line 3"]


def test_invisible_and_direction_changing_characters_leave_names_and_the_report_says_so(
        conn, ann):
    """A mood, activity or scale name holding a character a name may not hold is read
    without it (a hidden zero-width space does not make "good" another mood) and each such
    name is said once, with its line (#36 6d)."""
    rows = ["2024-01-02,,,10:00,good\u200b,\u202ekrow | run\u200bning,Sleep\u2066: 8/10 points,,",
            "2024-01-01,,,10:00,good,run\u200bning,,,"]
    report = run(conn, ann, csv_bytes(NEWEST, *rows))
    assert report["imported"] == 2
    assert [(e[4], e[5], e[9], e[10]) for e in journal(conn, ann)] == [
        (4, None, "running", None), (4, None, "krow|running", "Sleep=8.0")]
    assert vocabulary(conn, ann) == [("activity", "krow", None), ("activity", "running", None),
                                     ("metric", "Sleep", "points:10.0")]
    assert report["warnings"] == [
        "line 2: U+200B ZERO WIDTH SPACE taken out of the mood name 'good' (a name may not"
        " hold it)",
        "line 2: U+202E RIGHT-TO-LEFT OVERRIDE taken out of the activity 'krow' (a name may"
        " not hold it)",
        "line 2: U+200B ZERO WIDTH SPACE taken out of the activity 'running' (a name may not"
        " hold it)",
        "line 2: U+2066 LEFT-TO-RIGHT ISOLATE taken out of the metric 'Sleep' (a name may not"
        " hold it)"]


def test_times_in_a_dst_gap_move_forward_and_in_a_fold_take_the_first(conn, ann):
    rows = ["2024-03-31,,,2:30 AM,good,,,,gap", "2024-10-27,,,2:30,good,,,,fold"]
    assert run(conn, ann, csv_bytes(NEWEST, *rows))["imported"] == 2
    found = {e[7]: (e[1], e[2]) for e in journal(conn, ann)}
    assert found == {"gap": (3 * 60 + 30, 7200), "fold": (2 * 60 + 30, 7200)}


def test_imported_history_starts_no_weather_or_place_lookups(conn, ann):
    rows = [f"2023-01-{1 + i % 28:02d},,,{i % 24}:00,good,,,,n{i}" for i in range(1000)]
    assert run(conn, ann, csv_bytes(NEWEST, *rows))["imported"] == 1000
    assert conn.execute("SELECT count(*) FROM jobs").fetchone()[0] == 0


def test_localised_day_helper_refuses_what_it_cannot_read():
    with pytest.raises(ValueError):
        localised_day("2019", "22 22 June")
    with pytest.raises(ValueError):
        localised_day("year", "June 22")
    with pytest.raises(ValueError):
        localised_day("2019", "31 June")


@pytest.mark.parametrize("note", [
    "a<br>b &amp; c", "x&lt;br&gt;y", "one<br/>two<br />three &#128578;", "a < b<br>c",
    "<b>x</b><br>y", "&nbsp;hi&", "Tom &amp Jerry", "&#x41;&#65;", "<BR>upper", "<br><br>",
    "<p>para</p>two", "<a href='x'>link</a> &quot;q&quot;", "&am<b></b>p; split entity",
    "<b>bold</b> <i>it</i><br/><u>u</u> &lt;b&gt;", "<ul><li>one</li><li>two</li></ul>",
    "a <b", "a <b >spaced</b>", "x</br>y", "<B>upper</B>", "&", "a &lt; b &gt c",
    "<strong>s</strong><em>e</em><s>x</s><div>d</div>", "<br<br>>",
])
def test_the_markup_shortcut_reads_notes_exactly_as_html_parser_does(note):
    from kmood_lib.portability.daylio.notes import _PlainText

    parser = _PlainText()
    parser.feed(note)
    parser.close()
    assert html_to_text(note) == "".join(parser.parts).strip()


def test_imported_notes_are_searchable_and_stay_so_through_edits_and_deletes(conn, client_for):
    bea = client_for("bea", timezone="Europe/Berlin")
    user_id = conn.execute("SELECT id FROM users WHERE username = 'bea'").fetchone()[0]
    rows = [f"2024-01-{1 + i % 28:02d},,,{i % 24}:00,good,,,,plain note {i}" for i in range(1200)]
    rows[7] = "2024-02-01,,,10:00,good,,,Übersicht,a walk by the harbour"
    run(conn, user_id, csv_bytes(NEWEST, *rows))
    found = bea.get("/api/entries?q=harbour").json["entries"]
    assert [e["note"] for e in found] == ["a walk by the harbour"]
    assert len(bea.get("/api/entries?q=ubersicht").json["entries"]) == 1  # the title, folded
    assert len(bea.get("/api/entries?q=plain&limit=500").json["entries"]) == 500
    entry_id = found[0]["id"]
    bea.patch(f"/api/entries/{entry_id}", {"note": "a swim in the lake"})
    assert bea.get("/api/entries?q=harbour").json["entries"] == []
    assert [e["id"] for e in bea.get("/api/entries?q=lake").json["entries"]] == [entry_id]
    bea.delete(f"/api/entries/{entry_id}")
    assert bea.get("/api/entries?q=lake").json["entries"] == []
    conn.execute("INSERT INTO entries_fts (entries_fts) VALUES ('integrity-check')")
    indexed = conn.execute("SELECT count(*) FROM entries_fts WHERE entries_fts MATCH 'plain'"
                           ).fetchone()[0]
    assert indexed == 1199


def test_an_import_holds_entries_to_the_apis_rule_no_more_than_a_day_ahead(conn, ann):
    # now is 2026-11-30 12:00 UTC (13:00 in Berlin): tomorrow evening is fine, later is not
    ok = csv_bytes(NEWEST, "2026-12-01,December 1,Tuesday,12:30,good,,,,tomorrow")
    assert run(conn, ann, ok)["imported"] == 1
    far = csv_bytes(NEWEST, "2026-12-01,December 1,Tuesday,14:30,good,,,,a little too far",
                    "2044-06-01,June 1,Wednesday,08:00,good,,,,far too far")
    with pytest.raises(importer.ImportRefused) as refused:
        run(conn, ann, far)
    assert refused.value.report["problems"] == [
        "line 2: 2026-12-01 is more than a day in the future",
        "line 3: 2044-06-01 is more than a day in the future"]
    assert len(journal(conn, ann)) == 1


def test_a_row_cut_short_before_optional_cells_reads_them_as_empty(conn, ann):
    """A real Polish export's row lacks its trailing empty note cell (#23.6): read as empty
    and said in the report; missing required cells or extra ones still refuse the file."""
    header = "year,date,weekday,time,mood,activities,note"
    report = run(conn, ann, csv_bytes(header, "2023,16 października,poniedziałek,18:52,good,"
                                      "praca,fine", "2023,17 października,wtorek,9:00,good"))
    assert report["imported"] == 2
    assert report["warnings"] == ["1 row ended before the header's last optional columns"
                                  " (activities, note): read as empty"]
    with pytest.raises(importer.ImportRefused, match="line 2: 4 cells where the header has 7"):
        run(conn, ann, csv_bytes(header, "2023,18 października,środa,9:00"))
    with pytest.raises(importer.ImportRefused, match="line 2: 8 cells where the header has 7"):
        run(conn, ann, csv_bytes(header, "2023,18 października,środa,9:00,good,,x,y"))


@pytest.mark.parametrize("name,level", [
    ("pretty good", 4), ("RAD!!", 5), ("meh-ish", 3), ("Mauvais jour", 2), ("tak sobie, ok", 3),
    ("źle bardzo", 2), ("good good", 4),
    ("super bad", None),  # two defaults: French "super" (5) and "bad" (2)
    ("not bad", None), ("pas bien", None), ("Happy", None), ("goodish", None), ("", None),
])
def test_a_custom_mood_name_is_offered_the_level_of_the_one_default_name_inside_it(name, level):
    assert suggest_level(name) == level
