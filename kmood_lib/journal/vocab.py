"""A user's vocabularies: the five mood labels, activities (grouped), and metrics."""

from __future__ import annotations

import json
import sqlite3

from kmood_lib.core.emoji import icon_problem
from kmood_lib.core.errors import NotFound, ValidationError
from kmood_lib.core.i18n import Phrase
from kmood_lib.core.text import name_key
from kmood_lib.core.validation import Fields

MAX_NAME = 64
MAX_UNIT = 32


def mood_labels(conn: sqlite3.Connection, user_id: int) -> dict[int, str]:
    rows = conn.execute("SELECT level, label FROM mood_labels WHERE user_id = ?", (user_id,))
    return {row["level"]: row["label"] for row in rows}


def set_mood_label(conn: sqlite3.Connection, user_id: int, level: int, body: dict) -> None:
    f = Fields()
    f.reject_fields(body, {"label"}, {"level"})
    label = f.text(body, "label", 32, required=True, min_len=1, is_name=True)
    f.raise_if_any()
    if not 1 <= level <= 5:
        raise NotFound("mood")
    conn.execute("UPDATE mood_labels SET label = ? WHERE user_id = ? AND level = ?",
                 (label, user_id, level))


# --- activities ---------------------------------------------------------------------------

def ensure_group(conn, user_id: int, group: str | None) -> int | None:
    if group is None:
        return None
    key = name_key(group)
    conn.execute("INSERT INTO activity_groups (user_id, name, name_key) VALUES (?, ?, ?)"
                 " ON CONFLICT (user_id, name_key) DO NOTHING", (user_id, group, key))
    return conn.execute("SELECT id FROM activity_groups WHERE user_id = ? AND name_key = ?",
                        (user_id, key)).fetchone()[0]


def add_activities(conn: sqlite3.Connection, user_id: int, encoded: str, now_ms: int) -> None:
    """Create the activities of `encoded` ([[name, name key], ...]) the user does not have yet
    (a name matches an existing activity by its name key; the first spelling wins)."""
    conn.execute("INSERT INTO activities (user_id, name, name_key, created_at)"
                 " SELECT ?, json_extract(value, '$[0]'), json_extract(value, '$[1]'), ?"
                 " FROM json_each(?) WHERE true"
                 " ON CONFLICT (user_id, name_key) DO NOTHING", (user_id, now_ms, encoded))


def ensure_activities(conn: sqlite3.Connection, user_id: int, names: list[str], now_ms: int,
                      entry_id: int) -> None:
    """Link the entry to these activities, creating unknown names (inside the entry's
    transaction); a name matches an existing activity by its name key."""
    encoded = json.dumps([[name, name_key(name)] for name in names])
    add_activities(conn, user_id, encoded, now_ms)
    conn.execute("INSERT INTO entry_activities (entry_id, activity_id)"
                 " SELECT ?, id FROM activities WHERE user_id = ? AND name_key IN"
                 " (SELECT json_extract(value, '$[1]') FROM json_each(?))",
                 (entry_id, user_id, encoded))


def activity_ids(conn: sqlite3.Connection, user_id: int, names: list[str], now_ms: int
                 ) -> dict[str, int]:
    """name key -> activity id for these names, creating the unknown ones (first spelling)."""
    spelled = {}
    for name in names:
        spelled.setdefault(name_key(name), name)
    encoded = json.dumps([[name, key] for key, name in spelled.items()])
    add_activities(conn, user_id, encoded, now_ms)
    return dict(conn.execute("SELECT name_key, id FROM activities WHERE user_id = ? AND name_key"
                             " IN (SELECT json_extract(value, '$[1]') FROM json_each(?))",
                             (user_id, encoded)).fetchall())


_ACTIVITY_SELECT = (
    "SELECT a.id, a.name, a.icon, g.name AS grp, a.archived_at IS NOT NULL AS archived,"
    " (SELECT count(*) FROM entry_activities ea WHERE ea.activity_id = a.id) AS uses"
    " FROM activities a LEFT JOIN activity_groups g ON g.id = a.group_id"
)


def activity_json(row) -> dict:
    return {"id": row["id"], "name": row["name"], "icon": row["icon"], "group": row["grp"],
            "entries": row["uses"], "archived": bool(row["archived"])}


def list_activities(conn: sqlite3.Connection, user_id: int) -> list[dict]:
    """All of them, archived ones included (flagged): named groups first."""
    rows = conn.execute(_ACTIVITY_SELECT + " WHERE a.user_id = ? ORDER BY g.name IS NULL,"
                        " g.name_key, a.name_key", (user_id,))
    return [activity_json(r) for r in rows]


def get_activity(conn, user_id: int, activity_id: int) -> dict:
    row = conn.execute(_ACTIVITY_SELECT + " WHERE a.user_id = ? AND a.id = ?",
                       (user_id, activity_id)).fetchone()
    if row is None:
        raise NotFound("activity")
    return activity_json(row)


def check_icon(f: Fields, body: dict) -> str | None:
    """An activity's icon: one emoji (surrounding spaces dropped); null or empty for none."""
    value = body.get("icon")
    if value is None:
        return None
    if not isinstance(value, str):
        f.fail("icon", "must be a string or null")
        return None
    wrong = icon_problem(value.strip()) if value.strip() else None
    if wrong:
        f.fail("icon", wrong)
    return value.strip() or None


def _check_activity(body: dict, create: bool) -> tuple[str | None, str | None, str | None]:
    f = Fields()
    f.reject_fields(body, {"name", "group", "icon"} | (set() if create else {"archived"}),
                    {"id", "entries"})
    name = f.text(body, "name", MAX_NAME, required=create, min_len=1, is_name=True)
    group = f.text(body, "group", MAX_NAME, nullable=True, min_len=1, is_name=True) if body.get(
        "group") is not None else None
    icon = check_icon(f, body)
    if "archived" in body and not isinstance(body["archived"], bool):
        f.fail("archived", "must be true or false")
    f.raise_if_any()
    return name, group, icon


def create_activity(conn, user_id: int, body: dict, now_ms: int) -> dict:
    name, group, icon = _check_activity(body, create=True)
    try:
        row = conn.execute(
            "INSERT INTO activities (user_id, name, name_key, group_id, icon, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
            (user_id, name, name_key(name), ensure_group(conn, user_id, group), icon,
             now_ms)).fetchall()
    except sqlite3.IntegrityError:
        raise ValidationError({"name": Phrase("an activity with this name exists")}) from None
    return get_activity(conn, user_id, row[0]["id"])


def update_activity(conn, user_id: int, activity_id: int, body: dict, now_ms: int) -> dict:
    """Rename, regroup, give or take its icon (`"icon": null` takes it), or archive
    (`"archived": true`: hidden from the log form, kept on its entries) and restore."""
    name, group, icon = _check_activity(body, create=False)
    get_activity(conn, user_id, activity_id)
    if "archived" in body:
        conn.execute("UPDATE activities SET archived_at = CASE WHEN ? THEN coalesce(archived_at,"
                     " ?) END WHERE id = ? AND user_id = ?",
                     (body["archived"], now_ms, activity_id, user_id))
    if "icon" in body:
        conn.execute("UPDATE activities SET icon = ? WHERE id = ? AND user_id = ?",
                     (icon, activity_id, user_id))
    try:
        if name is not None:
            conn.execute("UPDATE activities SET name = ?, name_key = ? WHERE id = ? AND user_id = ?",
                         (name, name_key(name), activity_id, user_id))
        if "group" in body:
            conn.execute("UPDATE activities SET group_id = ? WHERE id = ? AND user_id = ?",
                         (ensure_group(conn, user_id, group), activity_id, user_id))
    except sqlite3.IntegrityError:
        raise ValidationError({"name": Phrase("an activity with this name exists")}) from None
    return get_activity(conn, user_id, activity_id)


def delete_activity(conn, user_id: int, activity_id: int) -> None:
    if conn.execute("DELETE FROM activities WHERE id = ? AND user_id = ?",
                    (activity_id, user_id)).rowcount == 0:
        raise NotFound("activity")


# Several activities at once: regroup, archive, restore or delete the ones selected.
BULK_ACTIONS = ("group", "archive", "restore", "delete")
MAX_BULK = 1000


def check_bulk(body: dict) -> tuple[list[int], str, str | None]:
    f = Fields()
    f.reject_fields(body, {"ids", "action", "group"}, set())
    ids = body.get("ids")
    if not isinstance(ids, list) or not ids:
        f.fail("ids", "select at least one activity")
    elif len(ids) > MAX_BULK:
        f.fail("ids", f"at most {MAX_BULK} at once")
    elif not all(type(i) is int and 0 < i < 2 ** 63 for i in ids):
        f.fail("ids", "must be activity ids")
    action = body.get("action")
    if action not in BULK_ACTIONS:
        f.fail("action", "must be one of " + ", ".join(BULK_ACTIONS))
    group = None
    if action == "group" and body.get("group") is not None:
        group = f.text(body, "group", MAX_NAME, min_len=1, is_name=True)
    elif action != "group" and "group" in body and body["group"] is not None:
        f.fail("group", "only with the action group")
    f.raise_if_any()
    return sorted(set(ids)), action, group


def activities_reach(conn, user_id: int, ids: list[int]) -> dict:
    """What a change to these activities touches: how many there are and on how many
    entries they are (an entry with several of them counts once). Any id that is not one of
    the user's activities is a 404."""
    encoded = json.dumps(ids)
    row = conn.execute(
        "SELECT (SELECT count(*) FROM activities WHERE user_id = ? AND id IN"
        "   (SELECT value FROM json_each(?))) AS activities,"
        " (SELECT count(DISTINCT ea.entry_id) FROM entry_activities ea"
        "   JOIN activities a ON a.id = ea.activity_id WHERE a.user_id = ? AND a.id IN"
        "   (SELECT value FROM json_each(?))) AS entries",
        (user_id, encoded, user_id, encoded)).fetchone()
    if row["activities"] != len(set(ids)):
        raise NotFound("activity")
    return {"activities": row["activities"], "entries": row["entries"]}


def change_activities(conn, user_id: int, body: dict, now_ms: int) -> dict:
    """`{"ids": [...], "action": "group" | "archive" | "restore" | "delete", "group": name}`:
    all of them or none (an id that is not the user's changes nothing). Returns what it
    touched: the action, the count of activities and of their entries, the group."""
    ids, action, group = check_bulk(body)
    reach = activities_reach(conn, user_id, ids)
    encoded = json.dumps(ids)
    where = " WHERE user_id = ? AND id IN (SELECT value FROM json_each(?))"
    if action == "group":
        conn.execute("UPDATE activities SET group_id = ?" + where,
                     (ensure_group(conn, user_id, group), user_id, encoded))
    elif action == "archive":
        conn.execute("UPDATE activities SET archived_at = coalesce(archived_at, ?)" + where,
                     (now_ms, user_id, encoded))
    elif action == "restore":
        conn.execute("UPDATE activities SET archived_at = NULL" + where, (user_id, encoded))
    else:
        conn.execute("DELETE FROM activities" + where, (user_id, encoded))
    return {"action": action, "group": group, **reach}


def list_groups(conn, user_id: int) -> list[dict]:
    rows = conn.execute(
        "SELECT g.id, g.name, (SELECT count(*) FROM activities a WHERE a.group_id = g.id)"
        " AS activities FROM activity_groups g WHERE g.user_id = ? ORDER BY g.name_key",
        (user_id,))
    return [dict(r) for r in rows]


def rename_group(conn, user_id: int, group_id: int, body: dict) -> None:
    f = Fields()
    f.reject_fields(body, {"name"}, {"id"})
    name = f.text(body, "name", MAX_NAME, required=True, min_len=1, is_name=True)
    f.raise_if_any()
    try:
        found = conn.execute("UPDATE activity_groups SET name = ?, name_key = ?"
                             " WHERE id = ? AND user_id = ?",
                             (name, name_key(name), group_id, user_id)).rowcount
    except sqlite3.IntegrityError:
        raise ValidationError({"name": Phrase("a group with this name exists")}) from None
    if not found:
        raise NotFound("group")


def delete_group(conn, user_id: int, group_id: int) -> None:
    """Its activities stay, without a group (the foreign key sets it to NULL)."""
    if conn.execute("DELETE FROM activity_groups WHERE id = ? AND user_id = ?",
                    (group_id, user_id)).rowcount == 0:
        raise NotFound("group")


# --- metrics ------------------------------------------------------------------------------

def metric_json(row) -> dict:
    return {"id": row["id"], "name": row["name"], "unit": row["unit"], "min": row["min_value"],
            "max": row["max_value"]}


def list_metrics(conn, user_id: int) -> list[dict]:
    rows = conn.execute("SELECT * FROM metrics WHERE user_id = ? ORDER BY name_key", (user_id,))
    return [metric_json(r) for r in rows]


def metric_defs(conn, user_id: int) -> dict[str, tuple]:
    """name key -> (id, name, min, max), for checking entry input."""
    rows = conn.execute("SELECT id, name, name_key, min_value, max_value FROM metrics"
                        " WHERE user_id = ?", (user_id,))
    return {r["name_key"]: (r["id"], r["name"], r["min_value"], r["max_value"]) for r in rows}


def get_metric(conn, user_id: int, metric_id: int) -> dict:
    row = conn.execute("SELECT * FROM metrics WHERE user_id = ? AND id = ?",
                       (user_id, metric_id)).fetchone()
    if row is None:
        raise NotFound("metric")
    return metric_json(row)


def _check_metric(body: dict, current: dict | None) -> dict:
    f = Fields()
    f.reject_fields(body, {"name", "unit", "min", "max"}, {"id"})
    out = {}
    if "name" in body or current is None:
        out["name"] = f.text(body, "name", MAX_NAME, required=True, min_len=1, is_name=True)
    if "unit" in body:
        out["unit"] = f.text(body, "unit", MAX_UNIT, is_name=True) or ""
    for bound in ("min", "max"):
        if bound in body:
            out[bound] = None if body[bound] is None else f.number(body[bound], bound)
    lo = out.get("min", current and current["min"])
    hi = out.get("max", current and current["max"])
    if lo is not None and hi is not None and lo > hi:
        f.fail("min", "must not exceed max")
    f.raise_if_any()
    return out


def create_metric(conn, user_id: int, body: dict, now_ms: int) -> dict:
    values = _check_metric(body, None)
    try:
        row = conn.execute(
            "INSERT INTO metrics (user_id, name, name_key, unit, min_value, max_value,"
            " created_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id",
            (user_id, values["name"], name_key(values["name"]), values.get("unit", ""),
             values.get("min"), values.get("max"), now_ms)).fetchall()
    except sqlite3.IntegrityError:
        raise ValidationError({"name": Phrase("a metric with this name exists")}) from None
    return get_metric(conn, user_id, row[0]["id"])


_METRIC_COLUMNS = {"name": "name", "name_key": "name_key", "unit": "unit", "min": "min_value",
                   "max": "max_value"}


def update_metric(conn, user_id: int, metric_id: int, body: dict, now_ms: int) -> dict:
    values = _check_metric(body, get_metric(conn, user_id, metric_id))
    try:
        if "name" in values:
            values["name_key"] = name_key(values["name"])
        for key, value in values.items():
            conn.execute(f"UPDATE metrics SET {_METRIC_COLUMNS[key]} = ?"  # column from a fixed map
                         " WHERE id = ? AND user_id = ?", (value, metric_id, user_id))
    except sqlite3.IntegrityError:
        raise ValidationError({"name": Phrase("a metric with this name exists")}) from None
    return get_metric(conn, user_id, metric_id)


def delete_metric(conn, user_id: int, metric_id: int) -> None:
    if conn.execute("DELETE FROM metrics WHERE id = ? AND user_id = ?",
                    (metric_id, user_id)).rowcount == 0:
        raise NotFound("metric")
