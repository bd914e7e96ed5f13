"""Triage (REV-13) in real Chromium against `har serve` (HAR_REVIEW_POLICY=all): a coordinator clears 20
waiting reports from the keyboard alone, each decision leading to the next waiting report of the filter;
the Undo; the photo viewer. Screenshots of a report's page and of triage at 390, 800 and 1366 px for
docs/REVIEW.md are written to docs/img/ on the way."""
import base64
import os
import time

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from conftest import HarServer, database, seed_report, sign_in, unique_email, wait_for
from helpers import browser, rows, shot  # noqa: F401

COORDINATOR = unique_email("triage")
WIDTHS = [(390, 844), (800, 1280), (1366, 900)]
DECISIONS = ("approve", "reject", "needs_info", "duplicate")

# A picture of a building, drawn by the browser: the viewer and the screenshots show real JPEGs.
DRAW = """
var c = document.createElement('canvas'); c.width = arguments[0]; c.height = arguments[1];
var g = c.getContext('2d'), hue = arguments[2];
g.fillStyle = 'hsl(' + hue + ', 45%, 78%)'; g.fillRect(0, 0, c.width, c.height);
g.fillStyle = '#6B8E4E'; g.fillRect(0, c.height * 0.75, c.width, c.height * 0.25);
g.fillStyle = '#9C7A5B'; g.fillRect(c.width * 0.25, c.height * 0.35, c.width * 0.5, c.height * 0.4);
g.fillStyle = '#5A3E2B'; g.beginPath(); g.moveTo(c.width * 0.2, c.height * 0.36);
g.lineTo(c.width * 0.5, c.height * 0.12); g.lineTo(c.width * 0.8, c.height * 0.36); g.fill();
g.fillStyle = '#2F2F2F'; g.fillRect(c.width * 0.45, c.height * 0.55, c.width * 0.1, c.height * 0.2);
return c.toDataURL('image/jpeg', 0.85);
"""


@pytest.fixture(scope="module")
def server():
    running = HarServer(env={"HAR_WORKER_ENABLED": "false", "HAR_REVIEW_POLICY": "all",
                             "HAR_COORDINATORS": COORDINATOR, "HAR_PLATFORM_VERIFIED": COORDINATOR}).start()
    yield running
    running.remove()


def jpeg(driver, width, height, hue):
    return base64.b64decode(driver.execute_script(DRAW, width, height, hue).split(",", 1)[1])


def seed_queue(driver, server, prefix, count, photos=2):
    """`count` waiting reports a few metres apart (each has the others nearby), oldest first, each with
    real photo files and thumbnails; returns their ids in that order."""
    volunteer = unique_email("field")
    driver.delete_all_cookies()
    sign_in(driver, server, volunteer)
    pictures = [(jpeg(driver, 1200, 900, 20 + 40 * n), jpeg(driver, 320, 240, 20 + 40 * n)) for n in range(photos)]
    start = time.time() - 3600
    for n in range(count):
        seed_report(server, volunteer, "%s %02d" % (prefix, n + 1), created=start + n, photos=photos)
    with database(server) as connection:
        connection.execute("UPDATE reports SET latitude = 51.5007 + id * 0.00005, longitude = -0.1246, "
                           "accuracy = 12, designation = 'LB', condition = 'poor', grade = 'II' "
                           "WHERE name LIKE ?", (prefix + " %",))
        connection.execute("UPDATE photos SET latitude = 51.5008, longitude = -0.1245, accuracy = 8, "
                           "captured_at = '2026-12-01T10:00:00Z' WHERE report_id IN "
                           "(SELECT id FROM reports WHERE name LIKE ?)", (prefix + " %",))
        photo_rows = connection.execute(
            "SELECT p.local_id, p.position FROM photos p JOIN reports r ON r.id = p.report_id "
            "WHERE r.name LIKE ?", (prefix + " %",)).fetchall()
    for local_id, position in photo_rows:
        original, thumb = pictures[position % len(pictures)]
        folder = os.path.join(server.data_dir, "photos")
        with open(os.path.join(folder, local_id), "wb") as out:
            out.write(original)
        with open(os.path.join(folder, local_id + ".thumb.jpg"), "wb") as out:
            out.write(thumb)
    return [r[0] for r in rows(server, "SELECT id FROM reports WHERE name LIKE ? ORDER BY submitted_at, id",
                               prefix + " %")]


def as_coordinator(driver, server):
    driver.delete_all_cookies()
    driver.set_window_size(1366, 900)
    sign_in(driver, server, COORDINATOR)


def report_on_screen(driver):
    """The id of the report page shown, or None on another page."""
    path = driver.current_url.split("?")[0]
    return int(path.rsplit("/", 1)[1]) if "/review/reports/" in path else None


def test_REV_13_triage_clears_20_reports_from_the_keyboard_alone(browser, server):
    ids = seed_queue(browser, server, "Triage Kiln", 20)
    as_coordinator(browser, server)
    browser.get(server.url + "/review/triage?q=triage+kiln&sort=oldest")
    wait_for(browser, lambda d: report_on_screen(d) == ids[0])
    presses = 0
    seen = []
    # Mostly approvals (one key), some rejections and duplicates (a key and a digit, or Enter for the
    # first choice), one question.
    plan = ["a", "a", "r1", "a", "d1", "a", "a", "r2", "a", "a", "i", "a", "d1", "a", "a", "r\n", "a", "a", "a", "a"]
    for step in plan:
        here = report_on_screen(browser)
        assert here not in seen, "a report came back after it was decided"
        seen.append(here)
        for key in step:
            browser.switch_to.active_element.send_keys(Keys.ENTER if key == "\n" else key)
            presses += 1
        if step == "i":
            message = "Which kiln?"
            assert browser.switch_to.active_element.get_attribute("id") == "ni-message"
            browser.switch_to.active_element.send_keys(message + Keys.ENTER)
            presses += len(message) + 1
        # The server moves on to the next waiting report of the filter (or says nothing waits).
        wait_for(browser, lambda d: report_on_screen(d) != here, 20)
    assert seen == ids, "the queue is taken in the filter's order, oldest first"
    wait_for(browser, lambda d: d.find_elements(By.ID, "triage-empty"))
    assert browser.find_element(By.ID, "to-dashboard").get_attribute("href").endswith(
        "/review?q=triage%20kiln&sort=oldest")
    # Every key counted, the question's typing included: at most two a decision on average.
    assert presses <= 2 * len(plan), presses
    # REV-13: each decision audited once, nothing decided twice, nothing left waiting.
    audit = rows(server, "SELECT report_id, action, actor FROM review_audit WHERE report_id IN (%s) ORDER BY id"
                 % ",".join(map(str, ids)))
    assert sorted(r[0] for r in audit) == sorted(ids)
    expected = {"a": "approve", "r": "reject", "d": "duplicate", "i": "needs_info"}
    assert [(r[0], r[1]) for r in audit] == [(i, expected[s[0]]) for i, s in zip(ids, plan)]
    assert {r[2] for r in audit} == {COORDINATOR}
    states = dict(rows(server, "SELECT id, review_state FROM reports WHERE id IN (%s)" % ",".join(map(str, ids))))
    assert "received" not in states.values()
    reasons = [rows(server, "SELECT review_reason FROM reports WHERE id = ?", ids[n])[0][0] for n in (2, 7, 15)]
    assert reasons == ["out_of_scope", "not_heritage", "out_of_scope"]


def test_REV_13_undo_takes_a_triage_decision_back(browser, server):
    ids = seed_queue(browser, server, "Undo Forge", 2, photos=1)
    as_coordinator(browser, server)
    browser.get(server.url + "/review/triage?q=undo+forge&sort=oldest")
    wait_for(browser, lambda d: report_on_screen(d) == ids[0])
    browser.switch_to.active_element.send_keys("a")
    wait_for(browser, lambda d: report_on_screen(d) == ids[1])
    assert "Approve: #%d Undo Forge 01." % ids[0] in browser.find_element(By.ID, "undo-text").text
    browser.switch_to.active_element.send_keys("u")
    wait_for(browser, lambda d: report_on_screen(d) == ids[0])
    assert browser.find_element(By.ID, "review-state").text == "Received"
    assert "triage=1" in browser.current_url
    assert [r[0] for r in rows(server, "SELECT action FROM review_audit WHERE report_id = ? ORDER BY id", ids[0])] \
        == ["approve", "undo"]
    # The keys are listed on "?"; the dialog closes on Escape; no key fires while typing.
    browser.switch_to.active_element.send_keys("?")
    wait_for(browser, lambda d: d.find_element(By.ID, "keys-dialog").get_attribute("open") is not None)
    browser.switch_to.active_element.send_keys(Keys.ESCAPE)
    wait_for(browser, lambda d: d.find_element(By.ID, "keys-dialog").get_attribute("open") is None)
    # D opens the duplicate picker; an A typed in its number field is text, not an approval.
    browser.switch_to.active_element.send_keys("d")
    assert browser.find_element(By.ID, "dup-box").get_attribute("open") is not None
    field = browser.find_element(By.ID, "dup-of")
    field.send_keys("a")
    assert field.get_attribute("value") == "a"
    field.clear()
    browser.find_element(By.ID, "dup-%d" % ids[1]).click()
    browser.find_element(By.ID, "act-duplicate").click()
    wait_for(browser, lambda d: report_on_screen(d) == ids[1])
    assert [r[0] for r in rows(server, "SELECT action FROM review_audit WHERE report_id = ? ORDER BY id", ids[0])] \
        == ["approve", "undo", "duplicate"]


def test_REV_06_photo_viewer_keys_zoom_and_focus(browser, server):
    ids = seed_queue(browser, server, "Viewer Mill", 1, photos=3)
    as_coordinator(browser, server)
    browser.get(server.url + "/review/reports/%d" % ids[0])
    first = browser.find_element(By.CSS_SELECTOR, ".photo-open[data-n='1']")
    first.click()
    viewer = browser.find_element(By.ID, "photo-viewer")
    wait_for(browser, lambda d: viewer.get_attribute("open") is not None)
    assert browser.find_element(By.ID, "viewer-counter").text == "Photo 1 of 3"
    browser.switch_to.active_element.send_keys(Keys.ARROW_RIGHT)
    assert browser.find_element(By.ID, "viewer-counter").text == "Photo 2 of 3"
    browser.switch_to.active_element.send_keys(Keys.ARROW_LEFT + Keys.ARROW_LEFT)
    assert browser.find_element(By.ID, "viewer-counter").text == "Photo 3 of 3"
    browser.switch_to.active_element.send_keys("+")
    assert browser.find_element(By.ID, "viewer-stage").get_attribute("data-zoom") == "2"
    # A key of the decision bar does nothing while the photos are open.
    browser.switch_to.active_element.send_keys("a")
    assert rows(server, "SELECT review_state FROM reports WHERE id = ?", ids[0]) == [("received",)]
    browser.switch_to.active_element.send_keys(Keys.ESCAPE)
    wait_for(browser, lambda d: viewer.get_attribute("open") is None)
    assert browser.switch_to.active_element.get_attribute("data-n") == "1", "focus back on the photo it opened"


def test_screenshots_of_a_report_and_of_triage_at_three_widths(browser, server):
    ids = seed_queue(browser, server, "Shot Chapel", 4, photos=3)
    as_coordinator(browser, server)
    for width, height in WIDTHS:
        browser.set_window_size(width, height)
        # The newest of the four: the triage below decides the three oldest, one at each width.
        browser.get(server.url + "/review/reports/%d" % ids[-1])
        wait_for(browser, lambda d: d.find_element(By.ID, "photo-map").get_attribute("data-markers") == "3", 20)
        # REV-06: the place too, a dot and its accuracy's circle, beside each photo's circle.
        assert len(browser.find_elements(By.CSS_SELECTOR, "#photo-map path")) == 3 + 2
        shot(browser, "review-report-%d.png" % width)
        browser.get(server.url + "/review/triage?q=shot+chapel&sort=oldest")
        wait_for(browser, lambda d: report_on_screen(d) is not None)
        browser.switch_to.active_element.send_keys("a")
        # The decision's round trip and the next report's page (20 s: a busy CI machine took more than 10).
        wait_for(browser, lambda d: d.find_elements(By.ID, "undo-form"), 20)
        browser.switch_to.active_element.send_keys("r")
        wait_for(browser, lambda d: d.find_element(By.ID, "reject-box").get_attribute("open") is not None)
        shot(browser, "review-triage-%d.png" % width)
    browser.set_window_size(412, 860)
