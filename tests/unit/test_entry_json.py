"""The entry JSON SQLite builds equals, byte for byte, the JSON of the dict Python builds, on
thousands of seeded random entries: text from every Unicode plane with control characters,
quotes and backslashes; coordinates, temperatures and metric values drawn from random doubles
(subnormals, 5e-324, 1e308, 0.1 + 0.2, negative zero, infinities); years 1900-2200; offsets
-12:00 ... +14:00 with :30 and :45 (and odd seconds, as old local mean times have)."""

import json
import math
import os
import random
import struct

import pytest

from kmood_lib.core.errors import NotFound
from kmood_lib.journal import entry_json, queries
from kmood_lib.journal.enrichment import WMO

SEED = int(os.environ.get("KMOOD_TEST_SEED", "20261203"))
COUNT = 3000


def random_text(rng: random.Random, longest: int = 30) -> str:
    def char() -> str:
        pick = rng.random()
        if pick < 0.35:
            return chr(rng.randrange(0x20, 0x7f))
        if pick < 0.5:
            return chr(rng.randrange(0, 0x20))
        if pick < 0.6:
            return rng.choice('"\\\x7f/\u2028\u2029\ufeff')
        if pick < 0.8:
            code = rng.randrange(0x80, 0x10000)
            return chr(code if not 0xD800 <= code < 0xE000 else 0xE000)
        return chr(rng.randrange(0x10000, 0x110000))

    return "".join(char() for _ in range(rng.randrange(longest + 1)))


def random_double(rng: random.Random) -> float:
    pick = rng.random()
    if pick < 0.3:  # what people and upstreams write: a few decimal places
        return round(rng.uniform(-200, 200), rng.randrange(0, 9))
    if pick < 0.45:
        return rng.uniform(-1e6, 1e6)
    if pick < 0.7:  # any bit pattern that is a finite double, subnormals included
        while True:
            value = struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))[0]
            if math.isfinite(value):
                return value
    return rng.choice([5e-324, -5e-324, 1e308, -1e308, 0.1 + 0.2, -0.0, 0.0, 1.0, 0.5, 1e-4,
                       9.999999999999999e-05, 1e-05, 123456789012345.6, 1e15, 1e16, 2.5e-3,
                       float(2 ** 53), 0.1, 52.520008, 13.404954, -33.8688, 1e22, 3.0])


def random_offset(rng: random.Random) -> int:
    minutes = rng.randrange(-12 * 60, 14 * 60 + 1)
    if rng.random() < 0.3:
        minutes = rng.randrange(-12, 14) * 60 + rng.choice([30, 45])
    seconds = rng.randrange(60) if rng.random() < 0.05 else 0
    return minutes * 60 + (seconds if minutes >= 0 else -seconds)


def maybe(rng: random.Random, p: float, value):
    return value if rng.random() < p else None


@pytest.fixture
def populated(conn, make_user):
    """COUNT random entries of one user (and a few of another), written straight into the
    tables so that the reading side meets every value the columns can hold."""
    rng = random.Random(SEED)
    alice = make_user("alice")
    bob = make_user("bob")
    metric_ids = [conn.execute(
        "INSERT INTO metrics (user_id, name, name_key, unit, created_at) VALUES (?, ?, ?, '', 0)"
        " RETURNING id", (alice.id, f"m{i} {random_text(rng, 8)}", f"key{i}")).fetchone()[0]
        for i in range(6)]
    activity_ids = [conn.execute(
        "INSERT INTO activities (user_id, name, name_key, created_at) VALUES (?, ?, ?, 0)"
        " RETURNING id", (alice.id, random_text(rng, 12) or "x", f"a{i}")).fetchone()[0]
        for i in range(12)]
    conn.execute("INSERT INTO covers (release_mbid, content_type, image, fetched_at)"
                 " VALUES ('rel-with-cover', 'image/png', x'00', 0)")
    conn.execute("BEGIN")
    for i in range(COUNT):
        user = bob.id if i % 50 == 0 else alice.id
        occurred = rng.randrange(-2208988800000, 7258118400000)
        if rng.random() < 0.1:
            occurred = occurred // 1000 * 1000  # whole seconds
        lat = maybe(rng, 0.6, random_double(rng))
        lon = random_double(rng) if lat is not None else None
        entry_id = conn.execute(
            "INSERT INTO entries (user_id, client_id, occurred_at, utc_offset_s, local_date,"
            " local_minute, mood, mood_label, note_title, note, lat, lon, source, created_at,"
            " updated_at, time_known) VALUES (?, ?, ?, ?, '2000-01-01', 0, ?, ?, ?, ?, ?, ?, ?,"
            " ?, ?, ?) RETURNING id",
            (user, maybe(rng, 0.3, f"{i}:{random_text(rng, 30)}"), occurred, random_offset(rng),
             rng.randrange(1, 6), rng.choice([None, "", random_text(rng, 10)]),
             random_text(rng, 20), random_text(rng, 60), lat, lon,
             rng.choice(["web", "api", "daylio"]), rng.randrange(0, 7258118400000),
             rng.randrange(-2208988800000, 7258118400000), rng.randrange(2))).fetchone()[0]
        if rng.random() < 0.5:
            unavailable = rng.random() < 0.2
            conn.execute("INSERT INTO weather (entry_id, temperature_c, code, unavailable,"
                         " fetched_at) VALUES (?, ?, ?, ?, 0)",
                         (entry_id, None if unavailable else random_double(rng),
                          None if unavailable else rng.choice([*WMO, 4, 100]),
                          int(unavailable)))
        if lat is not None and rng.random() < 0.5:
            cell = f"cell{rng.randrange(20)}"
            conn.execute("INSERT OR IGNORE INTO places (cell, display_name, locality,"
                         " country_code, unavailable, fetched_at) VALUES (?, ?, ?, ?, ?, 0)",
                         (cell, maybe(rng, 0.8, random_text(rng, 20)),
                          rng.choice([None, "", random_text(rng, 10)]),
                          rng.choice([None, "", "DE", random_text(rng, 3)]),
                          int(rng.random() < 0.1)))
            conn.execute("INSERT INTO entry_places (entry_id, cell) VALUES (?, ?)",
                         (entry_id, cell))
        if rng.random() < 0.4:
            key = f"song{rng.randrange(40)}"
            conn.execute("INSERT INTO songs (entry_id, artist, title, album, source, created_at,"
                         " lookup_key) VALUES (?, ?, ?, ?, ?, 0, ?)",
                         (entry_id, random_text(rng, 12), random_text(rng, 12),
                          maybe(rng, 0.7, random_text(rng, 12)), "listenbrainz", key))
            conn.execute("INSERT OR IGNORE INTO song_lookups (lookup_key, found, recording_mbid,"
                         " release_mbid, release_title, release_date, length_ms, fetched_at)"
                         " VALUES (?, ?, ?, ?, ?, ?, ?, 0)",
                         (key, int(rng.random() < 0.7), random_text(rng, 8),
                          rng.choice(["rel-with-cover", "rel-without"]), random_text(rng, 10),
                          maybe(rng, 0.8, "2007-10-10"), maybe(rng, 0.8, rng.randrange(10**7))))
        if user == alice.id:
            for activity in rng.sample(activity_ids, rng.randrange(4)):
                conn.execute("INSERT INTO entry_activities (entry_id, activity_id) VALUES (?, ?)",
                             (entry_id, activity))
            for metric in rng.sample(metric_ids, rng.randrange(4)):
                value = rng.choice([random_double(rng), random_double(rng), rng.randrange(-9, 99),
                                    0, -0.0, float("inf"), "unreadable", b"\x00", 10 ** 17])
                conn.execute("INSERT INTO entry_metrics (entry_id, metric_id, value) VALUES"
                             " (?, ?, ?)", (entry_id, metric, value))
    conn.execute("COMMIT")
    return alice, bob


def test_every_list_page_built_in_sqlite_equals_the_python_json(conn, populated):
    alice, bob = populated
    for user in (alice, bob):
        cursor, pages, seen = None, 0, 0
        while True:
            found, next_cursor = queries.list_entries(conn, user.id, queries.EntryFilter(), 97,
                                                      cursor)
            expected = entry_json.dumps({"entries": found, "next_cursor": next_cursor})
            assert queries.list_entries_json(conn, user.id, queries.EntryFilter(), 97,
                                             cursor) == expected
            pages, seen = pages + 1, seen + len(found)
            if next_cursor is None:
                break
            cursor = next_cursor
        assert seen == conn.execute("SELECT count(*) FROM entries WHERE user_id = ?",
                                    (user.id,)).fetchone()[0]
    assert seen > 0


def test_every_single_entry_built_in_sqlite_equals_the_python_json(conn, populated):
    alice, bob = populated
    for entry_id, user_id in conn.execute("SELECT id, user_id FROM entries").fetchall():
        assert queries.get_entry_json(conn, user_id, entry_id) == entry_json.dumps(
            queries.get_entry(conn, user_id, entry_id)), entry_id
    assert json.loads(queries.get_entry_json(conn, alice.id, 2))["id"] == 2


def test_the_sample_reaches_the_hard_cases(conn, populated):
    """The generator is only useful if the fallbacks and the fast path are both taken."""
    alice, _ = populated
    text = conn.execute(entry_json.page_sql(""), {"user": alice.id, "limit": 500,
                                                 "nonce": "n0nce"}).fetchone()["entries"]
    assert text.count("\\u0000n0nce:lat:") > 50 and text.count("\\u0000n0nce:metric:") > 50
    assert text.count("\\u0000n0nce:temperature:") > 10
    values = [e["location"]["lat"] for e in json.loads(
        queries.list_entries_json(conn, alice.id, queries.EntryFilter(), 500, None))["entries"]
        if e["location"]]
    assert sum(1 for v in values if isinstance(v, float) and len(repr(v)) < 12) > 50


def test_an_entry_of_another_user_is_not_found(conn, populated):
    alice, bob = populated
    bobs = conn.execute("SELECT id FROM entries WHERE user_id = ? LIMIT 1", (bob.id,)).fetchone()
    with pytest.raises(NotFound):
        queries.get_entry_json(conn, alice.id, bobs[0])


def test_the_create_response_equals_a_get_of_the_same_entry(client_for, conn):
    """Randomised bodies through POST /api/entries: the answer is byte for byte the GET."""
    rng = random.Random(SEED + 1)
    alice = client_for("alice", timezone="Europe/Berlin")
    for name in ("sleep", "energy"):
        assert alice.post("/api/metrics", {"name": name, "unit": "", "min": -1e6,
                                           "max": 1e6}).status == 201
    names = ["Running", "friends", "Café", "日本語", "a/b <c>", "🎉 party"]

    def text(longest):  # what the API accepts: no control characters but newlines and tabs
        return "".join(c for c in random_text(rng, longest)
                       if c in "\n\t" or not (ord(c) < 0x20 or 0x7f <= ord(c) < 0xa0))
    for i in range(120):
        body = {"mood": rng.randrange(1, 6), "note": text(40), "note_title": text(10),
                "activities": rng.sample(names, rng.randrange(4)),
                "occurred_at": f"{rng.randrange(1900, 2027)}-0{rng.randrange(1, 10)}-1"
                               f"{rng.randrange(10)}T{rng.randrange(10, 24)}:{rng.randrange(10, 60)}"
                               f":00" + rng.choice(["", "Z", "+05:45", "-09:30", "+14:00"])}
        if rng.random() < 0.5:
            body["location"] = {"lat": rng.choice([round(rng.uniform(-90, 90), rng.randrange(9)),
                                                   rng.uniform(-90, 90)]),
                                "lon": round(rng.uniform(-180, 180), rng.randrange(12))}
        if rng.random() < 0.5:
            body["metrics"] = {"sleep": rng.choice([0, -0.0, 7.5, 0.1 + 0.2, rng.uniform(0, 24)])}
        if rng.random() < 0.3:
            body["song"] = {"artist": text(8).strip() or "a", "title": text(8).strip() or "t"}
        if rng.random() < 0.2:
            body["client_id"] = f"00000000-0000-4000-8000-{i:012d}"
        created = alice.post("/api/entries", body)
        if created.status == 422:
            continue  # random text may be refused (a name with a control character)
        assert created.status == 201, created.text
        fetched = alice.get(f"/api/entries/{created.json['id']}")
        assert created.body == fetched.body
        assert json.loads(created.body) == queries.get_entry(conn, 1, created.json["id"])
    assert conn.execute("SELECT count(*) FROM entries").fetchone()[0] > 60
    # What only a read would know: a release already looked up (with its cover), the stored
    # spelling of an activity typed differently, the level's label, a negative-zero place.
    conn.execute("INSERT INTO song_lookups (lookup_key, found, recording_mbid, release_mbid,"
                 " release_title, release_date, length_ms, fetched_at) VALUES"
                 " (json_array(kmood_name_key('Radiohead'), kmood_name_key('Reckoner')), 1,"
                 " 'rec-1', 'rel-1', 'In Rainbows', '2007-10-10', 290000, 0)")
    conn.execute("INSERT INTO covers (release_mbid, content_type, image, fetched_at)"
                 " VALUES ('rel-1', 'image/png', x'00', 0)")
    created = alice.post("/api/entries", {
        "mood": 2, "activities": ["RUNNING", "café"], "location": {"lat": -0.0, "lon": 0.0},
        "metrics": {"energy": -0.0}, "song": {"artist": "radiohead ", "title": "RECKONER"}})
    assert created.status == 201, created.text
    entry = created.json
    assert entry["activities"] == ["Café", "Running"] and entry["mood_label"] == "bad"
    assert entry["song"]["metadata"]["cover_url"] == "/covers/rel-1"
    assert created.body == alice.get(f"/api/entries/{entry['id']}").body


def test_both_builders_list_the_same_keys_in_the_same_order(conn, populated):
    alice, _ = populated
    entry = queries.get_entry(conn, alice.id, 2)
    assert list(entry) == entry_json.KEYS
    assert list(json.loads(queries.get_entry_json(conn, alice.id, 2))) == entry_json.KEYS
