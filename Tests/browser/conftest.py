"""Browser tests: real Chromium (Debian's chromium + chromium-driver, headless) against the real
`har serve` with its embedded local platform. One server per test module; one browser per module.

The har binary: $HAR_BINARY, else the newest .build/**/debug/har under the repository.
"""
import glob
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import urllib.parse
import urllib.request
import http.cookiejar
import uuid

import pytest
from selenium import webdriver
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException, WebDriverException
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def har_binary():
    explicit = os.environ.get("HAR_BINARY")
    if explicit:
        return explicit
    candidates = glob.glob(os.path.join(ROOT, ".build", "debug", "har")) + glob.glob(
        os.path.join(ROOT, ".build", "*", "debug", "har"))
    candidates = [c for c in candidates if os.access(c, os.X_OK)]
    if not candidates:
        pytest.exit("no har binary: run `swift build` first or set HAR_BINARY", returncode=2)
    return max(candidates, key=os.path.getmtime)


class HarServer:
    """`har serve` on a free port (HAR_PORT=0), its data in a folder that may outlive it (restarts)."""

    def __init__(self, data_dir=None, env=None):
        self.data_dir = data_dir or tempfile.mkdtemp(prefix="har-browser.")
        self.extra_env = dict(env or {})
        self.process = None
        self.port = None
        self.stderr_lines = []

    def start(self):
        env = {k: v for k, v in os.environ.items() if not k.startswith("HAR_")}
        # The upload worker is off unless a test turns it on: screens tests look at rows as they seeded
        # them (a queued row stays Queued). test_delivery.py runs with it on, end to end.
        env.update({"HAR_PORT": "0", "HAR_DATA_DIR": self.data_dir, "HAR_ACCESS_LOG": "false",
                    "HAR_WORKER_ENABLED": "false"})
        env.update(self.extra_env)
        self.process = subprocess.Popen([har_binary(), "serve"], cwd=ROOT, env=env,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        found = threading.Event()

        def read():
            for line in self.process.stderr:
                self.stderr_lines.append(line)
                match = re.search(r"listening on https?://[^:]+:(\d+)", line)
                if match and not found.is_set():
                    self.port = int(match.group(1))
                    found.set()

        threading.Thread(target=read, daemon=True).start()
        if not found.wait(30):
            self.stop()
            raise RuntimeError("har serve did not start: " + "".join(self.stderr_lines))
        return self

    @property
    def url(self):
        return "http://127.0.0.1:%d" % self.port

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def remove(self):
        self.stop()
        shutil.rmtree(self.data_dir, ignore_errors=True)


# A returning user's browser: the first-use welcome and guide (welcome.js) were seen. Only
# test_welcome.py opens a browser as a first-time visitor (first_use=True).
SEEN_FIRST_USE = ("try { localStorage.setItem('har-welcome-seen', '1'); localStorage.setItem('har-guide-seen', '1'); }"
                  " catch (e) {}")


# The page's modules under the tests' names (page_modules.js); a script that uses one waits for them.
with open(os.path.join(os.path.dirname(__file__), "page_modules.js")) as _file:
    PAGE_MODULES = _file.read()
MODULE_NAME = re.compile(r"\bHAR(Outbox|Device|Held|Photos|Create|Shell|Welcome|Review|AddrSpec|KioskOutbox|Ids)\b")
MODULES_SET = """var done = arguments[arguments.length - 1];
function set() { Promise.resolve(window.__harModules).then(function () { done(); }, function () { done(); }); }
if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', set); else set();"""


class Chromium(webdriver.Chrome):
    """Chromium whose scripts may name the page's modules (page_modules.js): such a script runs once
    the page has them, as it ran once the page's classic scripts had set globals."""

    def execute_script(self, script, *args):
        if MODULE_NAME.search(script):
            super().execute_async_script(MODULES_SET)
        return super().execute_script(script, *args)

    def execute_async_script(self, script, *args):
        if MODULE_NAME.search(script):
            super().execute_async_script(MODULES_SET)
        return super().execute_async_script(script, *args)


def make_driver(language="en-US", first_use=False):
    options = Options()
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
                 "--window-size=412,860", "--lang=" + language):
        options.add_argument(flag)
    options.add_experimental_option("prefs", {"intl.accept_languages": language})
    binary = shutil.which("chromium") or "/usr/bin/chromium"
    options.binary_location = binary
    service = Service(shutil.which("chromedriver") or "/usr/bin/chromedriver")
    driver = Chromium(service=service, options=options)
    driver.set_page_load_timeout(30)
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": PAGE_MODULES})
    if not first_use:
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": SEEN_FIRST_USE})
    return driver


# The longest modules first (a whole run's durations, 2026-12-03): scripts/test runs the modules two at a
# time (pytest-xdist, --dist loadfile), each worker taking the next module when it is done; started last,
# a long module would run on alone at the end while the other worker sits idle. The rest keep file order.
LONGEST_FIRST = ["test_axe.py", "test_offline.py", "test_kiosk.py", "test_triage.py", "test_review.py",
                 "test_create.py", "test_review_queue.py"]


def pytest_collection_modifyitems(session, config, items):
    def rank(item):
        name = os.path.basename(str(item.fspath))
        return LONGEST_FIRST.index(name) if name in LONGEST_FIRST else len(LONGEST_FIRST)
    items.sort(key=rank)  # stable: each module's tests stay in their order


@pytest.fixture(scope="module")
def server():
    running = HarServer().start()
    yield running
    running.remove()


@pytest.fixture(scope="module")
def driver():
    browser = make_driver()
    yield browser
    browser.quit()


@pytest.fixture
def browser(driver, server):
    """The module's browser, with no cookies left from the test before."""
    driver.get(server.url + "/healthz")
    driver.delete_all_cookies()
    return driver


def unique_email(prefix="volunteer"):
    return "%s.%s@example.org" % (prefix, uuid.uuid4().hex[:10])


# What chromedriver says when a navigation replaces the document between finding an element and
# reading it. It is not always a StaleElementReferenceException (CI saw "Node with given id does not
# belong to the document" as an unknown error).
_DOCUMENT_REPLACED = ("does not belong to the document", "Execution context was destroyed",
                      "Cannot find context with specified id", "No node with given id found")


def wait_for(driver, condition, timeout=10):
    # A condition may look at the page while a navigation replaces it: an element gone stale then is
    # "not yet", not a failure. Any other WebDriver error still fails the test at once.
    def check(d):
        try:
            return condition(d)
        except WebDriverException as error:
            if isinstance(error, (StaleElementReferenceException, NoSuchElementException)) or \
                    any(text in str(error) for text in _DOCUMENT_REPLACED):
                return False
            raise
    return WebDriverWait(driver, timeout).until(check)


def sign_in(driver, server, email=None, password="correct horse"):
    """Signs in through the page, as a person does; returns the e-mail used."""
    email = email or unique_email()
    driver.get(server.url + "/signin")
    driver.find_element(By.ID, "email").send_keys(email)
    driver.find_element(By.ID, "password").send_keys(password)
    driver.find_element(By.ID, "connect").click()
    wait_for(driver, lambda d: d.current_url.endswith("/reports"))
    return email


def css(driver, element, prop):
    return driver.execute_script("return getComputedStyle(arguments[0]).getPropertyValue(arguments[1]);", element, prop)


def rgb(hex_colour):
    h = hex_colour.lstrip("#")
    return "rgb(%d, %d, %d)" % (int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16))


class HttpClient:
    """A cookie-keeping HTTP client without JavaScript, for no-JS paths and for seeding data."""

    def __init__(self, base):
        self.base = base
        self.jar = http.cookiejar.CookieJar()

        class NoRedirect(urllib.request.HTTPRedirectHandler):
            def redirect_request(self, *args, **kwargs):
                return None

        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar), NoRedirect())

    def request(self, method, path, form=None, headers=None):
        data = urllib.parse.urlencode(form).encode() if form is not None else None
        req = urllib.request.Request(self.base + path, data=data, method=method, headers=headers or {})
        try:
            with self.opener.open(req, timeout=30) as response:
                return response.status, dict(response.headers), response.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, dict(error.headers), error.read().decode()

    def csrf(self, path="/signin"):
        _, _, body = self.request("GET", path)
        match = re.search(r'name="_csrf" value="([0-9a-f]+)"', body)
        return match.group(1) if match else ""


class Platform:
    """Talks to the server's embedded local platform as another client app would (signed requests), to
    put reports on it and check what it holds. Credentials come from the server's data folder."""

    def __init__(self, server):
        import json
        url = None
        for line in server.stderr_lines:
            match = re.search(r"embedded local platform on (http://[0-9.]+:\d+)", line)
            if match:
                url = match.group(1)
        assert url, "no embedded platform line in: " + "".join(server.stderr_lines)
        self.url = url
        with open(os.path.join(server.data_dir, "platform-app.json")) as f:
            app = json.load(f)
        self.key, self.secret = app["consumer_key"], app["consumer_secret"]

    def call(self, method, path, body=None, session=None):
        import hashlib
        import hmac
        import json
        data = json.dumps(body).encode() if body is not None else b""
        signature = hmac.new(self.secret.encode(), path.encode() + data, hashlib.sha1).hexdigest()
        headers = {"X-API-Key": self.key, "X-API-Sig": signature, "Accept": "application/json"}
        if body is not None:
            headers["Content-Type"] = "application/json"
        if session:
            headers["X-Authentication"] = session
        req = urllib.request.Request(self.url + "/" + path, data=data if body is not None else None,
                                     method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=30) as response:
                return response.status, json.loads(response.read() or b"null")
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode()

    def session(self, email, password="correct horse"):
        status, body = self.call("POST", "account/session", {"email_address": email, "password": password})
        assert status == 200, body
        return body["session_id"]

    def create_report(self, session, name):
        status, body = self.call("POST", "har/report", {
            "condition": "poor", "designation": "LB", "grade": "II", "occupancy": "vacant",
            "owner_type": "private", "place_name": name, "priority_category": "C",
            "location": {"latitude": 51.5, "longitude": -0.12, "accuracy": 5, "altitude": 10}}, session)
        assert status == 200, body
        return body["report_id"]

    def list_reports(self, session):
        status, body = self.call("GET", "har/report", session=session)
        assert status == 200, body
        return body


def database(server):
    import sqlite3
    connection = sqlite3.connect(os.path.join(server.data_dir, "har.sqlite"), timeout=10)
    connection.row_factory = sqlite3.Row
    return connection


def seed_report(server, email, name, state="queued", created=None, platform_id=None, address=None, photos=0,
                last_error=None):
    """Puts a report straight into the app's database (as Submit and the worker would), with photo files."""
    created = created if created is not None else time.time()
    local_id = str(uuid.uuid4())
    with database(server) as db:
        user_id = db.execute("SELECT id FROM users WHERE email = ?", (email,)).fetchone()[0]
        cursor = db.execute(
            "INSERT INTO reports (user_id, local_id, platform_report_id, state, name, formatted_address, "
            "creation_time, submitted_at, last_error, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (user_id, local_id, platform_id, state, name, address, created, created, last_error, created))
        report_id = cursor.lastrowid
        os.makedirs(os.path.join(server.data_dir, "photos"), exist_ok=True)
        for position in range(photos):
            photo_id = str(uuid.uuid4())
            path = os.path.join(server.data_dir, "photos", photo_id)
            with open(path, "wb") as f:
                f.write(b"\xff\xd8\xff\xe0fake jpeg")
            db.execute("INSERT INTO photos (report_id, local_id, position, content_type, size, sha256, created_at) "
                       "VALUES (?, ?, ?, 'image/jpeg', 13, 'x', ?)", (report_id, photo_id, position, created))
    return local_id
