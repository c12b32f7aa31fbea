"""The journal in a real browser: first run, log, see, edit, delete, search (issue #10)."""

from __future__ import annotations

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

from kmood_lib.core.config import DEFAULT_USER_AGENT
from tests.browser.conftest import (
    DESKTOP,
    PASSWORD,
    PHONE,
    Stack,
    api_session,
    click,
    console_errors,
    create_user,
    entry_cards,
    follow,
    login_by_cookie,
    look,
    screenshot,
)
from tests.helpers import http


def test_first_run_log_see_edit_and_delete_an_entry(tmp_path, window):
    stack = Stack(tmp_path).start(worker=True)
    driver = window(PHONE)
    driver.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": "Europe/Berlin"})
    driver.get(stack.url + "/")  # no user yet: / -> /login -> /setup
    assert driver.current_url == stack.url + "/setup"
    zone = driver.find_element(By.ID, "timezone")
    assert zone.get_attribute("value") == "Europe/Berlin"  # the device's zone, offered first
    screenshot(driver, "setup-phone-light")
    driver.find_element(By.NAME, "username").send_keys("alice")
    driver.find_element(By.NAME, "password").send_keys(PASSWORD)
    click(driver, driver.find_element(By.CSS_SELECTOR, "form button[type=submit]"))
    WebDriverWait(driver, 10).until(EC.url_to_be(stack.url + "/"))
    screenshot(driver, "first-run-home-phone")
    auth = api_session(stack.url, "alice")
    assert http("GET", stack.url + "/api/me", headers=auth)[2]["timezone"] == "Europe/Berlin"
    http("POST", stack.url + "/api/metrics", {"name": "sleep", "unit": "h", "min": 0, "max": 24},
         auth)
    http("POST", stack.url + "/api/activities", {"name": "running", "group": "sport"}, auth)
    driver.refresh()

    click(driver, driver.find_element(By.CSS_SELECTOR, "label[for=mood-4]"))
    click(driver, driver.find_element(By.XPATH, "//div[@class='chips']/label[text()='running']"))
    driver.find_element(By.NAME, "new_activities").send_keys("friends")
    driver.find_element(By.NAME, "note").send_keys("long walk\nthen tea")
    driver.find_element(By.CSS_SELECTOR, "input[name^=metric_]").send_keys("7.5")
    click(driver, driver.find_element(By.CSS_SELECTOR, "#entry-form button[type=submit]"))
    WebDriverWait(driver, 10).until(EC.url_contains("done=logged"))
    assert "Entry logged." in driver.find_element(By.CSS_SELECTOR, ".notice").text
    card = entry_cards(driver)[0]
    assert "good" in card.text and "long walk\nthen tea" in card.text
    assert "friends" in card.text and "running" in card.text and "sleep: 7.5" in card.text
    assert "1-day streak" in driver.page_source

    follow(driver, driver.find_element(By.LINK_TEXT, "History"))
    card = entry_cards(driver)[0]
    assert "long walk" in card.text and driver.find_element(By.CSS_SELECTOR, "h2.day").text == (
        "Today")
    follow(driver, card.find_element(By.PARTIAL_LINK_TEXT, "Edit"))
    click(driver, driver.find_element(By.CSS_SELECTOR, "label[for=mood-2]"))
    click(driver, driver.find_element(By.CSS_SELECTOR, "#entry-form button[type=submit]"))
    WebDriverWait(driver, 10).until(EC.url_contains("done=saved"))
    assert "bad" in entry_cards(driver)[0].text

    follow(driver, entry_cards(driver)[0].find_element(By.PARTIAL_LINK_TEXT, "Delete"))
    assert "Delete this entry?" in driver.find_element(By.TAG_NAME, "h1").text
    click(driver, driver.find_element(By.CSS_SELECTOR, "button.danger"))
    WebDriverWait(driver, 10).until(EC.url_contains("done=deleted"))
    assert entry_cards(driver) == []
    assert "Entry deleted." in driver.page_source
    assert console_errors(driver) == []
    assert stack.stop() == {"server": 0, "worker": 0}


@pytest.fixture(scope="module")
def journal(app_stack):
    """A user with a week of varied entries, a metric and grouped activities."""
    create_user(app_stack, "bea", admin=True)
    auth = api_session(app_stack.url, "bea")
    http("POST", app_stack.url + "/api/metrics", {"name": "sleep", "unit": "h", "min": 0,
                                                  "max": 24}, auth)
    for name, group in (("running", "sport"), ("yoga", "sport"), ("friends", "social"),
                        ("reading", None)):
        http("POST", app_stack.url + "/api/activities", {"name": name, "group": group}, auth)
    notes = ["a quiet morning with coffee", "argued about the dishes\nmade up later",
             "ran by the river", "rainy, stayed in and read", "dinner with friends",
             "long day at work", "sunny walk in the park"]
    for i, note in enumerate(notes):
        http("POST", app_stack.url + "/api/entries", {
            "mood": [4, 2, 5, 3, 5, 2, 4][i], "note": note,
            "activities": [["reading"], [], ["running"], ["reading"], ["friends"], [],
                           ["yoga"]][i], "metrics": {"sleep": 6 + i % 3},
            "occurred_at": f"2026-11-{20 + i:02d}T{8 + i * 2:02d}:30:00"}, auth)
    return app_stack


def test_history_search_finds_an_entry_by_a_word_of_its_note(journal, window):
    driver = window(PHONE)
    login_by_cookie(driver, journal.url, "bea")
    driver.get(journal.url + "/entries")
    click(driver, driver.find_element(By.TAG_NAME, "summary"))
    box = driver.find_element(By.NAME, "q")
    box.send_keys("river")
    box.submit()
    WebDriverWait(driver, 10).until(EC.url_contains("q=river"))
    cards = entry_cards(driver)
    assert len(cards) == 1 and "ran by the river" in cards[0].text
    screenshot(driver, "history-search-phone")
    assert console_errors(driver) == []


HOSTILE_NOTE = "<script>alert('note')</script>"
HOSTILE_ACTIVITY = '"><img src=x onerror=alert(1)>'


def test_hostile_text_renders_as_text(journal, window):
    auth = api_session(journal.url, "bea")
    entry = http("POST", journal.url + "/api/entries", {
        "mood": 3, "note": HOSTILE_NOTE, "activities": [HOSTILE_ACTIVITY],
        "occurred_at": "2026-11-10T10:00:00"}, auth)[2]
    more = [http("POST", journal.url + "/api/entries", {  # enough for the activity table
        "mood": 4, "activities": [HOSTILE_ACTIVITY], "occurred_at": f"2026-11-1{day}T10:00:00"},
        auth)[2] for day in range(1, 5)]
    driver = window(DESKTOP)
    login_by_cookie(driver, journal.url, "bea")
    for path in ("/", "/entries?q=script", f"/entries/{entry['id']}/edit",
                 f"/entries/{entry['id']}/delete", "/stats?range=all"):
        driver.get(journal.url + path)
        assert EC.alert_is_present()(driver) is False, path
        assert driver.find_elements(By.CSS_SELECTOR, "img[src=x]") == [], path
        main = driver.find_element(By.TAG_NAME, "main").text
        if "stats" in path:
            assert HOSTILE_ACTIVITY in main, path  # the activity table names it, as text
        elif "edit" not in path:
            assert HOSTILE_NOTE in main or HOSTILE_ACTIVITY in main, path
    for one in (entry, *more):
        http("DELETE", journal.url + f"/api/entries/{one['id']}", headers=auth)


PAGES = [("home", "/"), ("history", "/entries"), ("edit", "/entries/1/edit"),
         ("delete", "/entries/1/delete")]


# The sizes and schemes the journal's pages are seen in, with the names their screenshots keep.
LOOKS = [(PHONE, False, "phone-light"), (PHONE, True, "phone-dark"),
         (DESKTOP, False, "desktop-light"), (DESKTOP, True, "desktop-dark")]


def test_screenshots_of_the_journal_pages(journal, window):
    """Each page loaded once and seen on a phone and a desktop, light and dark."""
    driver = window(PHONE)
    look(driver, *LOOKS[0][:2])
    login_by_cookie(driver, journal.url, "bea")
    for name, path in PAGES:
        look(driver, *LOOKS[0][:2])
        driver.get(journal.url + path)
        for size, dark, variant in LOOKS:
            look(driver, size, dark)
            assert driver.find_element(By.TAG_NAME, "h1").text, (path, variant)
            screenshot(driver, f"{name}-{variant}")
    assert console_errors(driver) == []


def test_location_and_the_playing_song_are_attached_with_one_tap(tmp_path, window):
    """The log page's JS module: geolocation fills the coordinates; now-playing asks the
    user's ListenBrainz (a fake on 127.0.0.1) and attaches the song when tapped."""
    from tests.fakes import FakeUpstream, Reply

    playing = {"payload": {"count": 1, "playing_now": True, "listens": [{"track_metadata": {
        "artist_name": "Radiohead", "track_name": "Reckoner", "release_name": "In Rainbows"}}]}}
    with FakeUpstream() as listenbrainz:
        listenbrainz.route("/1/user/jo_lb/playing-now", Reply(playing))
        stack = Stack(tmp_path, KMOOD_LISTENBRAINZ_URL=listenbrainz.url).start(worker=False)
        create_user(stack, "jo")
        auth = api_session(stack.url, "jo")
        http("PATCH", stack.url + "/api/me", {"listenbrainz_user": "jo_lb"}, auth)
        driver = window(PHONE)
        driver.execute_cdp_cmd("Browser.grantPermissions", {
            "origin": stack.url, "permissions": ["geolocation"],
            "browserContextId": driver.kmood_context})
        driver.execute_cdp_cmd("Emulation.setGeolocationOverride", {
            "latitude": 52.52, "longitude": 13.405, "accuracy": 10})
        login_by_cookie(driver, stack.url, "jo")
        attach = WebDriverWait(driver, 10).until(EC.visibility_of_element_located(
            (By.ID, "attach-song")))
        assert "Radiohead – Reckoner" in driver.find_element(By.ID, "now-playing-text").text
        click(driver, attach)
        click(driver, driver.find_element(By.ID, "use-location"))
        WebDriverWait(driver, 10).until(EC.text_to_be_present_in_element(
            (By.ID, "location-status"), "Location added"))
        click(driver, driver.find_element(By.CSS_SELECTOR, "label[for=mood-3]"))
        screenshot(driver, "log-with-song-phone-light")
        follow(driver, driver.find_element(By.CSS_SELECTOR, "#entry-form button[type=submit]"))
        entry = http("GET", stack.url + "/api/entries", headers=auth)[2]["entries"][0]
        assert entry["song"]["artist"] == "Radiohead" and entry["song"]["source"] == "listenbrainz"
        assert entry["location"]["lat"] == 52.52 and entry["location"]["lon"] == 13.405
        assert "Reckoner" in entry_cards(driver)[0].text
        assert console_errors(driver) == []
        assert stack.stop() == {"server": 0}


def test_history_shows_the_weather_place_song_and_cover_the_worker_looked_up(tmp_path, window):
    """Server and worker as deployed, Open-Meteo, Nominatim, MusicBrainz and the Cover Art
    Archive faked on 127.0.0.1: a saved entry with a location and a song shows its weather,
    place, release and cover in history moments later, the cover served by k-mood itself."""
    from tests.fakes import (
        FakeCoverArt,
        FakeMusicBrainz,
        FakeNominatim,
        FakeOpenMeteo,
        png,
        recording,
    )
    from tests.helpers import wait_until

    release = "b1a9c0e9-d987-4042-ae91-78d6a3267d69"
    catalogue = {("radiohead", "reckoner"): [recording(
        "a9a4a5a8-1111-4e4e-9a9a-123456789abc", "Reckoner", "Radiohead", release,
        "In Rainbows", "2007-10-10")]}
    with FakeOpenMeteo() as meteo, FakeNominatim({(52.5, 13.4): ("Berlin", "DE")}) as places, \
            FakeMusicBrainz(catalogue) as musicbrainz, \
            FakeCoverArt({release: ("image/png", png(250, 250, (214, 96, 38)))}) as covers:
        stack = Stack(tmp_path, KMOOD_OPEN_METEO_ARCHIVE_URL=meteo.url,
                      KMOOD_OPEN_METEO_FORECAST_URL=meteo.url, KMOOD_NOMINATIM_URL=places.url,
                      KMOOD_MUSICBRAINZ_URL=musicbrainz.url,
                      KMOOD_COVERART_URL=covers.url).start(worker=True)
        create_user(stack, "kim")
        auth = api_session(stack.url, "kim")
        entry = http("POST", stack.url + "/api/entries", {
            "mood": 4, "note": "walk by the Spree", "occurred_at": "2026-11-01T15:10:00+01:00",
            "location": {"lat": 52.52, "lon": 13.405},
            "song": {"artist": "Radiohead", "title": "Reckoner", "source": "manual"}}, auth)[2]
        http("POST", stack.url + "/api/entries", {
            "mood": 2, "occurred_at": "2026-11-01T09:00:00+01:00",
            "location": {"lat": 52.49, "lon": 13.41}}, auth)

        def enriched():
            found = http("GET", f"{stack.url}/api/entries/{entry['id']}", headers=auth)[2]
            metadata = found["song"]["metadata"]
            return (found["weather"] and found["location"]["place"] and metadata
                    and metadata["cover_url"])

        wait_until(enriched, 30, what="the worker's weather, place and song metadata")
        # each page loaded once, seen on a phone in light and on a desktop in dark
        looks = [(PHONE, False, "phone-light"), (DESKTOP, True, "desktop-dark")]
        driver = window(PHONE)
        look(driver, *looks[0][:2])
        login_by_cookie(driver, stack.url, "kim")
        driver.get(stack.url + "/entries")
        for size, dark, name in looks:
            look(driver, size, dark)
            card = entry_cards(driver)[0]
            assert "Light rain" in card.text and "°C" in card.text, name  # 14:00 UTC: rain
            assert "Berlin, DE" in card.text, name
            assert "Reckoner" in card.text and "In Rainbows, 2007" in card.text, name
            cover = card.find_element(By.CSS_SELECTOR, "img.cover")
            assert cover.get_attribute("src") == f"{stack.url}/covers/{release}"
            assert driver.execute_script("return arguments[0].complete && "
                                         "arguments[0].naturalWidth", cover) == 250, name
            screenshot(driver, f"history-enriched-{name}")
        look(driver, *looks[0][:2])
        driver.get(f"{stack.url}/entries/{entry['id']}/edit")
        for size, dark, name in looks:
            look(driver, size, dark)
            assert "In Rainbows, 2007" in driver.page_source, name
            screenshot(driver, f"edit-enriched-{name}")
        look(driver, *looks[0][:2])
        driver.get(stack.url + "/stats?range=all")
        for size, dark, name in looks:
            look(driver, size, dark)
            source = driver.page_source
            assert "Average mood by weather" in source, name
            assert "Average mood by place" in source, name
            assert "Average mood by artist listened to" in source, name
            screenshot(driver, f"stats-enriched-{name}")
        assert console_errors(driver) == []
        seen = meteo.requests + places.requests + musicbrainz.requests + covers.requests \
            + covers.images.requests
        assert {r["headers"].get("User-Agent") for r in seen} == {DEFAULT_USER_AGENT}
        assert len(covers.images.requests) == 1  # fetched once by the worker, never by a page
        assert stack.stop() == {"server": 0, "worker": 0}
