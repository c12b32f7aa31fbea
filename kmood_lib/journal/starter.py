"""The starter set: groups of common activities with icons, offered on a new person's log page
so they start from Daylio's kind of list rather than an empty box. Offered until it is
answered — taken (all of it or the ones ticked), skipped, or made moot by the person's first
activity however it was made (a trigger of migration 0027 records that)."""

from __future__ import annotations

import sqlite3

from kmood_lib.core.errors import ValidationError
from kmood_lib.core.i18n import Phrase
from kmood_lib.core.text import name_key
from kmood_lib.journal import vocab

STARTER = (
    ("Social", (("friends", "👫"), ("family", "👪"), ("partner", "❤️"), ("party", "🎉"))),
    ("Hobbies", (("reading", "📖"), ("gaming", "🎮"), ("movies", "🎬"), ("music", "🎵"),
                 ("relax", "🛋️"))),
    ("Health", (("exercise", "💪"), ("walk", "🚶"), ("sport", "⚽"), ("eat healthy", "🥗"))),
    ("Chores", (("cleaning", "🧹"), ("shopping", "🛒"), ("cooking", "🍳"), ("laundry", "🧺"))),
    ("Sleep", (("good sleep", "😴"), ("medium sleep", "🛌"), ("bad sleep", "🥱"))),
)
# The icons Settings offers to pick from (any other emoji can be typed).
ICON_CHOICES = ("👫", "👪", "❤️", "🎉", "📖", "🎮", "🎬", "🎵", "🎨", "🛋️", "💪", "🚶", "⚽",
                "🧘", "🥗", "☕", "🧹", "🛒", "🍳", "🧺", "😴", "💼", "📚", "✈️", "🌳", "☀️",
                "🐶", "💊")
MAX_NAMES = 100
STARTER_NAMES = {name: (group, icon) for group, members in STARTER for name, icon in members}


def starter_offered(conn: sqlite3.Connection, user_id: int) -> bool:
    """Whether the person's log page offers the starter set: never answered, no activity yet."""
    row = conn.execute("SELECT starter_answered_at IS NULL AND NOT EXISTS (SELECT 1 FROM"
                       " activities WHERE user_id = users.id) FROM users WHERE id = ?",
                       (user_id,)).fetchone()
    return bool(row and row[0])


def answer(conn: sqlite3.Connection, user_id: int, names: list, now_ms: int) -> int:
    """Take these activities of the starter set (none: skip it) and stop offering it; returns
    how many were made. A name that is not in the set is refused and nothing changes; one the
    person already has is left as it is."""
    if not isinstance(names, list) or len(names) > MAX_NAMES \
            or not all(isinstance(n, str) for n in names):
        raise ValidationError({"names": Phrase("must be a list of names from the starter set")})
    unknown = [n for n in names if n not in STARTER_NAMES]
    if unknown:
        raise ValidationError({"names": Phrase("not in the starter set: {names}",
                                               names=", ".join(unknown)[:120])})
    have = {name_key(a["name"]) for a in vocab.list_activities(conn, user_id)}
    made = 0
    for name in dict.fromkeys(names):
        if name_key(name) not in have:
            group, icon = STARTER_NAMES[name]
            vocab.create_activity(conn, user_id, {"name": name, "group": group, "icon": icon},
                                  now_ms)
            made += 1
    conn.execute("UPDATE users SET starter_answered_at = coalesce(starter_answered_at, ?)"
                 " WHERE id = ?", (now_ms, user_id))
    return made


def starter_json() -> list[dict]:
    """The set as the API shows it: groups, each with its activities and their icons."""
    return [{"group": group, "activities": [{"name": n, "icon": i} for n, i in members]}
            for group, members in STARTER]
