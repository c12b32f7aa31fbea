"""Activity icons survive k-mood's own export and import (issue #38.8), through the real
server and the real command line."""

from __future__ import annotations

import urllib.request

from tests.helpers import http, run


def test_icons_go_out_in_the_export_and_come_back_in_another_journal(stack_factory, tmp_path):
    stack = stack_factory().start(worker=False)
    stack.create_user("ann")
    stack.create_user("ben")
    ann = stack.log_in("ann")
    taken = http("POST", stack.url + "/api/activities/starter",
                 {"names": ["walk", "reading", "good sleep"]}, ann)
    assert taken[0] == 200 and taken[2]["created"] == 3
    own = http("POST", stack.url + "/api/activities",
               {"name": "coding", "group": "Work", "icon": "👩🏽‍💻"}, ann)[2]
    http("PATCH", stack.url + f"/api/activities/{own['id']}", {"archived": True}, ann)
    http("POST", stack.url + "/api/activities", {"name": "no icon"}, ann)
    http("POST", stack.url + "/api/entries", {"mood": 4, "activities": ["walk", "coding"]}, ann)
    status, _, document = http("GET", stack.url + "/api/export?format=json", headers=ann)
    assert status == 200
    mine = {a["name"]: a["icon"] for a in document["activities"]}
    assert mine == {"walk": "🚶", "reading": "📖", "good sleep": "😴", "coding": "👩🏽‍💻",
                    "no icon": None}
    path = tmp_path / "ann.json"
    with urllib.request.urlopen(urllib.request.Request(
            stack.url + "/api/export?format=json", headers=ann), timeout=30) as exported:
        path.write_bytes(exported.read())
    done = run(["kmood.py", "import-daylio", str(path), "--user", "ben"], stack.env)
    assert done.returncode == 0, done.stderr
    ben = stack.log_in("ben")
    theirs = {a["name"]: (a["icon"], a["group"], a["archived"])
              for a in http("GET", stack.url + "/api/activities", headers=ben)[2]["activities"]}
    assert theirs == {"walk": ("🚶", "Health", False), "reading": ("📖", "Hobbies", False),
                      "good sleep": ("😴", "Sleep", False),
                      "coding": ("👩🏽‍💻", "Work", True), "no icon": (None, None, False)}
    starter = http("GET", stack.url + "/api/activities/starter", headers=ben)[2]
    assert starter["offered"] is False  # ben has activities now: no starter set for him
    assert stack.stop() == {"server": 0}
