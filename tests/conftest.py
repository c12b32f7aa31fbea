"""Shared fixtures: a fresh database per test, config from KMOOD_* variables, services."""

from __future__ import annotations

import pytest

from kmood_lib.bootstrap import bootstrap
from kmood_lib.config import Config
from tests.fakes import FakeClock
from tests.helpers import base_env


@pytest.fixture
def db_path(tmp_path):
    return tmp_path / "kmood.db"


@pytest.fixture
def env(db_path):
    return base_env(db_path)


@pytest.fixture
def config(env):
    return Config.from_env(env)


@pytest.fixture
def clock():
    return FakeClock()


@pytest.fixture
def services(config, clock):
    return bootstrap(config, clock=clock)


@pytest.fixture
def conn(services):
    connection = services.connect()
    yield connection
    connection.close()
