"""Two copies of one client id sent at the same moment (an outbox retry racing its first send,
two tabs flushing one outbox) to the real server: one entry, both answered with it."""

from __future__ import annotations

import sqlite3
import threading
import uuid

from tests.helpers import http

ROUNDS = 30
BODY = {"mood": 4, "note": "sent twice at once"}


def send_both_at_once(url: str, auth: dict[str, str], client_id: str) -> list[tuple]:
    """Both POSTs released together by a barrier; (status, body) of each."""
    barrier, answers = threading.Barrier(2), []

    def send() -> None:
        barrier.wait(30)
        status, _, body = http("POST", url + "/api/entries", {**BODY, "client_id": client_id},
                               auth)
        answers.append((status, body))

    threads = [threading.Thread(target=send) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert len(answers) == 2, "a sender never got its answer"
    return answers


def test_one_client_id_sent_twice_at_the_same_moment_makes_one_entry_answered_to_both(
        stack_factory):
    stack = stack_factory().start(worker=False)
    stack.create_user("alice")
    auth = stack.log_in("alice")
    client_ids = [str(uuid.uuid4()) for _ in range(ROUNDS)]
    for client_id in client_ids:
        answers = send_both_at_once(stack.url, auth, client_id)
        assert sorted(status for status, _ in answers) == [200, 201], answers
        first, second = (body for _, body in answers)
        assert first["id"] == second["id"] and first["client_id"] == client_id, answers
    conn = sqlite3.connect(stack.env["KMOOD_DB"])
    rows = conn.execute("SELECT client_id, count(*) FROM entries GROUP BY client_id").fetchall()
    conn.close()
    assert sorted(rows) == sorted((client_id, 1) for client_id in client_ids)
    assert "Traceback" not in stack.server_log.read_text()
