"""Daylio's `.daylio` backup (a ZIP holding base64 JSON) read into a plan: custom moods, tags and
their groups, entries on their local wall clock, and what the backup holds that is left out."""

from __future__ import annotations

import base64
import binascii
import hashlib
import io
import json
import re
import zipfile
from collections.abc import Iterator
from datetime import date, datetime, timezone

from kmood_lib.core.i18n import N_, Phrase
from kmood_lib.core.text import name_key
from kmood_lib.portability.counted import listing, n_
from kmood_lib.portability.daylio.dates import date_ordinal_ms
from kmood_lib.portability.daylio.icons import tag_icons
from kmood_lib.portability.daylio.moods import PREDEFINED
from kmood_lib.portability.daylio.notes import html_to_text
from kmood_lib.portability.daylio.plan import (
    DEFAULT_LIMITS,
    DaylioFormatError,
    Limits,
    Plan,
    Row,
    at_entry,
)
from kmood_lib.portability.json_stream import Document

CHUNK = 1024 * 1024
MEMBER = "backup.daylio"


def read_backup(data: bytes, limits: Limits = DEFAULT_LIMITS) -> tuple[Plan, Iterator[Row]]:
    """A `.daylio` backup (ZIP -> backup.daylio -> base64 or plain JSON) -> its plan and its
    rows, read one by one as they are asked for (the plan is complete once they all were);
    raises DaylioFormatError for a file that is not one, or one past `limits`, and lists entry
    problems in the plan."""
    archive = open_archive(data)
    document = Document(_backup_json(read_member(archive, MEMBER, limits)), MEMBER, "dayEntries",
                        check_items=limits.check_rows)
    values = document.values
    plan = Plan("backup")
    moods = _backup_moods(plan, values.get("customMoods"))
    tags = _backup_tags(plan, values.get("tags"), values.get("tag_groups"))
    if not document.has_list():
        raise DaylioFormatError(Phrase("the backup has no dayEntries list"))
    identity = hashlib.sha256(json.dumps(values.get("metadata"), sort_keys=True,
                                         default=str).encode()).hexdigest()[:16]
    _backup_ignored(plan, values)
    _backup_templates(plan, values.get("writingTemplates"))
    _backup_goals(plan, values, tags)
    assets = Assets(values.get("assets"), archive)
    plan.read_asset = lambda name: read_member(archive, name, limits)
    return plan, _backup_rows(plan, document, moods, tags, identity, limits, assets)


class Assets:
    """A backup's assets: the `assets` list (id -> checksum and type: 1 a photo, 2 a voice
    memo) and the archive's members under assets/ (named by their checksum, under any
    directories, with or without a leading slash)."""

    PHOTO, AUDIO = 1, 2

    def __init__(self, listed, archive: zipfile.ZipFile) -> None:
        self.members = {}
        for name in archive.namelist():
            path = name.lstrip("/")
            if path.startswith("assets/") and not path.endswith("/"):
                self.members[path.rsplit("/", 1)[-1]] = name
        self.listed = {}
        for asset in listed if isinstance(listed, list) else ():
            if isinstance(asset, dict) and _int(asset.get("id")) is not None and isinstance(
                    asset.get("checksum"), str):
                self.listed[_int(asset["id"])] = (asset["checksum"], _int(asset.get("type")))
        self.used: set[str] = set()
        self.missing = 0

    def assets_of(self, entry: dict) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """The members of an entry's photos and of its voice memos, each in its order;
        missing files counted."""
        found, memos = [], []
        ids = entry.get("assets")
        for ident in ids if isinstance(ids, list) else ():
            checksum, kind = self.listed.get(_int(ident), (None, None))
            member = self.members.get(checksum) if checksum else None
            if member is None:
                self.missing += 1
                continue
            self.used.add(member)
            (memos if kind == self.AUDIO else found).append(member)
        return tuple(found), tuple(memos)

    def report(self, plan: Plan) -> None:
        if self.missing:
            plan.warnings.append(n_("{n} photo or memo file named by entries missing from the"
                                    " archive: left out",
                                    "{n} photo or memo files named by entries missing from the"
                                    " archive: left out", self.missing))
        unused = len(set(self.members.values()) - self.used)
        if unused:
            plan.warnings.append(n_("{n} file under assets/ belongs to no entry (a milestone's"
                                    " photo, or left over): left out",
                                    "{n} files under assets/ belong to no entry (a milestone's"
                                    " photo, or left over): left out", unused))


def _backup_rows(plan: Plan, document: Document, moods: dict, tags: dict, identity: str,
                 limits: Limits, assets: Assets) -> Iterator[Row]:
    mismatched = 0
    for position, entry in document.items():
        plan.total += 1
        limits.check_rows(plan.total)
        row, off = _backup_row(plan, entry, position, moods, tags, identity)
        mismatched += off
        if row is not None:
            row.photos, row.memos = assets.assets_of(entry)
            plan.photos += len(row.photos)
            plan.memos += len(row.memos)
            yield row
    assets.report(plan)
    if mismatched:
        plan.warnings.append(n_("{n} entry: the UTC instant disagrees with the local date and"
                                " time; the local fields were used",
                                "{n} entries: the UTC instant disagrees with the local date and"
                                " time; the local fields were used", mismatched))


def open_archive(data: bytes) -> zipfile.ZipFile:
    try:
        return zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError):
        raise DaylioFormatError(Phrase("the file is not a ZIP archive: a .daylio backup is one"
                                       " (or the file was cut short)")) from None


def read_member(archive: zipfile.ZipFile, name: str, limits: Limits) -> bytearray:
    """One member of an archive, read through a bounded stream: both the size the archive
    declares and the bytes actually inflated stop at `limits.max_bytes` (a ZIP bomb costs at
    most that much memory, and the refusal says so)."""
    try:
        info = archive.getinfo(name)
    except KeyError:
        raise DaylioFormatError(Phrase("the ZIP holds no {name}: this is not a Daylio backup",
                                       name=name)) from None
    limits.check_bytes(info.file_size, name)
    out = bytearray()
    try:
        with archive.open(info) as stream:
            while chunk := stream.read(CHUNK):
                limits.check_bytes(len(out) + len(chunk), name)  # the declared size can lie
                out += chunk
    except (zipfile.BadZipFile, OSError, EOFError, ValueError, NotImplementedError,
            RuntimeError) as exc:  # RuntimeError: an encrypted member
        raise DaylioFormatError(Phrase("{name} cannot be read from the ZIP ({reason})",
                                       name=name, reason=str(exc))) from None
    return out


WHITESPACE = b" \t\r\n\f\v"


def _backup_json(raw: bytearray) -> bytes | bytearray:
    """The member's JSON: as it is, or decoded from base64 (the member itself let go)."""
    start = re.match(rb"\s*", raw).end()  # no copy of the whole member
    if raw[start:start + 1] in (b"{", b"["):
        return raw
    try:  # real backups: base64 wrapped at 76 characters
        raw[:] = raw.translate(None, WHITESPACE)
        return base64.b64decode(raw, validate=True)
    except (binascii.Error, ValueError):
        raise DaylioFormatError(Phrase("backup.daylio is neither JSON nor base64")) from None


def _int(value) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _backup_moods(plan: Plan, moods) -> dict[int, tuple[int, str]]:
    """id -> (level, name): level = 6 - mood_group_id (group 1 is the best)."""
    if not isinstance(moods, list):
        raise DaylioFormatError(Phrase("the backup has no customMoods list"))
    out = {}
    for mood in moods:
        ident = _int(mood.get("id")) if isinstance(mood, dict) else None
        group = _int(mood.get("mood_group_id")) if isinstance(mood, dict) else None
        if ident is None or group is None or not 1 <= group <= 5:
            plan.problem(Phrase("customMoods: {mood} has no id or mood group 1-5",
                                mood=json.dumps(mood)[:80]))
            continue
        custom = mood.get("custom_name")
        name = custom.strip() if isinstance(custom, str) and custom.strip() else \
            PREDEFINED.get(_int(mood.get("predefined_name_id")) or 0)
        if name is None:
            plan.problem(Phrase("customMoods: mood {id} has neither a name nor a predefined one",
                                id=ident))
            continue
        out[ident] = (6 - group, name)
    return out


def _group_names(groups) -> tuple[dict[int, str], dict[str, int]]:
    """Daylio's tag groups: id -> name, and name -> its place in Daylio's order."""
    names, ordered = {}, []
    for group in groups if isinstance(groups, list) else []:
        if isinstance(group, dict) and _int(group.get("id")) is not None \
                and isinstance(group.get("name"), str) and group["name"].strip():
            names[group["id"]] = group["name"].strip()
            ordered.append((_int(group.get("order")) or 0, group["id"], group["name"].strip()))
    return names, {name: place for place, (_, _, name) in enumerate(sorted(ordered))}


def _backup_tags(plan: Plan, tags, groups) -> dict[int, str]:
    if tags is None:
        return {}
    if not isinstance(tags, list):
        raise DaylioFormatError(Phrase("the backup's tags are not a list"))
    group_names, group_places = _group_names(groups)
    out, every, pictured = {}, [], []
    for tag in tags:
        ident = _int(tag.get("id")) if isinstance(tag, dict) else None
        name = tag.get("name") if isinstance(tag, dict) else None
        if ident is None or not isinstance(name, str) or not name.strip():
            plan.problem(Phrase("tags: {tag} has no id or name", tag=json.dumps(tag)[:80]))
            continue
        out[ident] = name.strip()
        group = group_names.get(_int(tag.get("id_tag_group")) or 0)
        if group:
            plan.groups[name.strip()] = group
        # every tag, used or not, archived (state 1) as it was: made by the restore step
        every.append({"name": name.strip(), "group": group,
                      "archived": _int(tag.get("state")) not in (0, None)})
        pictured.append((name.strip(), tag.get("icon"), group))
    icons = tag_icons(pictured, group_places)
    for item in every:
        item["icon"] = icons[item["name"]]
    if every:
        plan.extras = {**plan.extras, "activities": every}
    return out


def _backup_when(plan: Plan, fields: dict[str, int], errors: list) -> tuple[date | None,
                                                                           int | None]:
    """An entry's day and minute of the day (None: no time recorded) from its whole-number
    fields; what is wrong with them is added to `errors`."""
    day = minute = None
    try:
        day = date(fields["year"], fields["month"] + 1, fields["day"])  # month is 0-based
    except (ValueError, OverflowError):
        shown = [str(fields["year"])[:12]] + [str(n)[:12].zfill(2) for n in (
            fields["month"] + 1, fields["day"])]
        errors.append(Phrase("{date} is not a real day (month is 0-based in backups)",
                             date="-".join(shown)))
    else:
        plan.saw_day(day)
    if fields["hour"] == -1:
        minute = None  # no time recorded
    elif 0 <= fields["hour"] <= 23 and 0 <= fields["minute"] <= 59:
        minute = fields["hour"] * 60 + fields["minute"]
    else:
        errors.append(Phrase("{time} is not a time of day",
                             time=f"{str(fields['hour'])[:12]}:{str(fields['minute'])[:12]}"))
    return day, minute


def _backup_row(plan: Plan, entry, position: int, moods: dict, tags: dict, identity: str
                ) -> tuple[Row | None, int]:
    if not isinstance(entry, dict):
        plan.problem(Phrase("{where}: not an object", where=f"dayEntries[{position}]"))
        return None, 0
    ident = _int(entry.get("id"))
    where = at_entry(ident) if ident is not None else f"dayEntries[{position}]"
    fields = {k: _int(entry.get(k)) for k in ("year", "month", "day", "hour", "minute")}
    errors = [Phrase("{field} is not a whole number", field=k) for k, v in fields.items()
              if v is None]
    day, minute = _backup_when(plan, fields, errors) if not errors else (None, None)
    mood = moods.get(_int(entry.get("mood")))
    if mood is None:
        errors.append(Phrase("mood id {id} is not in customMoods", id=repr(entry.get("mood"))))
    tag_ids = entry.get("tags", [])
    if not isinstance(tag_ids, list):
        errors.append(Phrase("tags is not a list"))
        tag_ids = []
    unknown = [t for t in tag_ids if _int(t) not in tags]
    if unknown:
        errors.append(n_("tag id {ids} not in tags", "tag ids {ids} not in tags", len(unknown),
                         ids=str(unknown)))
    notes = {k: entry.get(k) or "" for k in ("note", "note_title")}
    errors += [Phrase("{field} is not text", field=k) for k, v in notes.items()
               if not isinstance(v, str)]
    offset_ms = _int(entry.get("timeZoneOffset"))
    if offset_ms is None or abs(offset_ms) > 18 * 3600 * 1000:
        errors.append(Phrase("timeZoneOffset {value} is not an offset",
                             value=repr(entry.get("timeZoneOffset"))))
    for message in errors:
        plan.problem(Phrase("{where}: {problem}", where=where, problem=message))
    if errors:
        return None, 0
    offset_s = offset_ms // 1000
    mismatch = 0
    instant = _int(entry.get("datetime"))
    if instant is not None and minute is not None:
        local_ms = (date_ordinal_ms(day) + minute * 60_000)
        if instant + offset_ms - local_ms not in range(0, 60_000):  # seconds may be kept
            mismatch = 1
            if offset_ms == 0:
                offset_s = None  # an anonymised backup: read the wall time in the user's zone
    level, name = mood
    plan.moods[(name, level)] += 1
    return Row(where, day, minute, offset_s, level, name,
               list(dict.fromkeys(tags[t] for t in tag_ids)),
               html_to_text(notes["note_title"], plan.html), html_to_text(notes["note"], plan.html),
               [], f"daylio-backup:{identity}:{ident}"), mismatch


def _goal_id(goal: dict) -> int | None:
    return _int(goal.get("goal_id")) if _int(goal.get("goal_id")) is not None else _int(
        goal.get("id"))


def _goal_days(listed) -> dict[int, list[str]]:
    """goalEntries -> goal id -> the days checked off. Their month is 0-based in some
    backups and 1-based in others: a 0 or a 12 settles it; otherwise the convention that puts
    the days nearer to when each check-off was made (createdAt) wins."""
    raw = [(_int(e.get("goalId")), _int(e.get("year")), _int(e.get("month")), _int(e.get("day")),
            _int(e.get("createdAt"))) for e in listed if isinstance(e, dict)] \
        if isinstance(listed, list) else []
    raw = [r for r in raw if None not in r[:4]]

    def day_of(r, base: int) -> date | None:
        try:
            return date(r[1], r[2] + 1 - base, r[3])
        except (ValueError, OverflowError):
            return None

    def distance(base: int) -> float:
        total = 0.0
        for r in raw:
            found = day_of(r, base)
            if found is None:
                total += 1e9
            elif r[4] is not None:
                made = datetime.fromtimestamp(r[4] / 1000, timezone.utc).date() if 0 < r[4] < 4e12 \
                    else found
                total += abs((made - found).days)
        return total

    months = {r[2] for r in raw}
    base = 0 if 0 in months else 1 if 12 in months else min((0, 1), key=distance)
    out: dict[int, list[str]] = {}
    for r in raw:
        found = day_of(r, base)
        if found is not None:
            out.setdefault(r[0], []).append(found.isoformat())
    return out


def _backup_goals(plan: Plan, document: dict, tags: dict[int, str]) -> None:
    """Goals -> k-mood goals made by the import's restore step: a tag's goal counts the days
    with that activity; one without a tag is checked off by hand (its goalEntries become the
    check-ins). repeat_type 1 is a set of weekdays (a 7-bit mask: that many days a week), 2
    a number of days a week, 3 a number a month; others are reported and left out. The
    backup's successful weeks are kept to be compared with what k-mood counts."""
    listed = document.get("goals")
    if not isinstance(listed, list) or not listed:
        return
    days = _goal_days(document.get("goalEntries"))
    weeks: dict[int, list[list[int]]] = {}
    success = document.get("goalSuccessWeeks")
    for w in success if isinstance(success, list) else ():
        if isinstance(w, dict) and None not in (_int(w.get("goal_id")), _int(w.get("year")),
                                                _int(w.get("week"))):
            weeks.setdefault(_int(w["goal_id"]), []).append([_int(w["year"]), _int(w["week"])])
    found, named = [], set()
    for goal in listed:
        if not isinstance(goal, dict):
            continue
        tag = tags.get(_int(goal.get("id_tag")) or 0)
        name = goal.get("name") if isinstance(goal.get("name"), str) else ""
        name = html_to_text(name, plan.html).strip() or (tag or "")
        kind, value = _int(goal.get("repeat_type")), _int(goal.get("repeat_value")) or 0
        period, target = {1: ("week", bin(value & 127).count("1")), 2: ("week", value),
                          3: ("month", value)}.get(kind, (None, 0))
        if not name or period is None or not 1 <= target <= (7 if period == "week" else 31):
            plan.warnings.append(Phrase("a goal ({name}) with a repeat this build does not read:"
                                        " left out", name=name[:40]) if name[:40] else
                                 Phrase("a goal (no name) with a repeat this build does not"
                                        " read: left out"))
            continue
        name = name[:60]
        if name_key(name) in named:  # two goals, one name (two on one tag): both kept, told apart
            name = f"{name} ({period})" if name_key(f"{name} ({period})") not in named else (
                f"{name} ({len(named) + 1})")
        named.add(name_key(name))
        created = _int(goal.get("created_at"))
        item = {"name": name, "activity": tag, "period": period, "target": target,
                "archived": _int(goal.get("state")) not in (0, None),
                "created_ms": created}  # its start: that moment's day where the person lives
        if tag is None:
            item["checkins"] = days.get(_goal_id(goal), [])
        if period == "week":
            item["success_weeks"] = weeks.get(_goal_id(goal), [])
        found.append(item)
    if found:
        plan.extras = {**plan.extras, "goals": found}


def _backup_templates(plan: Plan, listed) -> None:
    """Writing templates (HTML, like notes) -> note templates made by the import's restore
    step: the template's title names it, its body is the note it starts."""
    found = []
    for item in listed if isinstance(listed, list) else ():
        if not isinstance(item, dict):
            continue
        title, body = item.get("title"), item.get("body")
        name = html_to_text(title, plan.html).strip() if isinstance(title, str) else ""
        note = html_to_text(body, plan.html).strip() if isinstance(body, str) else ""
        if name and note:
            found.append({"name": name[:64], "note_title": "", "note": note})
        elif name or note:
            plan.warnings.append(Phrase("a writing template without a title or a text: left"
                                        " out"))
    if found:
        plan.extras = {**plan.extras, "templates": found}


def _backup_reminders(plan: Plan, listed) -> None:
    """Daylio's reminders are not made (a k-mood reminder needs a channel: ntfy, Gotify or a
    webhook): the report names their times, to set up under Settings → Reminders."""
    times = []
    for item in listed if isinstance(listed, list) else ():
        hour = _int(item.get("hour")) if isinstance(item, dict) else None
        minute = _int(item.get("minute")) if isinstance(item, dict) else None
        if hour is not None and minute is not None and 0 <= hour < 24 and 0 <= minute < 60:
            at = f"{hour:02d}:{minute:02d}"
            times.append(Phrase("{time} (off)", time=at) if _int(item.get("state")) not in (
                0, None) else at)
    if times:
        plan.ignored.append(n_(
            "Daylio reminder at {times}: not made — set it up under Settings → Reminders, where"
            " you choose how it reaches you (ntfy, Gotify or a webhook)",
            "Daylio reminders at {times}: not made — set them up under Settings → Reminders,"
            " where you choose how it reaches you (ntfy, Gotify or a webhook)", len(times),
            times=listing(times[:10])))


def _backup_ignored(plan: Plan, document: dict) -> None:
    _backup_reminders(plan, document.get("reminders"))
    for key, what in (("prefs", N_("app preferences not imported")),):
        if document.get(key):
            plan.ignored.append(Phrase(what))
    if "pin" in document or any("pin" in str(k).lower() for k in (document.get("prefs") or {})
                                if isinstance(document.get("prefs"), dict)):
        plan.ignored.append(Phrase("the app PIN in the backup was neither read nor stored"))
