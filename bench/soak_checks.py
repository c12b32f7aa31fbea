"""The soak's verdict: the clients' ledgers against the database, enrichment caught up, no
stuck jobs, no unexplained 5xx, sound database and backups, flat memory — and the table."""

from __future__ import annotations

import sqlite3
import statistics
import time
from collections import Counter
from pathlib import Path

from bench.soak_load import RETRY_FOR_S
from kmood_lib.bootstrap import production_kinds
from kmood_lib.core.config import Config

ENRICHMENT = ("weather", "place", "song_metadata")
SERVER_GRACE_S = (0.5, 2.0)  # a request in flight at a kill, or sent just before a restart ends
DISK_GRACE_S = 3.0
FLAT = 1.2  # memory within 20 %: the end of the middle, the server's instances of each other
SETTLED_S = 600  # the server's instances are judged from this far into the run (or a sixth)


def open_db(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None, timeout=30)
    conn.row_factory = sqlite3.Row
    return conn


def unexplained_work(conn: sqlite3.Connection, env: dict) -> dict[str, tuple[int, int]]:
    """kind -> (work the sweeper still finds, of which a job exhausted with its error)."""
    config = Config.from_env(env)
    now_ms = time.time_ns() // 1_000_000
    out = {}
    for kind in production_kinds(config):
        if kind.name not in ENRICHMENT:
            continue
        keys = [row["key"] for row in conn.execute(kind.sweep_sql, kind.params(now_ms))]
        exhausted = sum(1 for key in keys if conn.execute(
            "SELECT 1 FROM jobs WHERE kind = ? AND key = ? AND status = 'exhausted'"
            " AND last_error IS NOT NULL", (kind.name, key)).fetchone())
        out[kind.name] = (len(keys), exhausted)
    return out


def settle(soak, limit_s: float) -> float:
    """Wait, with the load stopped and every process up, until the sweepers find no work that
    is not explained by an exhausted job; returns the seconds it took (or limit_s)."""
    started = time.monotonic()
    conn = open_db(soak.deploy.env["KMOOD_DB"])
    try:
        while time.monotonic() - started < limit_s:
            work = unexplained_work(conn, soak.deploy.env)
            if all(found == exhausted for found, exhausted in work.values()):
                break
            time.sleep(2)
    finally:
        conn.close()
    return time.monotonic() - started


def check_ledgers(conn: sqlite3.Connection, soak) -> list[tuple[str, str, bool]]:
    users = {row["username"]: row["id"] for row in conn.execute("SELECT id, username FROM users")}
    acked = lost = duplicated = edits = edits_lost = unanswered = unanswered_in = 0
    known: dict[int, set] = {}
    for client in soak.clients:
        user = users[client.ledger.user]
        known.setdefault(user, set())
        for client_id, (_, mood, *maybe) in client.ledger.acked.items():
            known[user].add(client_id)
            acked += 1
            rows = conn.execute("SELECT id, mood FROM entries WHERE user_id = ? AND client_id = ?",
                                (user, client_id)).fetchall()
            lost += not rows
            duplicated += max(0, len(rows) - 1)
            if rows and rows[0]["mood"] not in (mood, *maybe):
                edits_lost += 1
        for client_id in client.ledger.unanswered:
            known[user].add(client_id)
            unanswered += 1
            unanswered_in += conn.execute("SELECT count(*) FROM entries WHERE user_id = ? AND"
                                          " client_id = ?", (user, client_id)).fetchone()[0]
        edits += sum(1 for s in client.samples if s.op == "edit" and s.status == 200)
    strangers = sum(1 for user, ids in known.items() for row in conn.execute(
        "SELECT client_id FROM entries WHERE user_id = ?", (user,)) if row[0] not in ids)
    imports = [t for t in soak.tasks if t["task"] == "import"]
    expected = sum(t.get("rows", 0) for t in imports if t.get("ok"))
    imported = conn.execute("SELECT count(*) FROM entries WHERE user_id = ?",
                            (users["importer"],)).fetchone()[0]
    return [
        ("acknowledged creates in the database exactly once",
         f"{acked} acknowledged: {lost} lost, {duplicated} duplicated", lost == duplicated == 0),
        ("entries nobody sent", f"{strangers}", strangers == 0),
        (f"creates never answered (retried {RETRY_FOR_S:.0f} s)",
         f"{unanswered} ({unanswered_in} of them saved)", unanswered == 0),
        ("acknowledged edits hold", f"{edits} edits: {edits_lost} lost", edits_lost == 0),
        ("imports", f"{sum(1 for t in imports if t.get('ok'))} of {len(imports)} whole;"
         f" {imported} entries for {expected} rows", all(t.get("ok") for t in imports)
         and imported == expected),
    ]


def check_database(soak) -> list[tuple[str, str, bool]]:
    """After every process stopped: the ledgers, enrichment, jobs, integrity."""
    conn = open_db(soak.deploy.env["KMOOD_DB"])
    try:
        checks = check_ledgers(conn, soak)
        located = conn.execute("SELECT count(*) FROM entries WHERE lat IS NOT NULL").fetchone()[0]
        weathered = conn.execute("SELECT count(*) FROM entries e WHERE lat IS NOT NULL AND EXISTS"
                                 " (SELECT 1 FROM weather w WHERE w.entry_id = e.id)").fetchone()[0]
        placed = conn.execute("SELECT count(*) FROM entries e WHERE lat IS NOT NULL AND EXISTS"
                              " (SELECT 1 FROM entry_places p WHERE p.entry_id = e.id)"
                              ).fetchone()[0]
        songs = conn.execute("SELECT count(*) FROM songs").fetchone()[0]
        looked_up = conn.execute("SELECT count(*) FROM songs s WHERE EXISTS (SELECT 1 FROM"
                                 " song_lookups l WHERE l.lookup_key = s.lookup_key)").fetchone()[0]
        work = unexplained_work(conn, soak.deploy.env)
        left = sum(found - exhausted for found, exhausted in work.values())
        exhausted = sum(exhausted for _, exhausted in work.values())
        checks.append(("enrichment caught up",
                       f"{weathered}/{located} entries with a location have weather,"
                       f" {placed}/{located} a place; {looked_up}/{songs} songs looked up;"
                       f" {exhausted} exhausted with their error, {left} left", left == 0))
        now_ms = time.time_ns() // 1_000_000
        stuck = conn.execute("SELECT count(*) FROM jobs WHERE status = 'running'"
                             " AND lease_until < ?", (now_ms,)).fetchone()[0]
        by_status = dict(conn.execute("SELECT status, count(*) FROM jobs GROUP BY status"))
        checks.append(("jobs stuck running after their lease", f"{stuck} (jobs: {by_status})",
                       stuck == 0))
        integrity = conn.execute("PRAGMA integrity_check").fetchone()[0]
        orphans = len(conn.execute("PRAGMA foreign_key_check").fetchall())
        entries = conn.execute("SELECT count(*) FROM entries").fetchone()[0]
        checks.append(("PRAGMA integrity_check, foreign_key_check",
                       f"{integrity}, {orphans} orphans ({entries} entries)",
                       integrity == "ok" and orphans == 0))
    finally:
        conn.close()
    return checks


def in_window(at: float, windows, kinds: tuple[str, ...], before: float, after: float) -> bool:
    return any(kind in kinds and start - before <= at <= end + after
               for kind, start, end in windows)


def check_http(soak) -> list[tuple[str, str, bool]]:
    during_restart: Counter = Counter()
    during_full: Counter = Counter()
    unexplained = without_retry_after = 0
    examples = []
    for client in soak.clients:
        for s in client.samples:
            failed = s.status == "conn" or (isinstance(s.status, int) and s.status >= 500)
            if not failed:
                continue
            without_retry_after += s.status in (503, 507) and not s.retry_after
            if s.status in (503, 507) and in_window(s.at, soak.windows, ("disk full",), 0,
                                                   DISK_GRACE_S):
                during_full[s.status] += 1
            elif in_window(s.at, soak.windows, ("server killed and restarted",),
                           *SERVER_GRACE_S):
                during_restart[s.status] += 1
            else:
                unexplained += 1
                if len(examples) < 5:
                    how = f" ({s.error} after {s.seconds:.1f} s)" if s.error else ""
                    examples.append(f"{s.op} {s.status}{how} at {s.at - soak.started:.1f} s")
    client_failures = [f for client in soak.clients for f in client.failures]
    return [
        ("5xx or refused outside a deliberate fault",
         f"{unexplained} {examples if examples else ''}".strip(), unexplained == 0),
        ("503 and 507 carry Retry-After", f"{without_retry_after} without",
         without_retry_after == 0),
        ("failed during faults (counted, expected)",
         f"while the server restarted: {_counts(during_restart)}; while the disk was full:"
         f" {_counts(during_full)}", True),
        ("4xx to valid requests", f"{len(client_failures)} {client_failures[:3]}".strip(),
         not client_failures),
        ("insights asked to wait (429 with Retry-After while the same person's are computed)",
         str(sum(client.insights_waits for client in soak.clients)), True),
    ]


def _counts(counter: Counter) -> str:
    names = {"conn": "refused or cut connections"}
    return ", ".join(f"{n} {names.get(status, status)}" for status, n in
                     sorted(counter.items(), key=str)) or "none"


def check_tasks(soak, exits: dict[str, int]) -> list[tuple[str, str, bool]]:
    exports = [t for t in soak.tasks if t["task"] == "export"]
    backups = [t for t in soak.tasks if t["task"] == "backup"]
    files = sorted((soak.tmp / "backups").glob("*")) + sorted((soak.tmp / "rotating").glob("*"))
    files = [f for f in files if f.is_file() and not f.name.endswith(("-wal", "-shm"))]
    sound = 0
    for path in files:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            sound += conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        except sqlite3.Error:
            pass
        finally:
            conn.close()
    return [
        ("exports hold every entry acknowledged before them",
         f"{sum(1 for t in exports if t.get('ok'))} of {len(exports)}",
         all(t.get("ok") for t in exports)),
        ("`kmood.py backup` runs", f"{sum(1 for t in backups if t.get('ok'))} of {len(backups)}"
         + "".join(f"; {t.get('error')}" for t in backups if not t.get("ok"))[:300],
         all(t.get("ok") for t in backups)),
        ("backups open and pass integrity_check",
         f"{sound} of {len(files)} (the CLI's and the worker's rotating ones)",
         sound == len(files) > 0),
        ("every process stops cleanly on SIGTERM, none died on its own",
         f"{exits}; {soak.deploy.died or 'none died'}",
         all(code == 0 for code in exits.values()) and not soak.deploy.died),
    ]


def check_memory(soak) -> list[tuple[str, str, bool]]:
    """The server is killed every two minutes, so its instances are compared at the same
    age (right before each kill); the steady worker lives the whole run; the flaky one is
    read half-way between its kills."""
    out = []
    if len(soak.server_rss) >= 3:
        series = soak.server_rss
        settled = [mb for mb, _, at in series if at >= min(SETTLED_S, soak.length_s / 6)]
        out.append(("memory of server (RSS before each kill; flat from minute 10)",
                    ", ".join(f"{mb:.0f} MB (age {age:.0f} s, at {at / 60:.0f} min)"
                              for mb, age, at in series)
                    + (f"; from minute {min(SETTLED_S, soak.length_s / 6) / 60:.0f}:"
                       f" {min(settled):.0f}-{max(settled):.0f} MB" if settled else ""),
                    len(settled) >= 2 and max(settled) <= FLAT * min(settled)))
    for name in ("server", "steady", "flaky"):
        seen = {when: soak.rss.get(when, {}).get(name) for when in ("start", "middle", "end")}
        if not all(seen.values()):
            out.append((f"memory of {name}", "not sampled", False))
            continue
        text = ", ".join(f"{when} {mb:.0f} MB (age {age:.0f} s)"
                         for when, (mb, age) in seen.items())
        if name == "server" and len(soak.server_rss) >= 3:  # judged by the line above
            out.append(("memory of server (RSS), for reference", text + ": different"
                        " instances at different ages", True))
            continue
        out.append((f"memory of {name} (RSS)", text,
                    seen["end"][0] <= FLAT * seen["middle"][0]))
    return out


def latency_lines(soak) -> list[str]:
    """p50/p99 per kind of request, answered outside the fault windows."""
    rows = []
    by_op: dict[str, list[float]] = {}
    for client in soak.clients:
        for s in client.samples:
            if isinstance(s.status, int) and s.status < 400 and not in_window(
                    s.at, soak.windows, ("server killed and restarted", "disk full"), 0.5, 2):
                by_op.setdefault(s.op, []).append(s.seconds * 1000)
    for op, values in sorted(by_op.items()):
        values.sort()
        rows.append(f"| {op} | {len(values)} | {statistics.median(values):.1f} ms |"
                    f" {values[int(0.99 * (len(values) - 1))]:.1f} ms |")
    return rows


def table(soak, checks: list[tuple[str, str, bool]], duration_s: float, settled_s: float) -> str:
    requests = sum(len(c.samples) for c in soak.clients)
    chaos = ", ".join(f"{k} {v}" for k, v in soak.chaos.counts.items())
    lines = [
        "",
        f"| k-mood soak: {duration_s / 60:.0f} minutes | |",
        "|---|---|",
        f"| load | {len(soak.clients)} clients, {requests} requests"
        f" ({requests / duration_s:.1f}/s), {sum(1 for t in soak.tasks if t['task'] == 'import')}"
        f" imports, {sum(1 for t in soak.tasks if t['task'] == 'export')} exports,"
        f" {sum(1 for t in soak.tasks if t['task'] == 'backup')} backups |",
        f"| faults | {soak.events['worker kills']} worker kill -9, {soak.events['server kills']}"
        f" server kill -9; {soak.fault_summary()} |",
        f"| upstream answers | {chaos} |",
        f"| enrichment settled | {settled_s:.0f} s after the load stopped |",
    ]
    for name, detail, ok in checks:
        lines.append(f"| {'ok' if ok else 'FAILED'}: {name} | {detail} |")
    lines += ["", "| request | answered | p50 | p99 |", "|---|---|---|---|", *latency_lines(soak)]
    return "\n".join(lines)
