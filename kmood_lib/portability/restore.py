"""What a k-mood export brings besides its entries, put back when it is imported: mood labels,
activities (groups, archived) and metrics, the ListenBrainz and Last.fm names, reminders, note
templates (a Daylio backup's writing templates too), and the weather already fetched for its
entries.

Nothing here overwrites what the person set on this server: a label, group, name or setting
of their own stays. Reminders come back switched off when they had a token (an export never
carries one): they wait for it to be entered again. Each item is checked by the same domain
function the API uses; one that does not pass is left out with a line in the report.
"""

from __future__ import annotations

import functools
from zoneinfo import ZoneInfo

from kmood_lib.accounts import users
from kmood_lib.core.errors import DomainError
from kmood_lib.core.i18n import Languages, Phrase
from kmood_lib.core.text import name_key
from kmood_lib.journal import goals, templates, vocab
from kmood_lib.portability.counted import JOINED, listing, n_
from kmood_lib.portability.daylio.plan import Plan
from kmood_lib.reminders import schedule

REMINDER_FIELDS = ("time", "weekdays", "timezone", "channel", "url", "title", "message",
                   "skip_if_logged", "enabled")


def apply(conn, user_id: int, tz: ZoneInfo, plan: Plan, now_ms: int, allow_private_urls: bool
          ) -> list[str]:
    """Put the export's extras back (inside the import's transaction); returns report lines."""
    extras = plan.extras
    if not extras:
        return []
    done = [_labels(conn, user_id, extras.get("moods") or {}),
            _activities(conn, user_id, extras.get("activities") or [], now_ms, plan),
            _metrics(conn, user_id, extras.get("metrics") or [], now_ms, plan),
            _integrations(conn, user_id, extras.get("user") or {}, now_ms),
            _reminders(conn, user_id, tz, extras.get("reminders") or [], now_ms,
                       allow_private_urls, plan),
            _templates(conn, user_id, extras.get("templates") or [], now_ms, plan),
            _goals(conn, user_id, tz, extras.get("goals") or [], now_ms, plan)]
    return [line for line in done if line]


def _goals(conn, user_id: int, tz: ZoneInfo, listed: list[dict], now_ms: int, plan: Plan
           ) -> str | None:
    """Goals made where the person has none of that name; a backup's successful weeks are
    compared with what k-mood counts from the imported journal, and a difference is said."""
    made, problems = goals.ensure_goals(conn, user_id, listed, now_ms, tz)
    plan.warnings.extend(Phrase("left out: {problem}", problem=p) for p in problems)
    for item in listed:
        said = item.get("success_weeks") if isinstance(item, dict) else None
        if not isinstance(said, list) or item["name"] not in made:
            continue
        theirs = {(w[0], w[1]) for w in said if isinstance(w, list) and len(w) == 2
                  and all(isinstance(n, int) and not isinstance(n, bool) for n in w)}
        ours = goals.successful_weeks(conn, user_id, item["name"])
        if theirs != ours:
            plan.warnings.append(n_(
                "goal {name}: the backup counts {n} successful week, k-mood counts {ours} from"
                " the journal (k-mood's count is shown; weeks that differ: {weeks})",
                "goal {name}: the backup counts {n} successful weeks, k-mood counts {ours} from"
                " the journal (k-mood's count is shown; weeks that differ: {weeks})",
                len(theirs), name=repr(item["name"][:40]), ours=len(ours),
                weeks=_weeks(theirs ^ ours)))
    return n_("{n} goal added", "{n} goals added", len(made)) if made else None


def _weeks(weeks: set) -> str:
    shown = sorted(weeks)[:6]
    return ", ".join(f"{y}-W{w:02d}" for y, w in shown) + (" …" if len(weeks) > 6 else "")


def _templates(conn, user_id: int, listed: list[dict], now_ms: int, plan: Plan) -> str | None:
    """Note templates made where the person has none of that name."""
    made, problems = templates.ensure_templates(conn, user_id, listed, now_ms)
    plan.warnings.extend(Phrase("left out: {problem}", problem=p) for p in problems)
    return n_("{n} note template added", "{n} note templates added", made) if made else None


def describe(plan: Plan) -> list[str]:
    """What a dry run of the same file would put back, in the report's words."""
    extras = plan.extras
    if not extras:
        return []
    reminders = extras.get("reminders") or []
    lines = [Phrase("mood labels, {activities} and {metrics} from the file are kept where you"
                    " have none of your own",
                    activities=n_("{n} activity", "{n} activities",
                                  len(extras.get("activities") or [])),
                    metrics=n_("{n} metric", "{n} metrics", len(extras.get("metrics") or [])))
             ] if set(extras) - {"templates", "goals"} else []
    if reminders:
        lines.append(n_("{n} reminder would come back, switched off until its token is entered"
                        " again (an export never carries tokens)",
                        "{n} reminders would come back, switched off until their token is"
                        " entered again (an export never carries tokens)", len(reminders)))
    if extras.get("goals"):
        lines.append(n_("{n} goal would be added where you have none of that name",
                        "{n} goals would be added where you have none of that name",
                        len(extras["goals"])))
    if extras.get("templates"):
        lines.append(n_("{n} note template would be added where you have none of that name",
                        "{n} note templates would be added where you have none of that name",
                        len(extras["templates"])))
    return lines


@functools.lru_cache(maxsize=1)
def default_labels() -> dict[int, frozenset[str]]:
    """Level -> the default mood label in every language this build has: a new account starts
    with them in the language it was made in (accounts.users), and a label still at one of
    them is not the person's own."""
    languages = Languages()
    said = {level: {label} for level, label in users.DEFAULT_MOOD_LABELS.items()}
    for code in languages.codes:
        for level, label in users.default_mood_labels(languages.get(code).gettext).items():
            said[level].add(label)
    return {level: frozenset(labels) for level, labels in said.items()}


def _labels(conn, user_id: int, moods: dict) -> str | None:
    current = vocab.mood_labels(conn, user_id)
    changed = 0
    for level, label in moods.items():
        if current.get(level) in default_labels()[level] and label != current.get(level):
            try:
                vocab.set_mood_label(conn, user_id, level, {"label": label})
                changed += 1
            except DomainError:
                continue
    return n_("{n} mood label restored", "{n} mood labels restored", changed) if changed else None


def _activities(conn, user_id: int, listed: list[dict], now_ms: int, plan: Plan) -> str | None:
    """Activities no entry uses, archived ones and groups: created where missing; an icon
    given to an activity that has none (one the person chose stays)."""
    existing = {a["name_key"]: a for a in (
        {**a, "name_key": name_key(a["name"])} for a in vocab.list_activities(conn, user_id))}
    made = 0
    for item in listed:
        key = name_key(item["name"])
        try:
            if key not in existing:
                made += 1
                existing[key] = vocab.create_activity(
                    conn, user_id, {"name": item["name"], "group": item.get("group")}, now_ms)
                existing[key]["archived"] = False
            if item.get("archived") and not existing[key]["archived"]:
                vocab.update_activity(conn, user_id, existing[key]["id"], {"archived": True},
                                      now_ms)
        except DomainError as exc:
            plan.warnings.append(Phrase("activity {name} not restored: {reason}",
                                        name=repr(item["name"][:40]), reason=exc.message))
            continue
        _icon(conn, user_id, existing[key], item.get("icon"), now_ms, plan)
    return n_("{n} activity no entry uses restored", "{n} activities no entry uses restored",
              made) if made else None


def _icon(conn, user_id: int, activity: dict, icon, now_ms: int, plan: Plan) -> None:
    """The file's icon for an activity without one; one that is not an emoji is left out."""
    if icon is None or activity["icon"] is not None:
        return
    try:
        activity.update(vocab.update_activity(conn, user_id, activity["id"], {"icon": icon},
                                              now_ms))
    except DomainError as exc:
        plan.warnings.append(Phrase("activity {name}: its icon is left out ({reason})",
                                    name=repr(activity["name"][:40]),
                                    reason=exc.fields.get("icon", exc.message)))


def _metrics(conn, user_id: int, listed: list[dict], now_ms: int, plan: Plan) -> str | None:
    known = vocab.metric_defs(conn, user_id)
    made = 0
    for item in listed:
        if name_key(item["name"]) in known:
            continue
        try:
            vocab.create_metric(conn, user_id, {k: item.get(k) for k in ("name", "unit", "min",
                                                                         "max")}, now_ms)
            made += 1
        except DomainError as exc:
            plan.warnings.append(Phrase("metric {name} not restored: {reason}",
                                        name=repr(item["name"][:40]), reason=exc.message))
    return n_("{n} metric restored", "{n} metrics restored", made) if made else None


def _integrations(conn, user_id: int, user: dict, now_ms: int) -> str | None:
    mine = users.profile(conn, user_id)
    wanted = {k: user[k] for k in ("listenbrainz_user", "lastfm_user")
              if user.get(k) and not mine.get(k)}
    if not wanted:
        return None
    try:
        users.update_settings(conn, user_id, users.validate_settings(wanted), now_ms)
    except DomainError:
        return None
    return Phrase("now-playing names restored: {names}", names=", ".join(sorted(wanted)))


def _reminders(conn, user_id: int, tz: ZoneInfo, listed: list[dict], now_ms: int,
               allow_private_urls: bool, plan: Plan) -> str | None:
    have = {(r["time"], tuple(r["weekdays"]), r["timezone"], r["channel"], r["url"])
            for r in schedule.list_reminders(conn, user_id)}
    made = waiting = 0
    for item in listed:
        body = {k: item[k] for k in REMINDER_FIELDS if k in item}
        if item.get("has_token"):
            body["enabled"] = False
        try:
            values = schedule.parse_reminder(body, current=None, default_timezone=tz.key,
                                             allow_private=allow_private_urls)
        except DomainError as exc:
            plan.warnings.append(Phrase("reminder at {time} not restored: {reason}",
                                        time=str(item.get("time"))[:5],
                                        reason=listing(list(exc.fields.values()), JOINED)
                                        if exc.fields else exc.message))
            continue
        same = (body.get("time"), tuple(body.get("weekdays") or schedule.ALL_DAYS),
                values["timezone"], body.get("channel"), values["url"])
        if same in have:
            continue
        schedule.create_reminder(conn, user_id, values, now_ms)
        have.add(same)
        made += 1
        waiting += bool(item.get("has_token"))
    if not made:
        return None
    if not waiting:
        return n_("{n} reminder restored", "{n} reminders restored", made)
    return n_("{n} reminder restored; {waiting} switched off until their token is entered again"
              " (an export never carries tokens)",
              "{n} reminders restored; {waiting} switched off until their token is entered"
              " again (an export never carries tokens)", made, waiting=waiting)


WEATHER_SQL = (
    "INSERT INTO weather (entry_id, temperature_c, code, unavailable, fetched_at)"
    " SELECT id, ?, ?, ?, ? FROM entries WHERE user_id = ? AND import_key = ?"
    " ON CONFLICT (entry_id) DO NOTHING")


def weather(conn, user_id: int, imported: list[tuple[str, dict]], now_ms: int) -> None:
    """The weather the export held for entries just imported (by import key): the worker does
    not ask Open-Meteo for it again."""
    conn.executemany(WEATHER_SQL, [
        (w.get("temperature_c"), w.get("code"), int(bool(w.get("unavailable"))), now_ms,
         user_id, key) for key, w in imported])


def weather_of(value) -> dict | None:
    """An export's weather for one entry, if it is one this build would store."""
    if not isinstance(value, dict):
        return None
    if value.get("unavailable") is True:
        return {"unavailable": True}
    temperature, code = value.get("temperature_c"), value.get("code")
    if (isinstance(temperature, (int, float)) and not isinstance(temperature, bool)
            and -100 <= temperature <= 100 and isinstance(code, int)
            and not isinstance(code, bool) and 0 <= code <= 99):
        return {"temperature_c": float(temperature), "code": code}
    return None


def extras_of(document: dict) -> dict:
    """The export's extras in the shapes `apply` reads; what has another shape is left out."""
    def names(items, *keys):  # only the keys given: a missing one takes its default
        return [{k: i[k] for k in ("name", *keys) if k in i} for i in items or []
                if isinstance(i, dict) and isinstance(i.get("name"), str)] \
            if isinstance(items, list) else []

    moods = document.get("moods")
    labels = {int(k): v for k, v in moods.items() if k in ("1", "2", "3", "4", "5")
              and isinstance(v, str)} if isinstance(moods, dict) else {}
    reminders = document.get("reminders")
    user = document.get("user")
    return {"moods": labels, "activities": names(document.get("activities"), "group", "archived",
                                              "icon"),
            "metrics": names(document.get("metrics"), "unit", "min", "max"),
            "reminders": [r for r in reminders if isinstance(r, dict)]
            if isinstance(reminders, list) else [],
            "user": {k: v for k, v in user.items() if isinstance(v, str)}
            if isinstance(user, dict) else {},
            "templates": names(document.get("templates"), "note_title", "note"),
            "goals": names(document.get("goals"), "activity", "period", "target", "start_date",
                           "archived", "checkins")}

