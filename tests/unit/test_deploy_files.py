"""The deployment files: systemd units that systemd itself accepts, a compose file with
healthchecks and the optional NATS and Litestream profiles, and an example settings file k-mood
can read."""

import dataclasses
import shutil
import subprocess
import sys

import pytest
import yaml

from kmood_lib.core.config import Config
from tests.helpers import ROOT

SYSTEMD = ROOT / "deploy" / "systemd"
UNITS = ("kmood.service", "kmood-worker.service", "kmood-litestream.service")


def unit_settings(name: str) -> dict[str, list[str]]:
    settings: dict[str, list[str]] = {}
    for line in (SYSTEMD / name).read_text().splitlines():
        if "=" in line and not line.startswith(("#", "[")):
            key, _, value = line.partition("=")
            settings.setdefault(key, []).append(value)
    return settings


@pytest.mark.slow  # runs systemd-analyze
def test_the_systemd_units_pass_systemd_analyze_verify(tmp_path):
    """Rendered with paths this test creates: verify checks that ExecStart exists."""
    tool = shutil.which("systemd-analyze")
    if tool is None:
        pytest.skip("systemd-analyze is not installed here; the units were not verified")
    app, data = tmp_path / "app", tmp_path / "data"
    (app / ".venv" / "bin").mkdir(parents=True)
    data.mkdir()
    (app / ".venv" / "bin" / "python").symlink_to(sys.executable)
    (app / ".venv" / "bin" / "litestream").symlink_to(sys.executable)  # verify: it exists
    env_file = tmp_path / "kmood.env"
    env_file.write_text((SYSTEMD / "kmood.env").read_text())
    rendered = []
    for name in UNITS:
        text = (SYSTEMD / name).read_text()
        for old, new in (("/opt/k-mood", str(app)), ("/etc/k-mood/kmood.env", str(env_file)),
                         ("ReadWritePaths=/var/lib/k-mood", f"ReadWritePaths={data}")):
            assert old in text, (name, old)
            text = text.replace(old, new)
        (tmp_path / name).write_text(text)
        rendered.append(str(tmp_path / name))
    done = subprocess.run([tool, "verify", *rendered], capture_output=True, text=True,
                          timeout=120)
    complaints = [line for line in (done.stdout + done.stderr).splitlines()
                  if any(name in line for name in UNITS)]
    assert done.returncode == 0 and complaints == [], done.stdout + done.stderr


@pytest.mark.parametrize("name, command", [("kmood.service", "kmood.py serve"),
                                           ("kmood-worker.service", "kmood_worker.py")])
def test_each_unit_runs_its_process_hardened_with_a_restart_policy(name, command):
    s = unit_settings(name)
    assert s["ExecStart"][0].endswith(command)
    assert s["EnvironmentFile"] == ["/etc/k-mood/kmood.env"]
    assert s["Restart"] == ["on-failure"] and s["RestartPreventExitStatus"] == ["2 3"]
    assert s["ProtectSystem"] == ["strict"] and s["NoNewPrivileges"] == ["yes"]
    assert s["ReadWritePaths"] == ["/var/lib/k-mood"] and s["StateDirectory"] == ["k-mood"]
    assert s["User"] == ["kmood"] and s["CapabilityBoundingSet"] == [""]


def test_the_example_settings_file_is_one_k_mood_accepts():
    known = {f.metadata["env"] for f in dataclasses.fields(Config)}
    values = {}
    for line in (SYSTEMD / "kmood.env").read_text().splitlines():
        line = line.lstrip("#").strip()
        if line.startswith("KMOOD_") and "=" in line:
            key, _, value = line.partition("=")
            assert key in known, key
            values[key] = value
    config = Config.from_env(values)  # the commented-out examples included
    assert config.db_path == "/var/lib/k-mood/kmood.db" and config.cookie_secure
    assert config.backup_dir.startswith("/var/lib/k-mood/")  # inside ReadWritePaths
    assert config.checkpoint_mode == "off"  # the example beside Litestream's settings


def test_the_litestream_unit_replicates_the_same_database_hardened():
    s = unit_settings("kmood-litestream.service")
    assert s["ExecStart"] == [
        "/opt/k-mood/.venv/bin/litestream replicate -config /etc/k-mood/litestream.yml"]
    assert s["EnvironmentFile"][0] == "/etc/k-mood/kmood.env"  # KMOOD_DB for the config
    assert s["User"] == ["kmood"] and s["ProtectSystem"] == ["strict"]
    assert s["NoNewPrivileges"] == ["yes"] and s["CapabilityBoundingSet"] == [""]
    assert s["ReadWritePaths"][0] == "/var/lib/k-mood"  # its -litestream folder beside the db
    assert "LITESTREAM_REPLICA_PATH=/mnt/backup/k-mood" in (SYSTEMD / "kmood.env").read_text()
    assert "ReadWritePaths=-/mnt/backup/k-mood" in (SYSTEMD / "kmood-litestream.service"
                                                    ).read_text()
    assert int(s["TimeoutStopSec"][0]) > 30  # its last sync on SIGTERM may take 30 s


def test_compose_has_healthchecks_on_healthz_and_an_optional_nats_profile():
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    services = compose["services"]
    for name in ("server", "worker"):
        assert "profiles" not in services[name]
        assert "/healthz" in " ".join(services[name]["healthcheck"]["test"])
        assert services[name]["environment"]["KMOOD_DB"] == "/data/kmood.db"
        assert "KMOOD_NATS_URL" in services[name]["environment"]
    assert "strict=1" in " ".join(services["worker"]["healthcheck"]["test"])
    assert services["server"]["environment"]["KMOOD_HOST"] == "0.0.0.0"
    assert services["nats"]["profiles"] == ["nats"]
    assert "requirements-nats.txt" in (ROOT / "Dockerfile").read_text()


def test_compose_replica_profile_runs_litestream_beside_them_on_the_same_volume():
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    services = compose["services"]
    litestream = services["litestream"]
    assert litestream["profiles"] == ["replica"]
    assert litestream["image"].startswith("litestream/litestream:0.5.")
    assert "kmood-data:/data" in litestream["volumes"]
    config = "./deploy/litestream.yml:/etc/litestream.yml:ro"
    assert config in litestream["volumes"] and (ROOT / "deploy" / "litestream.yml").exists()
    assert litestream["command"] == ["replicate", "-config", "/etc/litestream.yml"]
    assert litestream["environment"]["KMOOD_DB"] == services["server"]["environment"]["KMOOD_DB"]
    assert f"--uid {litestream['user']} kmood" in (ROOT / "Dockerfile").read_text()
    for name in ("server", "worker"):  # set to off when the profile runs
        assert "KMOOD_CHECKPOINT_MODE" in services[name]["environment"]


def test_the_litestream_example_replicates_k_moods_database_to_one_replica():
    config = yaml.safe_load((ROOT / "deploy" / "litestream.yml").read_text())
    (db,) = config["dbs"]
    assert db["path"] == "${KMOOD_DB}"
    assert db["replica"] == {"type": "file", "path": "${LITESTREAM_REPLICA_PATH}"}


def test_the_image_compiles_the_app_after_copying_it():
    """The image runs with PYTHONDONTWRITEBYTECODE: bytecode is read, never written, so the
    app's modules are compiled at build time, after they are copied, or every start compiles
    them all again."""
    lines = (ROOT / "Dockerfile").read_text().splitlines()
    assert any(line.startswith("ENV PYTHONDONTWRITEBYTECODE=1") for line in lines)
    copied = lines.index("COPY kmood_lib ./kmood_lib")
    compiled = lines.index("RUN python -m compileall -q kmood.py kmood_worker.py kmood_lib")
    assert copied < compiled
