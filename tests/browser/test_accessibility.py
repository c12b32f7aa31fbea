"""axe-core finds nothing on any page (issue #23): phone and desktop, light and dark, with
three years of imported history. axe-core is vendored into the test tree, pinned (never
served by k-mood), and run in the page through Selenium."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.browser.conftest import DESKTOP, screenshot
from tests.browser.test_journal import login
from tests.browser.test_phone_fit import as_a_phone, each_page, pia, shot_name  # noqa: F401

AXE = Path(__file__).parent / "vendor" / "axe-4.14.1.min.js"


def violations(driver) -> list[str]:
    driver.execute_script(AXE.read_text())
    found = driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        axe.run(document, {resultTypes: ["violations"]}).then(
          (r) => done(r.violations.map((v) => v.id + ": " + v.nodes.slice(0, 3).map(
            (n) => n.target.join(" ") + " (" + (n.failureSummary || "").split("\\n")[1] + ")"
          ).join("; "))),
          (e) => done(["axe failed: " + e]));
    """)
    return found


@pytest.mark.parametrize("variant", ["phone-light", "phone-dark", "desktop-light",
                                     "desktop-dark"])
def test_axe_finds_nothing_on_any_page(pia, browser, variant):  # noqa: F811
    phone, dark = variant.startswith("phone"), variant.endswith("dark")
    driver = browser((390, 844) if phone else DESKTOP, dark=dark)
    driver.set_script_timeout(60)
    if phone:
        as_a_phone(driver, 390, 844)
    login(driver, pia.url, "pia")
    found = {}
    for path in each_page(driver, pia):
        problems = violations(driver)
        if problems:
            found[path] = problems
        if not phone:  # the phone's pages are shot by test_phone_fit, at 320 and 390 px
            screenshot(driver, f"history3y-{shot_name(path)}-{variant}")
    assert found == {}
