"""What every enrichment kind shares: a sweep over the entries still missing something, the
prompt path as the same SQL narrowed to one entry (so both derive the same key), and a
switch that leaves the kind registered but idle."""

from __future__ import annotations

import logging
from collections.abc import Callable

from kmood_lib.queue.sweeps import JobKind, Prompt

log = logging.getLogger(__name__)

NOTHING = "SELECT NULL AS key, NULL AS payload WHERE 0"


def enrichment_kind(name: str, enabled: bool, cells_sql: str, stranded_sql: str,
                    params: Callable[[int], tuple], handler: Callable,
                    one_entry: str = " AND e.id = ?") -> JobKind:
    """`cells_sql` groups `{stranded}` into (key, payload) rows; `stranded_sql` ends with an
    `{entry}` slot where `one_entry` narrows it to one entry, whose id is its last parameter.
    Switched off, the sweep finds nothing, nothing is prompted, and jobs still queued finish
    as done without asking."""
    if not enabled:
        return JobKind(name, NOTHING, finish_switched_off)
    sweep_sql = cells_sql.format(stranded=stranded_sql.format(entry=""))
    one_entry = cells_sql.format(stranded=stranded_sql.format(entry=one_entry))

    prompt = Prompt(one_entry, lambda user_id, entry_id, now_ms: (*params(now_ms), entry_id))
    return JobKind(name, sweep_sql, handler, sweep_params=params, prompt=prompt)


def finish_switched_off(ctx) -> None:
    with ctx.completing():
        log.info("%s enrichment is switched off: job %d done without asking", ctx.job.kind,
                 ctx.job.id)
