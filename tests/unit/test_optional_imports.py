"""Single sign-on's and passkeys' libraries are imported only when their way in is set
(requirements-sso.txt, as nats-py for the relay): a household that signs in with passwords
runs without them (issue #41); Web Push's only when a push is made (issue #43)."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.helpers import ROOT, base_env

PROBE = """
import json, os, sys
from kmood_lib.bootstrap import bootstrap
from kmood_lib.core.config import Config
from kmood_lib.web.app import make_wsgi
services = bootstrap(Config.from_env(os.environ))
make_wsgi(services)
print(json.dumps(sorted({name.split(".")[0] for name in sys.modules}
                        & {"authlib", "joserfc", "webauthn", "cbor2", "OpenSSL", "nats",
                           "py_vapid", "http_ece"})))
"""


def loaded(tmp_path, **env) -> list[str]:
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, capture_output=True,
                          text=True, timeout=60, env=base_env(tmp_path / "k.db", **env))
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def test_a_household_with_passwords_imports_none_of_them(tmp_path):
    assert loaded(tmp_path) == []


def test_each_is_imported_when_its_way_in_is_set(tmp_path):
    assert "authlib" in loaded(tmp_path, KMOOD_OIDC_ISSUER="https://auth.example.org",
                               KMOOD_OIDC_CLIENT_ID="k-mood",
                               KMOOD_PUBLIC_URL="https://mood.example.org")
    assert "webauthn" in loaded(tmp_path, KMOOD_PASSKEYS="1",
                                KMOOD_PUBLIC_URL="https://mood.example.org")
