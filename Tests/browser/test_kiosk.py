"""Kiosk mode in a real browser: a coordinator enrols the tablet from /review/kiosks; visitor A
takes two photos, types a name and walks away; after "Still there?" and its countdown, visitor B finds no
trace of A: not on the page, not by Back, not in the browser's storage, not on the server (KIO-03, KIO-04).
Idle times are a few seconds here (HAR_KIOSK_IDLE_SECONDS, HAR_KIOSK_COUNTDOWN_SECONDS)."""
import os
import subprocess

import pytest
from selenium.common.exceptions import ElementClickInterceptedException, WebDriverException
from selenium.webdriver.common.by import By

from conftest import HarServer, database, har_binary, sign_in, unique_email, wait_for
from helpers import restart

COORDINATOR = unique_email("kiosk-coordinator")


@pytest.fixture(scope="module")
def server():
    running = HarServer(env={"HAR_COORDINATORS": COORDINATOR, "HAR_PLATFORM_VERIFIED": COORDINATOR, "HAR_KIOSK_IDLE_SECONDS": "3",
                             "HAR_KIOSK_COUNTDOWN_SECONDS": "3"}).start()
    yield running
    running.remove()


def enrol(driver, server, site="Tintern Abbey"):
    """The coordinator creates a kiosk on /review/kiosks; the tablet (this browser, signed out) opens the
    enrolment link. Returns the link."""
    driver.get(server.url + "/healthz")
    driver.delete_all_cookies()
    sign_in(driver, server, COORDINATOR)
    driver.get(server.url + "/review/kiosks")
    driver.find_element(By.ID, "k-site").send_keys(site)
    driver.find_element(By.ID, "k-lat").send_keys("51.697")
    driver.find_element(By.ID, "k-lon").send_keys("-2.677")
    driver.find_element(By.ID, "kiosk-create-submit").click()
    wait_for(driver, lambda d: d.find_elements(By.ID, "enrolment-link"))
    assert driver.find_elements(By.CSS_SELECTOR, ".kiosk-qr svg")
    link = driver.find_element(By.ID, "enrolment-link").get_attribute("value")
    driver.delete_all_cookies()
    driver.get(link)
    assert driver.find_element(By.ID, "enrol-token").get_attribute("value") == link.split("#")[1]
    assert "#" not in driver.current_url, "the token leaves the address bar"
    driver.find_element(By.ID, "kiosk-enrol").click()
    wait_for(driver, lambda d: d.find_elements(By.ID, "kiosk-start"))
    return link


def storage_left(driver):
    """What the browser keeps for this origin: IndexedDB databases, Cache Storage keys, web storage."""
    return driver.execute_async_script("""
        var done = arguments[arguments.length - 1];
        Promise.all([indexedDB.databases(), caches.keys()]).then(function (found) {
          done({indexedDB: found[0].map(function (db) { return db.name; }), caches: found[1],
                local: localStorage.length, session: sessionStorage.length});
        }, function (error) { done({error: String(error)}); });""")


def outbox_count(driver):
    """How many finished reports the kiosk holds on the device (0 when its outbox was never opened)."""
    return driver.execute_async_script("""
        var done = arguments[arguments.length - 1];
        indexedDB.databases().then(function (list) {
          if (!list.some(function (db) { return db.name === 'har-kiosk-outbox'; })) { done(0); return; }
          var request = indexedDB.open('har-kiosk-outbox');
          request.onsuccess = function () {
            var db = request.result;
            var count = db.transaction('reports').objectStore('reports').count();
            count.onsuccess = function () { db.close(); done(count.result); };
          };
          request.onerror = function () { done(-1); };
        });""")


def take_photos(driver, count):
    wait_for(driver, lambda d: d.execute_script(
        "var v = document.getElementById('kiosk-camera'); return v && v.videoWidth > 0;"), timeout=20)
    for index in range(count):
        driver.find_element(By.ID, "kiosk-shoot").click()
        wait_for(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#kiosk-thumbs img")) == index + 1,
                 timeout=20)


def test_KIO_03_KIO_04_visitor_walks_away_and_the_next_finds_no_trace(driver, server):
    enrol(driver, server)
    body = driver.page_source
    assert "Tintern Abbey" in body and "Report damage you see here" in body
    start = driver.find_element(By.ID, "kiosk-start")
    assert start.size["height"] >= 48 and start.size["width"] >= 48, "large targets"
    # Visitor A: two photos, then a name, then walks away.
    start.click()
    wait_for(driver, lambda d: d.find_elements(By.ID, "kiosk-shoot"))
    # Something A's page left in the browser (as a page might): the reset must take it too.
    driver.execute_script("localStorage.setItem('visitor-a', 'x'); sessionStorage.setItem('visitor-a', 'x');"
                          "indexedDB.open('visitor-a-db', 1); caches.open('visitor-a-cache');")
    take_photos(driver, 2)
    driver.find_element(By.ID, "kiosk-next").click()
    wait_for(driver, lambda d: d.find_elements(By.ID, "field-name"))
    name = driver.find_element(By.ID, "field-name")
    assert name.get_attribute("value") == "Tintern Abbey", "the site's name, pre-filled"
    name.clear()
    name.send_keys("Visitor A secret chapel")
    with database(server) as db:
        assert db.execute("SELECT count(*) FROM photos p JOIN reports r ON r.id = p.report_id "
                          "WHERE r.state = 'draft' AND r.origin = 'kiosk'").fetchone()[0] == 2
    # "Still there?" comes; more time is given on request.
    wait_for(driver, lambda d: d.find_element(By.ID, "kiosk-idle").is_displayed(), timeout=15)
    assert "Still there?" in driver.find_element(By.ID, "kiosk-idle").text
    driver.find_element(By.ID, "kiosk-more-time").click()
    assert not driver.find_element(By.ID, "kiosk-idle").is_displayed()
    assert driver.find_element(By.ID, "field-name").get_attribute("value") == "Visitor A secret chapel"
    # Then A is gone: the prompt returns, counts down, and the kiosk resets.
    wait_for(driver, lambda d: d.find_element(By.ID, "kiosk-idle").is_displayed(), timeout=15)
    wait_for(driver, lambda d: d.find_elements(By.ID, "kiosk-start"), timeout=15)
    # Visitor B: nothing of A on the page, by Back, in storage, on the server.
    assert "Visitor A secret chapel" not in driver.page_source
    driver.back()
    wait_for(driver, lambda d: d.execute_script("return document.readyState") == "complete")
    assert "Visitor A secret chapel" not in driver.page_source
    assert not driver.find_elements(By.ID, "field-name"), "Back does not bring A's form back: " + driver.current_url
    assert not driver.find_elements(By.CSS_SELECTOR, "#kiosk-thumbs img")
    driver.get(server.url + "/kiosk")
    wait_for(driver, lambda d: d.find_elements(By.ID, "kiosk-start"))
    left = storage_left(driver)
    # Spared by the reset: the kiosk's offline shell (no visitor's data) and its outbox of finished
    # reports, empty here (A never finished).
    assert set(left["indexedDB"]) <= {"har-kiosk-outbox"}, left
    assert all(name.startswith("har-kiosk-shell-") for name in left["caches"]), left
    assert (left["local"], left["session"]) == (0, 0), left
    assert outbox_count(driver) == 0
    with database(server) as db:
        assert db.execute("SELECT count(*) FROM reports WHERE state = 'draft'").fetchone()[0] == 0
        assert db.execute("SELECT count(*) FROM photos").fetchone()[0] == 0
    photos_dir = os.path.join(server.data_dir, "photos")
    assert not [f for f in os.listdir(photos_dir) if not f.startswith(".")] if os.path.isdir(photos_dir) else True
    # B starts afresh: no photos of A.
    driver.find_element(By.ID, "kiosk-start").click()
    wait_for(driver, lambda d: d.find_elements(By.ID, "kiosk-shoot"))
    assert not driver.find_elements(By.CSS_SELECTOR, "#kiosk-thumbs img")
    assert driver.find_element(By.ID, "kiosk-next").get_attribute("aria-disabled") == "true"


def test_KIO_03_report_and_receipt_then_back_to_start(driver, server):
    driver.get(server.url + "/kiosk")
    wait_for(driver, lambda d: d.find_elements(By.ID, "kiosk-start"))
    driver.find_element(By.ID, "kiosk-start").click()
    wait_for(driver, lambda d: d.find_elements(By.ID, "kiosk-shoot"))
    take_photos(driver, 1)
    driver.find_element(By.ID, "kiosk-next").click()
    wait_for(driver, lambda d: d.find_elements(By.ID, "field-name"))
    from selenium.webdriver.support.ui import Select
    for field, value in [("field-designation", "LB"), ("field-condition", "poor"), ("field-occupancy", "vacant"),
                         ("field-priority-category", "A"), ("field-owner-type", "private"), ("field-grade", "II")]:
        Select(driver.find_element(By.ID, field)).select_by_value(value)
    driver.find_element(By.ID, "kiosk-submit").click()
    wait_for(driver, lambda d: d.find_elements(By.ID, "kiosk-code"))
    code = driver.find_element(By.ID, "kiosk-code").text
    assert len(code) == 9 and code[4] == "-"
    assert driver.find_elements(By.CSS_SELECTOR, ".kiosk-qr svg")
    driver.find_element(By.ID, "kiosk-done").click()
    wait_for(driver, lambda d: d.find_elements(By.ID, "kiosk-start"))
    with database(server) as db:
        row = db.execute("SELECT origin, review_state, state FROM reports WHERE state != 'draft'").fetchone()
        assert tuple(row) == ("kiosk", "received", "queued")


def test_KIO_06_qr_leaves_the_tablet_and_the_secret_leaves_the_visitors_history(driver, server):
    """The receipt's QR code (its link carries the claim secret) goes from the tablet after a few seconds
    while the code stays; on the visitor's phone the receipt page takes the secret out of the address
    (history.replaceState) and keeps it for the tab only, for the way back from signing in."""
    import hashlib
    import time
    enrol(driver, server, site="Secret Chapel")
    driver.find_element(By.ID, "kiosk-start").click()
    wait_for(driver, lambda d: d.find_elements(By.ID, "kiosk-shoot"))
    take_photos(driver, 1)
    driver.find_element(By.ID, "kiosk-next").click()
    wait_for(driver, lambda d: d.find_elements(By.ID, "field-name"))
    fill_form(driver)
    driver.find_element(By.ID, "kiosk-submit").click()
    wait_for(driver, lambda d: d.find_elements(By.ID, "kiosk-code"))
    shown = time.monotonic()
    code = driver.find_element(By.ID, "kiosk-code").text
    assert driver.find_elements(By.CSS_SELECTOR, "#kiosk-qr svg")
    wait_for(driver, lambda d: not d.find_elements(By.ID, "kiosk-qr"), timeout=15)
    assert time.monotonic() - shown < 12, "gone within the QR's seconds, well before the receipt's 20"
    assert driver.find_element(By.ID, "kiosk-qr-gone").is_displayed()
    assert driver.find_element(By.ID, "kiosk-code").text == code, "the code stays"

    secret = os.urandom(32).hex()
    with database(server) as db:
        db.execute("UPDATE kiosk_receipts SET secret_hash = ? WHERE code = ?",
                   (hashlib.sha256(secret.encode()).digest(), code))
        db.commit()
    driver.delete_all_cookies()  # the visitor's own phone: no kiosk credential
    driver.get(server.url + "/r/" + code + "#" + secret)
    wait_for(driver, lambda d: d.find_element(By.ID, "claim-signin").is_displayed())
    assert "#" not in driver.current_url and secret not in driver.current_url
    assert driver.execute_script("return location.hash") == ""
    driver.refresh()  # as after signing in and coming back in the same tab
    wait_for(driver, lambda d: d.find_element(By.ID, "claim-signin").is_displayed())
    assert secret not in driver.current_url


def press(driver, element_id):
    """Presses a kiosk button as a visitor would. This module's idle time is 3 s, so on a slow machine
    "Still there?" may have come up over the button while the test took a screenshot: it is answered
    with More time first (the press waits on the prompt being gone, not on a clock)."""
    def pressed(d):
        if d.find_element(By.ID, "kiosk-idle").is_displayed():
            d.find_element(By.ID, "kiosk-more-time").click()
        try:
            d.find_element(By.ID, element_id).click()
            return True
        except ElementClickInterceptedException:
            return False
    wait_for(driver, pressed)


def fill_form(driver):
    from selenium.webdriver.support.ui import Select
    for field, value in [("field-designation", "LB"), ("field-condition", "poor"), ("field-occupancy", "vacant"),
                         ("field-priority-category", "A"), ("field-owner-type", "private"), ("field-grade", "II")]:
        Select(driver.find_element(By.ID, field)).select_by_value(value)


def test_KIO_03_KIO_05_offline_report_held_on_the_tablet_then_sent_once(driver):
    """The tablet off the network: the server stops; the kiosk's service worker serves the offline shell;
    a visitor takes two photos and finishes the report, which is held in the kiosk's outbox with a "will
    be sent" receipt; the server returns (same address and data) and the report is stored once, with
    its photos, waiting for review."""
    server = HarServer(env={"HAR_COORDINATORS": COORDINATOR, "HAR_PLATFORM_VERIFIED": COORDINATOR}).start()
    try:
        enrol(driver, server, site="Offline Priory")
        # The kiosk's service worker controls the page and holds the shell.
        worker_in_control(driver, server)
        port = server.port
        server.stop()

        driver.get(server.url + "/kiosk")
        wait_for(driver, lambda d: d.execute_script("return document.body.getAttribute('data-kiosk-step')")
                 == "offline", timeout=20)
        assert "Offline Priory" in driver.page_source
        driver.find_element(By.ID, "kiosk-start").click()
        take_photos(driver, 2)
        driver.find_element(By.ID, "kiosk-next").click()
        wait_for(driver, lambda d: d.find_element(By.ID, "field-name").is_displayed())
        assert driver.find_element(By.ID, "field-name").get_attribute("value") == "Offline Priory"
        driver.find_element(By.ID, "field-name").clear()
        driver.find_element(By.ID, "field-name").send_keys("Cracked tracery")
        fill_form(driver)
        driver.find_element(By.ID, "kiosk-submit").click()
        wait_for(driver, lambda d: d.find_element(By.ID, "kiosk-held").is_displayed())
        assert "will be sent" in driver.find_element(By.ID, "kiosk-held").text
        assert outbox_count(driver) == 1
        # Back to the (offline) attract screen: nothing of the report on the screen.
        driver.find_element(By.ID, "kiosk-done").click()
        wait_for(driver, lambda d: d.find_element(By.ID, "kiosk-start").is_displayed())
        assert "Cracked tracery" not in driver.page_source
        with database(server) as db:
            assert db.execute("SELECT count(*) FROM reports WHERE name = 'Cracked tracery'").fetchone()[0] == 0

        # The server answers again, at the same address.
        values = dict(server.extra_env)
        values["HAR_PORT"] = str(port)
        server = HarServer(data_dir=server.data_dir, env=values).start()
        driver.get(server.url + "/kiosk")
        wait_for(driver, lambda d: d.find_elements(By.ID, "kiosk-start"))

        def stored(_):
            with database(server) as db:
                return db.execute("SELECT count(*) FROM reports WHERE name = 'Cracked tracery' "
                                  "AND state != 'draft'").fetchone()[0] == 1
        wait_for(driver, stored, timeout=30)
        wait_for(driver, lambda d: outbox_count(d) == 0, timeout=30)
        # Once: another start of the attract screen sends nothing again.
        driver.get(server.url + "/kiosk")
        wait_for(driver, lambda d: d.find_elements(By.ID, "kiosk-start"))
        with database(server) as db:
            rows = db.execute("SELECT id, origin, review_state, state, kiosk_id IS NOT NULL FROM reports "
                              "WHERE name = 'Cracked tracery'").fetchall()
            assert len(rows) == 1, rows
            assert tuple(rows[0][1:]) == ("kiosk", "received", "queued", 1)
            assert db.execute("SELECT count(*) FROM photos WHERE report_id = ?", (rows[0][0],)).fetchone()[0] == 2
            assert db.execute("SELECT count(*) FROM review_audit WHERE action = 'kiosk_submit'").fetchone()[0] == 1
    finally:
        server.remove()


# ---- The tablet off the network: the server's own screens when the server goes away, the language
# buttons, a report the server refuses for good, a revoked tablet. The server is stopped for real, as in
# test_offline.py, and started again on the same address and data (restart()).

def kiosk_with_worker(driver, site):
    """A new server and kiosk, enrolled in this browser, its service worker in control with the shell kept."""
    server = HarServer(env={"HAR_COORDINATORS": COORDINATOR, "HAR_PLATFORM_VERIFIED": COORDINATOR}).start()
    driver.execute_cdp_cmd("Browser.grantPermissions", {"origin": server.url, "permissions": ["geolocation"]})
    enrol(driver, server, site=site)
    worker_in_control(driver, server)
    return server


def worker_in_control(driver, server):
    """Waits until the kiosk's service worker is activated with the shell kept, then loads a kiosk page,
    which it controls. The attract screen registers the worker; it installs (every static file, the
    shell in each language), then claims the pages open at that moment. A page whose navigation was
    still under way then is not one of them and stays without a controller for good: waiting on
    `controller` alone could miss. Waited on instead: the kiosk's registration activated (install, and
    so the shell, done first), then a page loaded after it, which the active worker always controls."""
    driver.get(server.url + "/kiosk")
    wait_for(driver, lambda d: kiosk_worker(d) == "activated", timeout=60)
    assert any(n.startswith("har-kiosk-shell-") for n in storage_left(driver)["caches"]), "the shell is kept"
    driver.get(server.url + "/kiosk")
    wait_for(driver, lambda d: d.find_elements(By.ID, "kiosk-start"))
    assert driver.execute_script("var c = navigator.serviceWorker.controller; return c && c.scriptURL;") \
        .endswith("/kiosk/sw.js"), "the kiosk's worker controls the page"


def kiosk_worker(driver):
    """The state of the kiosk's active service worker (None while it has none)."""
    driver.set_script_timeout(30)
    return driver.execute_async_script("""
        var done = arguments[arguments.length - 1];
        navigator.serviceWorker.getRegistration('/kiosk').then(function (r) {
          done(r && /\\/kiosk$/.test(r.scope) && r.active ? r.active.state : null);
        }, function () { done(null); });""")


def outbox_records(driver):
    """The kiosk's outbox as [open, refused, photo count, fields] per record (fields only for the test's eyes)."""
    driver.set_script_timeout(30)
    return driver.execute_async_script("""
        var done = arguments[arguments.length - 1];
        var request = indexedDB.open('har-kiosk-outbox');
        request.onsuccess = function () {
          var db = request.result;
          if (!db.objectStoreNames.contains('reports')) { db.close(); done([]); return; }
          var all = db.transaction('reports').objectStore('reports').getAll();
          all.onsuccess = function () {
            db.close();
            done(all.result.map(function (r) { return [!!r.open, !!r.refused, r.photos.length, r.fields || null]; }));
          };
        };
        request.onerror = function () { done(null); };""")


def stored_once(server, name, photos):
    def check(_):
        with database(server) as db:
            rows = db.execute("SELECT id FROM reports WHERE name = ? AND state != 'draft'", (name,)).fetchall()
            if len(rows) != 1:
                return False
            return db.execute("SELECT count(*) FROM photos WHERE report_id = ?", (rows[0][0],)).fetchone()[0] == photos
    return check


def to_server_form(driver, server, photos=2):
    driver.find_element(By.ID, "kiosk-start").click()
    wait_for(driver, lambda d: d.find_elements(By.ID, "kiosk-shoot"))
    take_photos(driver, photos)
    driver.find_element(By.ID, "kiosk-next").click()
    wait_for(driver, lambda d: d.find_elements(By.ID, "field-name"))
    assert driver.execute_script("return document.body.getAttribute('data-kiosk-step')") == "form", "the server's form"


def test_KIO_03_KIO_05_server_gone_at_submit_on_the_servers_form_report_held_with_its_photos(driver):
    """The tablet off the network: a visitor takes two photos on the server's screens (they reach
    the server), fills the server's form, and the server goes away before Submit. Submit (by fetch) gets no
    answer: the report is kept on the tablet with both photos (held there as they were taken) and the form's
    token, and the visitor sees the "will be sent" screen, not the browser's error page. Nothing of it on the
    next screens. The server back on the same address, the report is stored once with both photos."""
    server = kiosk_with_worker(driver, "Held Chapel")
    try:
        to_server_form(driver, server)
        name = driver.find_element(By.ID, "field-name")
        name.clear()
        name.send_keys("Leaning buttress")
        fill_form(driver)
        server.stop()
        driver.find_element(By.ID, "kiosk-submit").click()
        wait_for(driver, lambda d: d.find_elements(By.ID, "kiosk-held") and
                 d.find_element(By.ID, "kiosk-held").is_displayed(), timeout=40)
        assert "will be sent" in driver.find_element(By.ID, "kiosk-held").text
        assert "Leaning buttress" not in driver.page_source
        assert not driver.find_elements(By.ID, "field-name"), "the form is gone from the screen"
        records = outbox_records(driver)
        assert [r[:3] for r in records] == [[False, False, 2]], records
        assert records[0][3]["name"] == "Leaning buttress"
        # Done: the next visitor gets the (offline) attract screen, with nothing of the report.
        driver.find_element(By.ID, "kiosk-done").click()
        wait_for(driver, lambda d: d.execute_script("return document.body.getAttribute('data-kiosk-step')")
                 == "offline" and d.find_element(By.ID, "kiosk-start").is_displayed(), timeout=20)
        assert "Leaning buttress" not in driver.page_source
        assert not driver.find_element(By.ID, "kiosk-refused").is_displayed()

        server = restart(server)
        driver.get(server.url + "/kiosk")
        wait_for(driver, stored_once(server, "Leaning buttress", 2), timeout=60)
        wait_for(driver, lambda d: outbox_records(d) == [], timeout=30)
        with database(server) as db:
            row = db.execute("SELECT origin, review_state, state FROM reports WHERE name = 'Leaning buttress'").fetchone()
            assert tuple(row) == ("kiosk", "received", "queued")
    finally:
        server.remove()


def test_KIO_03_a_photo_whose_upload_got_no_answer_is_sent_before_the_report(driver):
    """A photo held on the tablet: the second of two photos gets no answer from the server
    (the tablet's network drops for that moment), so it is held on the tablet and counted; the network
    is back before Next. Submit on the server's form sends that photo first, by its id, then the
    report: the receipt is for a report with both photos, and nothing is left on the tablet."""
    server = kiosk_with_worker(driver, "Dropped Frame Priory")
    try:
        driver.find_element(By.ID, "kiosk-start").click()
        wait_for(driver, lambda d: d.find_elements(By.ID, "kiosk-shoot"))
        take_photos(driver, 1)
        driver.execute_cdp_cmd("Network.enable", {})
        driver.execute_cdp_cmd("Network.emulateNetworkConditions", {
            "offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
        driver.find_element(By.ID, "kiosk-shoot").click()
        wait_for(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#kiosk-thumbs img")) == 2, timeout=20)
        driver.execute_cdp_cmd("Network.emulateNetworkConditions", {
            "offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
        with database(server) as db:
            assert db.execute("SELECT count(*) FROM photos").fetchone()[0] == 1, "one photo reached the server"
        driver.find_element(By.ID, "kiosk-next").click()
        wait_for(driver, lambda d: d.find_elements(By.ID, "field-name"))
        name = driver.find_element(By.ID, "field-name")
        name.clear()
        name.send_keys("Dropped frame")
        fill_form(driver)
        driver.find_element(By.ID, "kiosk-submit").click()
        wait_for(driver, lambda d: d.find_elements(By.ID, "kiosk-code"), timeout=40)
        assert stored_once(server, "Dropped frame", 2)(driver)
        wait_for(driver, lambda d: outbox_records(d) == [], timeout=20)
    finally:
        server.remove()


def test_KIO_03_language_buttons_switch_off_the_network_and_the_visit_goes_on(driver):
    """The server goes away while a visitor is on the server's photo screen (one photo taken there): the
    language button (a form posting to the server) switches the tablet to the offline shell in French at
    the same step, the photo still there; a second photo, the form, Submit: held; the server back, stored
    once with both photos. On the shell's attract screen, the buttons switch language too."""
    server = kiosk_with_worker(driver, "Abbaye hors ligne")
    try:
        driver.find_element(By.ID, "kiosk-start").click()
        wait_for(driver, lambda d: d.find_elements(By.ID, "kiosk-shoot"))
        take_photos(driver, 1)
        server.stop()
        driver.find_element(By.CSS_SELECTOR, ".kiosk-languages button[value='fr']").click()
        wait_for(driver, lambda d: d.find_element(By.TAG_NAME, "html").get_attribute("lang") == "fr" and
                 d.execute_script("return document.body.getAttribute('data-kiosk-step')") == "offline", timeout=20)
        wait_for(driver, lambda d: d.find_element(By.ID, "offline-photos").is_displayed())
        assert "Photographiez les dégâts" in driver.find_element(By.ID, "offline-photos").text
        assert len(driver.find_elements(By.CSS_SELECTOR, "#kiosk-thumbs img")) == 1, "the photo taken online"
        wait_for(driver, lambda d: d.execute_script(
            "var v = document.getElementById('kiosk-camera'); return v && v.videoWidth > 0;"), timeout=20)
        driver.find_element(By.ID, "kiosk-shoot").click()
        wait_for(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#kiosk-thumbs img")) == 2, timeout=20)
        driver.find_element(By.ID, "kiosk-next").click()
        wait_for(driver, lambda d: d.find_element(By.ID, "field-name").is_displayed())
        driver.find_element(By.ID, "field-name").clear()
        driver.find_element(By.ID, "field-name").send_keys("Voûte fissurée")
        fill_form(driver)
        driver.find_element(By.ID, "kiosk-submit").click()
        wait_for(driver, lambda d: d.find_element(By.ID, "kiosk-held").is_displayed())
        assert "sera envoyé" in driver.find_element(By.ID, "kiosk-held").text
        assert [r[:3] for r in outbox_records(driver)] == [[False, False, 2]]
        # Done: the attract screen stays French; its English button switches back, still off the network.
        driver.find_element(By.ID, "kiosk-done").click()
        wait_for(driver, lambda d: d.find_element(By.ID, "kiosk-start").is_displayed() and
                 d.find_element(By.TAG_NAME, "html").get_attribute("lang") == "fr", timeout=20)
        driver.find_element(By.CSS_SELECTOR, ".kiosk-languages button[value='en']").click()
        wait_for(driver, lambda d: d.find_element(By.TAG_NAME, "html").get_attribute("lang") == "en" and
                 d.find_element(By.ID, "kiosk-start").is_displayed(), timeout=20)
        assert "Report damage you see here" in driver.page_source

        server = restart(server)
        driver.get(server.url + "/kiosk")
        wait_for(driver, stored_once(server, "Voûte fissurée", 2), timeout=60)
        wait_for(driver, lambda d: outbox_records(d) == [], timeout=30)
    finally:
        server.remove()


def test_KIO_05_refused_report_counted_for_staff_and_a_revoked_tablet_stops(driver):
    """A held report the server refuses for good (here: a form it finds invalid) is kept, marked refused,
    not sent again, and counted on the attract screen for the staff without a word of its content; "try
    again" sends it once more. A tablet revoked while the server was away stops sending, loses its shell
    and shows the server's "not enrolled" page; the held report stays on the tablet."""
    server = kiosk_with_worker(driver, "Refused Grange")
    try:
        # A finished report the server will refuse (an answer outside the form's choices).
        driver.set_script_timeout(30)
        driver.execute_async_script("""
            var done = arguments[arguments.length - 1];
            var canvas = document.createElement('canvas'); canvas.width = 8; canvas.height = 8;
            canvas.toBlob(function (blob) {
              HARKioskOutbox.save({ id: HARIds.uuid(), token: HARIds.token(), createdAt: Date.now(),
                fields: { name: 'Secret barn', designation: 'nonsense', condition: 'poor', occupancy: 'vacant',
                          priority_category: 'A', owner_type: 'private', grade: 'II' },
                photos: [{ id: HARIds.uuid(), blob: blob, fix: null, takenAt: Date.now() }] }).then(done, done);
            }, 'image/jpeg');""")
        driver.get(server.url + "/kiosk")
        wait_for(driver, lambda d: d.find_element(By.ID, "kiosk-refused").is_displayed(), timeout=30)
        notice = driver.find_element(By.ID, "kiosk-refused").text
        assert "1 report(s)" in notice and "Secret barn" not in driver.page_source
        shot(driver, "refused", "phone")
        assert [r[:3] for r in outbox_records(driver)] == [[False, True, 1]]
        with database(server) as db:
            assert db.execute("SELECT count(*) FROM reports WHERE name = 'Secret barn'").fetchone()[0] == 0
        driver.find_element(By.ID, "kiosk-refused-retry").click()
        wait_for(driver, lambda d: d.find_element(By.ID, "kiosk-refused").is_displayed() and
                 [r[:3] for r in outbox_records(d)] == [[False, True, 1]], timeout=30)

        # The server away; a visitor's report held in the shell; the kiosk revoked meanwhile.
        server.stop()
        driver.get(server.url + "/kiosk")
        wait_for(driver, lambda d: d.execute_script("return document.body.getAttribute('data-kiosk-step')")
                 == "offline", timeout=20)
        # The count, off the network too: the shell reads it from the tablet's outbox once it has loaded.
        wait_for(driver, lambda d: d.find_element(By.ID, "kiosk-refused").is_displayed())
        driver.find_element(By.ID, "kiosk-start").click()
        take_photos(driver, 1)
        driver.find_element(By.ID, "kiosk-next").click()
        wait_for(driver, lambda d: d.find_element(By.ID, "field-name").is_displayed())
        fill_form(driver)
        driver.find_element(By.ID, "kiosk-submit").click()
        wait_for(driver, lambda d: d.find_element(By.ID, "kiosk-held").is_displayed())
        revoke(server)
        server = restart(server)
        # The browser says the network is back (the shell also tries every 15 seconds).
        driver.execute_script("window.dispatchEvent(new Event('online'));")
        wait_for(driver, lambda d: d.find_elements(By.TAG_NAME, "h1") and
                 "not enrolled" in d.find_element(By.TAG_NAME, "h1").text, timeout=40)
        registrations = driver.execute_async_script("""
            var done = arguments[arguments.length - 1];
            navigator.serviceWorker.getRegistrations().then(function (list) {
              done(list.map(function (r) { return r.scope; }));
            });""")
        assert not [s for s in registrations if s.endswith("/kiosk")], registrations
        assert not [n for n in storage_left(driver)["caches"] if n.startswith("har-kiosk-shell-")]
        records = outbox_records(driver)
        assert sorted(r[:3] for r in records) == [[False, False, 1], [False, True, 1]], records
        with database(server) as db:
            assert db.execute("SELECT count(*) FROM reports WHERE state != 'draft'").fetchone()[0] == 0
    finally:
        server.remove()


def kiosk_worker_scopes(driver):
    driver.set_script_timeout(30)
    return driver.execute_async_script("""
        var done = arguments[arguments.length - 1];
        navigator.serviceWorker.getRegistrations().then(function (list) {
          done(list.map(function (r) { return r.scope; }).filter(function (s) { return /\\/kiosk$/.test(s); }));
        });""")


def revoke(server):
    """`har kiosk revoke ID` on the server's data, as a coordinator would (the server running or not)."""
    with database(server) as db:
        kiosk_id = db.execute("SELECT id FROM kiosks WHERE revoked_at IS NULL").fetchone()[0]
    env = {k: v for k, v in os.environ.items() if not k.startswith("HAR_")}
    env["HAR_DATA_DIR"] = server.data_dir
    subprocess.run([har_binary(), "kiosk", "revoke", str(kiosk_id)], env=env, check=True, stdout=subprocess.DEVNULL)


def test_KIO_07_revoked_tablet_on_the_servers_screens_drops_its_shell_and_keeps_held_reports(driver):
    """Revoked while the server answers: the tablet's next kiosk page is the server's "not enrolled" page,
    whose answer makes the kiosk's service worker remove itself and its shell (no more reports it could
    never send); a report held on the tablet stays there. With the server then away, the browser no longer
    offers the kiosk's screens."""
    server = kiosk_with_worker(driver, "Revoked Mill")
    try:
        driver.set_script_timeout(30)
        driver.execute_async_script("""
            var done = arguments[arguments.length - 1];
            var canvas = document.createElement('canvas'); canvas.width = 8; canvas.height = 8;
            canvas.toBlob(function (blob) {
              HARKioskOutbox.save({ id: HARIds.uuid(), token: HARIds.token(), createdAt: Date.now(), refused: true,
                fields: { name: 'Kept barn' }, photos: [{ id: HARIds.uuid(), blob: blob, fix: null, takenAt: 1 }] })
                .then(done, done);
            }, 'image/jpeg');""")
        assert kiosk_worker_scopes(driver)
        revoke(server)
        driver.get(server.url + "/kiosk")
        wait_for(driver, lambda d: "not enrolled" in d.find_element(By.TAG_NAME, "h1").text)
        wait_for(driver, lambda d: kiosk_worker_scopes(d) == [], timeout=20)
        wait_for(driver, lambda d: not [n for n in storage_left(d)["caches"] if n.startswith("har-kiosk-shell-")])
        assert [r[:3] for r in outbox_records(driver)] == [[False, True, 1]], "the held report stays"
        server.stop()
        try:
            driver.get(server.url + "/kiosk")
        except WebDriverException:
            pass  # the browser's own "cannot connect": no worker answers for the kiosk any more
        assert not driver.find_elements(By.ID, "kiosk-start"), "no kiosk screen off the network any more"
    finally:
        server.remove()


# ---- Screenshots for docs/KIOSK.md: each screen at a phone's width and a tablet's, portrait and landscape.

SHOTS = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "img")
SIZES = {"phone": (390, 844), "tablet": (800, 1280), "landscape": (1280, 800)}


def shot(driver, screen, size):
    os.makedirs(SHOTS, exist_ok=True)
    driver.execute_script("window.scrollTo(0, 0);")
    driver.save_screenshot(os.path.join(SHOTS, "kiosk-%s-%s.png" % (screen, size)))


def test_KIO_03_screens_at_phone_and_tablet_widths(driver, server):
    """The visitor's screens (attract, photos, "Still there?", form, receipt, the offline "will be sent"
    screen) at 390 px, 800 px and 1280 px: written to docs/img/kiosk-*.png; the targets stay 48 px or more."""
    enrol(driver, server, site="Screenshot Priory")
    try:
        for size, (width, height) in SIZES.items():
            driver.set_window_size(width, height)
            driver.get(server.url + "/kiosk")
            wait_for(driver, lambda d: d.find_elements(By.ID, "kiosk-start"))
            shot(driver, "attract", size)
            driver.find_element(By.ID, "kiosk-start").click()
            wait_for(driver, lambda d: d.find_elements(By.ID, "kiosk-shoot"))
            take_photos(driver, 1)
            shot(driver, "photos", size)
            for element in driver.find_elements(By.CSS_SELECTOR, ".kiosk-button, .kiosk-language"):
                if element.is_displayed():
                    assert element.size["height"] >= 48 and element.size["width"] >= 48, element.text
            # The real prompt (idle 3 s here), its countdown running; more time asked at once.
            wait_for(driver, lambda d: d.find_element(By.ID, "kiosk-idle").is_displayed(), timeout=15)
            shot(driver, "still-there", size)
            driver.find_element(By.ID, "kiosk-more-time").click()
            press(driver, "kiosk-next")
            wait_for(driver, lambda d: d.find_elements(By.ID, "field-name"))
            fill_form(driver)
            shot(driver, "form", size)
            press(driver, "kiosk-submit")
            wait_for(driver, lambda d: d.find_elements(By.ID, "kiosk-code"))
            shot(driver, "receipt", size)
            # The offline shell's "will be sent" screen (the same words as the server's form shows when
            # the server does not answer at Submit).
            driver.get(server.url + "/kiosk/offline")
            wait_for(driver, lambda d: d.find_element(By.ID, "kiosk-start").is_displayed())
            driver.find_element(By.ID, "kiosk-start").click()
            take_photos(driver, 1)
            press(driver, "kiosk-next")
            wait_for(driver, lambda d: d.find_element(By.ID, "field-name").is_displayed())
            fill_form(driver)
            press(driver, "kiosk-submit")
            wait_for(driver, lambda d: d.find_element(By.ID, "kiosk-held").is_displayed())
            shot(driver, "held", size)
    finally:
        driver.set_window_size(412, 860)
