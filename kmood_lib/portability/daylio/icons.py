"""A Daylio backup's activity icons as emoji. Daylio stores each tag's icon as a number into
its own icon set and publishes no table of what the numbers depict (one public importer fills
one in by hand from its author's phone), so the number alone is never read as a picture.
What is obvious is used instead, in this order:

1. the tag's name, when it names a common activity plainly ("reading", "good sleep", the
   names Daylio's own default activities have);
2. the icon number of such a tag: another tag showing the same Daylio icon gets the same
   emoji (when the named tags with that icon agree);
3. else a default for its group: one that fits the group's name ("Sleep", "Food", ...), or a
   coloured circle of its own per group (the group's place in Daylio's order), so a group's
   activities still look alike; a tag without a group gets none.
"""

from __future__ import annotations

from kmood_lib.core.text import name_key
from kmood_lib.journal.starter import STARTER_NAMES

# Plain names of common activities (English, as Daylio's defaults are named), by name key.
BY_NAME = {name: icon for name, (_, icon) in STARTER_NAMES.items()} | {
    "date": "💑", "movies & tv": "📺", "tv": "📺", "sleep early": "🌙", "fast food": "🍔",
    "homemade": "🍲", "restaurant": "🍽️", "delivery": "🛵", "drink water": "💧",
    "meditation": "🧘", "kindness": "🤝", "donate": "💝", "give gift": "🎁", "work": "💼",
    "school": "🏫", "study": "📚", "travel": "✈️", "coffee": "☕", "beer": "🍺", "wine": "🍷",
    "swimming": "🏊", "running": "🏃", "cycling": "🚴", "yoga": "🧘", "gym": "🏋️",
    "shower": "🚿", "doctor": "🩺", "nature": "🌳", "dog": "🐶", "cat": "🐱", "garden": "🌱",
    "gardening": "🌱", "painting": "🎨", "drawing": "✏️", "photography": "📷", "writing": "✍️",
    "sun": "☀️", "sunny": "☀️", "rain": "🌧️", "rainy": "🌧️", "snow": "❄️", "cloudy": "☁️",
    "happy": "😊", "sad": "😢", "angry": "😠", "anxious": "😰", "tired": "😩", "excited": "🤩",
    "grateful": "🙏", "relaxed": "😌", "stressed": "😫", "bored": "🥱", "music": "🎵",
}
BY_GROUP = {
    "social": "👥", "hobbies": "🎨", "sleep": "😴", "food": "🍽️", "health": "💪",
    "better me": "🌱", "chores": "🧹", "emotions": "💭", "feelings": "💭", "work": "💼",
    "school": "🎓", "weather": "🌤️", "romance": "❤️", "places": "📍", "beauty": "💄",
    "productivity": "✅", "sport": "⚽", "sports": "⚽",
}
GROUP_CIRCLES = ("🔵", "🟢", "🟣", "🟠", "🟡", "🔴", "🟤", "⚫", "⚪")


def by_name(name: str) -> str | None:
    return BY_NAME.get(name_key(name.strip()))


def group_default(group: str | None, place: int) -> str | None:
    """A group's icon: one its name calls for, else a coloured circle by its place."""
    if not group:
        return None
    return BY_GROUP.get(name_key(group.strip())) or GROUP_CIRCLES[place % len(GROUP_CIRCLES)]


def _number(value) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _shared_numbers(tags: list[tuple[str, object, str | None]]) -> dict[int, str]:
    """Daylio icon number -> the emoji the named tags showing it agree on."""
    seen: dict[int, set[str]] = {}
    for name, number, _ in tags:
        found = by_name(name)
        if found and _number(number) is not None:
            seen.setdefault(number, set()).add(found)
    return {number: icons.pop() for number, icons in seen.items() if len(icons) == 1}


def tag_icons(tags: list[tuple[str, object, str | None]], group_places: dict[str, int]
              ) -> dict[str, str | None]:
    """[(tag name, Daylio icon number, group name or None)] -> tag name -> emoji or None."""
    shared = _shared_numbers(tags)
    return {name: by_name(name) or shared.get(_number(number))
            or group_default(group, group_places.get(group or "", 0))
            for name, number, group in tags}
