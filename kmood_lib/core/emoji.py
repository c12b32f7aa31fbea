"""One emoji as an icon (an activity's): what a person types or picks must be a single emoji,
as a phone's keyboard writes it, and nothing else — no letters, no spaces, no invisible or
direction-changing characters. Python has no grapheme segmentation, so the emoji sequences of
Unicode's UTS #51 are read here by their grammar:

1. a keycap: 0-9, # or * (with or without U+FE0F) then U+20E3;
2. a flag: two regional indicators;
3. a subdivision flag: a black flag, tag characters, the cancel tag;
4. else one or more pictographs joined by U+200D (zero-width joiner), each optionally with
   U+FE0F (emoji presentation) and a skin-tone modifier.
"""

from __future__ import annotations

MAX_ICON = 16  # code points: the longest family or couple sequences with skin tones take 10

ZWJ, VS16, KEYCAP = 0x200D, 0xFE0F, 0x20E3
KEYCAP_BASES = frozenset(map(ord, "0123456789#*"))
REGIONAL = range(0x1F1E6, 0x1F200)
SKIN_TONES = range(0x1F3FB, 0x1F400)
BLACK_FLAG, TAGS, CANCEL_TAG = 0x1F3F4, range(0xE0020, 0xE007F), 0xE007F

# Code points that are emoji (Extended_Pictographic, loosely): the symbol blocks emoji come
# from, plus the few emoji scattered through older blocks.
PICTOGRAPHIC = (
    (0x00A9, 0x00A9), (0x00AE, 0x00AE), (0x203C, 0x203C), (0x2049, 0x2049), (0x2122, 0x2122),
    (0x2139, 0x2139), (0x2194, 0x2199), (0x21A9, 0x21AA), (0x231A, 0x231B), (0x2328, 0x2328),
    (0x23CF, 0x23CF), (0x23E9, 0x23F3), (0x23F8, 0x23FA), (0x24C2, 0x24C2), (0x25AA, 0x25AB),
    (0x25B6, 0x25B6), (0x25C0, 0x25C0), (0x25FB, 0x25FE), (0x2600, 0x27BF), (0x2934, 0x2935),
    (0x2B05, 0x2B07), (0x2B1B, 0x2B1C), (0x2B50, 0x2B50), (0x2B55, 0x2B55), (0x3030, 0x3030),
    (0x303D, 0x303D), (0x3297, 0x3297), (0x3299, 0x3299), (0x1F000, 0x1F1E5),
    (0x1F200, 0x1F3FA), (0x1F400, 0x1FAFF), (0x1FC00, 0x1FFFD),
)


def pictographic(code: int) -> bool:
    return any(lo <= code <= hi for lo, hi in PICTOGRAPHIC)


def _keycap(codes: list[int]) -> bool:
    return codes[0] in KEYCAP_BASES and codes[1:] in ([KEYCAP], [VS16, KEYCAP])


def _flag(codes: list[int]) -> bool:
    return len(codes) == 2 and all(c in REGIONAL for c in codes)


def _subdivision_flag(codes: list[int]) -> bool:
    return (len(codes) >= 3 and codes[0] == BLACK_FLAG and codes[-1] == CANCEL_TAG
            and all(c in TAGS for c in codes[1:-1]))


def _element(codes: list[int]) -> bool:
    """One pictograph, with U+FE0F and a skin tone if any (either, both, in that order)."""
    if not codes or not pictographic(codes[0]):
        return False
    rest = codes[1:]
    if rest[:1] == [VS16]:
        rest = rest[1:]
    return rest == [] or (len(rest) == 1 and rest[0] in SKIN_TONES)


def is_one_emoji(text: str) -> bool:
    """Whether `text` is exactly one emoji (one grapheme cluster of emoji, nothing around it)."""
    codes = [ord(c) for c in text]
    if not codes or len(codes) > MAX_ICON:
        return False
    if _keycap(codes) or _flag(codes) or _subdivision_flag(codes):
        return True
    parts: list[list[int]] = [[]]
    for code in codes:
        if code == ZWJ:
            parts.append([])
        else:
            parts[-1].append(code)
    return all(_element(part) for part in parts)


def icon_problem(text: str) -> str | None:
    """What keeps `text` from being an icon, or None."""
    if len(text) > MAX_ICON:
        return f"must be one emoji (at most {MAX_ICON} characters)"
    if not is_one_emoji(text):
        return "must be one emoji, such as 🚶 or 📖"
    return None
