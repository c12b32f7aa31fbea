"""Browser tests: Debian's headless Chromium driven by Selenium against the real server and
worker processes (SPEC §10). Selenium Manager never runs: the driver path is always given."""

from __future__ import annotations

import base64
import functools
import json
import os
import re
import shutil
import sqlite3
import tempfile
import urllib.parse
from datetime import date, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

from tests.e2e.conftest import Stack  # noqa: F401 (re-exported for browser tests)
from tests.helpers import ROOT, base_env, http, made_once, run, three_years_of_daylio

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


# What a test browser need not do (and must not reach out for): translating pages, scoring them
# for phishing, hints, media routing, crash reports, background throttling; each page load
# costs the browser process ~10 % less CPU without them.
QUIET = ("--disable-features=Translate,OptimizationHints,MediaRouter,DialMediaRouteProvider,"
         "AutofillServerCommunication,CertificateTransparencyComponentUpdater",
         "--disable-client-side-phishing-detection", "--disable-domain-reliability",
         "--disable-breakpad", "--disable-default-apps", "--disable-extensions",
         "--metrics-recording-only", "--password-store=basic", "--mute-audio",
         "--safebrowsing-disable-auto-update", "--disable-hang-monitor")


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
                 f"--window-size={size[0]},{size[1]}", "--hide-scrollbars", *QUIET):
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
        dark_media(driver)
    return driver


def dark_media(driver) -> None:
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {
        "features": [{"name": "prefers-color-scheme", "value": "dark"}]})


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
        shot = driver.execute_cdp_cmd("Page.captureScreenshot", {
            "format": "png", "optimizeForSpeed": True})  # a faster zlib level, same pixels
        path.write_bytes(base64.b64decode(shot["data"]))
    finally:
        emulated = getattr(driver, "kmood_metrics", None)  # as_a_phone's or look's, kept
        if emulated:
            driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", emulated)
        else:
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
    yield from running_stack(tmp_path_factory)


def running_stack(tmp_path_factory, database: Path | None = None, **env):
    """A module's server and worker with `env` on top of the tests' own, on a copy of
    `database` if given; each must exit cleanly, and neither may have logged a traceback."""
    stack = Stack(tmp_path_factory.mktemp("browser"), **env)
    if database is not None:
        shutil.copyfile(database, stack.tmp_path / "kmood.db")
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


class DevTools:
    """The browser-level DevTools connection of a driver's Chromium. chromedriver sends its CDP
    commands to the page, and a page may not make or drop browser contexts."""

    def __init__(self, driver):
        import websocket

        address = driver.capabilities["goog:chromeOptions"]["debuggerAddress"]
        url = http("GET", f"http://{address}/json/version")[2]["webSocketDebuggerUrl"]
        self.socket = websocket.create_connection(url, timeout=30, suppress_origin=True)
        self.sent = 0

    def send(self, method: str, **params) -> dict:
        """Run one command and return its result (events in between are not asked for)."""
        self.sent += 1
        self.socket.send(json.dumps({"id": self.sent, "method": method, "params": params}))
        while True:
            answer = json.loads(self.socket.recv())
            if answer.get("id") == self.sent:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer["result"]

    def close(self) -> None:
        self.socket.close()


# A new headless Chromium's window is never narrower than this: asked for 390 px, its pages
# get 500. The shared Chromium's windows are given the same widths, so a test sees the page it
# saw in a browser of its own (screenshots compared pixel for pixel).
NARROWEST_WINDOW = 500


class SharedChromium:
    """One headless Chromium kept open for a test process (light, or dark as new_driver makes
    it), handing out one window at a time, each in a browser context of its own: like a new
    profile, nothing an earlier window stored is there (cookies, local storage, IndexedDB,
    caches, service workers, HTTP cache, permissions), and its page starts with no emulation.
    Opening a Chromium costs ~2 s here, a context a tenth of that."""

    def __init__(self, dark: bool = False):
        self.dark = dark
        self.driver = self.devtools = self.home = self.context = None

    def open(self, size: tuple[int, int] = PHONE, javascript: bool = True):
        """A new window of `size` in a new context, its driver switched to it (without
        JavaScript: its pages run no script, as in a browser with JavaScript switched off)."""
        assert self.context is None, "one window at a time: close the last one first"
        if self.driver is not None and not self.alive():
            self.quit()  # it crashed or hung in an earlier test: a new one
        if self.driver is None:
            self.driver = new_driver(size, dark=self.dark)
            self.home = self.driver.current_window_handle
            self.devtools = DevTools(self.driver)
        self.context = self.devtools.send("Target.createBrowserContext")["browserContextId"]
        target = self.devtools.send("Target.createTarget", url="about:blank",
                                    browserContextId=self.context,
                                    width=max(size[0], NARROWEST_WINDOW), height=size[1])
        driver = self.driver
        driver.switch_to.window(target["targetId"])
        driver.set_page_load_timeout(30)
        driver.set_script_timeout(30)
        driver.implicitly_wait(0)
        driver.kmood_metrics = None  # a new window starts with no emulation
        driver.kmood_context = self.context  # for permissions given to this window's context
        driver.get_log("browser")  # what earlier windows logged is not this one's
        if not javascript:
            driver.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": True})
        if self.dark:
            dark_media(driver)
        return driver

    def alive(self) -> bool:
        try:
            self.driver.switch_to.window(self.home)
            return True
        except Exception:
            return False

    def close(self) -> None:
        """Drop the window and everything its context holds."""
        if self.context is None:
            return
        context, self.context = self.context, None
        try:
            self.driver.switch_to.window(self.home)
            self.devtools.send("Target.disposeBrowserContext", browserContextId=context)
        except Exception:
            self.quit()  # a browser that cannot drop a context is not used again
            raise

    def quit(self) -> None:
        driver, devtools = self.driver, self.devtools
        self.driver = self.devtools = self.home = self.context = None
        if driver is not None:
            devtools.close()
            quit_driver(driver)


@pytest.fixture(scope="session")
def shared_chromiums():
    """This test process's shared Chromiums, light and dark, each opened when first asked for."""
    shared = {False: SharedChromium(dark=False), True: SharedChromium(dark=True)}
    yield shared
    for chromium in shared.values():
        chromium.quit()


@pytest.fixture
def window(shared_chromiums):
    """A window of this process's shared Chromium, in a context of its own, closed after the
    test; for a test that needs one "logged-in page at a size". A test that needs a browser of
    its own (a profile kept over a restart, a second browser at the same time, tabs,
    permissions) asks `browser` for one."""
    opened = []

    def make(size=PHONE, dark=False, javascript=True):
        assert not opened, "one window per test: ask `browser` for another"
        opened.append(shared_chromiums[dark])
        return opened[0].open(size, javascript)

    yield make
    if opened:
        opened[0].close()


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


# --- helpers the browser tests share ------------------------------------------------------

def today_of(timezone: str = "UTC") -> date:
    """A person's today as the server sees it: the server's clock (this machine's: the
    processes run here unpatched) on the person's calendar (users made by create_user keep
    UTC). Never the test machine's local date."""
    return datetime.now(ZoneInfo(timezone)).date()


def years_before(day: date, years: int) -> date | None:
    """The same month and day `years` earlier, or None (29 February in a common year), as the
    insights' "on this day" reads it."""
    try:
        return day.replace(year=day.year - years)
    except ValueError:
        return None


def login(driver, url: str, name: str) -> None:
    """Logged in through the log-in form, as a person does."""
    driver.get(url + "/login")
    driver.find_element(By.NAME, "username").send_keys(name)
    driver.find_element(By.NAME, "password").send_keys(PASSWORD)
    click(driver, driver.find_element(By.CSS_SELECTOR, "form button[type=submit]"))
    WebDriverWait(driver, 10).until(EC.url_to_be(url + "/"))


def login_by_cookie(driver, url: str, name: str) -> None:
    """Logged in without the form, on the home page as login() leaves it: the browser is given
    an API session's cookie (the one a form login sets). For tests about what comes after."""
    cookie = api_session(url, name)["Cookie"]
    key, value = cookie.split("=", 1)
    driver.execute_cdp_cmd("Network.setCookie", {
        "name": key, "value": value, "url": url + "/", "path": "/", "httpOnly": True,
        "sameSite": "Lax"})
    driver.get(url + "/")


def api_session(url: str, name: str) -> dict:
    status, headers, me = http("POST", url + "/api/session", {"username": name,
                                                              "password": PASSWORD})
    assert status == 201
    return {"Cookie": headers["Set-Cookie"].split(";")[0], "X-CSRF-Token": me["csrf_token"]}


def entry_cards(driver) -> list:
    return driver.find_elements(By.CSS_SELECTOR, ".entries .entry")


PHONE_AGENT = ("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko)"
               " Chrome/120.0.0.0 Mobile Safari/537.36")


PAGES = ["/", "/entries", "/entries?q=walk", "/days/2025-03-14", "/calendar", "/stats",
         "/insights", "/settings", "/settings/moods", "/settings/activities", "/settings/metrics",
         "/settings/tokens", "/settings/reminders", "/settings/import", "/settings/users",
         "/admin/jobs"]


def store_insights(env: dict, username: str) -> None:
    """What the worker's `insights` job stores for a person after an import, done once for a
    database every module copies: each module's worker then finds them current instead of
    computing three years again, and its pages show them at once."""
    from kmood_lib.bootstrap import bootstrap
    from kmood_lib.core.config import Config
    from kmood_lib.core.db import transaction
    from kmood_lib.core.timezones import local_today
    from kmood_lib.journal import insight_store
    from kmood_lib.journal.insights import thresholds_from

    services = bootstrap(Config.from_env(env), migrate=False)
    conn = services.connect()
    try:
        uid, zone = conn.execute("SELECT id, timezone FROM users WHERE username = ?",
                                 (username,)).fetchone()
        limits, today = thresholds_from(services.config), local_today(services.clock, zone)
        computed = insight_store.compute_standard(conn, uid, today, limits)
        with transaction(conn):
            insight_store.save(conn, uid, computed, limits,
                               insight_store.end_of_day_ms(today, zone), services.clock.now_ms())
    finally:
        conn.close()
        services.hasher.close()


@pytest.fixture(scope="session")
def pia_history(tmp_path_factory) -> Path:
    """A database holding pia (an admin) with three years imported from Daylio, made once per
    run through the command line (made_once: the first test process to ask makes it, the others
    wait for it); checkpointed, so the file alone is all of it."""
    return made_once(tmp_path_factory, "pia-history.db", make_pia_history)


def make_pia_history(path: Path) -> None:
    env = base_env(path)
    assert run(["kmood.py", "create-user", "pia", "--password-stdin", "--admin"], env,
               input=PASSWORD + "\n").returncode == 0
    csv = path.with_name("daylio.csv")
    csv.write_bytes(three_years_of_daylio(date(2026, 11, 28)))
    done = run(["kmood.py", "import-daylio", str(csv), "--user", "pia"], env, timeout=300)
    assert done.returncode == 0, done.stderr
    store_insights(env, "pia")
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()


@pytest.fixture(scope="module")
def pia(pia_history, tmp_path_factory):
    """A module's server and worker on a copy of pia's three years, with an API token, a
    reminder, and `pages`: every page to open, hers filled in."""
    for stack in running_stack(tmp_path_factory, database=pia_history,
                               KMOOD_PSEUDO_LANGUAGES="1", KMOOD_AUTH_HEADER="Remote-User",
                               KMOOD_TRUSTED_PROXIES="127.0.0.2"):  # never the browser's
        auth = api_session(stack.url, "pia")
        me = http("GET", stack.url + "/api/me", headers=auth)[2]
        linked = http("POST", stack.url + f"/settings/users/{me['id']}/identities",
                      urllib.parse.urlencode({"csrf_token": auth["X-CSRF-Token"],
                                              "subject": "pia.lindqvist@auth.example.org"}).encode(),
                      {**auth, "Content-Type": "application/x-www-form-urlencoded"})
        # (followed to Household, which lists her link to the sign-in proxy)
        assert linked[0] == 200 and "pia.lindqvist@auth.example.org" in linked[2], linked
        http("POST", stack.url + "/api/tokens", {"name": "my phone, the old one"}, auth)
        http("POST", stack.url + "/api/reminders", {
            "time": "21:00", "weekdays": [0, 1, 2, 3, 4], "timezone": "Europe/Berlin",
            "channel": "ntfy", "url": "https://ntfy.sh/a-rather-long-topic-name-for-reminders"},
            auth)
        entry = http("GET", stack.url + "/api/entries?limit=1", headers=auth)[2]["entries"][0]
        activities = http("GET", stack.url + "/api/activities", headers=auth)[2]["activities"]
        several = "&".join(f"ids={a['id']}" for a in activities[:40])
        stack.pages = PAGES + [f"/entries/{entry['id']}/edit", f"/entries/{entry['id']}/delete",
                               f"/settings/activities/{activities[0]['id']}",
                               f"/settings/activities/delete?{several}"]
        yield stack


def as_a_phone(driver, width: int, height: int = 800) -> None:
    """A phone, not a narrow window: mobile layout, 3x pixels, touch, a phone's user agent
    (native date and time inputs take their phone widths)."""
    metrics(driver, {"width": width, "height": height, "deviceScaleFactor": 3, "mobile": True})
    driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True,
                                                                  "maxTouchPoints": 5})
    driver.execute_cdp_cmd("Emulation.setUserAgentOverride", {"userAgent": PHONE_AGENT})


def metrics(driver, emulated: dict) -> None:
    """Emulate a screen, remembered so a screenshot can put it back after its own."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", emulated)
    driver.kmood_metrics = emulated


def look(driver, size: tuple[int, int], dark: bool) -> None:
    """Show the page already open as it looks at `size` (a phone's width and height, emulated
    as as_a_phone does; DESKTOP: a desktop window) in light or dark, without loading it again:
    the emulation changes the layout and the colour scheme in place. (A dark scheme emulated
    here paints the same pixels as the dark Chromium: compared screenshot for screenshot.)"""
    if size == DESKTOP:
        metrics(driver, {"width": size[0], "height": size[1], "deviceScaleFactor": 1,
                         "mobile": False})
        driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": False})
        driver.execute_cdp_cmd("Emulation.setUserAgentOverride", {"userAgent": ""})  # its own
    else:
        as_a_phone(driver, *size)
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {
        "features": [{"name": "prefers-color-scheme", "value": "dark" if dark else "light"}]})


VARIANTS = [((390, 844), False), ((390, 844), True), ((320, 800), False), ((320, 800), True),
            (DESKTOP, False), (DESKTOP, True)]


# The smallest phone and a desktop, light and dark: enough for a page that adds a short form
# (the walks in test_accessibility.py look at every page at 390 px too).
SMALL_AND_DESKTOP = [((320, 800), False), ((320, 800), True), (DESKTOP, False), (DESKTOP, True)]


def looked_at(driver, name: str, variants=SMALL_AND_DESKTOP) -> None:
    """The page open now in each variant: it fits the width, a screenshot is kept, and axe
    finds nothing; left as a light desktop page."""
    for size, dark in variants:
        look(driver, size, dark)
        assert overflowing(driver) == [], (name, size)
        screenshot(driver, f"{name}-{variant_name(size, dark)}")
        assert violations(driver) == [], (name, size, dark)
    look(driver, DESKTOP, False)


def variant_name(size: tuple[int, int], dark: bool) -> str:
    kind = "desktop" if size == DESKTOP else f"phone{size[0]}"
    return f"{kind}-{'dark' if dark else 'light'}"


def shot_name(path: str) -> str:
    """A page's path as a screenshot's name: /settings/activities/12 -> settings-activities-one."""
    name = re.sub(r"/\d+", "/one", path.split("?")[0]).strip("/").replace("/", "-")
    return name or "home"


def each_page(driver, stack):
    """Open every page of `stack.pages` in turn (each must have its heading), yielding its
    path while it is open."""
    for path in stack.pages:
        driver.get(stack.url + path)
        assert driver.find_elements(By.TAG_NAME, "h1"), path
        yield path


def overflowing(driver) -> list[str]:
    """The elements reaching past the right edge, widest first (empty when the page fits).
    The edge is the layout viewport (clientWidth), the phone's width: a phone zooms out to
    show what overflows, which widens innerWidth with it."""
    return driver.execute_script("""
        const width = document.documentElement.clientWidth, out = [];
        if (document.documentElement.scrollWidth <= width) return out;
        for (const el of document.body.querySelectorAll('*')) {
          const box = el.getBoundingClientRect();
          if (box.right > width + 0.5 && box.width > 0)
            out.push([Math.round(box.right), el.tagName.toLowerCase() +
                      (el.id ? '#' + el.id : '') +
                      (el.className && el.className.baseVal === undefined && el.className
                       ? '.' + el.className.trim().split(/\\s+/).join('.') : '')]);
        }
        out.sort((a, b) => b[0] - a[0]);
        return [document.documentElement.scrollWidth + ' > ' + width].concat(
          out.slice(0, 5).map(([right, name]) => name + ' to ' + right));
    """)


AXE = Path(__file__).parent / "vendor" / "axe-4.14.1.min.js"  # pinned, never served


@functools.cache
def axe_source() -> str:
    return AXE.read_text()


# What a colour scheme can change: the rest of axe's rules read the document and its layout,
# which are the same in light and dark (the dark style sheet only sets colours).
COLOUR_RULES = ("color-contrast", "link-in-text-block")
# What a page's language can change (the same page in another language has the same markup,
# colours and layout rules): its lang attributes, and the names read out.
LANGUAGE_RULES = ("html-has-lang", "html-lang-valid", "valid-lang", "html-xml-lang-mismatch",
                  "button-name", "link-name", "label", "image-alt", "document-title",
                  "aria-command-name", "aria-input-field-name", "select-name")


def violations(driver, only: tuple[str, ...] | None = None) -> list[str]:
    """What axe-core finds on the open page as it looks now (`only`: these rules alone). axe
    is sent into a page once; a page seen in dark whose document and size are the ones all the
    rules just passed in light is checked again by the colour rules alone (the page itself
    remembers what was checked)."""
    if not driver.execute_script("return typeof axe !== 'undefined'"):
        driver.execute_script(axe_source())
    return driver.execute_async_script("""
        const done = arguments[arguments.length - 1], rules = arguments[0], only = arguments[1];
        const dark = matchMedia('(prefers-color-scheme: dark)').matches;
        const seen = [innerWidth, innerHeight, document.documentElement.outerHTML].join('|');
        const options = {resultTypes: ["violations"]};
        if (only.length) options.runOnly = {type: "rule", values: only};
        else if (dark && window.kmoodAxePassedInLight === seen)
          options.runOnly = {type: "rule", values: rules};
        axe.run(document, options).then(
          (r) => {
            if (!dark && !options.runOnly && !r.violations.length) window.kmoodAxePassedInLight = seen;
            done(r.violations.map((v) => v.id + ": " + v.nodes.slice(0, 3).map(
              (n) => n.target.join(" ") + " (" + (n.failureSummary || "").split("\\n")[1] + ")"
            ).join("; ")));
          },
          (e) => done(["axe failed: " + e]));
    """, list(COLOUR_RULES), list(only or ()))
