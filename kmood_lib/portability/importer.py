"""Importing a file into one user's journal: atomic and idempotent, in short steps.

1. The file is read row by row (never held whole as rows); every row is checked as it comes
   (the limits entries have everywhere, its moment in the user's timezone) and staged
   (portability.staging), invisible to every read. Any problem, or any mood name without a
   level, refuses the whole file with a report listing the problems — nothing reaches the
   journal, and the staged rows are dropped.
2. A row is a duplicate when an entry of this user already carries its import key, or — so
   that two different exports of one history do not double it — when an entry matches its
   local date, local minute, mood level and note, compared as multisets (two identical rows
   stay two entries; importing them again adds neither).
3. The rest are published oldest first, in short transactions, with their activities (and the
   backup's activity groups) and metric values; imported entries carry no location, so they
   start no weather or place lookups (a k-mood export's own weather comes with them).

The run itself (its lease, its turns, what happens when it dies) is portability.runs; an
upload waiting for the person's confirm is portability.pending_imports.
"""

from __future__ import annotations

import functools
import json
import logging
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime, time, timedelta, timezone
from zoneinfo import ZoneInfo

from kmood_lib.core.db import storage_error, transaction
from kmood_lib.core.errors import Busy, DomainError, StorageFull
from kmood_lib.core.i18n import N_, Phrase
from kmood_lib.core.text import name_key
from kmood_lib.core.text import problem as text_problem
from kmood_lib.core.validation import MAX_YEAR, MIN_YEAR, resolve_local_time
from kmood_lib.journal import memos, photos, storage, vocab
from kmood_lib.journal.entry_input import (
    MAX_ACTIVITIES,
    MAX_ACTIVITY_NAME,
    MAX_FUTURE,
    MAX_LABEL,
    MAX_NOTE,
    MAX_NOTE_TITLE,
    MAX_SONG_FIELD,
    Moment,
)
from kmood_lib.portability import duplicates as dedup
from kmood_lib.portability import kmood_json, publishing, recovery, restore, runs, staging
from kmood_lib.portability.daylio.backup import open_archive, read_backup
from kmood_lib.portability.daylio.csv_export import read_csv
from kmood_lib.portability.daylio.moods import MoodNames, suggest_level
from kmood_lib.portability.daylio.plan import DEFAULT_LIMITS, Limits, Plan, Row

log = logging.getLogger(__name__)

DATE_ONLY_MINUTE = 12 * 60  # a date-only entry is stored (and sorts) at noon


class ImportInterrupted(Busy):
    """Publishing stopped half-way (the database was busy past its timeout, the disk full):
    the checked rows wait in the staging and the rest is published once the run's lease runs
    out — nothing lost, nothing doubled."""

    def __init__(self, lease_ms: int, cause: Exception):
        super().__init__(
            Phrase("The import stopped half-way ({cause}). Nothing is lost or doubled: the rest"
                   " of the file is kept and will be added within {n} seconds (by the worker).",
                   cause=str(cause), n=lease_ms // 1000 + 30), lease_ms // 1000 + 30)


class ImportRefused(DomainError):
    """The file cannot be imported as it is; `report` says every reason."""

    def __init__(self, report: dict):
        super().__init__(report["message"], {"file": report["message"]}, extra={"report": report})
        self.report = report


def base_report(plan: Plan, format_name: str) -> dict:
    return {
        "format": format_name,
        "rows": plan.total,
        "first_day": plan.first_day.isoformat() if plan.first_day else None,
        "last_day": plan.last_day.isoformat() if plan.last_day else None,
        "moods": [{"name": name, "level": level, "rows": n}
                  for (name, level), n in sorted(plan.moods.items(),
                                                 key=lambda item: (-item[0][1], item[0][0]))],
        "unknown_moods": [{"name": name, "rows": found["count"], "first": found["first"],
                           "suggested": suggest_level(name)}
                          for name, found in sorted(plan.unknown_moods.items())],
        "problems": list(plan.problems),
        "more_problems": plan.problems.count - len(plan.problems),
        "warnings": list(plan.warnings),
        "ignored": plan.ignored,
    }


def refuse_if_unfit(plan: Plan, report: dict) -> None:
    if plan.unknown_moods or plan.problems.count:
        parts = []
        if plan.unknown_moods:
            names = ", ".join(f"{n!r} ({f['count']} row{'s' if f['count'] > 1 else ''}, first"
                              f" {', '.join(f['first'])})" for n, f in plan.unknown_moods.items())
            parts.append(f"mood names with no level — give them one in the mood map: {names}")
        if plan.problems.count:
            parts.append(f"{plan.problems.count} row problem(s), first: {plan.problems[0]}")
        report["message"] = "Nothing was imported: " + "; ".join(parts)
        raise ImportRefused(report)


def _moment(row: Row, tz: ZoneInfo) -> Moment:
    minute = DATE_ONLY_MINUTE if row.minute is None else row.minute
    wall = datetime.combine(row.local_date, time(minute // 60, minute % 60, row.second))
    if row.offset_s is None:
        first, second = wall.replace(tzinfo=tz), wall.replace(tzinfo=tz, fold=1)
        offset = first.utcoffset()
        if offset != second.utcoffset():  # in a DST gap or fold: the full rule
            return Moment.of(resolve_local_time(wall, tz))
        return Moment.of(wall.replace(tzinfo=timezone(offset)))
    return Moment.of(wall.replace(tzinfo=timezone(timedelta(seconds=row.offset_s))))

# What is wrong with a song's field or a text of a row, by the field.
SONG_FIELD_PROBLEMS = {
    "artist": N_("the song's artist is longer than {n} characters or holds control characters"),
    "title": N_("the song's title is longer than {n} characters or holds control characters"),
    "album": N_("the song's album is longer than {n} characters or holds control characters"),
}
TEXT_PROBLEMS = {
    "title": (N_("the title is longer than {n} characters"),
              N_("the title holds control characters")),
    "note": (N_("the note is longer than {n} characters"), N_("the note holds control characters")),
}


def _check(row: Row, moment: Moment | None, now_ms: int) -> list[str]:
    """What stops this row from being an entry, by the rules the API applies."""
    problems = []
    if not MIN_YEAR <= row.local_date.year <= MAX_YEAR:
        problems.append(Phrase("the year {year} is outside {first}-{last}",
                               year=row.local_date.year, first=MIN_YEAR, last=MAX_YEAR))
    elif moment.occurred_at_ms - now_ms > MAX_FUTURE.total_seconds() * 1000:
        problems.append(Phrase("{day} is more than a day in the future",
                               day=row.local_date.isoformat()))
    if row.label and (len(row.label) > MAX_LABEL or text_problem(row.label, name=True)):
        problems.append(Phrase("the mood name {name} is longer than {n} characters or holds"
                               " control characters", name=repr(row.label[:40]), n=MAX_LABEL))
    if len(row.activities) > MAX_ACTIVITIES:
        problems.append(Phrase("{n} activities (at most {most})", n=len(row.activities),
                               most=MAX_ACTIVITIES))
    for name in row.activities:
        if len(name) > MAX_ACTIVITY_NAME or text_problem(name, name=True):
            problems.append(Phrase("the activity {name} is longer than {n} characters or holds"
                                   " control characters", name=repr(name[:40]),
                                   n=MAX_ACTIVITY_NAME))
    song = row.song
    for message, text in ((SONG_FIELD_PROBLEMS["artist"], song.artist),
                          (SONG_FIELD_PROBLEMS["title"], song.title),
                          (SONG_FIELD_PROBLEMS["album"], song.album or "")) if song else ():
        if len(text) > MAX_SONG_FIELD or text_problem(text, name=True):
            problems.append(Phrase(message, n=MAX_SONG_FIELD))
    for (too_long, control), text, limit in (
            (TEXT_PROBLEMS["title"], row.note_title, MAX_NOTE_TITLE),
            (TEXT_PROBLEMS["note"], row.note, MAX_NOTE)):
        if len(text) > limit:
            problems.append(Phrase(too_long, n=limit))
        elif text_problem(text, name=False):
            problems.append(Phrase(control))
    return problems



def import_plan(conn: sqlite3.Connection, user_id: int, tz: ZoneInfo, plan: Plan,
                rows: Iterable[Row], clock, *, dry_run: bool = False,
                format_name: str = "daylio-csv", progress: Callable[[int, int], None] | None = None,
                allow_private_urls: bool = False, lease_ms: int = runs.LEASE_MS,
                photo_limits: photos.Limits = photos.DEFAULT_LIMITS) -> dict:
    """Import the plan's rows (or, with dry_run, only count what would be); returns the report.
    Raises ImportRefused, writing nothing to the journal, when the plan has problems, and
    ImportRunning while another import of this user runs. The run's lease and its pauses for
    other writers are on `clock` (the services' clock)."""
    now_ms = clock.now_ms()  # the moment the rows are checked against
    labels = {level: name_key(label) for level, label in vocab.mood_labels(conn, user_id).items()}
    allowance = None if dry_run else storage.Allowance(conn, user_id, photo_limits.quota_bytes)
    run = runs.begin(conn, user_id, clock, functools.partial(
        recovery.resume, conn, allow_private_urls=allow_private_urls), lease_ms)
    stage_assets = None if dry_run else functools.partial(
        _stage_assets, conn, run, plan, photo_limits, allowance)
    metrics: dict = {}
    published = False
    try:
        staged, in_file = staging.stage(conn, run, _checked(
            rows, plan, tz, now_ms, labels, metrics, stage_assets))
        plan.clean_names()
        report = base_report(plan, format_name)
        refuse_if_unfit(plan, report)
        if dry_run:
            imported, duplicates, restored = _count(conn, run, plan)
        else:
            stored = _keep_plan(conn, run, plan, format_name, tz, metrics)
            published = True  # from here a failure leaves the run to be finished, not dropped
            imported, duplicates, restored = _publish(conn, run, stored, plan, progress, staged,
                                                      allow_private_urls)
    finally:
        if not published:
            runs.drop(conn, run.id, clock)
    _complete(report, plan, imported, duplicates + in_file, restored, dry_run)
    log.info("import for user %d (%s): %s", user_id, format_name, report["message"])
    return report


def _checked(rows: Iterable[Row], plan: Plan, tz: ZoneInfo, now_ms: int, labels: dict[int, str],
             metrics: dict, stage_assets: Callable[[Row], None] | None) -> Iterator[tuple]:
    """The rows as staging tuples, each checked as it is read (its problems go into the plan);
    once the file is refused, the rest is only read to report it all. `labels`: level -> name
    key of the user's mood names; `metrics` gathers the scales the rows carry; `stage_assets`
    stages a row's photos and memos (None in a dry run)."""
    for row in rows:
        plan.clean_row(row)
        moment = _moment(row, tz) if MIN_YEAR <= row.local_date.year <= MAX_YEAR else None
        problems = _check(row, moment, now_ms)
        plan.problems.extend(Phrase("{where}: {problem}", where=row.where, problem=p)
                             for p in problems)
        if plan.problems.count or plan.unknown_moods:
            continue  # refused whatever comes next: read on only to report it all
        staging.wanted_metrics(metrics, row)
        label = row.label if row.label and name_key(row.label) != labels.get(row.level) else None
        if stage_assets is not None:
            stage_assets(row)
        yield (row.import_key, moment.local_date, moment.local_minute, row.second, row.level,
               row.note, staging.entry_json(row, moment, label))


def _stage_assets(conn, run: runs.Run, plan: Plan, photo_limits: photos.Limits,
                  allowance: storage.Allowance, row: Row) -> None:
    """A row's photos and voice memos, staged beside it within the person's allowance."""
    if row.photos:
        _stage_photos(conn, run, plan, photo_limits, allowance, row)
    if row.memos:
        _stage_memos(conn, run, plan, allowance, row)


def _stage_photos(conn, run: runs.Run, plan: Plan, photo_limits: photos.Limits,
                  allowance: storage.Allowance, row: Row) -> None:
    """A row's photos read from the archive, checked and re-encoded one by one (one in memory
    at a time), staged beside it; one that cannot be read or is past the person's quota is left
    out, said so."""
    prepared = []
    for member in row.photos[photo_limits.per_entry:]:
        plan.warnings.append(Phrase("{where}: photo {file} left out (an entry holds at most"
                                    " {n})", where=row.where, file=member.rsplit("/", 1)[-1][:16],
                                    n=photo_limits.per_entry))
    for member in row.photos[:photo_limits.per_entry]:
        shown = member.rsplit("/", 1)[-1][:16]
        try:
            photo = photos.prepare(plan.read_asset(member), photo_limits, shown)
        except DomainError as exc:
            plan.warnings.append(Phrase("{where}: photo {file} left out ({reason})",
                                        where=row.where, file=shown, reason=exc.message))
            continue
        if allowance.take(photo.stored_bytes, photo.sha256):
            prepared.append(photo)
        else:
            plan.warnings.append(Phrase("{where}: photo {file} left out ({reason})",
                                        where=row.where, file=shown, reason=allowance.full))
    if prepared:
        staging.stage_photos(conn, run, row.import_key, prepared)


def _stage_memos(conn, run: runs.Run, plan: Plan, allowance: storage.Allowance, row: Row
                 ) -> None:
    """A row's voice memos, kept as they are once recognised as audio, staged beside it."""
    kept = []
    for member in row.memos:
        shown = f"memo {member.rsplit('/', 1)[-1][:16]}"
        try:
            memo = memos.prepare(plan.read_asset(member), shown)
        except DomainError as exc:
            plan.warnings.append(Phrase("{where}: {problem}; left out", where=row.where,
                                        problem=exc.message))
            continue
        if allowance.take(len(memo.data)):
            kept.append(memo)
        else:
            plan.warnings.append(Phrase("{where}: memo {file} left out ({reason})",
                                        where=row.where, file=member.rsplit("/", 1)[-1][:16],
                                        reason=allowance.full))
    if kept:
        staging.stage_memos(conn, run, row.import_key, kept)


def _count(conn, run: runs.Run, plan: Plan) -> tuple[int, int, list[str]]:
    """The dry run of a checked run: what publishing would import, skip and put back."""
    imported, duplicates = dedup.count_new(conn, run)
    return imported, duplicates, restore.describe(plan)


def _keep_plan(conn, run: runs.Run, plan: Plan, format_name: str, tz: ZoneInfo,
               metrics: dict) -> dict:
    """What finishing the run needs besides its staged rows, kept with it (so that another
    process can finish it) and returned as it was kept."""
    stored = json.loads(staging.plan_json(plan, format_name, tz, metrics))
    with transaction(conn):
        conn.execute("UPDATE import_runs SET plan = ? WHERE id = ?", (json.dumps(stored), run.id))
    return stored


def _publish(conn, run: runs.Run, stored: dict, plan: Plan, progress, staged: int,
             allow_private_urls: bool) -> tuple[int, int, list[str]]:
    """Publish a checked run and end it: (imported, duplicates, the extras put back). Stopped
    by the storage, it raises ImportInterrupted: the rest is finished once its lease runs out."""
    try:
        imported, duplicates = publishing.publish(conn, run, stored, plan.warnings, progress,
                                                  total=staged)
        restored = publishing.finish(conn, run, stored, plan, allow_private_urls)
    except (Busy, StorageFull) as exc:
        raise ImportInterrupted(run.lease_ms, exc) from None
    except sqlite3.OperationalError as exc:
        if storage_error(exc) is None:
            raise  # a bug, not the storage: a 500 with its traceback
        raise ImportInterrupted(run.lease_ms, exc) from None
    return imported, duplicates, restored


def _complete(report: dict, plan: Plan, imported: int, duplicates: int, restored: list[str],
              dry_run: bool) -> None:
    """The report of a file that was imported (or, dry, counted)."""
    report.update(imported=imported, duplicates=duplicates, dry_run=dry_run, restored=restored,
                  warnings=list(plan.warnings), photos=plan.photos, memos=plan.memos)
    report["message"] = (f"{'Would import' if dry_run else 'Imported'} {imported} entr"
                         f"{'y' if imported == 1 else 'ies'}; {duplicates} already in the"
                         f" journal.")


def used_labels(conn, user_id: int) -> dict[str, int]:
    """name key -> level of the custom mood names on this user's entries that name one level
    only (so k-mood's own CSV export reads back without a mood map)."""
    levels: dict[str, set[int]] = {}
    for label, mood in conn.execute("SELECT DISTINCT mood_label, mood FROM entries"
                                    " WHERE user_id = ? AND mood_label IS NOT NULL", (user_id,)):
        levels.setdefault(name_key(label.strip()), set()).add(mood)
    return {key: next(iter(found)) for key, found in levels.items() if len(found) == 1}


def limits_of(config) -> Limits:
    return Limits(config.import_max_bytes, config.import_max_rows)


def settings_of(services) -> dict:
    """import_file's keyword arguments that come from the configuration (and the memory
    budget photos are read within)."""
    config = services.config
    return {"limits": limits_of(config), "lease_ms": config.import_lease_s * 1000,
            "allow_private_urls": config.allow_private_notify_urls,
            "photo_limits": photos.limits_of(config, services.photo_budget)}


def plan_file(conn, user_id: int, data: bytes, mood_map: dict[str, int],
              limits: Limits = DEFAULT_LIMITS) -> tuple[Plan, Iterator[Row], str]:
    """Read an uploaded file as what it is: a `.daylio` backup (a ZIP), k-mood's own JSON
    export, or a Daylio CSV (k-mood's CSV export is one) -> its plan, its rows (read as they
    are asked for) and its format. Raises DaylioFormatError, also for a file past `limits`."""
    if data[:4] == b"PK\x03\x04":
        archive = open_archive(data)
        if kmood_json.is_export_zip(archive):  # k-mood's own, with its photos
            return (*kmood_json.read_export_zip(archive, limits), "kmood-json")
        return (*read_backup(data, limits), "daylio-backup")
    if kmood_json.is_export(data):
        return (*kmood_json.read_export(data, limits), "kmood-json")
    moods = MoodNames(mood_map, vocab.mood_labels(conn, user_id), used_labels(conn, user_id))
    return (*read_csv(data, moods, limits), "daylio-csv")


def import_file(conn, user_id: int, tz: ZoneInfo, data: bytes, mood_map: dict[str, int],
                clock, *, dry_run: bool = False, progress=None,
                allow_private_urls: bool = False, limits: Limits = DEFAULT_LIMITS,
                lease_ms: int = runs.LEASE_MS,
                photo_limits: photos.Limits = photos.DEFAULT_LIMITS) -> dict:
    """plan_file, then import_plan: the one path the CLI, the API and the upload page share.
    `allow_private_urls` is KMOOD_ALLOW_PRIVATE_NOTIFY_URLS, for restored reminders; `limits`
    are KMOOD_IMPORT_MAX_BYTES and _ROWS, `lease_ms` KMOOD_IMPORT_LEASE_S (all three:
    `**settings_of(services)`)."""
    plan, rows, format_name = plan_file(conn, user_id, data, mood_map, limits)
    return import_plan(conn, user_id, tz, plan, rows, clock, dry_run=dry_run,
                       format_name=format_name, progress=progress,
                       allow_private_urls=allow_private_urls, lease_ms=lease_ms,
                       photo_limits=photo_limits)
