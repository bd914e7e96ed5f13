"""SUB-07 and SUB-08 end to end in real Chromium: a report made with the fake camera is submitted, the
upload worker (on, here) creates it on the embedded local platform and uploads every photo, and the
list's row turns Stored without a reload. The platform's own database is the judge."""
import os
import sqlite3

import pytest
from selenium.webdriver.common.by import By

from conftest import HarServer, wait_for
from helpers import browser, capture, fill, open_creation, platform_rows  # noqa: F401


@pytest.fixture(scope="module")
def server():
    running = HarServer(env={"HAR_WORKER_ENABLED": "true"}).start()
    yield running
    running.remove()


def test_SUB_07_08_report_and_every_photo_reach_the_platform_and_the_row_turns_stored(browser, server):
    open_creation(browser, server)
    for _ in range(3):
        capture(browser)
    draft = browser.find_element(By.ID, "main").get_attribute("data-draft")
    browser.find_element(By.ID, "continue").click()
    wait_for(browser, lambda d: d.current_url.endswith("/reports/new/submit"))
    fill(browser, "Mill on the Leat")
    browser.find_element(By.ID, "submit").click()
    wait_for(browser, lambda d: d.current_url.endswith("/reports"))
    status = lambda d: d.find_element(By.CSS_SELECTOR, "#report-%s .status" % draft).get_attribute("aria-label")
    # No reload: the page polls while a row is not Stored, and swaps the row in place.
    marker = browser.execute_script("window.__sameDocument = 'yes'; return window.__sameDocument")
    wait_for(browser, lambda d: status(d) == "Stored", 60)
    assert browser.execute_script("return window.__sameDocument") == marker
    # The platform has exactly this report, with its three photos, byte-identical to what was captured.
    reports = platform_rows(server, "SELECT place_name FROM report WHERE deleted_time IS NULL")
    assert [r[0] for r in reports] == ["Mill on the Leat"]
    local = sqlite3.connect(os.path.join(server.data_dir, "har.sqlite"), timeout=10)
    try:
        captured = sorted(r[0] for r in local.execute(
            "SELECT p.sha256 FROM photos p JOIN reports r ON r.id = p.report_id WHERE r.local_id = ?", (draft,)))
    finally:
        local.close()
    stored = sorted(r[0] for r in platform_rows(server, "SELECT sha256 FROM photo"))
    assert len(captured) == 3 and stored == captured
