"""The relay object on its own: subjects, and what publishing does while NATS is unreachable
(drop and count, never raise, never wait); closing it does not hang on a missing NATS."""

import socket
import threading

from kmood_lib.core.config import Config
from kmood_lib.queue import relay
from tests.helpers import base_env


def closed_port() -> int:
    sock = socket.create_server(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    return port


def test_no_url_means_the_null_relay(db_path):
    assert isinstance(relay.from_config(Config.from_env(base_env(db_path))), relay.NullRelay)


def test_subjects_carry_the_prefix(db_path):
    config = Config.from_env(base_env(db_path, KMOOD_NATS_URL="nats://127.0.0.1:1, nats://h:2",
                                      KMOOD_NATS_SUBJECT_PREFIX="home.kmood"))
    made = relay.from_config(config)
    assert made.servers == ["nats://127.0.0.1:1", "nats://h:2"]
    assert (made.saved_subject, made.wake_subject) == ("home.kmood.entry.saved",
                                                       "home.kmood.jobs.wake")


def test_bad_relay_settings_are_refused(db_path):
    import pytest

    from kmood_lib.core.config import ConfigError

    for name, value in (("KMOOD_NATS_URL", "http://127.0.0.1:4222"),
                        ("KMOOD_NATS_URL", "nats://a b"),
                        ("KMOOD_NATS_SUBJECT_PREFIX", "k mood"),
                        ("KMOOD_NATS_SUBJECT_PREFIX", "kmood.>"),
                        ("KMOOD_NATS_SUBJECT_PREFIX", "")):
        with pytest.raises(ConfigError, match=name):
            Config.from_env(base_env(db_path, **{name: value}))


def test_while_nats_is_unreachable_publishing_drops_and_counts_and_close_does_not_hang():
    made = relay.NatsRelay([f"nats://127.0.0.1:{closed_port()}"], "kmood")
    made.start("test")  # returns at once: the connection is tried in the background
    try:
        for n in range(5):
            made.entry_saved(1, n, ["weather"])
        made.wake()
        stats = made.stats()
        assert stats["connected"] is False and stats["dropped"] == 6 and stats["published"] == 0
    finally:
        closer = threading.Thread(target=made.close)
        closer.start()
        closer.join(30)  # a hang guard, ≥ 5× the relay's own close timeout
        assert not closer.is_alive()
    assert not made._thread.is_alive()


def test_a_full_buffer_drops_instead_of_waiting():
    made = relay.NatsRelay(["nats://127.0.0.1:1"], "kmood", buffer=3)
    made.connected = True  # as if connected, with a relay thread that never drains
    made._loop, made._ready = _NoLoop(), threading.Event()
    for n in range(10):
        made.entry_saved(1, n, [])
    assert len(made._pending) == 3 and made.dropped == 7


class _NoLoop:
    def call_soon_threadsafe(self, callback):
        pass
