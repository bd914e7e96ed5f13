"""Offline in the browser (issue 12, OFF-01..05), real Chromium against the real `har serve` with its
embedded local platform and upload worker. The server is stopped (or killed) for real; the page is then
answered by the service worker from its cache, the report kept in the device's outbox (IndexedDB), and
sent when the server answers again on the same address and data. The platform's database is the judge.
"""
import os
import shutil
import signal
import sqlite3
import tempfile

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from conftest import HarServer, ROOT, make_driver, sign_in, unique_email, wait_for
from test_create import LONDON, set_location


@pytest.fixture
def driver():
    browser = make_driver()
    yield browser
    browser.quit()


def platform_rows(server, sql, *args):
    connection = sqlite3.connect(os.path.join(server.data_dir, "platform", "platform.sqlite"), timeout=10)
    try:
        return connection.execute(sql, args).fetchall()
    finally:
        connection.close()


def local_rows(server, sql, *args):
    connection = sqlite3.connect(os.path.join(server.data_dir, "har.sqlite"), timeout=10)
    try:
        return connection.execute(sql, args).fetchall()
    finally:
        connection.close()


def start_server(data_dir=None, port=None, env=None):
    values = {"HAR_WORKER_ENABLED": "true"}
    values.update(env or {})
    if port:
        values["HAR_PORT"] = str(port)
    return HarServer(data_dir=data_dir, env=values).start()


def restart(server, env=None):
    """The same server again: same address (the browser's service worker and outbox are per origin) and data."""
    values = dict(server.extra_env)
    values.update(env or {})
    values["HAR_PORT"] = str(server.port)
    again = HarServer(data_dir=server.data_dir, env=values)
    return again.start()


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
        wait_for(driver, lambda d: device_photos(d) == before + 1, 15)


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
        assert local_rows(server, "SELECT count(*) FROM reports WHERE name = 'Chapel in the valley'") == [(1,)]
        assert local_rows(server, "SELECT count(*) FROM photos p JOIN reports r ON r.id = p.report_id "
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
        assert local_rows(server, "SELECT count(*) FROM reports WHERE name = 'Flooded crypt'") == [(1,)]
        assert local_rows(server, "SELECT count(*) FROM photos p JOIN reports r ON r.id = p.report_id "
                                  "WHERE r.name = 'Flooded crypt'") == [(2,)]
    finally:
        server.remove()
