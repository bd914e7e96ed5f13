"""What more than one browser test module uses, in one place (a test module imports from here or from
conftest.py, never from another test module): the creation page's helpers and its signed-in
volunteer's `browser` fixture (a module that wants it imports it), the submission form, the
databases' rows, the docs' screenshots, a fetch made by the page, the same server started again."""
import os
import sqlite3

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from conftest import HarServer, sign_in, wait_for

LONDON = (51.5007, -0.1246)
SHOTS = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "img")


def rows(server, sql, *args, platform=False):
    """The rows of `sql` in the app's database, or with `platform` the local platform's."""
    path = os.path.join(server.data_dir, "platform", "platform.sqlite") if platform else \
        os.path.join(server.data_dir, "har.sqlite")
    connection = sqlite3.connect(path, timeout=10)
    try:
        return connection.execute(sql, args).fetchall()
    finally:
        connection.close()


def platform_rows(server, sql, *args):
    return rows(server, sql, *args, platform=True)


def set_location(driver, where, accuracy=5):
    driver.execute_cdp_cmd("Emulation.setGeolocationOverride",
                           {"latitude": where[0], "longitude": where[1], "accuracy": accuracy})


SESSION = {}


@pytest.fixture
def browser(driver, server):
    """One signed-in user for the module (sign-in is rate-limited per address: 10 in 5 minutes), with
    the draft of the test before discarded through Cancel."""
    if SESSION.get("server") is not server:
        driver.get(server.url + "/healthz")
        driver.delete_all_cookies()
        SESSION["email"] = sign_in(driver, server)
        SESSION["server"] = server
    driver.get(server.url + "/reports/new")
    driver.find_element(By.CSS_SELECTOR, ".header .header-action button").click()
    wait_for(driver, lambda d: d.current_url.endswith("/reports"))
    set_alert_seconds(server, SESSION["email"], 60)
    return driver


def set_alert_seconds(server, email, seconds):
    connection = sqlite3.connect(os.path.join(server.data_dir, "har.sqlite"), timeout=10)
    connection.execute("UPDATE users SET gps_alert_seconds = ? WHERE email = ?", (seconds, email))
    connection.commit()
    connection.close()


def open_creation(driver, server, where=LONDON, accuracy=5):
    driver.execute_cdp_cmd("Browser.grantPermissions", {"origin": server.url, "permissions": ["geolocation"]})
    set_location(driver, where, accuracy)
    driver.get(server.url + "/reports/new")
    try:
        wait_for(driver, lambda d: d.execute_script("return window.HARCreate && window.HARCreate.camera === 'live'"), 25)
    except Exception:
        raise AssertionError("camera not live: %r" % driver.execute_script("return window.HARCreate && HARCreate.camera"))
    if accuracy <= 20:
        wait_for(driver, lambda d: d.execute_script("return !!window.HARCreate.fix"))
    wait_for(driver, lambda d: d.execute_script(
        "var v = document.getElementById('preview'); return v.videoWidth > 0 && v.readyState >= 2"))


def photo_count(driver):
    return driver.execute_script("return HARPhotos.count()")


def capture(driver):
    before = photo_count(driver)
    driver.find_element(By.ID, "capture").click()
    wait_for(driver, lambda d: photo_count(d) == before + 1, 30)


FAKE_CONNECTION = """
(function () {
  var listeners = [];
  var connection = { type: 'cellular', addEventListener: function (name, f) { listeners.push(f); } };
  Object.defineProperty(navigator, 'connection', { get: function () { return connection; }, configurable: true });
  window.__setConnection = function (type) { connection.type = type; listeners.forEach(function (f) { f(); }); };
})();
"""


def held_records(driver, draft):
    """The photos the browser keeps for `draft` while they wait for a wireless network (IndexedDB, as
    photo-strip.js stores them): [[id, latitude]] in capture order. Works on any page of the site."""
    driver.set_script_timeout(20)
    return driver.execute_async_script("""
        var draft = arguments[0], done = arguments[arguments.length - 1];
        var request = indexedDB.open('har-held-photos', 1);
        request.onupgradeneeded = function () {
          request.result.createObjectStore('photos', { keyPath: 'id' }).createIndex('draft', 'draft');
        };
        request.onerror = function () { done('error: ' + request.error); };
        request.onsuccess = function () {
          var db = request.result;
          var all = db.transaction('photos').objectStore('photos').index('draft').getAll(IDBKeyRange.only(draft));
          all.onsuccess = function () {
            db.close();
            done(all.result.sort(function (a, b) { return a.order - b.order; })
              .map(function (r) { return [r.id, r.fix ? r.fix.latitude : null]; }));
          };
        };
    """, draft)


def fill(driver, name="Old Mill"):
    driver.find_element(By.ID, "field-name").send_keys(name)
    for field, value in [("designation", "SM"), ("condition", "poor"), ("occupancy", "vacant"),
                         ("priority-category", "B"), ("owner-type", "private"), ("grade", "II")]:
        Select(driver.find_element(By.ID, "field-" + field)).select_by_value(value)


def shot(driver, name):
    os.makedirs(SHOTS, exist_ok=True)
    driver.save_screenshot(os.path.join(SHOTS, name))


def fetch_text(driver, path):
    """The body of a GET made by the page itself (its session cookie), decoded here byte for byte (the
    browser's text() would drop a byte-order mark)."""
    body = driver.execute_async_script(
        "var done = arguments[arguments.length - 1];"
        "fetch(arguments[0], {credentials: 'same-origin'}).then(function (r) { return r.arrayBuffer(); })"
        ".then(function (b) { done(Array.from(new Uint8Array(b))); }, function (e) { done(null); });", path)
    return bytes(body).decode("utf-8")


def restart(server, env=None):
    """The same server again: same address (the browser's service worker and outbox are per origin) and data."""
    values = dict(server.extra_env)
    values.update(env or {})
    values["HAR_PORT"] = str(server.port)
    again = HarServer(data_dir=server.data_dir, env=values)
    return again.start()
