"""Saving entries as the API and the forms do it: one path for POST/PATCH /api/entries and the
log and edit pages — the same checks, the same save through the process's shared write
connection, group-committed with the saves that arrive with it (core.group_commit: each in its
own savepoint, answered once the group's COMMIT returned), with the prompt enqueue inside the
save's own savepoint."""

from __future__ import annotations

import logging
from zoneinfo import ZoneInfo

from kmood_lib.core.validation import is_uuid
from kmood_lib.journal import vocab, writes
from kmood_lib.journal.entry_input import EntryInput, parse_entry, utc_now

log = logging.getLogger(__name__)


def checked(services, conn, user, body: dict, patch: bool) -> EntryInput:
    defs = vocab.metric_defs(conn, user.id) if body.get("metrics") else {}
    return parse_entry(body, tz=ZoneInfo(user.timezone), now=utc_now(services.clock),
                       metric_defs=defs, patch=patch)


def replay_of(conn, user_id: int, body: dict) -> writes.Saved | None:
    """The entry a body's client_id already saved (or writes.DELETED, when it was deleted
    since), if any. Asked before the checks: a send that the server did save (the answer was
    lost) is the same entry even when the body would no longer pass (a metric of it deleted
    since), never a refusal that invites a second."""
    client_id = body.get("client_id") if isinstance(body, dict) else None
    if not is_uuid(client_id):
        return None
    return writes.replayed(conn, user_id, client_id.lower())


def create(services, conn, user, body: dict, source: str) -> writes.Saved:
    """Check and save a new entry (ValidationError names bad fields); a replayed client_id
    returns the existing entry with `created` False, or `deleted` when that entry was deleted
    since (nothing is saved: a replay never brings a deleted entry back)."""
    replayed = replay_of(conn, user.id, body)
    if replayed is not None:
        return replayed
    data = checked(services, conn, user, body, patch=False)
    kinds: list[str] = []
    saved = services.group_commit.run(lambda conn: writes.add_entry(
        conn, user.id, data, source, services.clock.now_ms(),
        before_commit=prompting(services, user.id, kinds)))
    if saved.created:
        services.relay.entry_saved(user.id, saved.entry_id, kinds)
    return saved


def update(services, conn, user, entry_id: int, body: dict) -> bool:
    data = checked(services, conn, user, body, patch=True)
    kinds: list[str] = []
    changed = services.group_commit.run(lambda conn: writes.change_entry(
        conn, user.id, entry_id, data, services.clock.now_ms(),
        before_commit=prompting(services, user.id, kinds)))
    if changed:
        services.relay.entry_saved(user.id, entry_id, kinds)
    return changed


def prompting(services, user_id: int, kinds: list[str]) -> writes.BeforeCommit:
    """The save's last step: the prompt enqueue, whose job kinds are added to `kinds`."""
    def before_commit(conn, entry_id: int) -> None:
        kinds.extend(prompt(services, conn, user_id, entry_id))

    return before_commit


def prompt(services, conn, user_id: int, entry_id: int) -> list[str]:
    """Queue the saved entry's work inside its own transaction, behind a SAVEPOINT: if anything
    in it fails, it is rolled back to the savepoint with one log line and the entry commits
    anyway (SPEC §4) — the sweep finds the work. Returns the kinds queued."""
    kinds: list[str] = []
    conn.execute("SAVEPOINT prompt_enqueue")
    try:
        for hook in services.prompt_hooks:
            kinds += hook(conn, user_id, entry_id, services.clock.now_ms())
    except Exception as exc:
        conn.execute("ROLLBACK TO prompt_enqueue")
        log.warning("entry %d saved; queueing its work now failed (%s: %s): the sweep will",
                    entry_id, type(exc).__name__, exc)
        kinds = []
    conn.execute("RELEASE prompt_enqueue")
    return kinds
