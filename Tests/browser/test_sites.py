"""Sites of the register in real Chromium against `har serve` (SITE-02, SITE-04, SITE-05, SITE-06): the
volunteer's choice of site on the submission page online (the register's sites nearest the photos, a pick
fills the form) and offline (the sites kept on the device around where it was last online, offered by
the app shell's submission page); a coordinator attaches a report to a site on its page; the site's page
and the register, axe-clean in English and French, with screenshots at 390, 800 and 1366 px for
docs/SITES.md."""
import os
import sqlite3
import time

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from conftest import HarServer, sign_in, unique_email, wait_for
from test_axe import assert_no_violations
from test_create import LONDON, capture, open_creation
from test_offline import (capture_offline, go_offline, restart, visit_online, worker_ready)  # noqa: F401

COORDINATOR = unique_email("coordinator")
SHOTS = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "img")
# Two sites of the register a few metres from LONDON, one far away.
SITES = [("1066001", "St Margaret's Church", "LPW", "I", 51.50075, -0.12455),
         ("1066002", "Jewel Tower", "SM", "I", 51.49835, -0.12563),
         ("1099999", "Hadrian's Wall", "SM", None, 55.0, -2.3)]


@pytest.fixture(scope="module")
def server():
    running = HarServer(env={"HAR_COORDINATORS": COORDINATOR, "HAR_PLATFORM_VERIFIED": COORDINATOR,
                             "HAR_WORKER_ENABLED": "true"}).start()
    seed_sites(running)
    yield running
    running.remove()


def rows(server, sql, *args):
    connection = sqlite3.connect(os.path.join(server.data_dir, "har.sqlite"), timeout=10)
    try:
        result = connection.execute(sql, args).fetchall()
        connection.commit()
        return result
    finally:
        connection.close()


def seed_sites(server):
    now = time.time()
    for reference, name, designation, grade, lat, lon in SITES:
        rows(server, "INSERT INTO sites (reference, name, designation, grade, lat, lon, source, created_at, updated_at) "
                     "VALUES (?, ?, ?, ?, ?, ?, 'import', ?, ?)", reference, name, designation, grade, lat, lon, now, now)


def site_id(server, reference):
    return rows(server, "SELECT id FROM sites WHERE reference = ?", reference)[0][0]


def fill_rest(driver):
    for field, value in [("condition", "poor"), ("occupancy", "vacant"), ("priority-category", "B"),
                         ("owner-type", "private")]:
        Select(driver.find_element(By.ID, "field-" + field)).select_by_value(value)


def test_SITE_02_volunteer_picks_the_nearest_site_online(driver, server):
    driver.get(server.url + "/healthz")
    driver.delete_all_cookies()
    sign_in(driver, server)
    open_creation(driver, server, LONDON)
    capture(driver)
    driver.find_element(By.ID, "continue").click()
    wait_for(driver, lambda d: d.current_url.endswith("/reports/new/submit"))
    options = driver.find_elements(By.CSS_SELECTOR, "#site-choice .site-option")
    texts = [o.text for o in options]
    assert texts[0].startswith("St Margaret's Church") and "Listed place of worship" in texts[0], texts
    assert texts[1].startswith("Jewel Tower") and texts[-1] == "Not in the list", texts
    assert not any("Hadrian" in t for t in texts)
    for option in options:
        assert option.size["height"] >= 48
    driver.find_element(By.ID, "site-option-%d" % site_id(server, "1066002")).click()
    assert driver.find_element(By.ID, "field-name").get_attribute("value") == "Jewel Tower"
    assert Select(driver.find_element(By.ID, "field-designation")).first_selected_option.get_attribute("value") == "SM"
    assert Select(driver.find_element(By.ID, "field-grade")).first_selected_option.get_attribute("value") == "I"
    # Still editable: the volunteer's words win.
    name = driver.find_element(By.ID, "field-name")
    name.clear()
    name.send_keys("Jewel Tower, west door")
    fill_rest(driver)
    driver.find_element(By.ID, "submit").click()
    wait_for(driver, lambda d: d.current_url.endswith("/reports"))
    assert rows(server, "SELECT name, site_id FROM reports WHERE name LIKE 'Jewel Tower%'") == \
        [("Jewel Tower, west door", site_id(server, "1066002"))]


def kept_sites(driver):
    driver.set_script_timeout(30)
    return driver.execute_async_script("""
        var done = arguments[arguments.length - 1];
        var request = indexedDB.open('har-sites');
        request.onsuccess = function () {
          var db = request.result;
          if (!db.objectStoreNames.contains('places')) { done(null); return; }
          var get = db.transaction('places').objectStore('places').get('around');
          get.onsuccess = function () { done(get.result ? get.result.sites.map(function (s) { return s.name; }) : null); };
        };
        request.onerror = function () { done(null); };
    """)


def test_SITE_02_offline_the_kept_sites_are_offered(driver):
    server = HarServer(env={"HAR_WORKER_ENABLED": "true"}).start()
    try:
        seed_sites(server)
        driver.get(server.url + "/healthz")
        driver.delete_all_cookies()
        visit_online(driver, server)
        # Online at LONDON: the sites around are kept on the device.
        wait_for(driver, lambda d: (kept_sites(d) or [None])[0] == "St Margaret's Church", 30)
        assert "Hadrian's Wall" not in kept_sites(driver)
        server.stop()
        driver.get(server.url + "/reports/new")
        assert driver.find_element(By.ID, "main").get_attribute("data-mode") == "new"
        capture_offline(driver, 1)
        driver.find_element(By.ID, "continue").click()
        wait_for(driver, lambda d: d.current_url.endswith("/reports/new/submit"))
        wait_for(driver, lambda d: d.find_element(By.ID, "site-choice").is_displayed())
        texts = [o.text for o in driver.find_elements(By.CSS_SELECTOR, "#site-choice .site-option")]
        assert texts[0].startswith("St Margaret's Church") and texts[-1] == "Not in the list", texts
        driver.find_element(By.CSS_SELECTOR, "#site-choice input[value='%d']" % site_id(server, "1066001")).click()
        assert driver.find_element(By.ID, "field-name").get_attribute("value") == "St Margaret's Church"
        fill_rest(driver)
        driver.find_element(By.ID, "submit").click()
        wait_for(driver, lambda d: d.current_url.endswith("/reports"))
        server = restart(server)
        wait_for(driver, lambda d: rows(server, "SELECT site_id FROM reports WHERE name = ? AND state != 'draft'",
                                        "St Margaret's Church") == [(site_id(server, "1066001"),)], 90)
    finally:
        server.remove()


def shot(driver, name):
    os.makedirs(SHOTS, exist_ok=True)
    driver.save_screenshot(os.path.join(SHOTS, name))


def file_report(driver, server, name, site=None, photos=1):
    """A report through the pages (the fake camera at LONDON), of the register's site `site` or none."""
    open_creation(driver, server, LONDON)
    for _ in range(photos):
        capture(driver)
    driver.find_element(By.ID, "continue").click()
    wait_for(driver, lambda d: d.current_url.endswith("/reports/new/submit"))
    driver.find_element(By.ID, "site-option-%d" % site_id(server, site) if site else "site-none").click()
    name_field = driver.find_element(By.ID, "field-name")
    name_field.clear()
    name_field.send_keys(name)
    Select(driver.find_element(By.ID, "field-designation")).select_by_value("SM")
    Select(driver.find_element(By.ID, "field-grade")).select_by_value("I")
    fill_rest(driver)
    driver.find_element(By.ID, "submit").click()
    wait_for(driver, lambda d: d.current_url.endswith("/reports"))


def test_SITE_04_05_06_coordinator_attaches_then_site_page_and_register(driver, server):
    # Two reports of the same place: an older one on the site, in good condition, approved; a new one
    # of no site, in very bad condition.
    driver.get(server.url + "/healthz")
    driver.delete_all_cookies()
    sign_in(driver, server)
    file_report(driver, server, "Jewel Tower, the old survey", site="1066002")
    file_report(driver, server, "Tower by the abbey", photos=2)
    tower = site_id(server, "1066002")
    report = rows(server, "SELECT id FROM reports WHERE name = 'Tower by the abbey'")[0][0]
    rows(server, "UPDATE reports SET condition = 'good', submitted_at = submitted_at - 400 * 86400, "
                 "review_state = 'approved' WHERE name = 'Jewel Tower, the old survey'")
    rows(server, "UPDATE reports SET condition = 'bad', priority_category = 'A' WHERE id = ?", report)

    # The coordinator attaches the new report to the likely site on its page.
    driver.delete_all_cookies()
    driver.set_window_size(1366, 900)
    sign_in(driver, server, COORDINATOR)
    driver.get(server.url + "/review/reports/%d" % report)
    choice = driver.find_element(By.ID, "site-%d" % tower)
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", choice)
    choice.click()
    driver.find_element(By.ID, "site-attach").click()
    wait_for(driver, lambda d: d.find_elements(By.ID, "report-site-link"))
    assert driver.find_element(By.ID, "report-site-link").text == "Jewel Tower"
    driver.find_element(By.ID, "act-approve").click()
    wait_for(driver, lambda d: "done=approve" in d.current_url)

    # The site's page: worsened since the approved report before; its map; its timeline.
    driver.get(server.url + "/review/sites/%d" % tower)
    assert driver.find_element(By.ID, "site-condition").text == "Very bad"
    assert "Worse than the approved report before (Good)" in driver.find_element(By.ID, "site-trend").text
    wait_for(driver, lambda d: d.find_element(By.ID, "site-map").get_attribute("hidden") is None)
    assert len(driver.find_elements(By.CSS_SELECTOR, "#site-timeline tbody tr")) >= 2
    assert len(driver.find_elements(By.CSS_SELECTOR, "#site-compare figure")) == 2
    for width in (390, 800, 1366):
        driver.set_window_size(width, 900)
        driver.get(server.url + "/review/sites/%d" % tower)
        wait_for(driver, lambda d: d.find_element(By.ID, "site-map").get_attribute("hidden") is None)
        wait_for(driver, lambda d: d.execute_script(
            "return Array.prototype.every.call(document.images, function (i) { return i.complete; })"))
        shot(driver, "sites-site-%d.png" % width)
    # The register, filtered to the worsened, and its map.
    for width in (390, 800, 1366):
        driver.set_window_size(width, 900)
        driver.get(server.url + "/review/sites")
        wait_for(driver, lambda d: d.find_element(By.ID, "sites-map").get_attribute("data-markers") == "3")
        shot(driver, "sites-register-%d.png" % width)
    driver.set_window_size(1366, 900)
    Select(driver.find_element(By.ID, "s-condition")).select_by_value("bad")
    driver.find_element(By.CSS_SELECTOR, "#site-filters .review-filter-actions button").click()
    wait_for(driver, lambda d: "condition=bad" in d.current_url)
    names = [a.text for a in driver.find_elements(By.CSS_SELECTOR, "#sites-table .review-link")]
    assert names == ["Jewel Tower"]


@pytest.mark.parametrize("lang", ["en", "fr"])
@pytest.mark.parametrize("width", [(390, 844), (1280, 900)])
def test_SITE_05_06_axe_site_page_register_and_report_site_section(driver, server, lang, width):
    driver.set_window_size(*width)
    driver.get(server.url + "/healthz")
    driver.delete_all_cookies()
    sign_in(driver, server, COORDINATOR)
    driver.add_cookie({"name": "har_lang", "value": lang, "path": "/"})
    tower = site_id(server, "1066002")
    report = rows(server, "SELECT id FROM reports WHERE site_id IS NULL AND state != 'draft' ORDER BY id")
    for path in ["/review/sites/%d" % tower, "/review/sites", "/review/sites?stale=6&q=tower"] + \
            (["/review/reports/%d" % report[0][0]] if report else []):
        driver.get(server.url + path)
        assert driver.find_element(By.TAG_NAME, "html").get_attribute("lang") == lang
        assert_no_violations(driver, "%s (%s, %d px)" % (path, lang, width[0]))


def seed_many(server, rows_of_sites):
    connection = sqlite3.connect(os.path.join(server.data_dir, "har.sqlite"), timeout=10)
    try:
        now = time.time()
        connection.executemany(
            "INSERT INTO sites (reference, name, designation, lat, lon, source, created_at, updated_at) "
            "VALUES (?, ?, 'LB', ?, ?, 'import', ?, ?)", [row + (now, now) for row in rows_of_sites])
        connection.commit()
    finally:
        connection.close()


def on_map(driver):
    """The sites the map draws: each cluster's number plus each single dot (an SVG path)."""
    return driver.execute_script("""
        var box = document.getElementById('sites-map');
        var clustered = Array.prototype.reduce.call(box.querySelectorAll('.sites-cluster span'),
            function (sum, span) { return sum + parseInt(span.textContent, 10); }, 0);
        return clustered + box.querySelectorAll('path.leaflet-interactive').length;""")


def test_SITE_06_map_shows_the_filters_sites_beyond_the_tables_page(driver):
    server = HarServer(env={"HAR_COORDINATORS": COORDINATOR, "HAR_PLATFORM_VERIFIED": COORDINATOR}).start()
    try:
        # 120 sites on a grid by Westminster; the table's page holds 50 of them (its four corners, named
        # to come first, so that the first view takes in the whole grid).
        grid = [("G-%d" % i, "Site %03d" % i, 51.49 + 0.002 * (i // 12), -0.14 + 0.002 * (i % 12)) for i in range(120)]
        for corner in (0, 11, 108, 119):
            grid[corner] = (grid[corner][0], "A corner %03d" % corner) + grid[corner][2:]
        seed_many(server, grid)
        driver.get(server.url + "/healthz")
        driver.delete_all_cookies()
        driver.set_window_size(1366, 900)
        sign_in(driver, server, COORDINATOR)
        driver.get(server.url + "/review/sites")
        assert len(driver.find_elements(By.CSS_SELECTOR, "#sites-table .review-link")) == 50
        box = driver.find_element(By.ID, "sites-map")
        wait_for(driver, lambda d: box.get_attribute("data-markers") == "120", 30)
        assert box.get_attribute("data-truncated") == "false"
        assert driver.find_element(By.ID, "sites-map-status").text == "120 sites that match in the map's area."
        wait_for(driver, lambda d: on_map(d) == 120, 30)
        assert driver.find_elements(By.CSS_SELECTOR, "#sites-map .sites-cluster")

        # Zoomed in on a corner the table's page does not list: the map asks again for that area.
        driver.find_element(By.CSS_SELECTOR, "#sites-map .leaflet-control-zoom-in").click()
        wait_for(driver, lambda d: box.get_attribute("data-markers") not in (None, "120"), 30)
        shown = int(box.get_attribute("data-markers"))
        assert 0 < shown < 120
        wait_for(driver, lambda d: on_map(d) == shown, 30)

        # More sites of the filter in the area than the map takes at once: it says so.
        seed_many(server, [("D-%d" % i, "Dense %04d" % i, 53.96 + 0.0001 * (i // 100), -1.08 + 0.0001 * (i % 100))
                           for i in range(5100)])
        driver.get(server.url + "/review/sites?q=dense")
        wait_for(driver, lambda d: box_attribute(d, "data-truncated") == "true", 60)
        status = driver.find_element(By.ID, "sites-map-status").text
        assert status.startswith("The map shows 5000 of the 5100 sites that match"), status
        shown = int(driver.find_element(By.ID, "sites-map").get_attribute("data-markers"))
        assert shown == 5000
        driver.add_cookie({"name": "har_lang", "value": "fr", "path": "/"})
        driver.get(server.url + "/review/sites?q=dense")
        wait_for(driver, lambda d: box_attribute(d, "data-truncated") == "true", 60)
        assert "des 5100 sites correspondants" in driver.find_element(By.ID, "sites-map-status").text
    finally:
        server.remove()


def box_attribute(driver, name):
    return driver.find_element(By.ID, "sites-map").get_attribute(name)
