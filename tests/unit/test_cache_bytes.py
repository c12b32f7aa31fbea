"""The answers kept by journal version are bounded in bytes (issue #36.8), not by their count:
under any number of distinct questions the kept bytes never pass the budget, the least
recently used go first, an answer bigger than the whole budget is returned but not kept, and
/metrics shows each cache's bytes and answers."""

from __future__ import annotations

import pickle
import re

import pytest

from kmood_lib.bootstrap import caches
from kmood_lib.core.config import Config
from kmood_lib.journal.versions import ENTRY_BYTES, VersionedCache, deep_size
from tests.helpers import base_env

BUDGET = 40_000  # KMOOD_CACHE_MAX_BYTES here: entry lists get a quarter, 10 000 bytes


@pytest.fixture
def env(db_path):
    return base_env(db_path, KMOOD_CACHE_MAX_BYTES=str(BUDGET))


def test_the_kept_bytes_never_pass_the_budget_under_many_distinct_keys():
    cache = VersionedCache(50_000, size_of=len)  # a key (a 1-tuple) counts 1
    for n in range(2_000):
        answer = "x" * (n * 7919 % 3_000)  # sizes all over the place
        assert cache.get_or_compute((str(n),), lambda answer=answer: answer) == answer
        assert cache.bytes <= cache.max_bytes
        assert cache.bytes == sum(1 + len(value) + ENTRY_BYTES  # len(key) is 1
                                  for value, _ in cache._items.values())
    assert 10 < len(cache) < 2_000 and cache.computed == 2_000


def test_the_least_recently_used_answer_goes_first():
    cache = VersionedCache(3 * (10 + ENTRY_BYTES), size_of=lambda _: 5)
    for key in "abc":
        cache.get_or_compute((key,), lambda key=key: key)
    assert cache.get(("a",)) == "a"  # used: now the most recent
    cache.get_or_compute(("d",), lambda: "d")  # pushes out b, the least recently used
    assert [k for (k,) in cache._items] == ["c", "a", "d"]
    assert cache.get(("b",)) is None and cache.found == 1
    assert cache.bytes == 3 * (10 + ENTRY_BYTES)


def test_an_answer_bigger_than_the_whole_budget_is_returned_but_not_kept():
    cache = VersionedCache(1_000, size_of=len)
    cache.get_or_compute(("small",), lambda: "s" * 100)
    assert cache.get_or_compute(("big",), lambda: "b" * 1_000) == "b" * 1_000
    assert cache.get(("big",)) is None
    assert [k for (k,) in cache._items] == ["small"]  # and nothing was pushed out for it
    assert cache.bytes == 1 + 100 + ENTRY_BYTES


def test_an_answer_computed_twice_at_once_is_counted_once():
    cache = VersionedCache(10_000, size_of=len)
    cache.get_or_compute(("k",), lambda: cache.get_or_compute(("k",), lambda: "inner") and "v")
    assert len(cache) == 1 and cache.bytes == 1 + len("v") + ENTRY_BYTES


def test_an_answer_is_measured_by_what_it_holds_in_memory():
    """A float costs 24 bytes in memory and 9 pickled; a dict's table many more than its
    encoding: the measure must not be the (smaller) encoded length."""
    floats = [i + 0.5 for i in range(1_000)]
    assert deep_size(floats) >= 1_000 * 24 + 8 * 1_000 > len(pickle.dumps(floats))
    rows = [{"name": f"activity {i}", "effect": i / 7, "ci": [i / 9, i / 5]} for i in range(200)]
    assert deep_size(rows) > 2 * len(pickle.dumps(rows))
    text = "€" * 10_000  # two bytes a character in memory: not its length
    assert deep_size({"page": text}) > 20_000
    shared = "x" * 5_000
    assert deep_size([shared, shared]) < 2 * 5_000  # one object held twice is counted once


def test_the_budget_is_shared_half_insights_a_quarter_each_stats_and_lists(config):
    made = caches(config)
    assert {name: c.max_bytes for name, c in made.items()} == {
        "insights": BUDGET // 2, "stats": BUDGET // 4, "entries": BUDGET // 4}
    assert sum(c.max_bytes for c in caches(Config.from_env(base_env(
        "x.db", KMOOD_CACHE_MAX_BYTES="1000003"))).values()) == 1_000_003


def test_many_distinct_entry_lists_keep_the_lists_cache_within_its_share(client_for, services):
    alice = client_for("alice")
    for mood in (3, 4, 5):
        assert alice.post("/api/entries", {"mood": mood, "note": "n" * 500}).status == 201
    asked = 0
    for limit in range(1, 60):
        for mood in ("3", "4", "5", "3,4", "4,5"):
            assert alice.get(f"/api/entries?limit={limit}&mood={mood}").status == 200
            asked += 1
            assert services.entries_cache.bytes <= BUDGET // 4
    assert 0 < len(services.entries_cache) < asked


def metric(text: str, name: str, cache: str) -> int:
    found = re.search(rf'^{name}{{cache="{cache}"}} ([0-9]+)$', text, re.M)
    assert found, (name, cache)
    return int(found.group(1))


def test_metrics_show_each_caches_bytes_and_answers(client_for, services):
    admin = client_for("root", admin=True)
    assert admin.post("/api/entries", {"mood": 4}).status == 201
    admin.get("/api/entries")
    admin.get("/api/entries")
    admin.get("/api/insights")
    text = admin.get("/metrics").text
    for name in ("kmood_cache_bytes", "kmood_cache_entries", "kmood_cache_max_bytes",
                 "kmood_cache_lookups_total"):
        assert f"# HELP {name} " in text and f"# TYPE {name} " in text, name
    for name, cache in (("insights", services.insight_cache), ("stats", services.stats_cache),
                        ("entries", services.entries_cache)):
        stats = cache.stats()
        assert metric(text, "kmood_cache_bytes", name) == stats["bytes"]
        assert metric(text, "kmood_cache_entries", name) == stats["entries"]
        assert metric(text, "kmood_cache_max_bytes", name) == stats["max_bytes"]
    assert metric(text, "kmood_cache_entries", "entries") == 1
    assert 0 < metric(text, "kmood_cache_bytes", "entries") <= BUDGET // 4
    assert metric(text, "kmood_cache_entries", "insights") == 1
    assert 'kmood_cache_lookups_total{cache="entries",result="found"} 1' in text
