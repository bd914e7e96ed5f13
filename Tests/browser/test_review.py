"""The coordinators' review in real Chromium against `har serve` (worker on, HAR_REVIEW_POLICY=all, the embedded local
platform): a volunteer files two reports with the fake camera; they wait; a coordinator finds one by the
dashboard's filter and approves it, rejects the other; the platform ends up with exactly the approved
one. Screenshots for docs/REVIEW.md are written to docs/img/ on the way."""
import os

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from conftest import HarServer, sign_in, unique_email, wait_for
from helpers import browser, capture, fetch_text, fill, open_creation, rows, shot  # noqa: F401

COORDINATOR = unique_email("coordinator")


@pytest.fixture(scope="module")
def server():
    running = HarServer(env={"HAR_WORKER_ENABLED": "true", "HAR_REVIEW_POLICY": "all",
                             "HAR_COORDINATORS": COORDINATOR, "HAR_PLATFORM_VERIFIED": COORDINATOR}).start()
    yield running
    running.remove()


def file_report(driver, server, name):
    open_creation(driver, server)
    capture(driver)
    driver.find_element(By.ID, "continue").click()
    wait_for(driver, lambda d: d.current_url.endswith("/reports/new/submit"))
    fill(driver, name)
    driver.find_element(By.ID, "submit").click()
    wait_for(driver, lambda d: d.current_url.endswith("/reports"))


def test_REV_02_03_05_volunteer_files_coordinator_filters_approves_one_rejects_one(browser, server):
    file_report(browser, server, "Chapel of St Anne")
    file_report(browser, server, "Garage on Mill Lane")
    # Waiting for review: the worker (on) leaves both alone.
    assert sorted(r[0] for r in rows(server, "SELECT state FROM reports WHERE state != 'draft'")) == \
        ["queued", "queued"]

    browser.delete_all_cookies()
    browser.set_window_size(1280, 900)
    sign_in(browser, server, COORDINATOR)
    browser.get(server.url + "/review")
    assert "Chapel of St Anne" in browser.find_element(By.ID, "review-table").text
    shot(browser, "review-dashboard.png")
    # The filter lands in the address: a view to bookmark.
    browser.find_element(By.ID, "f-q").send_keys("chapel")
    Select(browser.find_element(By.ID, "f-review")).select_by_value("received")
    browser.find_element(By.CSS_SELECTOR, ".review-filter-actions button").click()
    wait_for(browser, lambda d: "q=chapel" in d.current_url and "review=received" in d.current_url)
    table = browser.find_element(By.ID, "review-table").text
    assert "Chapel of St Anne" in table and "Garage on Mill Lane" not in table
    browser.find_element(By.LINK_TEXT, "Chapel of St Anne").click()
    wait_for(browser, lambda d: "/review/reports/" in d.current_url)
    # REV-06: the map of its photos, one marker where the photo was taken.
    wait_for(browser, lambda d: d.find_element(By.ID, "photo-map").get_attribute("data-markers") == "1", 20)
    shot(browser, "review-report.png")
    browser.find_element(By.ID, "act-approve").click()
    wait_for(browser, lambda d: d.find_element(By.ID, "review-state").text == "Approved")

    browser.get(server.url + "/review?q=garage")
    browser.find_element(By.LINK_TEXT, "Garage on Mill Lane").click()
    wait_for(browser, lambda d: "/review/reports/" in d.current_url)
    # The reason picker opens from the decision bar's Reject.
    browser.find_element(By.ID, "reject-toggle").click()
    browser.find_element(By.ID, "rj-reason-not_heritage").click()
    browser.find_element(By.ID, "rj-message").send_keys("A modern garage")
    browser.find_element(By.ID, "act-reject").click()
    # The approved report's upload (the worker is on) shares the two cores with this answer: room for it.
    wait_for(browser, lambda d: d.find_element(By.ID, "review-state").text == "Rejected", 30)
    assert "A modern garage" in browser.find_element(By.ID, "review-history").text

    # The platform receives exactly the approved one; the rejected one stays here, queued, unsent.
    wait_for(browser, lambda d: rows(server, "SELECT state FROM reports WHERE name = 'Chapel of St Anne'")[0][0]
             == "stored", 60)
    assert [r[0] for r in rows(server, "SELECT place_name FROM report WHERE deleted_time IS NULL",
                               platform=True)] == ["Chapel of St Anne"]
    assert rows(server, "SELECT state FROM reports WHERE name = 'Garage on Mill Lane'")[0][0] == "queued"

    browser.get(server.url + "/review/audit")
    audit = browser.find_element(By.ID, "audit-table").text
    assert "Approve" in audit and "Reject" in audit
    shot(browser, "review-audit.png")
    browser.set_window_size(412, 860)


def test_REV_05_map_clusters_the_filtered_reports_and_keys_move_and_decide(browser, server):
    from conftest import seed_report, database
    email = unique_email("mapped")
    browser.delete_all_cookies()
    sign_in(browser, server, email)
    for n in range(30):
        seed_report(server, email, "Mapped Cross %d" % n)
    with database(server) as connection:
        connection.execute("UPDATE reports SET latitude = 48.85 + id * 0.0001, longitude = 2.35 "
                           "WHERE name LIKE 'Mapped Cross %'")
    browser.delete_all_cookies()
    browser.set_window_size(1280, 900)
    sign_in(browser, server, COORDINATOR)
    browser.get(server.url + "/review?q=mapped+cross")
    wait_for(browser, lambda d: d.execute_script("return !!(window.HARReview && HARReview.loaded)"), 20)
    assert browser.find_element(By.ID, "review-map").get_attribute("data-markers") == "30"
    # Thirty markers a few metres apart: one cluster, not thirty pins.
    wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#review-map .marker-cluster"))
    assert len(browser.find_elements(By.CSS_SELECTOR, "#review-map .leaflet-marker-icon:not(.marker-cluster)")) < 30
    shot(browser, "review-map.png")
    # J moves to the first row, Enter opens it; on the report, A approves; J goes to the next of the view.
    body = browser.find_element(By.TAG_NAME, "body")
    body.send_keys("j")
    first = browser.switch_to.active_element.text
    assert first.startswith("Mapped Cross")
    browser.switch_to.active_element.send_keys("\n")
    wait_for(browser, lambda d: "/review/reports/" in d.current_url and "q=mapped" in d.current_url)
    browser.find_element(By.TAG_NAME, "body").send_keys("a")
    wait_for(browser, lambda d: d.find_element(By.ID, "review-state").text == "Approved")
    here = browser.current_url.split("?")[0]
    browser.find_element(By.TAG_NAME, "body").send_keys("j")
    wait_for(browser, lambda d: d.current_url.split("?")[0] != here)
    assert browser.find_element(By.TAG_NAME, "h1").text.startswith("Mapped Cross")
    browser.set_window_size(412, 860)


def test_REV_04_needs_info_round_trip(browser, server):
    from conftest import seed_report
    volunteer = unique_email("asked")
    browser.delete_all_cookies()
    sign_in(browser, server, volunteer)
    seed_report(server, volunteer, "Chapl by the river")
    report_id = rows(server, "SELECT id FROM reports WHERE name = 'Chapl by the river'")[0][0]
    volunteer_cookies = browser.get_cookies()
    browser.delete_all_cookies()
    sign_in(browser, server, COORDINATOR)
    browser.get(server.url + "/review/reports/%d" % report_id)
    browser.find_element(By.ID, "info-toggle").click()
    browser.find_element(By.ID, "ni-message").send_keys("Which chapel is it? Please check the name.")
    browser.find_element(By.ID, "act-needs-info").click()
    wait_for(browser, lambda d: d.find_element(By.ID, "review-state").text == "Needs information")
    # The reporter reads it in their list, answers, corrects the name, sends it back.
    browser.delete_all_cookies()
    browser.get(server.url + "/healthz")
    for cookie in volunteer_cookies:
        browser.add_cookie({key: cookie[key] for key in ("name", "value", "path") if key in cookie})
    browser.get(server.url + "/reports")
    notice = browser.find_element(By.CSS_SELECTOR, ".review-notice-list").text
    assert "Which chapel is it?" in notice
    browser.find_element(By.CSS_SELECTOR, ".review-notice-list a").click()
    wait_for(browser, lambda d: d.current_url.endswith("/reply"))
    name = browser.find_element(By.ID, "r-name")
    name.clear()
    name.send_keys("Chapel by the river")
    browser.find_element(By.ID, "r-note").send_keys("St Anne's, by the bridge")
    browser.find_element(By.ID, "reply-send").click()
    wait_for(browser, lambda d: d.current_url.endswith("/reports"))
    assert rows(server, "SELECT review_state, name FROM reports WHERE id = ?", report_id)[0] == \
        ("received", "Chapel by the river")
    # The coordinator sees the reply counted and in the history.
    browser.delete_all_cookies()
    sign_in(browser, server, COORDINATOR)
    browser.get(server.url + "/review/reports/%d" % report_id)
    assert "St Anne's, by the bridge" in browser.find_element(By.ID, "review-history").text


def test_REV_04_reply_adds_a_photo_the_coordinator_sees(browser, server):
    from conftest import seed_report
    import base64
    import tempfile
    volunteer = unique_email("photo")
    browser.delete_all_cookies()
    sign_in(browser, server, volunteer)
    local_id = seed_report(server, volunteer, "Lychgate at Sutton")
    report_id = rows(server, "SELECT id FROM reports WHERE local_id = ?", local_id)[0][0]
    volunteer_cookies = browser.get_cookies()
    browser.delete_all_cookies()
    sign_in(browser, server, COORDINATOR)
    browser.get(server.url + "/review/reports/%d" % report_id)
    browser.find_element(By.ID, "info-toggle").click()
    browser.find_element(By.ID, "ni-message").send_keys("Could you add a photo of the roof?")
    browser.find_element(By.ID, "act-needs-info").click()
    wait_for(browser, lambda d: d.find_element(By.ID, "review-state").text == "Needs information")
    # The reporter adds a photo to the answer (picked from the device) and sends it back.
    browser.delete_all_cookies()
    browser.get(server.url + "/healthz")
    for cookie in volunteer_cookies:
        browser.add_cookie({key: cookie[key] for key in ("name", "value", "path") if key in cookie})
    browser.get(server.url + "/reports/%s/reply" % local_id)
    assert "add a photo of the roof" in browser.find_element(By.ID, "reply-message").text
    wait_for(browser, lambda d: d.find_element(By.ID, "reply-picker").is_displayed())
    data_url = browser.execute_script(
        "var c = document.createElement('canvas'); c.width = 60; c.height = 40; "
        "c.getContext('2d').fillRect(0, 0, 30, 20); return c.toDataURL('image/jpeg', 0.9);")
    folder = tempfile.mkdtemp()
    path = os.path.join(folder, "roof.jpg")
    with open(path, "wb") as out:
        out.write(base64.b64decode(data_url.split(",", 1)[1]))
    browser.find_element(By.ID, "reply-file").send_keys(path)
    wait_for(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#reply-photos li")) == 1, 15)
    os.remove(path)
    os.rmdir(folder)
    browser.execute_script("document.getElementById('reply-photos-title').scrollIntoView({block: 'start'})")
    shot(browser, "review-reply.png")
    browser.find_element(By.ID, "r-note").send_keys("The roof, from the lane")
    browser.find_element(By.ID, "reply-send").click()
    wait_for(browser, lambda d: d.current_url.endswith("/reports"))
    added = rows(server, "SELECT local_id, state FROM photos WHERE report_id = ? ORDER BY position DESC",
                 report_id)[0]
    assert added[1] == "pending"
    # Waiting for review (policy all): nothing of it on the platform.
    assert rows(server, "SELECT state FROM reports WHERE id = ?", report_id)[0][0] == "queued"
    assert not rows(server, "SELECT id FROM report WHERE place_name = 'Lychgate at Sutton'", platform=True)
    # The coordinator sees the added photo on the report's page, and who added it in the history.
    browser.delete_all_cookies()
    sign_in(browser, server, COORDINATOR)
    browser.get(server.url + "/review/reports/%d" % report_id)
    assert browser.find_elements(By.CSS_SELECTOR, "img[src*='/review/photos/%s']" % added[0])
    history = browser.find_element(By.ID, "review-history").text
    assert "Reporter added a photo" in history and "The roof, from the lane" in history


def test_REV_07_bulk_on_500_with_per_report_results(browser, server):
    from conftest import seed_report
    volunteer = unique_email("many")
    browser.delete_all_cookies()
    sign_in(browser, server, volunteer)
    for n in range(500):
        seed_report(server, volunteer, "Milestone %d" % n)
    browser.delete_all_cookies()
    browser.set_window_size(1280, 900)
    sign_in(browser, server, COORDINATOR)
    browser.get(server.url + "/review?q=milestone")
    assert "500 reports match" in browser.find_element(By.ID, "review-total").text
    # The bulk bar, where "all matching" lives, shows once a row is ticked.
    assert not browser.find_element(By.ID, "bulk-form").is_displayed()
    browser.find_element(By.CSS_SELECTOR, "#review-table .review-select").click()
    wait_for(browser, lambda d: d.find_element(By.ID, "bulk-form").is_displayed())
    Select(browser.find_element(By.ID, "b-action")).select_by_value("approve")
    button = browser.find_element(By.CSS_SELECTOR, "button[name=scope][value=all]")
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)
    button.click()
    wait_for(browser, lambda d: d.find_elements(By.ID, "bulk-question"))
    assert "500 reports" in browser.find_element(By.ID, "bulk-question").text
    browser.find_element(By.ID, "bulk-confirm").click()
    wait_for(browser, lambda d: d.find_elements(By.ID, "bulk-results"), 30)
    assert "500 done, 0 skipped" in browser.find_element(By.ID, "bulk-summary").text
    assert len(browser.find_elements(By.CSS_SELECTOR, "#bulk-results tr.bulk-done")) == 500
    shot(browser, "review-bulk.png")
    assert rows(server, "SELECT count(*) FROM reports WHERE name LIKE 'Milestone %' AND review_state = 'approved'") \
        == [(500,)]
    browser.set_window_size(412, 860)


def test_REV_09_exports_of_the_filter_parsed_back_and_compared(browser, server):
    import csv
    import io
    import json
    from conftest import seed_report, database
    volunteer = unique_email("exported")
    browser.delete_all_cookies()
    sign_in(browser, server, volunteer)
    names = ["Export Cross %d" % n for n in range(3)] + ["=Export Cross HYPERLINK"]
    for name in names:
        seed_report(server, volunteer, name, photos=1)
    with database(server) as connection:
        connection.execute("UPDATE reports SET latitude = 50.1 + id * 0.001, longitude = -4.2 "
                           "WHERE name LIKE '%Export Cross%'")
    expected = {row[0]: row[1:] for row in rows(
        server, "SELECT id, name, latitude, longitude, review_state, state FROM reports "
                "WHERE name LIKE '%Export Cross%'")}
    browser.delete_all_cookies()
    sign_in(browser, server, COORDINATOR)
    browser.get(server.url + "/review?q=export+cross")
    # CSV: a byte-order mark, a header, one row per report of the filter, the formula cell neutralised.
    text = fetch_text(browser, "/review/export.csv?q=export+cross")
    assert text.startswith("\ufeff")
    table = list(csv.DictReader(io.StringIO(text[1:], newline="")))
    assert sorted(int(r["id"]) for r in table) == sorted(expected)
    for r in table:
        name, latitude, longitude, review_state, state = expected[int(r["id"])]
        assert r["name"] == ("'" + name if name.startswith("=") else name)
        assert abs(float(r["latitude"]) - latitude) < 1e-6 and abs(float(r["longitude"]) - longitude) < 1e-6
        assert (r["review_state"], r["delivery_state"], r["photo_count"]) == (review_state, state, "1")
    # GeoJSON: a FeatureCollection, [longitude, latitude] points, the same reports.
    collection = json.loads(fetch_text(browser, "/review/export.geojson?q=export+cross"))
    assert collection["type"] == "FeatureCollection"
    assert sorted(f["properties"]["id"] for f in collection["features"]) == sorted(expected)
    for feature in collection["features"]:
        name, latitude, longitude, _, _ = expected[feature["properties"]["id"]]
        assert feature["geometry"]["type"] == "Point"
        at = feature["geometry"]["coordinates"]
        assert abs(at[0] - longitude) < 1e-9 and abs(at[1] - latitude) < 1e-9
        assert feature["properties"]["name"] == name
    # Both exports are in the audit log.
    browser.get(server.url + "/review/audit")
    audit = browser.find_element(By.ID, "audit-table").text
    assert "CSV export" in audit and "GeoJSON export" in audit
