#!/usr/bin/env python3
"""The slow-network budget: real Chromium (headless, fake camera) with CDP network throttling
at 1.6 Mbit/s down, 750 kbit/s up and 150 ms round trip, against a running `har serve`. For each screen
it measures the time from the start of the navigation to a usable page (performance.now() when the
screen's own readiness test first holds, in the page's clock) and the bytes transferred (the
navigation's and every resource's transferSize: 0 for what came from the browser's cache).

  sign-in, first visit         usable when loaded (the form and its script)                 budget 1.5 s
  list, first visit            loaded, rows shown, list script running                      budget 2 s
  creation, first visit        camera live (capture enabled) and the map drawn (Leaflet)    budget 3 s
  list and creation, repeat    the same, visited again in the same browser                  budget 1 s

The server's `map_tile_url` should name bench/tile-stub.py on loopback (bench/run does): tiles from a
server the machine cannot reach hold the creation page's load event for as long as the name lookup
fails (up to the resolver's 5 s timeout). The browser profile starts empty (a first visit). The user signs up by signing in with a new e-mail
(the embedded platform makes the account); with --db, 200 reports are seeded for it so the list shows
its usual 50 rows. Prints a Markdown table. Timing figures: quote them only from a quiet machine.

Usage: bench/slow-network.py BASE_URL [--db DATA_DIR/har.sqlite]
"""
import argparse
import shutil
import subprocess
import tempfile
import time
import uuid

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

DOWN = 1_600_000 / 8  # bytes per second
UP = 750_000 / 8
RTT_MS = 150

# The readiness tests, run in the page (no eval: the pages' CSP forbids it).
READY_SCRIPT = """
    var screen = arguments[0]; var done = arguments[arguments.length - 1];
    function ready() {
      if (document.readyState !== 'complete') return false;
      if (screen === 'signin') return !!document.getElementById('connect');
      if (screen === 'list') return !!document.getElementById('report-list');
      var capture = document.getElementById('capture');
      return !!capture && !capture.disabled && !!document.querySelector('#map.leaflet-container');
    }
    var started = Date.now();
    (function poll() {
      if (ready()) return done(performance.now());
      if (Date.now() - started > 30000) return done(-1000);
      setTimeout(poll, 10);
    })();
"""

SEEN_FIRST_USE = ("try { localStorage.setItem('har-welcome-seen', '1');"
                  " localStorage.setItem('har-guide-seen', '1'); } catch (e) {}")

SEED = """
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200)
INSERT INTO reports (user_id, local_id, platform_report_id, state, name, formatted_address, creation_time, updated_at)
SELECT (SELECT id FROM users WHERE email = '{email}'), lower(hex(randomblob(16))), 'slow-' || i || '-{tag}',
       CASE WHEN i % 10 < 8 THEN 'stored' ELSE 'queued' END,
       'Chapel of St Ninian no. ' || i, i || ' Church Lane, Whithorn', strftime('%s', 'now') - i * 86400,
       -- Changed "after" any listing the page's refresh asks for: the platform, which never had these
       -- rows, does not get them marked deleted during the measurement.
       strftime('%s', 'now') + 86400
FROM n;
"""


def make_driver(profile):
    options = Options()
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
                 "--window-size=412,860", "--user-data-dir=" + profile):
        options.add_argument(flag)
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"),
                              options=options)
    driver.set_page_load_timeout(60)
    driver.set_script_timeout(40)
    # The first-use welcome overlays the sign-in form of a new browser; it is part of the
    # same page (no extra transfer), so the measurement starts as a browser that has seen it.
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": SEEN_FIRST_USE})
    return driver


def throttle(driver, base):
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.emulateNetworkConditions", {
        "offline": False, "latency": RTT_MS, "downloadThroughput": DOWN, "uploadThroughput": UP})
    driver.execute_cdp_cmd("Browser.grantPermissions", {"origin": base, "permissions": ["geolocation"]})
    driver.execute_cdp_cmd("Emulation.setGeolocationOverride",
                           {"latitude": 54.73, "longitude": -4.42, "accuracy": 8})


def visit(driver, url, screen):
    driver.get(url)  # returns after the load event
    usable = driver.execute_async_script(READY_SCRIPT, screen)
    transfer = driver.execute_script("""
        var nav = performance.getEntriesByType('navigation')[0];
        var total = nav ? nav.transferSize : 0;
        performance.getEntriesByType('resource').forEach(function (r) { total += r.transferSize; });
        return [total, nav ? nav.loadEventEnd : 0, document.querySelectorAll('.report-row').length];""")
    return usable / 1000, transfer[1] / 1000, transfer[0], transfer[2]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("base")
    parser.add_argument("--db")
    args = parser.parse_args()
    base = args.base.rstrip("/")
    profile = tempfile.mkdtemp(prefix="har-slow-")
    driver = make_driver(profile)
    rows = []
    try:
        driver.get(base + "/healthz")
        throttle(driver, base)
        rows.append(("sign-in", "first", 1.5) + visit(driver, base + "/signin", "signin"))
        email = "slow.%s@example.org" % uuid.uuid4().hex[:10]
        driver.find_element(By.ID, "email").send_keys(email)
        driver.find_element(By.ID, "password").send_keys("correct horse battery")
        driver.find_element(By.ID, "connect").click()
        deadline = time.time() + 60
        while "/reports" not in driver.current_url and time.time() < deadline:
            time.sleep(0.05)
        if args.db:
            subprocess.run(["sqlite3", "-cmd", ".timeout 5000", args.db,
                            SEED.format(email=email, tag=uuid.uuid4().hex[:6])], check=True)
        rows.append(("list", "first", 2.0) + visit(driver, base + "/reports", "list"))
        rows.append(("creation (camera, map)", "first", 3.0) + visit(driver, base + "/reports/new", "create"))
        rows.append(("list", "repeat", 1.0) + visit(driver, base + "/reports", "list"))
        rows.append(("creation (camera, map)", "repeat", 1.0) + visit(driver, base + "/reports/new", "create"))
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
    print("| screen | visit | usable after | load event | transferred | budget | verdict |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for screen, kind, budget, usable, load, size, shown in rows:
        if shown:
            screen += f" ({shown} rows)"
        verdict = "met" if 0 <= usable <= budget else "**missed**"
        print(f"| {screen} | {kind} | {usable:.2f} s | {load:.2f} s | {size / 1024:.1f} KB | ≤ {budget:g} s | {verdict} |")


if __name__ == "__main__":
    main()
