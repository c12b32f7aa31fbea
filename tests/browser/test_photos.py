"""Photos in a real browser on a phone (issue #26): a phone photo with GPS in its EXIF is
chosen on the edit page, stored and shown without it; history shows the thumbnail."""

from __future__ import annotations

import io

import pytest
from PIL import Image
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from kmood_lib.core import db
from tests import images
from tests.browser.conftest import (
    DESKTOP,
    PHONE,
    api_session,
    as_a_phone,
    click,
    console_errors,
    create_user,
    follow,
    login,
    login_by_cookie,
    look,
    overflowing,
    screenshot,
    violations,
)
from tests.helpers import http, wait_until


@pytest.fixture(scope="module")
def pam(app_stack, tmp_path_factory):
    create_user(app_stack, "pam")
    auth = api_session(app_stack.url, "pam")
    app_stack.pam_entry = http("POST", app_stack.url + "/api/entries", {
        "mood": 5, "note": "Swimming in the lake, the water still warm.",
        "activities": ["swim", "friends"]}, auth)[2]["id"]
    folder = tmp_path_factory.mktemp("camera")
    app_stack.pam_photos = []
    for i, data in enumerate((images.phone_jpeg(1600, 1200), images.phone_jpeg(1200, 1600,
                                                                                rotated=False))):
        path = folder / f"IMG_{2000 + i}.jpg"
        path.write_bytes(data)
        app_stack.pam_photos.append(str(path))
    return app_stack


def test_photos_chosen_on_a_phone_are_stored_without_their_location(pam, window):
    driver = window(PHONE)
    as_a_phone(driver, 390, 844)
    login_by_cookie(driver, pam.url, "pam")
    driver.get(f"{pam.url}/entries/{pam.pam_entry}/edit")
    chooser = driver.find_element(By.ID, "photo-files")
    chooser.send_keys("\n".join(pam.pam_photos))  # two files, as a gallery picks them
    follow(driver, driver.find_element(By.CSS_SELECTOR, "#photos form[enctype] button[type=submit]"))
    assert "Added 2 photos" in driver.find_element(By.TAG_NAME, "main").text
    shown = driver.find_elements(By.CSS_SELECTOR, ".photo-list img")
    assert len(shown) == 2
    assert all(img.get_property("naturalWidth") > 0 for img in shown)  # they load
    conn = db.connect(pam.env["KMOOD_DB"], 10_000)
    try:
        for (data,) in conn.execute("SELECT f.data FROM photo_files f JOIN photos p"
                                    " ON p.sha256 = f.sha256 WHERE p.entry_id = ?",
                                    (pam.pam_entry,)):
            assert Image.open(io.BytesIO(data)).getexif() == {}
            assert b"PhoneMaker" not in bytes(data)
    finally:
        conn.close()
    assert overflowing(driver) == []
    screenshot(driver, "photos-edit-phone-light")
    click(driver, driver.find_elements(By.CSS_SELECTOR, ".photo-actions button")[1])  # earlier
    assert console_errors(driver) == []


# The sizes and schemes each page is seen in, with the names its screenshots have kept.
LOOKS = [(PHONE, False, "phone-light"), (PHONE, True, "phone-dark"),
         ((320, 700), False, "phone320-light"), ((320, 700), True, "phone320-dark"),
         (DESKTOP, False, "desktop-light"), (DESKTOP, True, "desktop-dark")]


def test_history_shows_the_photos_as_thumbnails(pam, window):
    """History and the edit page, each loaded once and seen at a phone's 390 and 320 px and on
    a desktop, light and dark."""
    auth = api_session(pam.url, "pam")
    if not http("GET", f"{pam.url}/api/entries/{pam.pam_entry}", headers=auth)[2]["photos"]:
        for path in pam.pam_photos:
            with open(path, "rb") as handle:
                data = handle.read()
            status = http_upload(pam.url, pam.pam_entry, data, auth)
            assert status == 201
    driver = window(PHONE)
    look(driver, *LOOKS[0][:2])
    login_by_cookie(driver, pam.url, "pam")
    driver.get(pam.url + "/entries")
    for size, dark, variant in LOOKS:
        look(driver, size, dark)
        thumbs = driver.find_elements(By.CSS_SELECTOR, ".thumbs img")
        assert len(thumbs) == 2 and all(t.get_property("naturalWidth") > 0 for t in thumbs), \
            variant
        assert overflowing(driver) == [] and violations(driver) == [], variant
        screenshot(driver, f"photos-history-{variant}")
    look(driver, *LOOKS[0][:2])
    driver.get(f"{pam.url}/entries/{pam.pam_entry}/edit")
    for size, dark, variant in LOOKS:
        look(driver, size, dark)
        assert overflowing(driver) == [] and violations(driver) == [], variant
        screenshot(driver, f"photos-edit-{variant}")
    assert console_errors(driver) == []


def http_upload(url: str, entry_id: int, data: bytes, auth: dict) -> int:
    import urllib.request
    import uuid

    boundary = uuid.uuid4().hex
    body = (f'--{boundary}\r\nContent-Disposition: form-data; name="photo"; filename="a.jpg"'
            f"\r\nContent-Type: image/jpeg\r\n\r\n").encode() + data + (
        f"\r\n--{boundary}--\r\n").encode()
    request = urllib.request.Request(
        f"{url}/api/entries/{entry_id}/photos", data=body, method="POST",
        headers={**auth, "Content-Type": f"multipart/form-data; boundary={boundary}"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.status


def kept_photos(driver) -> list[int]:
    """How many photos each waiting item holds (the Blobs stay in the browser)."""
    return driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        self.kmoodOutbox.all().then((items) => done(items.map((i) => (i.photos || []).length)),
                                    (e) => done([String(e)]));
    """)


def test_photos_chosen_offline_wait_with_their_entry_and_arrive_after_it(browser, tmp_path):
    from tests.browser.test_offline import gone, installed, log_entry, waiting
    from tests.e2e.conftest import Stack

    stack = Stack(tmp_path).start(worker=False)
    try:
        create_user(stack, "ode")
        profile = str(tmp_path / "profile")
        driver = browser(profile=profile)
        login(driver, stack.url, "ode")
        installed(driver, stack.url)
        driver.get(stack.url + "/")
        folder = tmp_path / "camera"
        folder.mkdir()
        chosen = []
        for i, data in enumerate((images.phone_jpeg(1200, 900), images.png(640, 480))):
            chosen.append(folder / f"IMG_{i}.{'jpg' if i == 0 else 'png'}")
            chosen[-1].write_bytes(data)

        gone(driver, stack)
        driver.get(stack.url + "/")
        driver.find_element(By.CSS_SELECTOR, "#entry-form input[type=file]").send_keys(
            "\n".join(str(p) for p in chosen))
        log_entry(driver, 5, title="offline with photos")
        waiting(driver, 1)
        assert kept_photos(driver) == [2]
        panel = driver.find_element(By.ID, "outbox")
        assert "offline with photos — 2 photos" in panel.text
        driver.quit()

        stack.start(worker=False)
        again = browser(profile=profile)
        again.get(stack.url + "/")
        if "/login" in again.current_url:
            login(again, stack.url, "ode")
        auth = api_session(stack.url, "ode")
        found = lambda: http("GET", stack.url + "/api/entries", headers=auth)[2]["entries"]  # noqa: E731
        wait_until(lambda: found() and len(found()[0]["photos"]) == 2, 20,
                   what="the entry and its photos synced")
        waiting(again, 0)
        [entry] = found()
        assert entry["note_title"] == "offline with photos"
        conn = db.connect(stack.env["KMOOD_DB"], 10_000)
        try:
            for (data,) in conn.execute("SELECT data FROM photo_files"):
                assert Image.open(io.BytesIO(data)).getexif() == {}
        finally:
            conn.close()

        # a photo the server will not take: the entry is saved, the item says so and waits
        # for nothing more
        again.execute_async_script("""
            const done = arguments[arguments.length - 1];
            const svg = new Blob(['<svg xmlns="http://www.w3.org/2000/svg"/>'],
                                 {type: "image/jpeg"});
            const item = self.kmoodOutbox.fromForm(
              [["mood", "3"], ["note_title", "photo refused"], ["date", "2026-12-01"],
               ["owner", document.body.dataset.user], ["photo", svg]]);
            self.kmoodOutbox.put(item).then(() => self.kmoodOutbox.sync()).then(done, done);
        """)
        [left] = waiting(again, 1)
        assert left["status"] == "refused" and left["saved"] is True
        # the server's own words are kept; the panel says them in the person's language
        assert left["message"] == "photo: not a JPEG, PNG or WebP image"
        assert sorted(e["note_title"] for e in found()) == ["offline with photos", "photo refused"]
        again.get(stack.url + "/")
        panel = again.find_element(By.ID, "outbox")
        WebDriverWait(again, 10).until(lambda d: "Saved without its photos" in panel.text)
        assert [b.text for b in panel.find_elements(By.TAG_NAME, "button")] == ["Dismiss"]
        # the refused upload's 415 is the only thing the console reports
        assert [e for e in console_errors(again) if "/photos - Failed to load resource" not in e
                or "415" not in e] == []
    finally:
        stack.stop()


def test_what_is_not_a_photo_is_refused_on_the_phone_and_another_s_photo_is_not_shown(
        pam, window, tmp_path):

    driver = window(PHONE)
    as_a_phone(driver, 390, 844)
    login_by_cookie(driver, pam.url, "pam")
    for name, data in (("drawing.svg", images.SVG), ("huge.png", images.png_bomb(50))):
        path = tmp_path / name
        path.write_bytes(data)
        driver.get(f"{pam.url}/entries/{pam.pam_entry}/edit")
        driver.find_element(By.ID, "photo-files").send_keys(str(path))
        follow(driver, driver.find_element(By.CSS_SELECTOR, "#photos form[enctype] button[type=submit]"))
        found = driver.find_elements(By.CSS_SELECTOR, "#photos .errors")
        assert found, (name, driver.current_url, driver.find_element(By.TAG_NAME, "main").text[-400:])
        alert = found[0]
        assert ("not a JPEG, PNG or WebP" if name.endswith(".svg") else
                "too large to read here") in alert.text, alert.text
    screenshot(driver, "photos-refused-phone-light", whole_page=False)
    create_user(pam, "pia2")
    auth = api_session(pam.url, "pam")
    assert http_upload(pam.url, pam.pam_entry, images.webp(), auth) == 201
    [*_, photo] = http("GET", f"{pam.url}/api/entries/{pam.pam_entry}",
                       headers=auth)[2]["photos"]
    login_by_cookie(driver, pam.url, "pia2")  # the same phone, another person's session
    driver.get(pam.url + photo["url"])
    assert "No such photo" in driver.page_source and "<img" not in driver.page_source
