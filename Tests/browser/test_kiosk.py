"""Kiosk mode in a real browser (issue 11): a coordinator enrols the tablet from /review/kiosks; visitor A
takes two photos, types a name and walks away; after "Still there?" and its countdown, visitor B finds no
trace of A: not on the page, not by Back, not in the browser's storage, not on the server (KIO-03, KIO-04).
Idle times are a few seconds here (HAR_KIOSK_IDLE_SECONDS, HAR_KIOSK_COUNTDOWN_SECONDS)."""
import os

import pytest
from selenium.webdriver.common.by import By

from conftest import HarServer, database, make_driver, sign_in, unique_email, wait_for

COORDINATOR = unique_email("kiosk-coordinator")


@pytest.fixture(scope="module")
def server():
    running = HarServer(env={"HAR_COORDINATORS": COORDINATOR, "HAR_KIOSK_IDLE_SECONDS": "3",
                             "HAR_KIOSK_COUNTDOWN_SECONDS": "3"}).start()
    yield running
    running.remove()


@pytest.fixture(scope="module")
def driver():
    browser = make_driver()
    yield browser
    browser.quit()


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
    assert left == {"indexedDB": [], "caches": [], "local": 0, "session": 0}, left
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
