"""The coordinator's queue in real Chromium against `har serve` (HAR_REVIEW_POLICY=all, the worker off so
that what waits stays waiting): the first screen shows the table (REV-05), codes read as labels in the
page's language on the dashboard, a report's page and the CSV's human columns, and the screenshots of
the dashboard for docs/REVIEW.md."""
import csv
import io
import json
import os
import re
import time

import pytest
from selenium.webdriver.common.by import By

from conftest import HarServer, database, seed_report, sign_in, unique_email, wait_for
from helpers import fetch_text, shot

COORDINATOR = unique_email("queue-coordinator")
ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
CODES = {"designation": "LB", "condition": "bad", "occupancy": "part_occupied", "priority_category": "C",
         "owner_type": "private", "grade": "II*"}
GROUPS = {"designation": "designation", "condition": "condition", "occupancy": "occupancy",
          "priority_category": "priorityCategory", "owner_type": "ownerType", "grade": "grade"}


def catalogue(lang):
    with open(os.path.join(ROOT, "Templates", "messages", "%s.json" % lang), encoding="utf-8") as f:
        return json.load(f)


@pytest.fixture(scope="module")
def server():
    running = HarServer(env={"HAR_REVIEW_POLICY": "all", "HAR_COORDINATORS": COORDINATOR,
                             "HAR_PLATFORM_VERIFIED": COORDINATOR}).start()
    yield running
    running.remove()


@pytest.fixture(scope="module")
def waiting(driver, server):
    """Fifty reports waiting for approval, each with a photo, a place and the six codes; the oldest first
    by `submitted_at`. Returns their ids, oldest first."""
    driver.get(server.url + "/healthz")
    driver.delete_all_cookies()
    volunteer = sign_in(driver, server, unique_email("queued"))
    for n in range(50):
        seed_report(server, volunteer, "Queue Chapel %02d" % n, created=1_790_000_000 + n * 60, photos=1)
    with database(server) as connection:
        connection.execute(
            "UPDATE reports SET latitude = 51.5 + id * 0.001, longitude = -0.12, designation = ?, condition = ?, "
            "occupancy = ?, priority_category = ?, owner_type = ?, grade = ? WHERE name LIKE 'Queue Chapel %'",
            tuple(CODES[k] for k in ("designation", "condition", "occupancy", "priority_category", "owner_type",
                                     "grade")))
        ids = [row[0] for row in connection.execute(
            "SELECT id FROM reports WHERE name LIKE 'Queue Chapel %' ORDER BY submitted_at, id")]
    driver.delete_all_cookies()
    return ids


def as_coordinator(driver, server, lang="en"):
    driver.get(server.url + "/healthz")
    driver.delete_all_cookies()
    sign_in(driver, server, COORDINATOR)
    driver.add_cookie({"name": "har_lang", "value": lang, "path": "/"})


def rows_above_the_fold(driver):
    return driver.execute_script(
        "var fold = window.innerHeight;"
        "return Array.prototype.filter.call(document.querySelectorAll('#review-table tr.review-row'),"
        " function (row) { var box = row.getBoundingClientRect(); return box.height > 0 && box.bottom <= fold; }).length;")


@pytest.mark.parametrize("width,height", [(1366, 900), (800, 1280)])
def test_REV_05_five_waiting_reports_above_the_fold(browser, server, waiting, width, height):
    as_coordinator(browser, server)
    browser.set_window_size(width, height)
    try:
        browser.get(server.url + "/review")
        assert browser.find_element(By.ID, "tab-waiting").text.endswith("50")
        # The bulk bar waits for a ticked row: it takes none of the first screen.
        assert not browser.find_element(By.ID, "bulk-form").is_displayed()
        shown = rows_above_the_fold(browser)
        assert shown >= 5, "%d report rows above the fold at %dx%d" % (shown, width, height)
        # The tab leads to its filter, in the queue's order; "Review the oldest waiting" to its first report.
        browser.find_element(By.ID, "tab-waiting").click()
        wait_for(browser, lambda d: "need=waiting" in d.current_url)
        assert browser.find_element(By.ID, "tab-waiting").get_attribute("aria-current") == "page"
        assert rows_above_the_fold(browser) >= 5
        first = browser.find_element(By.CSS_SELECTOR, "#review-table tr.review-row").get_attribute("data-id")
        assert int(first) == waiting[0]
        # It goes through /review/triage, which passes over a report another coordinator has claimed.
        oldest = browser.find_element(By.ID, "review-oldest").get_attribute("href")
        assert oldest.startswith(server.url + "/review/triage?") and "need=waiting" in oldest
        browser.get(oldest)
        wait_for(browser, lambda d: "/review/reports/%d?" % waiting[0] in d.current_url)
        assert "triage=1" in browser.current_url and "need=waiting" in browser.current_url
        browser.back()
    finally:
        browser.set_window_size(412, 860)


def test_REV_05_bulk_bar_shows_when_ticked_and_more_filters_open_when_set(browser, server, waiting):
    as_coordinator(browser, server)
    browser.set_window_size(1366, 900)
    try:
        browser.get(server.url + "/review")
        assert browser.find_element(By.ID, "review-more").get_attribute("open") is None
        assert not browser.find_elements(By.ID, "f-bounds") or \
            browser.find_element(By.ID, "f-bounds").get_attribute("type") == "hidden"
        bar = browser.find_element(By.ID, "bulk-form")
        boxes = browser.find_elements(By.CSS_SELECTOR, "#review-table .review-select")
        boxes[0].click()
        boxes[1].click()
        wait_for(browser, lambda d: bar.is_displayed())
        assert browser.find_element(By.ID, "bulk-count").text == "2 ticked"
        # Sticky at the bottom of the screen, whatever the scroll.
        bottom = browser.execute_script("return arguments[0].getBoundingClientRect().bottom;", bar)
        assert abs(bottom - browser.execute_script("return window.innerHeight;")) <= 1
        assert browser.find_element(By.CSS_SELECTOR, "#bulk-form button[name=scope][value=all]").is_displayed()
        boxes[0].click()
        boxes[1].click()
        wait_for(browser, lambda d: not bar.is_displayed())
        # The page's box ticks all fifty rows at once.
        browser.find_element(By.ID, "select-page").click()
        wait_for(browser, lambda d: d.find_element(By.ID, "bulk-count").text == "50 ticked")
        # A link with a filter behind "More filters" shows it open; the map's bounds are no text field.
        browser.get(server.url + "/review?reporter=queued&bounds=51,-1,52,1")
        assert browser.find_element(By.ID, "review-more").get_attribute("open") is not None
        assert browser.find_element(By.ID, "f-bounds").get_attribute("type") == "hidden"
        assert browser.find_element(By.ID, "f-bounds").get_attribute("value") == "51,-1,52,1"
        clear = browser.find_element(By.ID, "clear-bounds").get_attribute("href")
        assert "bounds" not in clear and "reporter=queued" in clear
    finally:
        browser.set_window_size(412, 860)


def test_REV_05_bulk_form_works_without_javascript(server, waiting):
    """No script: the bulk form is in the page (below the table) and a tick plus its button asks to confirm."""
    import re
    from conftest import HttpClient
    client = HttpClient(server.url)
    token = client.csrf()
    status, _, _ = client.request("POST", "/signin", {"_csrf": token, "email": COORDINATOR,
                                                      "password": "correct horse"})
    assert status in (302, 303), status
    status, _, page = client.request("GET", "/review?need=waiting&sort=oldest")
    assert status == 200
    # Without a script, times stay the exact UTC text, their ISO 8601 instant in `datetime`.
    assert re.search(r'<time class="review-time" datetime="\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ">'
                     r'\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC</time>', page)
    form = re.search(r'<form id="bulk-form"[^>]*>', page).group(0)
    assert " hidden" not in form
    csrf = re.search(r'name="_csrf" value="([0-9a-f]+)"', page).group(1)
    status, _, answer = client.request("POST", "/review/bulk", {
        "_csrf": csrf, "action": "approve", "scope": "selected", "ids": str(waiting[-1]),
        "need": "waiting", "sort": "oldest"})
    assert status == 200 and 'id="bulk-question"' in answer


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_REV_05_codes_read_as_labels_on_dashboard_report_and_csv(browser, server, waiting, lang):
    """No internal code where the catalogue has a label: the dashboard's codes and states, the report
    page's details and states, the CSV's human columns (its machine columns keep the codes)."""
    words = catalogue(lang)
    codes = words["submit"]["codes"]
    label = {field: codes[GROUPS[field]][code] for field, code in CODES.items()}
    states, deliveries = words["review"]["state"], words["review"]["delivery"]
    as_coordinator(browser, server, lang)
    browser.set_window_size(1366, 900)
    try:
        browser.get(server.url + "/review?q=queue+chapel")
        assert browser.find_element(By.TAG_NAME, "html").get_attribute("lang") == lang
        row = browser.find_element(By.CSS_SELECTOR, "#review-table tr.review-row")
        summary = row.find_element(By.CSS_SELECTOR, ".review-codes").text
        assert summary == " · ".join([label["designation"], label["condition"], label["grade"]])
        assert row.find_element(By.CSS_SELECTOR, ".review-state").text == states["received"]
        assert row.find_element(By.CSS_SELECTOR, ".delivery-state").text == deliveries["queued"]
        # Codes that are no word of any label here ("bad" is one of "Very bad").
        for code in ("LB", "received", "queued", "volunteer"):
            assert code not in row.text.split(), "%s shown as a code on the dashboard" % code
        # Times: <time datetime> in ISO 8601, its text made local by the script, the exact time in the title.
        time = row.find_element(By.CSS_SELECTOR, "time.review-time")
        assert time.get_attribute("datetime").endswith("Z")
        wait_for(browser, lambda d: time.get_attribute("title"))
        assert time.get_attribute("data-utc") in time.get_attribute("title")
        assert time.get_attribute("data-utc").endswith(" UTC") and "UTC" not in time.text, "made local"

        browser.get(server.url + "/review/reports/%d" % waiting[0])
        details = dict(zip([e.text for e in browser.find_elements(By.CSS_SELECTOR, ".review-fields dt")],
                           [e.text for e in browser.find_elements(By.CSS_SELECTOR, ".review-fields dd")]))
        fields = words["submit"]["fields"]
        for field in CODES:
            assert details[fields[GROUPS[field]]] == label[field], field
        assert details[words["review"]["table"]["origin"]] == words["review"]["origin"]["volunteer"]
        assert browser.find_element(By.ID, "review-state").text == states["received"]
        assert browser.find_element(By.ID, "delivery-state").text == deliveries["queued"]

        table = list(csv.DictReader(io.StringIO(fetch_text(browser, "/review/export.csv?q=queue+chapel")[1:],
                                                newline="")))
        assert len(table) == 50
        for line in table:
            for field, code in CODES.items():
                assert line[field] == code and line[field + "_label"] == label[field], field
            assert line["review_state"] == "received" and line["review_state_label"] == states["received"]
            assert line["delivery_state"] == "queued" and line["delivery_state_label"] == deliveries["queued"]
            assert line["origin_label"] == words["review"]["origin"]["volunteer"]
            # The server knows no reader's zone: the human time is UTC, said so, the same instant as the ISO one.
            assert line["submitted_at_utc"] == line["submitted_at"].replace("T", " ").replace("Z", " UTC")
            assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC", line["submitted_at_utc"])
    finally:
        browser.set_window_size(412, 860)


def test_dashboard_screenshots_at_three_widths(browser, server, waiting):
    as_coordinator(browser, server)
    try:
        for width, height in [(390, 844), (800, 1280), (1366, 900)]:
            browser.set_window_size(width, height)
            browser.get(server.url + "/review?need=waiting&sort=oldest")
            if width >= 1200:
                wait_for(browser, lambda d: d.find_element(By.ID, "review-map").get_attribute("data-markers") == "50",
                         20)
            shot(browser, "review-queue-%d.png" % width)
    finally:
        browser.set_window_size(412, 860)


def test_REV_05_map_beside_the_table_from_1200_px_and_behind_a_toggle_below(browser, server, waiting):
    as_coordinator(browser, server)
    try:
        browser.set_window_size(1366, 900)
        browser.get(server.url + "/review")
        section = browser.find_element(By.ID, "review-map-section")
        assert section.get_attribute("open") is not None
        table = browser.find_element(By.CSS_SELECTOR, ".review-table-wrap").rect
        drawn = browser.find_element(By.ID, "review-map").rect
        assert drawn["x"] >= table["x"] + table["width"], "the map is beside the table"
        browser.set_window_size(800, 1280)
        browser.get(server.url + "/review")
        section = browser.find_element(By.ID, "review-map-section")
        assert section.get_attribute("open") is None and not browser.find_element(By.ID, "review-map").is_displayed()
        browser.find_element(By.CSS_SELECTOR, "#review-map-section summary").click()
        wait_for(browser, lambda d: d.find_element(By.ID, "review-map").get_attribute("data-markers") == "50", 20)
        assert browser.find_element(By.ID, "review-map").size["height"] > 200
        assert browser.find_element(By.ID, "map-bounds").is_displayed()
    finally:
        browser.set_window_size(412, 860)


@pytest.mark.parametrize("width,height", [(1280, 800), (1366, 900)])
def test_REV_05_table_beside_the_map_never_scrolls_sideways(browser, server, waiting, width, height):
    """With the map beside it (from 1200 px), every column of the table is in view, the last one ("Being
    reviewed by", here a long e-mail) included: its wrapper has nothing to scroll sideways."""
    claimer = "a.coordinator.with.a.long.name.%s@example.org" % os.urandom(4).hex()
    with database(server) as connection:
        connection.execute("UPDATE reports SET claimed_by = ?, claimed_until = ? WHERE id = ?",
                           (claimer, time.time() + 3600, waiting[25]))
    as_coordinator(browser, server)
    browser.set_window_size(width, height)
    try:
        browser.get(server.url + "/review?need=waiting&sort=oldest")
        wait_for(browser, lambda d: d.find_element(By.ID, "review-map").get_attribute("data-markers") == "50", 20)
        # The script has made the times local (their widest text) before anything is measured.
        wait_for(browser, lambda d: d.find_element(By.CSS_SELECTOR, "#review-table time.review-time[title]"))
        assert claimer in browser.find_element(By.ID, "review-table").text
        table = browser.find_element(By.CSS_SELECTOR, ".review-table-wrap")
        drawn = browser.find_element(By.ID, "review-map").rect
        assert drawn["x"] >= table.rect["x"] + table.rect["width"], "the map is beside the table"
        scroll, client = browser.execute_script("return [arguments[0].scrollWidth, arguments[0].clientWidth];", table)
        assert scroll <= client, "the table scrolls sideways at %dx%d: %d > %d" % (width, height, scroll, client)
        page = browser.execute_script("return [document.documentElement.scrollWidth, "
                                      "document.documentElement.clientWidth];")
        assert page[0] <= page[1], "the page scrolls sideways at %dx%d" % (width, height)
    finally:
        with database(server) as connection:
            connection.execute("UPDATE reports SET claimed_by = NULL, claimed_until = NULL WHERE id = ?",
                               (waiting[25],))
        browser.set_window_size(412, 860)
