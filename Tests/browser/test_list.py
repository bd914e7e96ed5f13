"""Report list, LST-01..09."""
import os
import time

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from conftest import (HarServer, Platform, css, database, make_driver, rgb, seed_report, sign_in, unique_email,
                      wait_for)


def rows(browser):
    return browser.find_elements(By.CSS_SELECTOR, "#report-list .report-row")


def wait_refreshed(browser):
    """The page's refresh from the platform has answered (rows replaced, or the notice shown)."""
    return wait_for(browser, lambda d: d.find_element(By.ID, "report-list").get_attribute("data-refreshed"), timeout=20)


def open_list(browser, server):
    browser.get(server.url + "/reports")
    wait_refreshed(browser)


def test_LST_01_header_logo_left_settings_right(browser, server):
    sign_in(browser, server)
    header = browser.find_element(By.CLASS_NAME, "header")
    assert header.rect["height"] == 56
    logo = header.find_element(By.CLASS_NAME, "logo")
    gear = browser.find_element(By.ID, "settings-open")
    assert logo.rect["x"] < 24
    width = browser.execute_script("return document.documentElement.clientWidth")
    assert width - (gear.rect["x"] + gear.rect["width"]) < 24
    assert gear.get_attribute("aria-label") == "Open settings"
    assert gear.rect["width"] >= 48 and gear.rect["height"] >= 48


def test_LST_02_rows_newest_first_empty_state_and_scrolling(browser, server):
    email = sign_in(browser, server)
    assert browser.find_element(By.ID, "empty-state").text.startswith("No reports yet")
    now = time.time()
    for index in range(25):
        seed_report(server, email, "Place %02d" % index, created=now - 3600 * (25 - index))
    open_list(browser, server)
    names = [row.find_element(By.CLASS_NAME, "report-name").text for row in rows(browser)]
    assert names == ["Place %02d" % i for i in reversed(range(25))]
    assert browser.execute_script("return document.scrollingElement.scrollHeight > window.innerHeight")
    browser.execute_script("window.scrollTo(0, document.body.scrollHeight)")
    assert browser.execute_script("return window.scrollY") > 0
    # The header stays in view while the body scrolls.
    assert browser.find_element(By.CLASS_NAME, "header").rect["y"] == browser.execute_script("return window.scrollY")


def test_LST_02_show_more_grows_the_list_in_place(browser, server):
    email = sign_in(browser, server)
    now = time.time()
    for index in range(60):
        # Queued would be picked up by a worker; held is left alone and still listed.
        seed_report(server, email, "Site %02d" % index, state="held", created=now - 60 * (60 - index))
    open_list(browser, server)
    assert len(rows(browser)) == 50
    more = browser.find_element(By.ID, "show-more")
    assert more.is_displayed() and "50 of 60" in more.text
    link = browser.find_element(By.ID, "show-more-link")
    assert link.text == "Show 10 more"
    link.send_keys(Keys.ENTER)  # by keyboard, as anyone may
    wait_for(browser, lambda d: len(rows(d)) == 60)
    assert not browser.find_element(By.ID, "show-more").is_displayed()
    assert browser.current_url.endswith("/reports?show=60")
    # Focus moved to the first row that was added, so a keyboard or screen-reader user goes on from there.
    names = [row.find_element(By.CLASS_NAME, "report-name").text for row in rows(browser)]
    assert names[0] == "Site 59" and names[50] == "Site 09" and names[-1] == "Site 00"
    assert browser.switch_to.active_element.get_attribute("id") == rows(browser)[50].get_attribute("id")
    # Deleting a row of the added part works like any other (the page's one delete form, by fetch).
    target = rows(browser)[55]
    target_id = target.get_attribute("id")
    button = target.find_element(By.CLASS_NAME, "delete-button")
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)  # clear of the camera button
    button.click()
    wait_for(browser, lambda d: not d.find_elements(By.ID, target_id))
    # A reload keeps as many rows as were shown (less the deleted one).
    browser.refresh()
    wait_refreshed(browser)
    assert len(rows(browser)) == 59


def test_LST_03_row_shows_name_address_local_date_status_and_delete(browser, server):
    email = sign_in(browser, server)
    created = 1767225600  # 2026-01-01T00:00:00Z
    # A stored report must be on the platform (a stored copy the platform no longer lists is deleted).
    platform = Platform(server)
    session = platform.session(email)
    report_id = platform.create_report(session, "Old Mill")
    address = next(r for r in platform.list_reports(session) if r["report_id"] == report_id)["formatted_address"]
    seed_report(server, email, "Chapel", state="queued", address="Church St", created=created + 60)
    seed_report(server, email, "Tower", state="waiting_signin", created=created + 120)
    seed_report(server, email, "Wall", state="needs_attention", created=created + 180,
                last_error="The platform refused the grade")
    open_list(browser, server)
    by_name = {row.find_element(By.CLASS_NAME, "report-name").text: row for row in rows(browser)}
    mill = by_name["Old Mill"]
    assert mill.find_element(By.CLASS_NAME, "report-address").text == address
    assert css(browser, mill.find_element(By.CLASS_NAME, "report-name"), "font-weight") == "700"
    date = mill.find_element(By.TAG_NAME, "time")
    assert date.get_attribute("datetime").startswith(time.strftime("%Y-%m-%dT", time.gmtime()))
    chapel_date = by_name["Chapel"].find_element(By.TAG_NAME, "time").get_attribute("datetime")
    assert chapel_date.startswith("2026-01-01T00:01:00")
    expected = browser.execute_script(
        "return new Intl.DateTimeFormat(document.documentElement.lang, {dateStyle: 'medium', timeStyle: 'short'})"
        ".format(new Date(arguments[0]));", date.get_attribute("datetime"))
    assert date.text == expected and "UTC" not in date.text
    stored = mill.find_element(By.CLASS_NAME, "status")
    assert stored.get_attribute("aria-label") == "Stored" and stored.get_attribute("role") == "img"
    assert css(browser, stored, "color") == rgb("#2E7D32")
    queued = by_name["Chapel"].find_element(By.CLASS_NAME, "status")
    assert queued.get_attribute("aria-label") == "Queued"
    assert css(browser, queued, "color") == rgb("#9E9E9E")
    waiting = by_name["Tower"].find_element(By.CLASS_NAME, "status")
    assert "sign in again" in waiting.text and waiting.is_displayed()
    attention = by_name["Wall"]
    assert "Needs attention" in attention.text and "refused the grade" in attention.text
    for row in by_name.values():
        button = row.find_element(By.CLASS_NAME, "delete-button")
        assert button.is_displayed() and button.rect["height"] >= 48


def test_LST_04_floating_camera_button_opens_creation(browser, server):
    sign_in(browser, server)
    fab = browser.find_element(By.ID, "new-report")
    assert fab.get_attribute("href").endswith("/reports/new")
    assert fab.get_attribute("aria-label") == "New report"
    assert fab.rect["width"] == 56 and fab.rect["height"] == 56
    assert css(browser, fab, "border-top-left-radius") == "50%"
    viewport = browser.execute_script("return [document.documentElement.clientWidth, window.innerHeight]")
    assert viewport[0] - (fab.rect["x"] + fab.rect["width"]) == 16
    assert viewport[1] - (fab.rect["y"] + fab.rect["height"]) == 16
    assert css(browser, fab, "position") == "fixed"


def test_LST_05_opening_the_list_fetches_from_the_platform_and_keeps_a_copy(browser, server):
    email = sign_in(browser, server)
    platform = Platform(server)
    session = platform.session(email)
    report_id = platform.create_report(session, "Ruined Abbey")
    browser.get(server.url + "/reports")
    wait_for(browser, lambda d: "Ruined Abbey" in d.find_element(By.ID, "report-list").text, timeout=20)
    with database(server) as db:
        row = db.execute("SELECT state, name, creation_time, platform_report_id FROM reports "
                         "WHERE platform_report_id = ?", (report_id,)).fetchone()
    assert row["state"] == "stored" and row["name"] == "Ruined Abbey" and row["creation_time"] > 0
    # Listed again: still one copy.
    browser.get(server.url + "/reports")
    wait_refreshed(browser)
    with database(server) as db:
        assert db.execute("SELECT COUNT(*) FROM reports WHERE platform_report_id = ?", (report_id,)).fetchone()[0] == 1


def test_LST_05_a_slow_platform_never_holds_the_page(driver):
    slow = HarServer(env={"HAR_PLATFORM_FAULTS": "latency_ms=4000,seed=1"}).start()
    try:
        driver.get(slow.url + "/healthz")
        driver.delete_all_cookies()
        email = unique_email()
        driver.get(slow.url + "/signin")
        driver.find_element(By.ID, "email").send_keys(email)
        driver.find_element(By.ID, "password").send_keys("long enough")
        driver.find_element(By.ID, "connect").click()
        wait_for(driver, lambda d: d.current_url.endswith("/reports"), timeout=20)
        seed_report(slow, email, "Local Only Bridge")
        started = time.time()
        driver.get(slow.url + "/reports")
        assert time.time() - started < 3, "the page waited on the platform"
        assert "Local Only Bridge" in driver.find_element(By.ID, "report-list").text
    finally:
        slow.remove()


def test_LST_05_platform_down_shows_local_rows_and_a_notice(driver):
    server = HarServer().start()
    try:
        driver.get(server.url + "/healthz")
        driver.delete_all_cookies()
        email = sign_in(driver, server)
        seed_report(server, email, "Kept Here")
        server.stop()
        server.extra_env = {"HAR_PLATFORM_FAULTS": "fail5xx=1,seed=2"}
        server.start()
        driver.get(server.url + "/reports")
        assert "Kept Here" in driver.find_element(By.ID, "report-list").text
        notice = wait_for(driver, lambda d: d.find_element(By.ID, "refresh-status").text, timeout=20)
        assert "Could not refresh" in notice
    finally:
        server.remove()


def test_LST_06_deleting_a_stored_report_deletes_it_on_the_platform(browser, server):
    email = sign_in(browser, server)
    platform = Platform(server)
    session = platform.session(email)
    report_id = platform.create_report(session, "Lost Lighthouse")
    browser.get(server.url + "/reports")
    row = wait_for(browser, lambda d: next((r for r in rows(d) if "Lost Lighthouse" in r.text), None), timeout=20)
    row.find_element(By.CLASS_NAME, "delete-button").click()
    wait_for(browser, lambda d: "Lost Lighthouse" not in d.find_element(By.ID, "report-list").text)
    assert report_id not in [r["report_id"] for r in platform.list_reports(session)]


def test_LST_07_deleting_a_report_that_never_left_cancels_it_locally(browser, server):
    email = sign_in(browser, server)
    local_id = seed_report(server, email, "Queued Cottage", photos=2)
    with database(server) as db:
        files = [r[0] for r in db.execute("SELECT p.local_id FROM photos p JOIN reports r ON r.id = p.report_id "
                                          "WHERE r.local_id = ?", (local_id,))]
    assert all(os.path.exists(os.path.join(server.data_dir, "photos", f)) for f in files)
    part_way = seed_report(server, email, "Half Sent Barn", state="uploading", platform_id="abc123part")
    open_list(browser, server)
    for name in ("Queued Cottage", "Half Sent Barn"):
        row = next(r for r in rows(browser) if name in r.text)
        row.find_element(By.CLASS_NAME, "delete-button").click()
        wait_for(browser, lambda d: name not in d.find_element(By.ID, "report-list").text)
    with database(server) as db:
        assert db.execute("SELECT state FROM reports WHERE local_id = ?", (local_id,)).fetchone()[0] == "cancelled"
        assert db.execute("SELECT state FROM reports WHERE local_id = ?", (part_way,)).fetchone()[0] == "deleting"
    assert not any(os.path.exists(os.path.join(server.data_dir, "photos", f)) for f in files)


def test_LST_08_a_refused_delete_shows_the_failure_dialog(driver):
    server = HarServer().start()
    try:
        driver.get(server.url + "/healthz")
        driver.delete_all_cookies()
        email = sign_in(driver, server)
        platform = Platform(server)
        platform.create_report(platform.session(email), "Stubborn Fort")
        driver.get(server.url + "/reports")
        wait_for(driver, lambda d: "Stubborn Fort" in d.find_element(By.ID, "report-list").text, timeout=20)
        # Same data folder, the platform now failing: the sign-in survives the restart (SQLite).
        server.stop()
        server.extra_env = {"HAR_PLATFORM_FAULTS": "fail5xx=1,seed=4"}
        server.start()
        open_list(driver, server)
        assert driver.current_url.endswith("/reports")
        row = next(r for r in rows(driver) if "Stubborn Fort" in r.text)
        row.find_element(By.CLASS_NAME, "delete-button").click()
        dialog = wait_for(driver, lambda d: d.find_element(By.ID, "har-dialog") if d.find_element(
            By.ID, "har-dialog").get_attribute("open") is not None else None, timeout=30)
        assert dialog.find_element(By.ID, "har-dialog-title").text == "Report Deletion Failure"
        assert dialog.find_element(By.ID, "har-dialog-message").text == (
            "Our servers cannot process your request at this time. Please try again later.")
        ok = dialog.find_element(By.ID, "har-dialog-ok")
        assert ok.text == "OK"
        assert driver.switch_to.active_element == ok
        ok.click()
        wait_for(driver, lambda d: d.find_element(By.ID, "har-dialog").get_attribute("open") is None)
        assert "Stubborn Fort" in driver.find_element(By.ID, "report-list").text
    finally:
        server.remove()


def test_LST_09_on_200_the_row_disappears_and_the_copy_is_removed(browser, server):
    email = sign_in(browser, server)
    platform = Platform(server)
    report_id = platform.create_report(platform.session(email), "Gone Gatehouse")
    browser.get(server.url + "/reports")
    row = wait_for(browser, lambda d: next((r for r in rows(d) if "Gone Gatehouse" in r.text), None), timeout=20)
    url = browser.current_url
    row.find_element(By.CLASS_NAME, "delete-button").click()
    wait_for(browser, lambda d: "Gone Gatehouse" not in d.find_element(By.ID, "report-list").text)
    assert browser.current_url == url  # no reload
    with database(server) as db:
        assert db.execute("SELECT state FROM reports WHERE platform_report_id = ?", (report_id,)).fetchone()[0] == "deleted"
