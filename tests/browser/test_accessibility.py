"""Every page, with three years of imported history and ~150 activities behind it, fits every
phone (no sideways scrolling at 320, 360, 390 and 412 px) and axe-core finds nothing on it,
phone and desktop, light and dark (issue #23). Each page is loaded once and looked at in every
variant through the browser's emulation (in dark, axe's colour rules: the rest read the same
document and layout as in light). axe-core is vendored into the test tree, pinned
(never served by k-mood), and run in the page through Selenium."""

from __future__ import annotations

from tests.browser.conftest import (
    DESKTOP,
    console_errors,
    each_page,
    login_by_cookie,
    look,
    overflowing,
    screenshot,
    shot_name,
    variant_name,
    violations,
)

PHONE = (390, 844)
# Every phone width and the desktop in light; in dark (the same layout, other colours) the
# looks axe and the screenshots need.
LOOKS = [((width, 844), False) for width in (320, 360, 390, 412)] + [(DESKTOP, False)] + [
    ((320, 844), True), (PHONE, True), (DESKTOP, True)]
SHOTS = {((320, 844), True), ((390, 844), False), (DESKTOP, False), (DESKTOP, True)}


def test_every_page_fits_every_phone_and_axe_finds_nothing(pia, window):
    driver = window(PHONE)
    driver.set_script_timeout(60)
    look(driver, PHONE, dark=False)
    login_by_cookie(driver, pia.url, "pia")
    overflow, axe = {}, {}
    for path in each_page(driver, pia):
        for size, dark in LOOKS:
            look(driver, size, dark)
            where = f"{path} {variant_name(size, dark)}"
            if size != DESKTOP and (found := overflowing(driver)):
                overflow[where] = found
            if size in (PHONE, DESKTOP) and (found := violations(driver)):
                axe[where] = found
            if (size, dark) in SHOTS:
                screenshot(driver, f"history3y-{shot_name(path)}-{shot_variant(size, dark)}")
        look(driver, PHONE, dark=False)  # the next page opens as a phone
    assert (overflow, axe) == ({}, {})  # (pages reaching past a phone's edge, axe's finds)
    assert console_errors(driver) == []


def shot_variant(size: tuple[int, int], dark: bool) -> str:
    """The names the screenshots have had: history3y-entries-320-dark, -desktop-light."""
    scheme = "dark" if dark else "light"
    return f"desktop-{scheme}" if size == DESKTOP else f"{size[0]}-{scheme}"
