import re

import pytest

from kmood_lib.core.config import Config, ConfigError, settings_table
from tests.helpers import ROOT


def test_defaults_work_with_an_empty_environment():
    config = Config.from_env({})
    assert config.db_path == "./data/kmood.db"
    assert (config.host, config.port, config.threads) == ("127.0.0.1", 8080, 8)
    assert config.busy_timeout_ms == 10000
    assert config.synchronous == "FULL"  # a saved entry survives a power cut
    assert config.user_agent.startswith("k-mood/") and "(+http" in config.user_agent


@pytest.mark.parametrize("name,value", [
    ("KMOOD_PORT", "eighty"), ("KMOOD_PORT", "70000"), ("KMOOD_BUSY_TIMEOUT_MS", "-1"),
    ("KMOOD_BUSY_TIMEOUT_MS", "1.5"), ("KMOOD_COOKIE_SECURE", "yes"), ("KMOOD_LOG_LEVEL", "loud"),
    ("KMOOD_POLL_INTERVAL_S", "nan"), ("KMOOD_NOMINATIM_URL", "ftp://x"), ("KMOOD_DB", " "),
    ("KMOOD_SYNCHRONOUS", "off"), ("KMOOD_SYNCHRONOUS", "extra"),
    ("KMOOD_CHECKPOINT_MODE", "restart"), ("KMOOD_CHECKPOINT_MODE", "0"),
    ("KMOOD_CACHE_MAX_BYTES", "16MiB"), ("KMOOD_CACHE_MAX_BYTES", "-1"),
    ("KMOOD_CACHE_MAX_BYTES", "1e6"), ("KMOOD_CACHE_MAX_BYTES", ""),
    ("KMOOD_INSIGHTS_CONCURRENCY", "-1"), ("KMOOD_INSIGHTS_CONCURRENCY", "two"),
])
def test_a_bad_value_is_refused_naming_the_variable(name, value):
    with pytest.raises(ConfigError, match=name):
        Config.from_env({name: value})


@pytest.mark.parametrize("raw,expected", [("1", True), ("true", True), ("0", False),
                                          ("FALSE", False)])
def test_booleans_accept_only_0_1_true_false(raw, expected):
    assert Config.from_env({"KMOOD_TRUST_PROXY": raw}).trust_proxy is expected


@pytest.mark.parametrize("raw,expected", [("truncate", "truncate"), (" Passive ", "passive"),
                                          ("OFF", "off")])
def test_checkpoint_mode_is_truncate_by_default_and_reads_three_words(raw, expected):
    assert Config.from_env({}).checkpoint_mode == "truncate"
    assert Config.from_env({"KMOOD_CHECKPOINT_MODE": raw}).checkpoint_mode == expected


def test_the_cache_budget_and_insights_concurrency_read_strictly_and_are_listed():
    config = Config.from_env({})
    assert config.cache_max_bytes == 16 * 1024 * 1024  # in all, for the three caches
    assert config.insights_concurrency == 0  # a quarter of the threads
    assert Config.from_env({"KMOOD_CACHE_MAX_BYTES": " 0 "}).cache_max_bytes == 0
    assert Config.from_env({"KMOOD_INSIGHTS_CONCURRENCY": "7"}).insights_concurrency == 7
    listed = {name: default for name, default, _ in settings_table()}
    assert listed["KMOOD_CACHE_MAX_BYTES"] == "16777216"
    assert listed["KMOOD_INSIGHTS_CONCURRENCY"] == "0"


@pytest.mark.parametrize("threads,concurrency", [("8", "8"), ("8", "20"), ("2", "2"),
                                                 ("1", "2")])
def test_insights_concurrency_must_leave_other_requests_a_thread(threads, concurrency):
    with pytest.raises(ConfigError, match="KMOOD_INSIGHTS_CONCURRENCY: must be at most"):
        Config.from_env({"KMOOD_THREADS": threads, "KMOOD_INSIGHTS_CONCURRENCY": concurrency})


def test_every_setting_has_a_row_in_the_configuration_docs():
    """docs/configuration.md's table lists every KMOOD_* setting, and nothing that is not one."""
    text = (ROOT / "docs" / "configuration.md").read_text()
    rows = set(re.findall(r"^\| `(KMOOD_[A-Z0-9_]+)` \|", text, re.MULTILINE))
    settings = {name for name, _, _ in settings_table()}
    assert sorted(settings - rows) == []  # a setting nobody can look up
    assert sorted(rows - settings) == []  # a row for a setting that does not exist


def test_the_start_up_line_names_every_address_a_host_name_listens_on():
    """A host name with several addresses (`localhost` as ::1 and 127.0.0.1) makes waitress
    a server of one listener each, which has no effective_host: saying where it listens
    must not stop start-up."""
    import waitress

    from kmood_lib.cli.serve import addresses

    one = waitress.create_server(lambda environ, start: [], host="127.0.0.1", port=0)
    several = waitress.create_server(lambda environ, start: [],
                                     listen="127.0.0.1:0 127.0.0.1:0")
    try:
        assert addresses(one) == [f"http://127.0.0.1:{one.effective_port}"]
        assert len(addresses(several)) == 2
        assert all(a.startswith("http://127.0.0.1:") for a in addresses(several))
    finally:
        one.close()
        several.close()
