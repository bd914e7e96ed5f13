#!/usr/bin/env python3
"""The device's outbox against the same uploads made online (OFF-04): real Chromium (headless,
Debian's chromium and chromedriver) and a `har serve` that this script starts (upload worker on, its
embedded local platform, a data folder of its own).

  online   the page sends REPORTS reports of 3 photos of about 2 MB as the online pages do: the creation
           page's draft (GET /reports/new), each photo as it is taken (POST /api/drafts/{id}/photos),
           then the form (POST /reports/new/submit); timed from the first request to the last report
           stored on the platform (the worker's 'stored', then checked on the platform).
  outbox   the same reports, made while the page is offline (CDP's offline emulation), wait in the
           device's outbox (IndexedDB); timed from "network back" (the emulation turned off: the page's
           'online' event sends them, outbox.js) to the last report stored on the platform.

The photos are real JPEGs (the server makes a thumbnail of each) drawn once in the page, noise that JPEG
cannot shrink, about 2 MB each; both runs send the same bytes. The outbox's target: at most 1.2× the
online time. Prints a Markdown table. Timing figures: quote them only from a quiet machine.

Usage: bench/offline-outbox.py HAR_BINARY [--reports 10]
"""
import argparse
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import tempfile
import threading
import time
import uuid

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
PHOTOS = 3
PHOTO_BYTES = 2 * 1024 * 1024
FIELDS = {"designation": "LB", "condition": "poor", "occupancy": "vacant", "priority_category": "B",
          "owner_type": "private", "grade": "II"}

# Three JPEGs of about PHOTO_BYTES (noise at a quality found by halving), kept in the page.
MAKE_PHOTOS = """
    var target = arguments[0], done = arguments[arguments.length - 1];
    function draw(seed) {
      var canvas = document.createElement('canvas');
      canvas.width = 1600; canvas.height = 1200;
      var context = canvas.getContext('2d'), image = context.createImageData(canvas.width, canvas.height);
      var x = seed * 2654435761 % 4294967296;
      for (var i = 0; i < image.data.length; i += 4) {
        x = (x * 1664525 + 1013904223) % 4294967296;
        image.data[i] = x & 255; image.data[i + 1] = (x >> 8) & 255; image.data[i + 2] = (x >> 16) & 255;
        image.data[i + 3] = 255;
      }
      context.putImageData(image, 0, 0);
      return canvas;
    }
    function encode(canvas, quality) {
      return new Promise(function (resolve) { canvas.toBlob(resolve, 'image/jpeg', quality); });
    }
    function near(canvas, low, high, best, step) {
      var quality = (low + high) / 2;
      return encode(canvas, quality).then(function (blob) {
        if (!best || Math.abs(blob.size - target) < Math.abs(best.size - target)) best = blob;
        if (step === 8 || Math.abs(blob.size - target) < target * 0.02) return best;
        return blob.size > target ? near(canvas, low, quality, best, step + 1) : near(canvas, quality, high, best, step + 1);
      });
    }
    var made = [];
    [1, 2, 3].reduce(function (chain, seed) {
      return chain.then(function () { return near(draw(seed), 0.05, 1, null, 0); }).then(function (b) { made.push(b); });
    }, Promise.resolve()).then(function () {
      window.__benchPhotos = made;
      done(made.map(function (b) { return b.size; }));
    }, function (e) { done(String(e)); });
"""

# The online pages' requests, one report after another, as a volunteer makes them.
ONLINE = """
    var count = arguments[0], prefix = arguments[1], fields = arguments[2], done = arguments[arguments.length - 1];
    function hex() { return HAROutbox.token(); }
    function one(index) {
      return fetch('/reports/new', { credentials: 'same-origin' }).then(function (r) { return r.text(); }).then(function (html) {
        var draft = /data-draft="([0-9a-f-]{36})"/.exec(html)[1];
        var chain = Promise.resolve();
        window.__benchPhotos.forEach(function (blob, n) {
          chain = chain.then(function () {
            var form = new FormData();
            form.append('photo_id', HAROutbox.uuid());
            form.append('photo', blob, 'photo-' + n + '.jpg');
            form.append('latitude', '51.5'); form.append('longitude', '-0.12'); form.append('accuracy', '8');
            form.append('fix_time', String(Date.now()));
            return fetch('/api/drafts/' + draft + '/photos', { method: 'POST', credentials: 'same-origin', body: form,
              headers: { 'Accept': 'application/json', 'X-CSRF-Token': document.querySelector('meta[name="har-csrf"]').content } }).then(function (r) {
                if (r.status !== 201 && r.status !== 200) throw new Error('photo: HTTP ' + r.status);
              });
          });
        });
        return chain.then(function () {
          var body = new URLSearchParams();
          body.append('_csrf', document.querySelector('meta[name="har-csrf"]').content); body.append('draft', draft); body.append('submit_token', hex());
          body.append('name', prefix + index);
          Object.keys(fields).forEach(function (k) { body.append(k, fields[k]); });
          return fetch('/reports/new/submit', { method: 'POST', credentials: 'same-origin', body: body, redirect: 'manual' });
        }).then(function (r) {
          if (r.type !== 'opaqueredirect' && r.status !== 303 && r.status !== 200) throw new Error('submit: HTTP ' + r.status);
        });
      });
    }
    var chain = Promise.resolve();
    for (var i = 0; i < count; i++) chain = chain.then(one.bind(null, i));
    chain.then(function () { done(true); }, function (e) { done(String(e)); });
"""

# The same reports made with no network: kept in the device's outbox, as the device's pages keep them.
OUTBOX = """
    var count = arguments[0], prefix = arguments[1], fields = arguments[2], done = arguments[arguments.length - 1];
    var owner = HARDevice.owner(), chain = Promise.resolve();
    for (var i = 0; i < count; i++) (function (index) {
      chain = chain.then(function () {
        var values = { name: prefix + index };
        Object.keys(fields).forEach(function (k) { values[k] = fields[k]; });
        return HAROutbox.save({
          id: HAROutbox.uuid(), owner: owner, status: 'waiting', createdAt: Date.now() + index, token: HAROutbox.token(),
          fields: values, submittedAt: Date.now(),
          photos: window.__benchPhotos.map(function (blob, n) {
            return { id: HAROutbox.uuid(), blob: blob, name: 'photo-' + n + '.jpg', takenAt: Date.now(),
                     fix: { latitude: 51.5, longitude: -0.12, accuracy: 8, altitude: null } };
          })
        });
      });
    })(i);
    chain.then(function () { done(true); }, function (e) { done(String(e)); });
"""


class Server:
    def __init__(self, binary, data_dir):
        env = {k: v for k, v in os.environ.items() if not k.startswith("HAR_")}
        env.update({"HAR_PORT": "0", "HAR_DATA_DIR": data_dir, "HAR_ACCESS_LOG": "false",
                    "HAR_WORKER_ENABLED": "true"})
        self.data_dir = data_dir
        self.process = subprocess.Popen([binary, "serve"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.PIPE, text=True)
        found = threading.Event()
        self.lines = []

        def read():
            for line in self.process.stderr:
                self.lines.append(line)
                match = re.search(r"listening on (https?://[^:]+:\d+)", line)
                if match and not found.is_set():
                    self.url = match.group(1)
                    found.set()

        threading.Thread(target=read, daemon=True).start()
        if not found.wait(60):
            self.stop()
            raise SystemExit("offline-outbox: har serve did not start: " + "".join(self.lines))

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def query(self, path, sql, *args):
        connection = sqlite3.connect(os.path.join(self.data_dir, path), timeout=10)
        try:
            return connection.execute(sql, args).fetchall()
        finally:
            connection.close()

    def stored(self, prefix):
        return self.query("har.sqlite", "SELECT count(*) FROM reports WHERE name LIKE ? AND state = 'stored'",
                          prefix + "%")[0][0]

    def on_platform(self, prefix):
        """(reports, photos) the platform holds under that prefix."""
        reports = self.query("platform/platform.sqlite", "SELECT count(*) FROM report WHERE place_name LIKE ? "
                             "AND deleted_time IS NULL", prefix + "%")[0][0]
        photos = self.query("platform/platform.sqlite", "SELECT count(*) FROM photo p JOIN report r ON r.id = "
                            "p.report_id WHERE r.place_name LIKE ? AND r.deleted_time IS NULL", prefix + "%")[0][0]
        return reports, photos


def make_driver(profile):
    options = Options()
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--window-size=412,860", "--user-data-dir=" + profile):
        options.add_argument(flag)
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"),
                              options=options)
    driver.set_page_load_timeout(60)
    driver.set_script_timeout(600)
    # The page's ES modules under the names this script uses (HAROutbox, HARDevice): no script of the site
    # sets a global, so the tests' page_modules.js imports the instances the page loaded, as the browser tests do.
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "browser", "page_modules.js")) as f:
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": f.read()})
    # A returning user: no first-use welcome over the pages.
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {
        "source": "try { localStorage.setItem('har-welcome-seen', '1'); localStorage.setItem('har-guide-seen', '1'); }"
                  " catch (e) {}"})
    return driver


def offline(driver, down):
    driver.execute_cdp_cmd("Network.emulateNetworkConditions", {
        "offline": down, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})


def until_stored(server, prefix, count, limit=900):
    deadline = time.monotonic() + limit
    while server.stored(prefix) < count:
        if time.monotonic() > deadline:
            raise SystemExit("offline-outbox: %s: %d of %d stored after %d s" % (prefix, server.stored(prefix),
                                                                                 count, limit))
        time.sleep(0.05)
    return time.monotonic()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("--reports", type=int, default=10)
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="har-outbox-bench.")
    server = Server(args.binary, os.path.join(work, "data"))
    driver = make_driver(os.path.join(work, "profile"))
    try:
        driver.get(server.url + "/signin")
        driver.find_element(By.ID, "email").send_keys("outbox.%s@example.org" % uuid.uuid4().hex[:10])
        driver.find_element(By.ID, "password").send_keys("correct horse battery")
        driver.find_element(By.ID, "connect").click()
        deadline = time.time() + 60
        while not driver.current_url.endswith("/reports") and time.time() < deadline:
            time.sleep(0.05)
        deadline = time.time() + 60
        while not driver.execute_script("return !!(window.HARDevice && window.HAROutbox && HARDevice.owner())"):
            if time.time() > deadline:
                raise SystemExit("offline-outbox: the page's outbox modules never loaded (Tests/browser/page_modules.js)")
            time.sleep(0.05)
        sizes = driver.execute_async_script(MAKE_PHOTOS, PHOTO_BYTES)
        assert isinstance(sizes, list), sizes
        megabytes = args.reports * sum(sizes) / 1e6
        driver.execute_cdp_cmd("Network.enable", {})

        # Online: the requests of the online pages, then the worker.
        start = time.monotonic()
        result = driver.execute_async_script(ONLINE, args.reports, "Online chapel ", FIELDS)
        assert result is True, result
        online = until_stored(server, "Online chapel ", args.reports) - start

        # Outbox: kept with no network, sent when it returns.
        offline(driver, True)
        result = driver.execute_async_script(OUTBOX, args.reports, "Outbox chapel ", FIELDS)
        assert result is True, result
        start = time.monotonic()
        offline(driver, False)
        outbox = until_stored(server, "Outbox chapel ", args.reports) - start

        for prefix in ("Online chapel ", "Outbox chapel "):
            held = server.on_platform(prefix)
            assert held == (args.reports, args.reports * PHOTOS), "%s on the platform: %r" % (prefix, held)
        left = driver.execute_async_script("""
            var done = arguments[arguments.length - 1];
            HAROutbox.list(HARDevice.owner()).then(function (r) { done(r.length); }, function (e) { done(String(e)); });""")
        assert left == 0, "left in the outbox: %r" % left
    finally:
        driver.quit()
        server.stop()
        shutil.rmtree(work, ignore_errors=True)

    ratio = outbox / online
    photo_mb = sum(sizes) / len(sizes) / 1e6
    print("%d reports × %d photos of %.1f MB each (%.0f MB in all); time to the last report stored on the platform, "
          "from the first request (online) or from the network's return (outbox)." % (
              args.reports, PHOTOS, photo_mb, megabytes))
    print()
    print("| run | time | reports/s | MB/s | ratio | target | verdict |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    print("| online: the pages' requests as each photo is taken, then Submit (baseline) | %.2f s | %.2f | %.1f | 1.00× "
          "| | |" % (online, args.reports / online, megabytes / online))
    print("| the device's outbox, sent on the page's 'online' event | %.2f s | %.2f | %.1f | %.2f× online | ≤ 1.2× | %s |"
          % (outbox, args.reports / outbox, megabytes / outbox, ratio, "met" if ratio <= 1.2 else "**missed**"))

if __name__ == "__main__":
    main()
