"""Offline in the browser (OFF-01..05), real Chromium against the real `har serve` with its
embedded local platform and upload worker. The server is stopped (or killed) for real; the page is then
answered by the service worker from its cache, the report kept in the device's outbox (IndexedDB), and
sent when the server answers again on the same address and data. The platform's database is the judge.
"""
import os
import shutil
import signal
import sqlite3
import tempfile
import time

import pytest
from selenium.common.exceptions import (ElementClickInterceptedException, NoSuchElementException,
                                        StaleElementReferenceException)
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import Select, WebDriverWait

from conftest import HarServer, ROOT, make_driver, sign_in, unique_email, wait_for
from helpers import LONDON, held_records, platform_rows, restart, rows, set_location


@pytest.fixture
def driver():
    browser = make_driver()
    yield browser
    browser.quit()


def start_server(data_dir=None, port=None, env=None):
    values = {"HAR_WORKER_ENABLED": "true"}
    values.update(env or {})
    if port:
        values["HAR_PORT"] = str(port)
    return HarServer(data_dir=data_dir, env=values).start()


def worker_ready(driver):
    """Waits until the service worker is active with the app shell in its cache."""
    driver.set_script_timeout(60)
    return driver.execute_async_script("""
        var done = arguments[arguments.length - 1];
        navigator.serviceWorker.ready.then(function (registration) {
          return caches.keys().then(function (names) {
            var shell = names.filter(function (n) { return n.indexOf('har-shell-') === 0; });
            return caches.open(shell[0]).then(function (cache) { return cache.match('/app-shell/new'); })
              .then(function (kept) { done({active: !!registration.active, shells: shell, kept: !!kept}); });
          });
        }).catch(function (e) { done({error: String(e)}); });
    """)


def visit_online(driver, server):
    driver.execute_cdp_cmd("Browser.grantPermissions", {"origin": server.url, "permissions": ["geolocation"]})
    set_location(driver, LONDON)
    email = sign_in(driver, server)
    driver.get(server.url + "/reports/new")
    state = worker_ready(driver)
    assert state.get("active") and state.get("kept") and len(state["shells"]) == 1, state
    return email


def device_photos(driver):
    return len(driver.find_elements(By.CSS_SELECTOR, "#device-photos .photo-item"))


def capture_offline(driver, count):
    wait_for(driver, lambda d: d.find_element(By.ID, "capture").is_enabled(), 25)
    wait_for(driver, lambda d: d.execute_script(
        "var v = document.getElementById('preview'); return v.videoWidth > 0 && v.readyState >= 2"))
    for n in range(count):
        before = device_photos(driver)
        driver.find_element(By.ID, "capture").click()
        wait_for(driver, lambda d: device_photos(d) == before + 1, 30)


def fill_and_submit(driver, name):
    driver.find_element(By.ID, "field-name").send_keys(name)
    for field, value in [("designation", "SM"), ("condition", "poor"), ("occupancy", "vacant"),
                         ("priority-category", "B"), ("owner-type", "private"), ("grade", "II")]:
        Select(driver.find_element(By.ID, "field-" + field)).select_by_value(value)
    driver.find_element(By.ID, "submit").click()
    wait_for(driver, lambda d: d.current_url.endswith("/reports"))


def make_offline_report(driver, server, name, photos=2):
    """With the server unreachable: the shell's creation page, photos, the form, Submit."""
    driver.get(server.url + "/reports/new")
    assert driver.find_element(By.ID, "main").get_attribute("data-mode") == "new", "not the service worker's shell"
    capture_offline(driver, photos)
    driver.find_element(By.ID, "continue").click()
    wait_for(driver, lambda d: d.current_url.endswith("/reports/new/submit"))
    assert driver.find_element(By.ID, "main").get_attribute("data-mode") == "submit"
    assert device_photos(driver) == photos
    fill_and_submit(driver, name)
    row = wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#device-list .device-row"))
    assert len(row) == 1
    text = row[0].text
    assert name in text and "On this device — waiting for the network" in text and "%d photo" % photos in text


def outbox_ids(driver):
    driver.set_script_timeout(30)
    return driver.execute_async_script("""
        var done = arguments[arguments.length - 1];
        var request = indexedDB.open('har-outbox', 1);
        request.onsuccess = function () {
          var store = request.result.transaction('reports').objectStore('reports');
          var all = store.getAll();
          all.onsuccess = function () { done(all.result.map(function (r) { return [r.id, r.owner, r.status]; })); };
        };
        request.onerror = function () { done(null); };
    """)


def stored_on_platform(server, name):
    rows = platform_rows(server, "SELECT id FROM report WHERE place_name = ? AND deleted_time IS NULL", name)
    if len(rows) != 1:
        return None
    return platform_rows(server, "SELECT count(*) FROM photo WHERE report_id = ?", rows[0][0])[0][0]


def test_OFF_01_02_04_offline_report_is_sent_once_when_the_server_returns(driver):
    server = start_server()
    try:
        visit_online(driver, server)
        server.stop()
        make_offline_report(driver, server, "Chapel in the valley")
        # The list's shell too, reloaded with no server.
        driver.refresh()
        wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#device-list .device-row"))
        server = restart(server)
        # No action by the user: the page's timer finds the server again.
        wait_for(driver, lambda d: stored_on_platform(server, "Chapel in the valley") == 2, 90)
        wait_for(driver, lambda d: not d.find_elements(By.CSS_SELECTOR, "#device-list .device-row"), 30)
        assert outbox_ids(driver) == []
        assert rows(server, "SELECT count(*) FROM reports WHERE name = 'Chapel in the valley'") == [(1,)]
        assert rows(server, "SELECT count(*) FROM photos p JOIN reports r ON r.id = p.report_id "
                                  "WHERE r.name = 'Chapel in the valley'") == [(2,)]
    finally:
        server.remove()


def test_OFF_04_server_killed_while_the_second_photo_is_sent_still_once(driver):
    server = start_server()
    try:
        visit_online(driver, server)
        server.stop()
        make_offline_report(driver, server, "Flooded crypt")
        # The page's sending is watched: the moment the second photo's request leaves, the server dies.
        driver.execute_script("""
            window.__photoRequests = 0;
            var real = window.fetch;
            window.fetch = function (url, options) {
              if (String(url).indexOf('/photos') > 0) window.__photoRequests += 1;
              return real.apply(this, arguments);
            };
        """)
        server = restart(server)
        wait_for(driver, lambda d: d.execute_script("return window.__photoRequests") >= 2, 90)
        server.process.send_signal(signal.SIGKILL)
        server.process.wait()
        server.process = None
        server = restart(server)
        wait_for(driver, lambda d: stored_on_platform(server, "Flooded crypt") == 2, 120)
        wait_for(driver, lambda d: outbox_ids(d) == [], 30)
        assert rows(server, "SELECT count(*) FROM reports WHERE name = 'Flooded crypt'") == [(1,)]
        assert rows(server, "SELECT count(*) FROM photos p JOIN reports r ON r.id = p.report_id "
                                  "WHERE r.name = 'Flooded crypt'") == [(2,)]
    finally:
        server.remove()


def session_user(driver):
    driver.set_script_timeout(30)
    return driver.execute_async_script("""
        var done = arguments[arguments.length - 1];
        fetch('/api/device/session', {headers: {'Accept': 'application/json'}})
          .then(function (r) { return r.json(); }).then(function (s) { done(s.user); }, function () { done(null); });
    """)


def attempt(driver):
    """One round of the page's sending (device-sync.js), awaited."""
    driver.set_script_timeout(60)
    driver.execute_async_script("""
        var done = arguments[arguments.length - 1];
        HARDevice.attempt().then(function () { done(true); }, function () { done(false); });
    """)


def test_OFF_03_05_two_users_on_one_browser_and_a_session_that_expired(driver):
    server = start_server()
    try:
        alice = visit_online(driver, server)
        alice_id = session_user(driver)
        server.stop()
        make_offline_report(driver, server, "Alice's mill")
        # Alice's session ends while she is offline (expired, or ended elsewhere).
        rows(server, "SELECT 1")
        connection = sqlite3.connect(os.path.join(server.data_dir, "har.sqlite"), timeout=10)
        connection.execute("DELETE FROM web_sessions WHERE user_id = ?", (int(alice_id),))
        connection.commit()
        connection.close()
        server = restart(server)
        # The shell's list learns of it: the report stays, and the page asks her to sign in.
        attempt(driver)
        notice = driver.find_element(By.ID, "outbox-error")
        assert notice.is_displayed() and "sign in again" in notice.text
        assert [r[1:] for r in outbox_ids(driver)] == [[alice_id, "waiting"]]
        # Bob signs in on the same browser: he never sees Alice's report, and his session never sends it.
        driver.delete_all_cookies()
        sign_in(driver, server, unique_email("bob"))
        bob_id = session_user(driver)
        assert bob_id != alice_id
        attempt(driver)
        assert not driver.find_elements(By.CSS_SELECTOR, "#device-list .device-row")
        assert "Alice's mill" not in driver.page_source
        assert [r[1:] for r in outbox_ids(driver)] == [[alice_id, "waiting"]]
        assert rows(server, "SELECT count(*) FROM reports WHERE name = ?", "Alice's mill") == [(0,)]
        # Bob signs out (nothing of his waits: no question), Alice signs in again: hers goes, once.
        driver.delete_all_cookies()
        sign_in(driver, server, alice)
        wait_for(driver, lambda d: stored_on_platform(server, "Alice's mill") == 2, 90)
        wait_for(driver, lambda d: outbox_ids(d) == [], 30)
    finally:
        server.remove()


def test_OFF_05_a_full_device_is_said_and_nothing_is_lost(driver):
    server = start_server()
    try:
        visit_online(driver, server)
        server.stop()
        driver.get(server.url + "/reports/new")
        assert driver.find_element(By.ID, "main").get_attribute("data-mode") == "new"
        capture_offline(driver, 1)
        # A device with no room left: the browser's storage refuses the next write as it does when full
        # (a QuotaExceededError; headless Chromium's quota override does not reach IndexedDB's writes,
        # so the refusal is made here), and the page says so in the user's words.
        driver.execute_script("""
            window.__realPut = IDBObjectStore.prototype.put;
            IDBObjectStore.prototype.put = function () { throw new DOMException('full', 'QuotaExceededError'); };
        """)
        driver.find_element(By.ID, "capture").click()
        error = wait_for(driver, lambda d: d.find_element(By.ID, "outbox-error") if d.find_element(
            By.ID, "outbox-error").is_displayed() else None, 15)
        assert error.text == "This device has no room left to keep the report. Free some space, or delete photos, " \
                             "and try again."
        # The photo kept before is still there, on the page and on the device.
        assert device_photos(driver) == 1
        records = outbox_ids(driver)
        assert len(records) == 1 and records[0][2] == "open"
        # Room again: the report is finished and kept, then sent on the browser's 'online' event (CDP's
        # offline emulation turned off), not by a timer.
        driver.execute_script("IDBObjectStore.prototype.put = window.__realPut;")
        driver.find_element(By.ID, "continue").click()
        wait_for(driver, lambda d: d.current_url.endswith("/reports/new/submit"))
        fill_and_submit(driver, "Cross by the road")
        wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#device-list .device-row"))
        driver.execute_cdp_cmd("Network.enable", {})
        driver.execute_cdp_cmd("Network.emulateNetworkConditions", {
            "offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
        server = restart(server)
        driver.execute_script("window.__sent = false; window.addEventListener('online', function () {"
                              " window.__sent = 'online'; });")
        driver.execute_cdp_cmd("Network.emulateNetworkConditions", {
            "offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
        wait_for(driver, lambda d: d.execute_script("return window.__sent") == "online")
        wait_for(driver, lambda d: stored_on_platform(server, "Cross by the road") == 1, 60)
    finally:
        server.remove()


def registration_state(driver):
    """The service worker registration's versions, for a failure's message."""
    driver.set_script_timeout(30)
    return driver.execute_async_script("""
        var done = arguments[arguments.length - 1];
        navigator.serviceWorker.getRegistration().then(function (r) {
          function v(w) { return w ? w.state : null; }
          done(r ? {active: v(r.active), waiting: v(r.waiting), installing: v(r.installing),
                    controlled: !!navigator.serviceWorker.controller} : null);
        }, function (e) { done(String(e)); });
    """)


def shell_caches(driver):
    driver.set_script_timeout(30)
    return driver.execute_async_script("""
        var done = arguments[arguments.length - 1];
        caches.keys().then(function (names) {
          done(names.filter(function (n) { return n.indexOf('har-shell-') === 0; }));
        });
    """)


def test_OFF_02_a_new_version_of_the_app_while_a_report_waits_loses_nothing(driver):
    public = tempfile.mkdtemp(prefix="har-public.")
    shutil.rmtree(public)
    shutil.copytree(os.path.join(ROOT, "Public"), public)
    server = start_server(env={"HAR_PUBLIC_DIR": public})
    try:
        visit_online(driver, server)
        old = shell_caches(driver)
        server.stop()
        make_offline_report(driver, server, "Tower on the hill")
        # A new version of the app: its files changed, the server started again.
        with open(os.path.join(public, "css", "app.css"), "a") as css:
            css.write("\n/* a new version */\n")
        # The report may not go yet (its sending is held up): the update happens while it waits.
        driver.execute_cdp_cmd("Network.enable", {})
        driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*/api/device/*"]})
        server = restart(server)
        driver.get(server.url + "/reports")
        wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#device-list .device-row"), 20)
        driver.set_script_timeout(60)
        installed = driver.execute_async_script("""
            var done = arguments[arguments.length - 1];
            navigator.serviceWorker.getRegistration().then(function (r) { return r.update().then(function () {
              var next = r.installing || r.waiting;
              if (!next) { done('none'); return; }
              if (next.state === 'installed') { done('waiting'); return; }
              next.addEventListener('statechange', function () {
                if (next.state === 'installed' || next.state === 'activated') done(next.state);
              });
            }); }).catch(function (e) { done(String(e)); });
        """)
        assert installed in ("waiting", "installed"), installed
        # Not in the middle of the report: the old version still runs this page.
        assert shell_caches(driver) != [] and set(old) <= set(shell_caches(driver))
        # The next start of the app: no page of it open, then opened again, as often as it takes. One
        # visit is not enough to wait on: Chromium activates the waiting version only when the old one
        # controls no page and has no event in flight; a page opened while the old one is still busy
        # (a busy machine) is given the old version, which then controls it for as long as it stays
        # open, and the new version waits for the next start.
        def started_again(d):
            d.get("about:blank")
            d.get(server.url + "/healthz")
            names = shell_caches(d)
            return len(names) == 1 and names != old

        try:
            wait_for(driver, started_again, 90)
        except Exception:
            pytest.fail("the new version did not take over: caches %r (old %r), registration %r"
                        % (shell_caches(driver), old, registration_state(driver)))
        driver.get(server.url + "/reports")
        assert [r[2] for r in outbox_ids(driver)] == ["waiting"]
        driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})
        attempt(driver)
        wait_for(driver, lambda d: stored_on_platform(server, "Tower on the hill") == 2, 90)
        assert outbox_ids(driver) == []
    finally:
        server.remove()
        shutil.rmtree(public, ignore_errors=True)


def test_OFF_03_sign_out_with_reports_waiting_asks_first_and_keeps_them(driver):
    server = start_server()
    try:
        visit_online(driver, server)
        driver.get(server.url + "/reports")
        # A report of this user waiting on the device that the server refused once (kept, not resent
        # by itself): the settings panel says what is kept.
        driver.set_script_timeout(30)
        assert driver.execute_async_script("""
            var done = arguments[arguments.length - 1];
            HAROutbox.save({id: HAROutbox.uuid(), owner: HARDevice.owner(), status: 'waiting', createdAt: Date.now(),
                            token: HAROutbox.token(), fields: {name: 'Kept mill'}, photos: [], lastError: 'No photo.'})
              .then(function () { return HARDevice.render(); }).then(function () { done(true); }, function (e) { done(String(e)); });
        """) is True
        driver.find_element(By.ID, "settings-open").click()
        # The panel slides in and fills its device section after reading IndexedDB: wait for the words.
        expected = "Kept on this device: 1 report(s), 0 photo(s), waiting for the network."
        wait_for(driver, lambda d: d.find_element(By.CSS_SELECTOR, "#device-outbox-settings .device-kept").text
                 == expected)
        driver.find_element(By.ID, "sign-out").click()
        alert = WebDriverWait(driver, 10).until(expected_conditions.alert_is_present())
        assert "1 report(s) are still waiting on this device" in alert.text
        alert.dismiss()
        assert driver.current_url.endswith("/reports"), "staying signed in"
        assert driver.execute_script("return HARDevice.owner()") is not None, "still this user's device"
        # Asked again: "stay" left everything as it was.
        driver.find_element(By.ID, "sign-out").click()
        alert = WebDriverWait(driver, 10).until(expected_conditions.alert_is_present())
        assert "1 report(s) are still waiting on this device" in alert.text
        alert.accept()
        wait_for(driver, lambda d: "/signin" in d.current_url)
        assert [r[2] for r in outbox_ids(driver)] == ["waiting"], "kept on the device for its owner"
    finally:
        server.remove()


def go_offline(driver, offline=True):
    """CDP's offline emulation of the page: its requests fail, navigator.onLine turns false and the
    'offline' and 'online' events fire. It does not reach the service worker's own requests: a test
    stops the server as well, so that nothing answers the worker either, as when a network drops."""
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.emulateNetworkConditions", {
        "offline": offline, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})


def session_owner(driver):
    return driver.execute_script("return HARDevice.owner()")


def capture(driver, count, selector):
    """Takes `count` photos on the creation page; waits until `selector` finds as many more tiles."""
    wait_for(driver, lambda d: d.find_element(By.ID, "capture").is_enabled(), 25)
    wait_for(driver, lambda d: d.execute_script(
        "var v = document.getElementById('preview'); return v.videoWidth > 0 && v.readyState >= 2"))
    before = len(driver.find_elements(By.CSS_SELECTOR, selector))
    for n in range(count):
        driver.find_element(By.ID, "capture").click()
        wait_for(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, selector)) == before + n + 1, 20)


def outbox_record(driver, record_id):
    driver.set_script_timeout(30)
    return driver.execute_async_script("""
        var done = arguments[arguments.length - 1];
        HAROutbox.get(arguments[0]).then(function (r) {
          done(r && {owner: r.owner, status: r.status, photos: r.photos.map(function (p) { return p.id; }),
                     serverPhotos: r.serverPhotos || 0, fields: r.fields});
        }, function (e) { done(String(e)); });
    """, record_id)


def test_OFF_02_04_network_drops_on_the_creation_page_opened_online(driver):
    """The creation page opened online; one photo reaches the server, then the network drops (CDP's
    offline emulation): the next photos and the form go into the device's outbox, under the draft's
    id, and the report is sent once, with every photo, when the network returns."""
    server = start_server()
    try:
        visit_online(driver, server)
        driver.get(server.url + "/reports/new")
        assert driver.find_element(By.ID, "main").get_attribute("data-mode") is None, "the server's page"
        draft = driver.find_element(By.ID, "main").get_attribute("data-draft")
        capture(driver, 1, "#photo-strip .photo-item[data-id]")
        go_offline(driver)
        server.stop()
        capture(driver, 2, "#photo-strip .photo-waiting[data-device]")
        assert len(driver.find_elements(By.CSS_SELECTOR, "#photo-strip .photo-item[data-id]")) == 1
        wait_for(driver, lambda d: len((outbox_record(d, draft) or {}).get("photos", [])) == 2)
        record = outbox_record(driver, draft)
        assert record["status"] == "open" and record["serverPhotos"] == 1 and record["owner"] == session_owner(driver)
        # Continue with no network: the device's submission page (the service worker's) finishes it.
        driver.find_element(By.ID, "continue").click()
        wait_for(driver, lambda d: d.current_url.endswith("/reports/new/submit"))
        wait_for(driver, lambda d: d.find_element(By.ID, "main").get_attribute("data-mode") == "submit")
        assert device_photos(driver) == 2
        fill_and_submit(driver, "Mill by the weir")
        row = wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#device-list .device-row"))
        assert "Mill by the weir" in row[0].text and "3 photo(s)" in row[0].text
        assert rows(server, "SELECT count(*) FROM reports WHERE name = 'Mill by the weir'") == [(0,)]
        # The network returns: the browser's 'online' event sends it, without the user doing anything.
        server = restart(server)
        go_offline(driver, False)
        wait_for(driver, lambda d: stored_on_platform(server, "Mill by the weir") == 3, 90)
        wait_for(driver, lambda d: outbox_ids(d) == [], 30)
        assert rows(server, "SELECT count(*) FROM reports WHERE name = 'Mill by the weir'") == [(1,)]
        assert rows(server, "SELECT count(*) FROM photos p JOIN reports r ON r.id = p.report_id "
                                  "WHERE r.name = 'Mill by the weir'") == [(3,)]
    finally:
        server.remove()


def test_OFF_02_04_network_drops_on_the_submission_page_opened_online(driver):
    """Photos sent online, the form filled on the server's submission page, the network drops before
    Submit: the form's values go into the device's outbox, and the report is sent once when it returns."""
    server = start_server()
    try:
        visit_online(driver, server)
        driver.get(server.url + "/reports/new")
        capture(driver, 2, "#photo-strip .photo-item[data-id]")
        driver.find_element(By.ID, "continue").click()
        wait_for(driver, lambda d: d.current_url.endswith("/reports/new/submit"))
        assert driver.find_element(By.ID, "main").get_attribute("data-mode") is None, "the server's page"
        go_offline(driver)
        server.stop()
        fill_and_submit(driver, "Lock keeper's cottage")
        row = wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#device-list .device-row"))
        assert "Lock keeper's cottage" in row[0].text and "2 photo(s)" in row[0].text
        server = restart(server)
        go_offline(driver, False)
        wait_for(driver, lambda d: stored_on_platform(server, "Lock keeper's cottage") == 2, 90)
        wait_for(driver, lambda d: outbox_ids(d) == [], 30)
        assert rows(server, "SELECT count(*) FROM reports WHERE name = ?", "Lock keeper's cottage") == [(1,)]
    finally:
        server.remove()


def to_server_submission(driver, server, photos=2):
    """Online: the server's creation page, `photos` photos on the server, Continue to the server's
    submission page. Returns the draft's id."""
    visit_online(driver, server)
    driver.get(server.url + "/reports/new")
    draft = driver.find_element(By.ID, "main").get_attribute("data-draft")
    capture(driver, photos, "#photo-strip .photo-item[data-id]")
    driver.find_element(By.ID, "continue").click()
    wait_for(driver, lambda d: d.current_url.endswith("/reports/new/submit"))
    assert driver.find_element(By.ID, "main").get_attribute("data-mode") is None, "the server's page"
    return draft


def test_OFF_02_04_submit_with_the_server_unreachable_while_the_browser_thinks_it_is_online(driver):
    """The server's submission page open, the server stopped while the browser still believes it is
    online (no offline emulation: navigator.onLine stays true): Submit gets no answer, so the report
    goes into the device's outbox with the form's values and token, and the list shows it waiting; the
    server back on the same address and data, it is stored once with its photos."""
    server = start_server()
    try:
        draft = to_server_submission(driver, server)
        server.stop()
        assert driver.execute_script("return navigator.onLine") is True
        fill_and_submit(driver, "Tithe barn")
        row = wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#device-list .device-row"))
        assert "Tithe barn" in row[0].text and "On this device — waiting for the network" in row[0].text
        assert "2 photo(s)" in row[0].text
        record = outbox_record(driver, draft)
        assert record["status"] == "waiting" and record["owner"] == session_owner(driver)
        assert record["fields"] == {"name": "Tithe barn", "designation": "SM", "condition": "poor",
                                    "occupancy": "vacant", "priority_category": "B", "owner_type": "private",
                                    "grade": "II"}
        server = restart(server)
        wait_for(driver, lambda d: stored_on_platform(server, "Tithe barn") == 2, 90)
        wait_for(driver, lambda d: outbox_ids(d) == [], 30)
        assert rows(server, "SELECT count(*) FROM reports WHERE name = 'Tithe barn'") == [(1,)]
    finally:
        server.remove()


def test_OFF_04_a_submit_that_reached_the_server_but_lost_its_answer_is_stored_once(driver):
    """Submit's request reaches the server (the report is queued) but its answer is lost on the way
    back: the page keeps the report on the device all the same, and the outbox's later send, with the
    same submit token and draft id, does not make a second report."""
    server = start_server()
    try:
        draft = to_server_submission(driver, server)
        driver.execute_script("""
            var real = window.fetch;
            window.fetch = function (url, options) {
              var answer = real.apply(this, arguments);
              if (options && options.method === 'POST' && String(url).indexOf('/reports/new/submit') >= 0) {
                return answer.then(function () { throw new TypeError('the answer was lost'); });
              }
              return answer;
            };
        """)
        fill_and_submit(driver, "Dovecote")
        assert rows(server, "SELECT state FROM reports WHERE local_id = ?", draft) != [("draft",)]
        wait_for(driver, lambda d: stored_on_platform(server, "Dovecote") == 2, 90)
        wait_for(driver, lambda d: outbox_ids(d) == [], 30)
        assert rows(server, "SELECT count(*) FROM reports WHERE name = 'Dovecote'") == [(1,)]
        assert len(platform_rows(server, "SELECT id FROM report WHERE place_name = 'Dovecote'")) == 1
    finally:
        server.remove()


def test_OFF_02_04_continue_with_the_server_unreachable_while_the_browser_thinks_it_is_online(driver):
    """Photos on the server, then the server stops (the browser still online): Continue opens the
    device's submission page, which finishes this draft (its photos on the server counted); the report
    is stored once with them when the server is back."""
    server = start_server()
    try:
        visit_online(driver, server)
        driver.get(server.url + "/reports/new")
        draft = driver.find_element(By.ID, "main").get_attribute("data-draft")
        capture(driver, 2, "#photo-strip .photo-item[data-id]")
        server.stop()
        driver.find_element(By.ID, "continue").click()
        wait_for(driver, lambda d: d.current_url.endswith("/reports/new/submit"))
        wait_for(driver, lambda d: d.find_element(By.ID, "main").get_attribute("data-mode") == "submit")
        fill_and_submit(driver, "Ice house")
        row = wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#device-list .device-row"))
        assert "Ice house" in row[0].text and "2 photo(s)" in row[0].text
        assert outbox_record(driver, draft)["status"] == "waiting"
        server = restart(server)
        wait_for(driver, lambda d: stored_on_platform(server, "Ice house") == 2, 90)
        wait_for(driver, lambda d: outbox_ids(d) == [], 30)
        assert rows(server, "SELECT count(*) FROM reports WHERE name = 'Ice house'") == [(1,)]
    finally:
        server.remove()


def test_OFF_03_sign_out_asks_about_waiting_reports_and_held_photos_and_stay_keeps_both(driver):
    """Reports waiting in the device's outbox and photos held for a wireless network (SET-03): sign-out
    asks about each in turn. "Stay" at the second question leaves everything as it was: the next
    sign-out asks both again (the device still knows who is signed in)."""
    server = start_server()
    try:
        visit_online(driver, server)
        driver.get(server.url + "/reports")
        wait_for(driver, lambda d: d.execute_script("return !!(window.HARDevice && HARDevice.owner() && window.HARHeld)"))
        driver.set_script_timeout(30)
        assert driver.execute_async_script("""
            var done = arguments[arguments.length - 1], owner = HARDevice.owner();
            HAROutbox.save({id: HAROutbox.uuid(), owner: owner, status: 'waiting', createdAt: Date.now(),
                            token: HAROutbox.token(), fields: {name: 'Kept barn'}, photos: [], lastError: 'No photo.'})
              .then(function () {
                return HARHeld.put({id: HAROutbox.uuid(), draft: HAROutbox.uuid(), owner: Number(owner), order: 1,
                                    heldAt: Date.now(), blob: new Blob(['x'], {type: 'image/jpeg'}), name: 'x.jpg', fix: null});
              }).then(function (kept) { done(kept); }, function (e) { done(String(e)); });
        """) is True
        driver.find_element(By.ID, "settings-open").click()
        for answer in ("stay", "go"):
            wait_for(driver, lambda d: d.find_element(By.ID, "sign-out").is_displayed())
            driver.find_element(By.ID, "sign-out").click()
            reports = WebDriverWait(driver, 10).until(expected_conditions.alert_is_present())
            assert "1 report(s) are still waiting on this device" in reports.text
            reports.accept()
            photos = WebDriverWait(driver, 10).until(expected_conditions.alert_is_present())
            assert "1 photo you took on this device has not reached the server yet" in photos.text
            if answer == "stay":
                photos.dismiss()
                assert driver.current_url.endswith("/reports")
                assert driver.execute_script("return HARDevice.owner()") is not None
            else:
                photos.accept()
        wait_for(driver, lambda d: "/signin" in d.current_url)
        assert [r[2] for r in outbox_ids(driver)] == ["waiting"], "kept on the device for its owner"
    finally:
        server.remove()


def test_OFF_02_a_photo_the_server_does_not_take_now_stays_on_the_device_and_goes_later(driver):
    """The creation page online, the server reachable but not taking a photo now: first the day's quota
    (429), then no room on its disk (507, after the page's own retries). Each time the photo stays on
    the device, waiting, with the server's words, and is not lost; once the server takes photos again
    it goes at the next visit of the page, once (OFF-02)."""
    server = start_server(env={"HAR_WORKER_ENABLED": "false", "HAR_PHOTOS_PER_DAY": "1"})
    try:
        visit_online(driver, server)
        driver.get(server.url + "/reports/new")
        draft = driver.find_element(By.ID, "main").get_attribute("data-draft")
        capture(driver, 1, "#photo-strip .photo-item[data-id]")
        capture(driver, 1, "#photo-strip .photo-waiting")
        message = driver.find_element(By.ID, "photo-message")
        wait_for(driver, lambda d: "most photos allowed in one day" in message.text)
        wait_for(driver, lambda d: len(held_records(d, draft)) == 1)
        kept = held_records(driver, draft)[0][0]
        photos = "SELECT p.local_id FROM photos p JOIN reports r ON r.id = p.report_id WHERE r.local_id = ?"
        assert len(rows(server, photos, draft)) == 1

        server.stop()
        server = restart(server, env={"HAR_PHOTOS_PER_DAY": "0", "HAR_UPLOAD_MIN_FREE_BYTES": str(1 << 50)})
        driver.get(server.url + "/reports/new")
        message = driver.find_element(By.ID, "photo-message")
        wait_for(driver, lambda d: "no room for photos" in message.text, 30)
        assert [row[0] for row in held_records(driver, draft)] == [kept]
        tiles = driver.find_elements(By.CSS_SELECTOR, "#photo-strip .photo-waiting")
        assert len(tiles) == 1 and tiles[0].get_attribute("data-held-id") == kept
        assert len(rows(server, photos, draft)) == 1

        server.stop()
        server = restart(server, env={"HAR_UPLOAD_MIN_FREE_BYTES": "1"})
        driver.get(server.url + "/reports/new")
        wait_for(driver, lambda d: d.execute_script("return HARPhotos.count()") == 2, 30)
        wait_for(driver, lambda d: held_records(d, draft) == [], 20)
        assert kept in [row[0] for row in rows(server, photos, draft)]
        assert len(rows(server, photos, draft)) == 2
    finally:
        server.remove()


def click_when_free(driver, selector):
    """Clicks the element `selector` finds once nothing covers it: the list is drawn twice (from what the
    device knows, then from the server's session) and the settings panel slides in."""
    def clicked(d):
        try:
            d.find_element(By.CSS_SELECTOR, selector).click()
            return True
        except (ElementClickInterceptedException, StaleElementReferenceException, NoSuchElementException):
            return False
    wait_for(driver, clicked, 10)


def test_OFF_03_delete_waits_for_a_send_under_way_and_delete_all_takes_only_waiting_reports(driver):
    """Deleting a waiting report while a send holds the outbox (the lock every sender takes, a page's
    or the service worker's) waits for that send: a send cannot submit the report after its deletion,
    nor bring it back. "Delete every report waiting" deletes what its question counted: the waiting
    reports, not the photos a creation page keeps on the device for its draft."""
    server = start_server(env={"HAR_WORKER_ENABLED": "false"})
    try:
        visit_online(driver, server)
        driver.get(server.url + "/reports")
        wait_for(driver, lambda d: d.execute_script("return !!(window.HARDevice && HARDevice.owner())"))
        driver.set_script_timeout(30)
        ids = driver.execute_async_script("""
            var done = arguments[arguments.length - 1], owner = HARDevice.owner();
            var waiting = HAROutbox.uuid(), open = HAROutbox.uuid();
            HAROutbox.save({id: waiting, owner: owner, status: 'waiting', createdAt: Date.now(),
                            token: HAROutbox.token(), fields: {name: 'Kept barn'}, photos: [], lastError: 'No photo.'})
              .then(function () {
                return HAROutbox.save({id: open, owner: owner, status: 'open', createdAt: Date.now(), fields: {},
                                       photos: [{id: HAROutbox.uuid(), blob: new Blob(['x'], {type: 'image/jpeg'})}]});
              }).then(function () { done([waiting, open]); }, function (e) { done(String(e)); });
        """)
        driver.get(server.url + "/reports")
        wait_for(driver, lambda d: "Kept barn" in d.find_element(By.ID, "device-list").text)
        # A send under way: the lock is held (as sendOne holds it while it talks to the server).
        driver.execute_script("""
            navigator.locks.request('har-outbox-send', function () {
              return new Promise(function (resolve) { window.__releaseSend = resolve; });
            });""")
        wait_for(driver, lambda d: d.execute_script("return typeof window.__releaseSend === 'function'"))
        click_when_free(driver, "#device-list .device-delete")
        WebDriverWait(driver, 10).until(expected_conditions.alert_is_present()).accept()
        time.sleep(1)
        assert sorted(r[0] for r in outbox_ids(driver)) == sorted(ids), "not deleted while the send runs"
        driver.execute_script("window.__releaseSend()")
        wait_for(driver, lambda d: [r[0] for r in outbox_ids(d)] == [ids[1]], 10)

        # Delete all: a waiting report goes; the creation page's open record stays.
        again = driver.execute_async_script("""
            var done = arguments[arguments.length - 1], id = HAROutbox.uuid();
            HAROutbox.save({id: id, owner: HARDevice.owner(), status: 'waiting', createdAt: Date.now(),
                            token: HAROutbox.token(), fields: {name: 'Second barn'}, photos: []})
              .then(function () { done(id); }, function (e) { done(String(e)); });
        """)
        driver.get(server.url + "/reports")
        wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#device-list .device-row"))
        wait_for(driver, lambda d: "Second barn" in d.find_element(By.ID, "device-list").text)
        click_when_free(driver, "#settings-open")
        wait_for(driver, lambda d: d.find_element(By.ID, "device-delete-all").is_displayed())
        click_when_free(driver, "#device-delete-all")
        WebDriverWait(driver, 10).until(expected_conditions.alert_is_present()).accept()
        wait_for(driver, lambda d: [r[0] for r in outbox_ids(d)] == [ids[1]], 10)
        assert again not in [r[0] for r in outbox_ids(driver)]
    finally:
        server.remove()


def test_OFF_03_another_users_reports_are_never_shown_even_before_the_session_answers(driver):
    """A shared browser: user A's session ends without a sign-out (the cookie gone) while a report of
    A's waits on the device; user B signs in. B's pages name B from their first moment (the page's own
    user, not the last one the device remembered), so A's report is never drawn on B's list, even
    when `/api/device/session` cannot be reached; it stays on the device for A."""
    server = start_server(env={"HAR_WORKER_ENABLED": "false"})
    try:
        visit_online(driver, server)
        driver.get(server.url + "/reports")
        wait_for(driver, lambda d: d.execute_script("return !!(window.HARDevice && HARDevice.owner())"))
        first = driver.execute_script("return HARDevice.owner()")
        driver.set_script_timeout(30)
        assert driver.execute_async_script("""
            var done = arguments[arguments.length - 1];
            HAROutbox.save({id: HAROutbox.uuid(), owner: HARDevice.owner(), status: 'waiting', createdAt: Date.now(),
                            token: HAROutbox.token(), fields: {name: 'Barn of the first user'}, photos: [],
                            lastError: 'No photo.'}).then(function () { done(true); }, function (e) { done(String(e)); });
        """) is True
        driver.get(server.url + "/reports")
        wait_for(driver, lambda d: "Barn of the first user" in d.find_element(By.ID, "device-list").text)

        driver.delete_all_cookies()
        driver.execute_cdp_cmd("Network.enable", {})
        driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*/api/device/session*"]})
        try:
            sign_in(driver, server)  # lands on the list, its session call failing
            wait_for(driver, lambda d: d.execute_script("return !!window.HARDevice"))
            second = driver.execute_script("return HARDevice.owner()")
            assert second and second != first
            time.sleep(2)  # the session call fails meanwhile; its error path draws the list again
            assert "Barn of the first user" not in driver.find_element(By.ID, "device-list").text
            assert "Barn of the first user" not in driver.page_source
        finally:
            driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})
        assert [r[1] for r in outbox_ids(driver)] == [first], "kept on the device for its owner"
        # The page names its user; the app shell, kept for every user of the device, names nobody.
        assert driver.execute_script("return document.querySelector('meta[name=\"har-user\"]').content") == second
        shell = driver.execute_async_script("""
            var done = arguments[arguments.length - 1];
            fetch('/app-shell/list', {credentials: 'same-origin'}).then(function (r) { return r.text(); })
              .then(done, function (e) { done(String(e)); });
        """)
        assert 'id="main"' in shell and "har-user" not in shell
    finally:
        server.remove()


def test_OFF_02_the_shell_applies_the_servers_photo_limits_when_a_photo_is_taken(driver):
    """The app shell's creation page (the server out of reach) applies the limits the server would:
    the photo size and the 20 photos of a report. A photo past them is refused when it is taken, with
    the reason; a report made offline is never one the server refuses for good, with no way to take
    one photo out of it."""
    server = start_server(env={"HAR_WORKER_ENABLED": "false", "HAR_MAX_FILE_BYTES": "3000"})
    try:
        visit_online(driver, server)

        def photos_kept():
            return driver.execute_async_script("""
                var done = arguments[arguments.length - 1];
                HAROutbox.openReport(HARDevice.owner()).then(function (r) { done(r.photos.length); },
                                                              function (e) { done(String(e)); });
            """)

        driver.set_script_timeout(30)
        driver.get(server.url + "/app-shell/new")
        wait_for(driver, lambda d: d.find_element(By.ID, "capture").is_enabled(), 25)
        wait_for(driver, lambda d: d.execute_script(
            "var v = document.getElementById('preview'); return v.videoWidth > 0 && v.readyState >= 2"))
        driver.find_element(By.ID, "capture").click()
        message = driver.find_element(By.ID, "photo-message")
        wait_for(driver, lambda d: message.text == "This photo is too large to be sent.")
        assert photos_kept() == 0 and device_photos(driver) == 0

        assert driver.execute_async_script("""
            var done = arguments[arguments.length - 1];
            HAROutbox.openReport(HARDevice.owner()).then(function (record) {
              for (var i = 0; i < 20; i++) record.photos.push({id: HAROutbox.uuid(), blob: new Blob(['x'], {type: 'image/jpeg'}),
                                                               name: 'p.jpg', fix: null, takenAt: Date.now()});
              return HAROutbox.save(record);
            }).then(function () { done(true); }, function (e) { done(String(e)); });
        """) is True
        driver.get(server.url + "/app-shell/new")
        wait_for(driver, lambda d: device_photos(d) == 20)
        wait_for(driver, lambda d: d.find_element(By.ID, "capture").is_enabled(), 25)
        wait_for(driver, lambda d: d.execute_script(
            "var v = document.getElementById('preview'); return v.videoWidth > 0 && v.readyState >= 2"))
        driver.find_element(By.ID, "capture").click()
        message = driver.find_element(By.ID, "photo-message")
        wait_for(driver, lambda d: "at most 20 photos" in message.text)
        assert photos_kept() == 20 and device_photos(driver) == 20
    finally:
        server.remove()


def save_open_record(driver, record_id, photos=1):
    """An unfinished report of the signed-in user on the device, with `photos` real JPEGs (as a creation
    page keeps them when the network drops)."""
    driver.set_script_timeout(30)
    return driver.execute_async_script("""
        var id = arguments[0], count = arguments[1], done = arguments[arguments.length - 1];
        var canvas = document.createElement('canvas'); canvas.width = 64; canvas.height = 48;
        canvas.getContext('2d').fillRect(0, 0, 30, 30);
        canvas.toBlob(function (blob) {
          var record = {id: id, owner: String(HARDevice.owner()), status: 'open', createdAt: Date.now(), fields: {},
                        photos: [], fromPage: true};
          for (var i = 0; i < count; i++) record.photos.push({id: HAROutbox.uuid(), blob: blob, name: 'kept.jpg',
            fix: {latitude: 51.5, longitude: -0.12, accuracy: 5, altitude: null}, takenAt: Date.now(), order: i});
          HAROutbox.save(record).then(function () { done(true); }, function (e) { done(String(e)); });
        }, 'image/jpeg', 0.9);
    """, record_id, photos)


def test_OFF_02_photos_kept_for_a_draft_that_is_gone_join_the_next_and_cancel_drops_this_drafts(driver):
    """Photos a creation page kept on the device for a draft that is gone since (submitted or cancelled
    elsewhere, expired), or a report begun in the shell and never submitted there, wait where no page
    showed them. The next creation page takes them into its draft and says so, as it does held photos.
    Cancel on a creation page drops the photos it kept on the device, as it drops held ones."""
    server = start_server(env={"HAR_WORKER_ENABLED": "false"})
    try:
        visit_online(driver, server)
        driver.get(server.url + "/reports/new")
        draft = driver.find_element(By.ID, "main").get_attribute("data-draft")
        gone = driver.execute_script("return HAROutbox.uuid()")
        assert save_open_record(driver, gone) is True
        # A report begun in the shell with answers typed in its form stays for the shell to finish.
        typed = driver.execute_script("return HAROutbox.uuid()")
        assert save_open_record(driver, typed) is True
        assert driver.execute_async_script("""
            var done = arguments[arguments.length - 1];
            HAROutbox.get(arguments[0]).then(function (r) { r.fields = {name: 'Typed in the shell'}; return HAROutbox.save(r); })
              .then(function () { done(true); }, function (e) { done(String(e)); });
        """, typed) is True
        driver.get(server.url + "/reports/new")
        assert driver.find_element(By.ID, "main").get_attribute("data-draft") == draft
        wait_for(driver, lambda d: d.execute_script("return HARPhotos.count()") == 1, 30)
        wait_for(driver, lambda d: [r[0] for r in outbox_ids(d)] == [typed], 20)
        photos = "SELECT count(*) FROM photos p JOIN reports r ON r.id = p.report_id WHERE r.local_id = ?"
        assert rows(server, photos, draft) == [(1,)]

        # Cancel: what this page kept on the device goes with the draft.
        assert save_open_record(driver, draft) is True
        driver.find_element(By.CSS_SELECTOR, ".header .header-action button").click()
        wait_for(driver, lambda d: d.current_url.endswith("/reports"))
        wait_for(driver, lambda d: [r[0] for r in outbox_ids(d)] == [typed], 20)
    finally:
        server.remove()
