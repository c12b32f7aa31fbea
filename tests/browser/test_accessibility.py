"""axe-core finds nothing on any page (issue #23): phone and desktop, light and dark, with
three years of imported history. axe-core is vendored into the test tree, pinned (never
served by k-mood), and run in the page through Selenium."""

from __future__ import annotations

import pytest

from tests.browser.conftest import (
    DESKTOP,
    as_a_phone,
    each_page,
    login_by_cookie,
    screenshot,
    shot_name,
    violations,
)


@pytest.mark.parametrize("variant", ["phone-light", "phone-dark", "desktop-light",
                                     "desktop-dark"])
def test_axe_finds_nothing_on_any_page(pia, window, variant):
    phone, dark = variant.startswith("phone"), variant.endswith("dark")
    driver = window((390, 844) if phone else DESKTOP, dark=dark)
    driver.set_script_timeout(60)
    if phone:
        as_a_phone(driver, 390, 844)
    login_by_cookie(driver, pia.url, "pia")
    found = {}
    for path in each_page(driver, pia):
        problems = violations(driver)
        if problems:
            found[path] = problems
        if not phone:  # the phone's pages are shot by test_phone_fit, at 320 and 390 px
            screenshot(driver, f"history3y-{shot_name(path)}-{variant}")
    assert found == {}
