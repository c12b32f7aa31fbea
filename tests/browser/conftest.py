"""Browser tests: Debian's headless Chromium driven by Selenium against the real server and
worker processes (SPEC §10). Selenium Manager never runs: the driver path is always given."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from tests.e2e.conftest import Stack  # noqa: F401 (re-exported for browser tests)
from tests.helpers import ROOT, run

CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
SCREENSHOTS = ROOT / "artifacts" / "screenshots"
PHONE, DESKTOP = (390, 844), (1280, 800)
PASSWORD = "correct horse battery"


def _require_browser() -> None:
    missing = [p for p in (CHROMIUM, CHROMEDRIVER) if not os.access(p, os.X_OK)]
    if missing:
        pytest.fail(f"browser tests need {' and '.join(missing)}: run `make test` (it installs "
                    "chromium and chromium-driver with apt) or apt-get install -y "
                    "--no-install-recommends chromium chromium-driver", pytrace=False)


def new_driver(size: tuple[int, int], dark: bool = False, javascript: bool = True,
               profile: str | None = None):
    """A headless Chromium with a fresh profile of its own (or `profile`, kept: the same
    browser opened again), offline as the spec requires."""
    _require_browser()
    os.environ["SE_OFFLINE"] = "true"  # Selenium Manager must never reach the network
    os.environ["SE_AVOID_STATS"] = "true"
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    keep = profile is not None
    profile = profile or tempfile.mkdtemp(prefix="kmood-chromium-")
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-quic", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", f"--user-data-dir={profile}",
                 f"--window-size={size[0]},{size[1]}", "--hide-scrollbars"):
        options.add_argument(flag)
    if dark:
        options.add_argument("--force-dark-mode")
        options.add_argument("--blink-settings=preferredColorScheme=0")
    if not javascript:
        options.add_experimental_option("prefs", {
            "profile.managed_default_content_settings.javascript": 2})
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    driver.kmood_profile = None if keep else profile
    if dark:
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {
            "features": [{"name": "prefers-color-scheme", "value": "dark"}]})
    return driver


def quit_driver(driver) -> None:
    driver.quit()
    if driver.kmood_profile:
        shutil.rmtree(driver.kmood_profile, ignore_errors=True)


def console_errors(driver) -> list[str]:
    return [entry["message"] for entry in driver.get_log("browser")
            if entry["level"] in ("SEVERE", "ERROR")]


def screenshot(driver, name: str, whole_page: bool = True) -> Path:
    """Save the whole page into artifacts/screenshots/ (git-ignored): the viewport is grown to
    the page's height for the shot, so the tab bar sits at the bottom as on a phone; or only
    the first screen, as the person sees it (`whole_page=False`). One CSS pixel per pixel."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    width = driver.execute_script("return window.innerWidth")
    height = driver.execute_script("return document.documentElement.scrollHeight"
                                   if whole_page else "return window.innerHeight")
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": min(height, 6000), "deviceScaleFactor": 1, "mobile": False})
    try:
        driver.save_screenshot(str(path))
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    return path


def click(driver, element) -> None:
    """Click as a thumb would: scrolled to the middle of the screen, clear of the tab bar."""
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    element.click()


def follow(driver, element) -> None:
    """Click a link or submit button and wait until the next page has replaced this one."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    page = driver.find_element(By.TAG_NAME, "html")
    click(driver, element)
    WebDriverWait(driver, 10).until(lambda d: replaced(page))


def replaced(element) -> bool:
    """Whether the page holding `element` is gone. Asked mid-navigation, chromedriver may answer
    "Node with given id does not belong to the document" instead of a stale-element error
    (seen once, in the import test): that too means the old page has been replaced."""
    from selenium.common.exceptions import StaleElementReferenceException, WebDriverException

    try:
        element.is_enabled()
    except StaleElementReferenceException:
        return True
    except WebDriverException as exc:
        if "does not belong to the document" in str(exc):
            return True
        raise
    return False


@pytest.fixture(scope="module")
def app_stack(tmp_path_factory):
    """Server and worker as real processes on a free port, one per test module."""
    stack = Stack(tmp_path_factory.mktemp("browser"))
    stack.start(worker=True)
    try:
        yield stack
    finally:
        codes = stack.stop()
    assert codes == {"server": 0, "worker": 0}
    logs = stack.server_log.read_text() + stack.worker_log.read_text()
    assert "Traceback" not in logs, logs[-3000:]


def create_user(stack, name: str, admin: bool = False) -> None:
    args = ["kmood.py", "create-user", name, "--password-stdin"] + (["--admin"] if admin else [])
    assert run(args, stack.env, input=PASSWORD + "\n").returncode == 0


@pytest.fixture
def browser():
    """Open drivers on demand; all of them are closed after the test."""
    drivers = []

    def make(size=PHONE, dark=False, javascript=True, profile=None):
        driver = new_driver(size, dark, javascript, profile)
        drivers.append(driver)
        return driver

    yield make
    for driver in drivers:
        quit_driver(driver)
