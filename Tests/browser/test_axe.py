"""Accessibility checked by a machine (item 7): axe-core's WCAG 2.1 A and AA rules on every
screen, signed out and in, in English and French, at a phone width and a desktop width. Zero violations:
a failure lists each rule id with the nodes it found.

axe-core comes from PyPI's axe-selenium-python (scripts/setup pins 3.0.0, which ships axe-core 4.10;
the 2.x line that pip picks for Python 3.11 ships axe-core 3.1 from 2018, without most WCAG 2.1 rules).
Its axe.min.js is injected through selenium: no network, no CDN.
"""
import pytest
from axe_selenium_python import Axe
from selenium.webdriver.common.by import By

from conftest import Platform, database, seed_report, sign_in, unique_email, wait_for
from helpers import FAKE_CONNECTION, LONDON, set_location

TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
LANGUAGES = ["en", "fr"]
WIDTHS = {"phone": (390, 844), "desktop": (1280, 900)}
VARIANTS = [(lang, width) for lang in LANGUAGES for width in WIDTHS]
IDS = ["%s-%s" % variant for variant in VARIANTS]

# Nodes axe may not judge, each with its reason. Keep this empty unless a node is not ours to fix.
EXCLUDED = []

RUN = """
var options = arguments[0], exclude = arguments[1], done = arguments[arguments.length - 1];
axe.run({include: [document], exclude: exclude}, options).then(function (results) {
  done({version: axe.version, violations: results.violations.map(function (rule) {
    return {id: rule.id, impact: rule.impact, help: rule.help, nodes: rule.nodes.map(function (node) {
      return {target: node.target.join(' '), html: node.html.slice(0, 200), summary: node.failureSummary};
    })};
  })});
}, function (error) { done({error: String(error)}); });
"""


def axe_violations(driver):
    Axe(driver).inject()
    driver.set_script_timeout(60)
    result = driver.execute_async_script(
        RUN, {"runOnly": {"type": "tag", "values": TAGS}, "resultTypes": ["violations"]},
        [[selector] for selector, _reason in EXCLUDED])
    assert "error" not in result, result
    major = int(result["version"].split(".")[0])
    assert major >= 4, "axe-core %s is too old for WCAG 2.1: run scripts/setup" % result["version"]
    return result["violations"]


def assert_no_violations(driver, screen):
    violations = axe_violations(driver)
    if violations:
        lines = ["%d axe violation(s) on %s (%s):" % (len(violations), screen, driver.current_url)]
        for rule in violations:
            lines.append("- %s [%s]: %s" % (rule["id"], rule["impact"], rule["help"]))
            for node in rule["nodes"]:
                lines.append("    %s\n      %s\n      %s" % (node["target"], node["html"],
                                                         (node["summary"] or "").replace("\n", "\n      ")))
        pytest.fail("\n".join(lines), pytrace=False)


# ---- Who is signed in, in which language, at which width

USERS = {}


def user_cookies(driver, server, name):
    """The session cookie of a user of this module (signed in once: sign-in is rate-limited)."""
    if name not in USERS:
        driver.get(server.url + "/healthz")
        driver.delete_all_cookies()
        email = sign_in(driver, server, unique_email("axe-" + name))
        USERS[name] = {"email": email, "cookies": [c for c in driver.get_cookies() if c["name"] != "har_lang"]}
    return USERS[name]


def as_visitor(driver, server, lang, width, user=None):
    """Puts the browser at `width` in `lang`, signed out or signed in as `user`."""
    driver.set_window_size(*WIDTHS[width])
    account = user_cookies(driver, server, user) if user else None
    driver.get(server.url + "/healthz")
    driver.delete_all_cookies()
    driver.add_cookie({"name": "har_lang", "value": lang, "path": "/"})
    if account:
        for cookie in account["cookies"]:
            driver.add_cookie({key: cookie[key] for key in ("name", "value", "path") if key in cookie})
    return account


def open_page(driver, server, path, lang):
    driver.get(server.url + path)
    assert driver.find_element(By.TAG_NAME, "html").get_attribute("lang") == lang


@pytest.fixture(scope="module", autouse=True)
def default_size(driver):
    yield
    driver.set_window_size(412, 860)


# ---- The check itself

def test_axe_finds_what_is_there(driver, server):
    # A field without a label and grey words on white, added to a page for this test: the check must
    # name both, or it could not fail.
    as_visitor(driver, server, "en", "phone")
    open_page(driver, server, "/signin", "en")
    driver.execute_script("""
        var input = document.createElement('input'); input.id = 'axe-probe-field';
        document.getElementById('signin-form').appendChild(input);
        var faint = document.createElement('p'); faint.id = 'axe-probe-faint'; faint.textContent = 'faint words';
        faint.style.color = '#BBBBBB';  // through the CSSOM, which the CSP allows (style attributes it refuses)
        document.querySelector('.signin').appendChild(faint);""")
    found = {rule["id"]: [node["target"] for node in rule["nodes"]] for rule in axe_violations(driver)}
    assert "#axe-probe-field" in found.get("label", []), found
    assert "#axe-probe-faint" in found.get("color-contrast", []), found


# ---- Signed out

@pytest.mark.parametrize("lang,width", VARIANTS, ids=IDS)
def test_axe_sign_in(driver, server, lang, width):
    as_visitor(driver, server, lang, width)
    open_page(driver, server, "/signin", lang)
    assert_no_violations(driver, "sign-in")
    # The messages under the fields (LOG-12/13), and the password shown by the eye (LOG-15).
    driver.find_element(By.ID, "connect").click()
    wait_for(driver, lambda d: d.find_element(By.ID, "email-error").text != "")
    driver.find_element(By.ID, "password").send_keys("secret")
    driver.find_element(By.ID, "password-toggle").click()
    assert_no_violations(driver, "sign-in with field errors")


@pytest.mark.parametrize("lang,width", VARIANTS, ids=IDS)
def test_axe_sign_in_without_javascript_errors(driver, server, lang, width):
    # What a browser without JavaScript gets back: the server's messages and a form error.
    as_visitor(driver, server, lang, width)
    open_page(driver, server, "/signin?notice=expired", lang)
    driver.execute_script("document.getElementById('signin-form').submit()")
    wait_for(driver, lambda d: d.find_element(By.ID, "email-error").text != "")
    assert_no_violations(driver, "sign-in answered by the server")
    # A refused sign-in: the form's error notice (LOG-16).
    email = user_cookies(driver, server, "empty")["email"]
    as_visitor(driver, server, lang, width)
    open_page(driver, server, "/signin", lang)
    driver.find_element(By.ID, "email").send_keys(email)
    driver.find_element(By.ID, "password").send_keys("wrong horse")
    driver.find_element(By.ID, "connect").click()
    wait_for(driver, lambda d: d.find_elements(By.ID, "form-error"), timeout=20)
    assert_no_violations(driver, "sign-in refused by the platform")


@pytest.mark.parametrize("lang,width", VARIANTS, ids=IDS)
def test_axe_forgot_password(driver, server, lang, width):
    as_visitor(driver, server, lang, width)
    open_page(driver, server, "/forgot-password", lang)
    assert_no_violations(driver, "forgot-password")


@pytest.mark.parametrize("lang,width", VARIANTS, ids=IDS)
def test_axe_error_page_signed_out(driver, server, lang, width):
    as_visitor(driver, server, lang, width)
    open_page(driver, server, "/no-such-page", lang)
    assert driver.find_elements(By.CSS_SELECTOR, ".error-page")
    assert_no_violations(driver, "error page, signed out")


# ---- Signed in: the list, settings

@pytest.mark.parametrize("lang,width", VARIANTS, ids=IDS)
def test_axe_list_empty(driver, server, lang, width):
    as_visitor(driver, server, lang, width, user="empty")
    open_page(driver, server, "/reports", lang)
    wait_for(driver, lambda d: d.find_elements(By.ID, "empty-state"))
    wait_for(driver, lambda d: d.find_element(By.ID, "refresh-status").get_attribute("hidden") is not None
             or d.find_element(By.ID, "refresh-status").text != "")
    assert_no_violations(driver, "the empty list")


def rows_user(driver, server):
    account = user_cookies(driver, server, "rows")
    if not account.get("seeded"):
        platform = Platform(server)
        platform.create_report(platform.session(account["email"]), "Stored Chapel")
        seed_report(server, account["email"], "Queued Mill", address="1 Mill Lane, Bath")
        seed_report(server, account["email"], "Uploading Barn", state="uploading", photos=2)
        seed_report(server, account["email"], "Held Tower", state="held")
        seed_report(server, account["email"], "Stuck Bridge", state="needs_attention",
                    last_error="The platform refused the report.")
        seed_report(server, account["email"], "Expired Cross", state="waiting_signin")
        # More than a page: "Show more" shows.
        for n in range(50):
            seed_report(server, account["email"], "Old Wall %d" % n, created=1_700_000_000 + n)
        account["seeded"] = True


@pytest.mark.parametrize("lang,width", VARIANTS, ids=IDS)
def test_axe_list_with_rows_and_dialog(driver, server, lang, width):
    as_visitor(driver, server, lang, width, user="rows")
    rows_user(driver, server)
    open_page(driver, server, "/reports", lang)
    wait_for(driver, lambda d: "Stored Chapel" in d.find_element(By.ID, "report-list").text, timeout=20)
    assert driver.find_element(By.ID, "show-more").is_displayed()
    assert_no_violations(driver, "the list with rows")
    # LST-08's dialog, as a refused delete shows it.
    driver.execute_script("var l = document.getElementById('report-list');"
                          "import('/static/js/core/dialog.js').then(function (m) {"
                          " m.showDialog(l.dataset.failureTitle, l.dataset.failureMessage); })")
    wait_for(driver, lambda d: d.find_element(By.ID, "har-dialog").get_attribute("open") is not None)
    assert_no_violations(driver, "the list's delete-failure dialog")


@pytest.mark.parametrize("lang,width", VARIANTS, ids=IDS)
def test_axe_settings_panel(driver, server, lang, width):
    as_visitor(driver, server, lang, width, user="empty")
    open_page(driver, server, "/reports", lang)
    driver.find_element(By.ID, "settings-open").click()
    panel = driver.find_element(By.ID, "settings-panel")
    wait_for(driver, lambda d: panel.is_displayed() and "is-open" in panel.get_attribute("class"))
    # Wait for the slide to end: axe judges colours where they are at rest.
    wait_for(driver, lambda d: d.execute_script(
        "return getComputedStyle(arguments[0]).transform", panel) in ("none", "matrix(1, 0, 0, 1, 0, 0)"))
    assert_no_violations(driver, "the settings panel")
    # The server's messages for values out of bounds, and the saved state.
    driver.execute_script("document.getElementById('gps-accuracy').value = '0'")
    driver.find_element(By.ID, "settings-save").click()
    wait_for(driver, lambda d: d.find_element(By.ID, "gps-accuracy-error").text != "")
    assert_no_violations(driver, "the settings panel with an error")


@pytest.mark.parametrize("lang,width", VARIANTS, ids=IDS)
def test_axe_settings_page(driver, server, lang, width):
    as_visitor(driver, server, lang, width, user="empty")
    open_page(driver, server, "/settings", lang)
    assert_no_violations(driver, "the settings page")
    # Without JavaScript the form posts: the server's answer, with its error messages.
    driver.execute_script("document.getElementById('gps-alert').value = '1';"
                          "document.getElementById('settings-form').submit()")
    wait_for(driver, lambda d: d.find_element(By.ID, "gps-alert-error").text != "")
    assert_no_violations(driver, "the settings page answered by the server")


@pytest.mark.parametrize("lang,width", VARIANTS, ids=IDS)
def test_axe_notifications_and_bell(driver, server, lang, width):
    """NOT-06: the notifications page (one unread question, one read decision) and the list's bell."""
    account = as_visitor(driver, server, lang, width, user="notified")
    with database(server) as db:
        if not db.execute("SELECT count(*) FROM mail_outbox m JOIN users u ON u.id = m.user_id "
                          "WHERE u.email = ?", (account["email"],)).fetchone()[0]:
            local_id = seed_report(server, account["email"], "Chapel <b>of</b> St Anne")
            report_id = db.execute("SELECT id FROM reports WHERE local_id = ?", (local_id,)).fetchone()[0]
            user_id = db.execute("SELECT id FROM users WHERE email = ?", (account["email"],)).fetchone()[0]
            for event, kind, detail, read in [("a", "needs_info", "Which door?", None),
                                              ("b", "rejected", "not_heritage", 1.0)]:
                db.execute("INSERT INTO mail_outbox (event_key, user_id, kind, report_id, language, detail, token, "
                           "state, next_attempt_at, created_at, read_at) "
                           "VALUES (?, ?, ?, ?, 'en', ?, 'tok', 'skipped', 0, 1700000000, ?)",
                           (event, user_id, kind, report_id, detail, read))
    open_page(driver, server, "/notifications", lang)
    assert driver.find_elements(By.CSS_SELECTOR, ".notification.is-unread")
    assert_no_violations(driver, "the notifications page")
    open_page(driver, server, "/reports", lang)
    assert driver.find_elements(By.CSS_SELECTOR, ".bell .bell-count")
    assert_no_violations(driver, "the list with the bell")


@pytest.mark.parametrize("lang,width", VARIANTS, ids=IDS)
def test_axe_error_page_signed_in(driver, server, lang, width):
    as_visitor(driver, server, lang, width, user="empty")
    open_page(driver, server, "/reports/no-such-report/nothing", lang)
    assert driver.find_elements(By.CSS_SELECTOR, ".error-page")
    assert_no_violations(driver, "error page, signed in")


# ---- Signed in: creation and submission

def set_wireless_only(server, email, on):
    with database(server) as connection:
        connection.execute("UPDATE users SET wireless_only = ? WHERE email = ?", (1 if on else 0, email))


def open_creation_with_photos(driver, server, lang):
    driver.execute_cdp_cmd("Browser.grantPermissions", {"origin": server.url, "permissions": ["geolocation"]})
    set_location(driver, LONDON)
    open_page(driver, server, "/reports/new", lang)
    wait_for(driver, lambda d: d.execute_script("return window.HARCreate && HARCreate.camera === 'live'"), 25)
    wait_for(driver, lambda d: d.execute_script("return !!HARCreate.fix && !!HARCreate.userMarker"))
    while driver.execute_script("return HARPhotos.count()") < 2:
        before = driver.execute_script("return HARPhotos.count()")
        driver.find_element(By.ID, "capture").click()
        wait_for(driver, lambda d: d.execute_script("return HARPhotos.count()") == before + 1, 30)
    wait_for(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#map .photo-marker")) >= 2)


@pytest.mark.parametrize("lang,width", VARIANTS, ids=IDS)
def test_axe_report_creation(driver, server, lang, width):
    as_visitor(driver, server, lang, width, user="creator")
    open_creation_with_photos(driver, server, lang)
    assert_no_violations(driver, "report creation")
    # The GPS alert banner (SET-02), as it shows after the alert duration without a good fix.
    driver.execute_script("var a = document.getElementById('gps-alert'); a.textContent = 'GPS'; a.hidden = false;")
    assert_no_violations(driver, "report creation with the GPS alert")


@pytest.mark.parametrize("lang,width", VARIANTS, ids=IDS)
def test_axe_report_creation_without_camera_and_with_a_held_photo(driver, server, lang, width):
    # No camera: the file picker instead (the fallback of CRE-02); on cellular with "wireless only"
    # (SET-03): the network notice and a photo waiting on the device, as create/holding.js draws it.
    account = as_visitor(driver, server, lang, width, user="creator")
    scripts = [driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": source})["identifier"]
               for source in (FAKE_CONNECTION, "navigator.mediaDevices.getUserMedia = function () {"
                              " return Promise.reject(new DOMException('denied', 'NotAllowedError')); };")]
    set_wireless_only(server, account["email"], True)
    try:
        driver.execute_cdp_cmd("Browser.grantPermissions", {"origin": server.url, "permissions": ["geolocation"]})
        set_location(driver, LONDON)
        open_page(driver, server, "/reports/new", lang)
        wait_for(driver, lambda d: d.find_element(By.ID, "picker").is_displayed())
        wait_for(driver, lambda d: d.execute_script("return !!HARCreate.fix && HARCreate.restored === true"))
        driver.execute_async_script("""
            var done = arguments[arguments.length - 1];
            var input = document.getElementById('file-input'), canvas = document.createElement('canvas');
            canvas.width = 40; canvas.height = 30; canvas.getContext('2d').fillRect(0, 0, 20, 20);
            canvas.toBlob(function (blob) {
              var files = new DataTransfer();
              files.items.add(new File([blob], 'held.jpg', {type: 'image/jpeg'}));
              input.files = files.files;
              input.dispatchEvent(new Event('change'));
              done();
            }, 'image/jpeg', 0.9);""")
        wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#photo-strip .photo-waiting"))
        assert driver.find_element(By.ID, "network-notice").is_displayed()
        assert_no_violations(driver, "report creation without a camera, a photo held")
        # Back on wireless: the held photo goes, and the next test finds the draft as it left it.
        driver.execute_script("__setConnection('wifi')")
        wait_for(driver, lambda d: not d.find_elements(By.CSS_SELECTOR, "#photo-strip .photo-waiting"), 15)
    finally:
        for identifier in scripts:
            driver.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": identifier})
        set_wireless_only(server, account["email"], False)


@pytest.mark.parametrize("lang,width", VARIANTS, ids=IDS)
def test_axe_report_submission(driver, server, lang, width):
    as_visitor(driver, server, lang, width, user="creator")
    open_creation_with_photos(driver, server, lang)
    open_page(driver, server, "/reports/new/submit", lang)
    assert_no_violations(driver, "report submission")
    # Submit with nothing filled: the server answers with a message under each field.
    driver.find_element(By.ID, "submit").click()
    wait_for(driver, lambda d: d.find_element(By.ID, "field-name-error").text != "")
    assert_no_violations(driver, "report submission with field errors")


# ---- Offline: the app shell's pages the service worker shows, and the device's outbox

SEED_OUTBOX = """
var done = arguments[arguments.length - 1];
var canvas = document.createElement('canvas'); canvas.width = 40; canvas.height = 30;
canvas.getContext('2d').fillRect(0, 0, 20, 20);
canvas.toBlob(function (blob) {
  var owner = HARDevice.owner();
  var photo = function () { return {id: HAROutbox.uuid(), blob: blob, name: 'a.jpg', fix: null, takenAt: Date.now()}; };
  // Refused by the server once (lastError): not sent again until the user asks; both rows stay shown.
  var records = [
    {id: HAROutbox.uuid(), owner: owner, status: 'waiting', createdAt: Date.now(), token: HAROutbox.token(),
     fields: {name: 'Chapel in the valley'}, photos: [photo(), photo()], lastError: 'The name is missing.'},
    {id: HAROutbox.uuid(), owner: owner, status: 'open', createdAt: Date.now() - 1, fields: {}, photos: [photo()]}
  ];
  Promise.all(records.map(HAROutbox.save)).then(function () { return HARDevice.render(); })
    .then(function () { done(true); }, function (e) { done(String(e)); });
}, 'image/jpeg', 0.9);
"""


def seed_outbox(driver):
    driver.set_script_timeout(30)
    wait_for(driver, lambda d: d.execute_script("return !!(window.HARDevice && HARDevice.owner())"))
    assert driver.execute_async_script(SEED_OUTBOX) is True


@pytest.mark.parametrize("lang,width", VARIANTS, ids=IDS)
def test_axe_offline_shell_list_with_a_waiting_report_and_a_storage_error(driver, server, lang, width):
    as_visitor(driver, server, lang, width, user="offline")
    open_page(driver, server, "/app-shell/list", lang)
    seed_outbox(driver)
    wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#device-list .device-row"))
    assert_no_violations(driver, "the list's shell with a report waiting on the device")
    driver.execute_script("var e = document.getElementById('outbox-error');"
                          "e.textContent = document.getElementById('outbox-words').dataset.quota; e.hidden = false;")
    assert_no_violations(driver, "the list's shell with a storage error")


@pytest.mark.parametrize("lang,width", VARIANTS, ids=IDS)
def test_axe_offline_shell_creation_and_submission(driver, server, lang, width):
    as_visitor(driver, server, lang, width, user="offline")
    open_page(driver, server, "/app-shell/new", lang)
    wait_for(driver, lambda d: d.execute_script("return !!(window.HARShell && HARShell.current())"))
    wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#device-photos .photo-item") or
             d.find_element(By.ID, "capture").is_enabled(), 20)
    assert_no_violations(driver, "the creation page's shell")
    open_page(driver, server, "/app-shell/submit", lang)
    wait_for(driver, lambda d: d.execute_script("return !!(window.HARShell && HARShell.current())"))
    driver.find_element(By.ID, "submit").click()
    assert_no_violations(driver, "the submission page's shell after Submit with nothing filled")


@pytest.mark.parametrize("lang,width", VARIANTS, ids=IDS)
def test_axe_settings_panel_with_reports_kept_on_the_device(driver, server, lang, width):
    as_visitor(driver, server, lang, width, user="offline")
    open_page(driver, server, "/reports", lang)
    seed_outbox(driver)
    wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#device-list .device-row"))
    driver.find_element(By.ID, "settings-open").click()
    panel = driver.find_element(By.ID, "settings-panel")
    wait_for(driver, lambda d: d.find_element(By.ID, "device-send").is_displayed())
    wait_for(driver, lambda d: d.execute_script(
        "return getComputedStyle(arguments[0]).transform", panel) in ("none", "matrix(1, 0, 0, 1, 0, 0)"))
    assert_no_violations(driver, "the list and settings panel with reports kept on the device")


@pytest.mark.parametrize("lang,width", VARIANTS, ids=IDS)
def test_axe_welcome_screens_and_guide(driver, server, lang, width):
    as_visitor(driver, server, lang, width)
    open_page(driver, server, "/signin", lang)
    driver.execute_script("HARWelcome.welcome()")
    for n in (1, 2, 3):
        wait_for(driver, lambda d: d.find_element(By.ID, "welcome").get_attribute("data-step") == str(n))
        assert_no_violations(driver, "the welcome, screen %d" % n)
        if n < 3:
            driver.find_element(By.ID, "welcome-next").click()
    as_visitor(driver, server, lang, width, user="empty")
    open_page(driver, server, "/reports", lang)
    driver.execute_script("HARWelcome.guide()")
    wait_for(driver, lambda d: d.find_element(By.ID, "guide").get_attribute("open") is not None)
    assert_no_violations(driver, "the guide to the list's states")


# ---- Coordinators: the review pages

def coordinator_user(driver, server):
    """A coordinator (granted and confirmed in the store, as `har users grant` and `confirm` do) with reports to review: one asked
    for information, so that the reporter's list shows it too."""
    account = user_cookies(driver, server, "coordinator")
    if not account.get("seeded"):
        with database(server) as connection:
            # Bound to the account that signed in, as an administrator's confirmation binds it (REV-10).
            connection.execute("INSERT INTO user_roles (email, role, granted_by, granted_at, account_id) "
                               "SELECT email, 'admin', 'test', 0, account_id FROM users WHERE email = ?",
                               (account["email"],))
        seed_report(server, account["email"], "Review Chapel", photos=1)
        seed_report(server, account["email"], "Review Mill", state="needs_attention",
                    last_error="The platform refused the report.")
        local_id = seed_report(server, account["email"], "Review Barn")
        with database(server) as connection:
            connection.execute("UPDATE reports SET latitude = 51.5, longitude = -0.12, review_state = 'needs_info', "
                               "review_message = 'Which barn?' WHERE name LIKE 'Review %'")
            connection.execute("UPDATE reports SET review_state = 'received' WHERE name != 'Review Barn'")
            # A located photo: the report's page draws its map of the photos (REV-06).
            connection.execute("UPDATE photos SET latitude = 51.5, longitude = -0.12, accuracy = 12 WHERE report_id "
                               "IN (SELECT id FROM reports WHERE name = 'Review Chapel')")
        account["barn"] = local_id
        account["seeded"] = True
    return account


def review_report_id(server, name):
    with database(server) as connection:
        return connection.execute("SELECT id FROM reports WHERE name = ?", (name,)).fetchone()[0]


@pytest.mark.parametrize("lang,width", VARIANTS, ids=IDS)
def test_axe_review_pages(driver, server, lang, width):
    account = coordinator_user(driver, server)
    as_visitor(driver, server, lang, width, user="coordinator")
    chapel = review_report_id(server, "Review Chapel")
    for path, screen in [("/review", "review dashboard"), ("/review?q=review&failure=1", "filtered dashboard"),
                         ("/review/reports/%d" % chapel, "a report's review page"),
                         ("/review/audit", "audit log"), ("/review/users", "roles"),
                         ("/reports/%s/reply" % account["barn"], "reporter's reply"),
                         ("/reports", "the list with review notices")]:
        open_page(driver, server, path, lang)
        assert_no_violations(driver, screen)
    # The bulk confirmation and its per-report results.
    open_page(driver, server, "/review?q=review", lang)
    for target in (driver.find_element(By.ID, "sel-%d" % chapel),
                   driver.find_element(By.CSS_SELECTOR, "button[name=scope][value=selected]")):
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", target)
        target.click()
    wait_for(driver, lambda d: d.find_elements(By.ID, "bulk-confirm"))
    assert_no_violations(driver, "bulk confirmation")
    driver.find_element(By.ID, "bulk-confirm").click()
    wait_for(driver, lambda d: d.find_elements(By.ID, "bulk-results"))
    assert_no_violations(driver, "bulk results")


@pytest.mark.parametrize("lang,width", VARIANTS, ids=IDS)
def test_axe_review_queue_states(driver, server, lang, width):
    """REV-05's queue in its new states: More filters open (a link with its filters), the bulk bar shown
    (a row ticked), the export menu open, the map's toggle open below 1200 px."""
    account = coordinator_user(driver, server)
    as_visitor(driver, server, lang, width, user="coordinator")
    open_page(driver, server, "/review?reporter=%s&from=2026-01-01&bounds=50,-1,52,1" % account["email"], lang)
    assert driver.find_element(By.ID, "review-more").get_attribute("open") is not None
    assert_no_violations(driver, "dashboard with More filters open")
    open_page(driver, server, "/review?q=review", lang)
    for summary in ("#review-export-menu summary", "#review-map-section summary"):
        target = driver.find_element(By.CSS_SELECTOR, summary)
        if target.is_displayed():  # the map's is hidden at 1200 px and more: the map is open beside the table
            driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", target)
            target.click()
    wait_for(driver, lambda d: d.find_element(By.ID, "review-map").is_displayed())
    box = driver.find_element(By.CSS_SELECTOR, "#review-table .review-select")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", box)
    box.click()
    wait_for(driver, lambda d: d.find_element(By.ID, "bulk-form").is_displayed())
    assert_no_violations(driver, "dashboard with the bulk bar, the export menu and the map open")


@pytest.mark.parametrize("lang,width", VARIANTS, ids=IDS)
def test_axe_review_mail_pages(driver, server, lang, width):
    """NOT-02, NOT-04: the coordinator's mail settings (as shown, and refusing an unknown time zone) and
    the administrators' failed mail page with one refused message."""
    account = coordinator_user(driver, server)
    with database(server) as db:
        user_id = db.execute("SELECT id FROM users WHERE email = ?", (account["email"],)).fetchone()[0]
        db.execute("INSERT INTO mail_outbox (event_key, user_id, kind, language, detail, token, state, attempts, "
                   "next_attempt_at, created_at, last_reply) VALUES ('axe-failed', ?, 'digest', 'en', "
                   "'waiting=1;oldest=60;replies=0;failures=0;folded=0', 'tok-axe', 'failed', 1, 0, 1700000000, "
                   "'550 5.1.1 mailbox unavailable') ON CONFLICT DO NOTHING", (user_id,))
    as_visitor(driver, server, lang, width, user="coordinator")
    open_page(driver, server, "/review/settings", lang)
    assert driver.find_elements(By.CSS_SELECTOR, "input[name=mode][value=daily]")
    assert_no_violations(driver, "coordinator's mail settings")
    field = driver.find_element(By.ID, "time-zone")
    field.clear()
    field.send_keys("Mars/Olympus")
    button = driver.find_element(By.ID, "save-coordinator-mail")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)
    button.click()
    wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "p.notice[role=alert]"))
    assert_no_violations(driver, "coordinator's mail settings refusing a time zone")
    open_page(driver, server, "/review/mail", lang)
    assert driver.find_elements(By.CSS_SELECTOR, "#failed-mail tbody tr")
    assert_no_violations(driver, "failed mail")


@pytest.mark.parametrize("lang,width", VARIANTS, ids=IDS)
def test_axe_review_triage_and_photo_viewer(driver, server, lang, width):
    """REV-13: triage with its Undo and each picker of the decision bar open, the list of keys, and the
    photo viewer open over the page."""
    coordinator_user(driver, server)
    as_visitor(driver, server, lang, width, user="coordinator")
    open_page(driver, server, "/review/triage?q=review", lang)
    wait_for(driver, lambda d: "triage=1" in d.current_url)
    assert_no_violations(driver, "triage")
    for toggle, box in [("reject-toggle", "reject-box"), ("dup-toggle", "dup-box"), ("more-toggle", "more-box")]:
        target = driver.find_element(By.ID, toggle)
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", target)
        target.click()
        wait_for(driver, lambda d: d.find_element(By.ID, box).get_attribute("open") is not None)
        assert_no_violations(driver, "triage, %s open" % box)
    driver.execute_script("document.getElementById('keys-dialog').showModal()")
    assert_no_violations(driver, "triage, the list of keys")
    driver.execute_script("document.getElementById('keys-dialog').close()")
    chapel = review_report_id(server, "Review Chapel")
    open_page(driver, server, "/review/reports/%d?triage=1&q=review" % chapel, lang)
    photo = driver.find_element(By.CSS_SELECTOR, ".photo-open")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", photo)
    photo.click()
    wait_for(driver, lambda d: d.find_element(By.ID, "photo-viewer").get_attribute("open") is not None)
    assert_no_violations(driver, "the photo viewer")


@pytest.mark.parametrize("lang,width", VARIANTS, ids=IDS)
def test_axe_review_forbidden(driver, server, lang, width):
    as_visitor(driver, server, lang, width, user="empty")
    open_page(driver, server, "/review", lang)
    assert driver.find_elements(By.CSS_SELECTOR, ".error-page")
    assert_no_violations(driver, "review refused to a volunteer")


# ---- Kiosks: the coordinators' kiosk page, the tablet's screens, a receipt's page

KIOSK = {}


def kiosk_tablet(driver, server):
    """A kiosk the coordinator made on /review/kiosks, enrolled in this browser: the tablet's cookies."""
    if "cookies" not in KIOSK:
        coordinator_user(driver, server)
        as_visitor(driver, server, "en", "desktop", user="coordinator")
        driver.get(server.url + "/review/kiosks")
        driver.find_element(By.ID, "k-site").send_keys("Axe Abbey")
        driver.find_element(By.ID, "kiosk-create-submit").click()
        wait_for(driver, lambda d: d.find_elements(By.ID, "enrolment-link"))
        link = driver.find_element(By.ID, "enrolment-link").get_attribute("value")
        driver.delete_all_cookies()
        driver.get(link)
        driver.find_element(By.ID, "kiosk-enrol").click()
        wait_for(driver, lambda d: d.find_elements(By.ID, "kiosk-start"))
        KIOSK["cookies"] = [c for c in driver.get_cookies() if c["name"] == "har_kiosk"]
    return KIOSK["cookies"]


def as_tablet(driver, server, lang, width):
    cookies = kiosk_tablet(driver, server)
    driver.set_window_size(*WIDTHS[width])
    driver.get(server.url + "/healthz")
    driver.delete_all_cookies()
    driver.add_cookie({"name": "har_lang", "value": lang, "path": "/"})
    for cookie in cookies:
        driver.add_cookie({key: cookie[key] for key in ("name", "value", "path") if key in cookie})


@pytest.mark.parametrize("lang,width", VARIANTS, ids=IDS)
def test_axe_KIO_kiosk_screens(driver, server, lang, width):
    as_tablet(driver, server, lang, width)
    open_page(driver, server, "/kiosk", lang)
    assert_no_violations(driver, "the kiosk's attract screen")
    # The staff's count of held reports the server refused (kiosk/screens.js fills it in and shows it).
    driver.execute_script("document.getElementById('kiosk-refused-count').textContent = "
                          "document.getElementById('kiosk-refused-count').getAttribute('data-template')"
                          ".replace('{count}', '1'); document.getElementById('kiosk-refused').hidden = false;")
    assert_no_violations(driver, "the kiosk's attract screen with held reports refused")
    driver.find_element(By.ID, "kiosk-start").click()
    wait_for(driver, lambda d: d.find_elements(By.ID, "kiosk-shoot"))
    wait_for(driver, lambda d: d.execute_script(
        "var v = document.getElementById('kiosk-camera'); return v && v.videoWidth > 0;"), timeout=20)
    driver.find_element(By.ID, "kiosk-shoot").click()
    wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#kiosk-thumbs img"), timeout=20)
    assert_no_violations(driver, "the kiosk's photos")
    driver.execute_script("document.getElementById('kiosk-idle').hidden = false;")
    assert_no_violations(driver, "the kiosk's still-there prompt")
    open_page(driver, server, "/kiosk/form", lang)
    assert_no_violations(driver, "the kiosk's form")
    # The "will be sent" screen Submit shows when the server does not answer (kiosk/form.js puts the page's
    # template in place of the form, as here); then the form again.
    driver.execute_script("var main = document.getElementById('main'); main.innerHTML = '';"
                          "main.appendChild(document.getElementById('kiosk-held-template').content.cloneNode(true));")
    assert_no_violations(driver, "the kiosk's form kept on the tablet")
    open_page(driver, server, "/kiosk/form", lang)
    driver.find_element(By.ID, "kiosk-submit").click()
    wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "[aria-invalid=true]"))
    assert_no_violations(driver, "the kiosk's form with its errors")
    from selenium.webdriver.support.ui import Select
    for field, value in [("field-designation", "LB"), ("field-condition", "poor"), ("field-occupancy", "vacant"),
                         ("field-priority-category", "A"), ("field-owner-type", "private"), ("field-grade", "II")]:
        Select(driver.find_element(By.ID, field)).select_by_value(value)
    driver.find_element(By.ID, "kiosk-submit").click()
    wait_for(driver, lambda d: d.find_elements(By.ID, "kiosk-code"))
    KIOSK["code"] = driver.find_element(By.ID, "kiosk-code").text
    assert_no_violations(driver, "the kiosk's receipt")
    # The offline shell (what the kiosk's service worker shows when the server cannot be reached).
    open_page(driver, server, "/kiosk/offline", lang)
    assert_no_violations(driver, "the kiosk's offline attract screen")
    driver.find_element(By.ID, "kiosk-start").click()
    wait_for(driver, lambda d: d.execute_script(
        "var v = document.getElementById('kiosk-camera'); return v && v.videoWidth > 0;"), timeout=20)
    driver.find_element(By.ID, "kiosk-shoot").click()
    wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#kiosk-thumbs img"), timeout=20)
    assert_no_violations(driver, "the kiosk's offline photos")
    driver.find_element(By.ID, "kiosk-next").click()
    driver.find_element(By.ID, "kiosk-submit").click()
    wait_for(driver, lambda d: d.find_element(By.ID, "offline-form-error").is_displayed())
    assert_no_violations(driver, "the kiosk's offline form")
    driver.execute_script("document.getElementById('offline-form').hidden = true;"
                          "document.getElementById('offline-receipt').hidden = false;")
    assert_no_violations(driver, "the kiosk's offline receipt")
    driver.delete_all_cookies()
    driver.add_cookie({"name": "har_lang", "value": lang, "path": "/"})
    open_page(driver, server, "/kiosk/enrol", lang)
    assert_no_violations(driver, "the kiosk's enrolment page")


@pytest.mark.parametrize("lang,width", VARIANTS, ids=IDS)
def test_axe_KIO_kiosks_page_and_receipt(driver, server, lang, width):
    kiosk_tablet(driver, server)
    as_visitor(driver, server, lang, width, user="coordinator")
    open_page(driver, server, "/review/kiosks", lang)
    assert_no_violations(driver, "the kiosks' page")
    driver.find_element(By.ID, "k-site").send_keys("Axe Mill")
    driver.find_element(By.ID, "kiosk-create-submit").click()
    wait_for(driver, lambda d: d.find_elements(By.ID, "enrolment-link"))
    assert_no_violations(driver, "the kiosks' page with an enrolment link")
    if "code" not in KIOSK:
        pytest.skip("the kiosk screens' test makes the receipt")
    for user in (None, "empty"):
        as_visitor(driver, server, lang, width, user=user)
        open_page(driver, server, "/r/%s#%s" % (KIOSK["code"], "ab" * 32), lang)
        assert_no_violations(driver, "a receipt's page" + (" signed in" if user else ""))
