"""Times on the coordinators' other pages in real Chromium against `har serve`: the kiosks, the audit log,
the failed mail and the roles write `<time datetime>` as the dashboard and a report's page do, and
review-time.js makes their text the reader's own zone and language, the exact UTC time in the title."""
import time

import pytest
from selenium.webdriver.common.by import By

from conftest import HarServer, database, sign_in, unique_email, wait_for

ADMIN = unique_email("times-admin")
PENDING = unique_email("times-pending")
AN_HOUR_AGO = time.time() - 3600


@pytest.fixture(scope="module")
def server():
    running = HarServer(env={"HAR_PLATFORM_VERIFIED": ADMIN}).start()
    yield running
    running.remove()


@pytest.fixture(scope="module")
def admin(driver, server):
    """An administrator with a kiosk (enrolled, seen), a role granted to an e-mail that has signed in once
    but is not confirmed yet, a message the mail server refused, and the audit entries of it all."""
    driver.get(server.url + "/healthz")
    driver.delete_all_cookies()
    sign_in(driver, server, ADMIN)
    with database(server) as db:
        # Bound to the account that signed in, as an administrator's confirmation binds it (REV-10).
        db.execute("INSERT INTO user_roles (email, role, granted_by, granted_at, account_id) "
                   "SELECT email, 'admin', 'test', ?, account_id FROM users WHERE email = ?", (AN_HOUR_AGO, ADMIN))
    driver.get(server.url + "/review/kiosks")
    driver.find_element(By.ID, "k-site").send_keys("Times Abbey")
    driver.find_element(By.ID, "kiosk-create-submit").click()
    wait_for(driver, lambda d: "Times Abbey" in d.find_element(By.ID, "kiosks-table").text)
    driver.get(server.url + "/review/users")
    driver.find_element(By.ID, "u-email").send_keys(PENDING)
    driver.find_element(By.CSS_SELECTOR, "button[name=op][value=grant]").click()
    wait_for(driver, lambda d: "done=1" in d.current_url)
    with database(server) as db:
        db.execute("UPDATE kiosks SET enrolled_at = ?, last_seen_at = ? WHERE site_name = 'Times Abbey'",
                   (AN_HOUR_AGO, AN_HOUR_AGO + 60))
        db.execute("UPDATE user_roles SET first_signin_at = ?, first_signin_address = '192.0.2.7', "
                   "first_signin_account = 'acct-pending' WHERE email = ?",
                   (AN_HOUR_AGO, PENDING))
        user_id = db.execute("SELECT id FROM users WHERE email = ?", (ADMIN,)).fetchone()[0]
        db.execute("INSERT INTO mail_outbox (event_key, user_id, kind, language, detail, token, state, attempts, "
                   "next_attempt_at, created_at, last_reply) VALUES ('times-failed', ?, 'digest', 'en', "
                   "'waiting=1;oldest=60;replies=0;failures=0;folded=0', 'tok-times', 'failed', 1, 0, ?, "
                   "'550 5.1.1 mailbox unavailable')", (user_id, AN_HOUR_AGO))
    return ADMIN


def local_times(driver, selector):
    """The `<time>` elements under `selector`, once the script has made them local: each has its ISO
    instant in `datetime`, the server's UTC text kept in `data-utc` and in the title, and local text."""
    wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, selector + " time.review-time[title]"))
    times = driver.find_elements(By.CSS_SELECTOR, selector + " time.review-time")
    assert times, "no <time> under %s" % selector
    for element in times:
        assert element.get_attribute("datetime").endswith("Z")
        utc = element.get_attribute("data-utc")
        assert utc.endswith(" UTC") and utc in element.get_attribute("title")
        assert element.text and "UTC" not in element.text, "made local: %r" % element.text
    return times


@pytest.mark.parametrize("path,selector,count", [
    ("/review/kiosks", "#kiosks-table", 2),  # enrolled, last seen
    ("/review/audit", "#audit-table", 2),  # the kiosk made, the role granted
    ("/review/mail", "#failed-mail", 1),
    ("/review/users", "#roles-table", 3),  # two grants, one first sign-in waiting to be confirmed
])
def test_REV_05_08_review_pages_show_times_local_with_their_instant(browser, server, admin, path, selector, count):
    sign_in(browser, server, admin)
    browser.get(server.url + path)
    times = local_times(browser, selector)
    assert len(times) >= count, "%d times on %s" % (len(times), path)
    # An hour ago, said so ("1 hour ago" in English) beside the local time.
    assert any(t.find_elements(By.CSS_SELECTOR, ".review-ago") for t in times)


def test_roles_page_puts_the_first_sign_in_time_in_its_sentence(browser, server, admin):
    sign_in(browser, server, admin)
    browser.get(server.url + "/review/users")
    row = [r for r in browser.find_elements(By.CSS_SELECTOR, "#roles-table tbody tr") if PENDING in r.text][0]
    cell = row.find_elements(By.TAG_NAME, "td")[4]
    when = local_times(browser, "#roles-table tbody tr:nth-child(%d) td:nth-child(5)"
                       % (browser.find_elements(By.CSS_SELECTOR, "#roles-table tbody tr").index(row) + 1))
    assert len(when) == 1
    assert cell.text.startswith("Pending: first sign-in ") and "from 192.0.2.7 by account acct-pending as " in cell.text


def test_REV_08_audit_log_fits_a_laptop_and_names_every_action(browser, server, admin):
    """The audit log's seven columns, with long e-mails in them, fit 1280 px without scrolling sideways,
    and every action reads as its label (the confirmation of a role once showed its message key)."""
    with database(server) as db:
        db.execute("INSERT INTO review_audit (at, actor, action, subject, before, after) "
                   "VALUES (?, 'platform:verified', 'role_confirm', ?, 'coordinator (pending)', 'coordinator')",
                   (AN_HOUR_AGO, PENDING))
        # E-mails as long as real ones get (a regional office's coordinator granting a colleague).
        long_mail = "conservation.officer.northeastregion@heritageobservatoryvolunteers.example.org"
        db.execute("INSERT INTO review_audit (at, actor, action, subject, before, after) "
                   "VALUES (?, ?, 'role_grant', ?, 'volunteer', 'coordinator (pending)')",
                   (AN_HOUR_AGO, long_mail, "second." + long_mail))
    sign_in(browser, server, admin)
    browser.set_window_size(1280, 800)
    try:
        browser.get(server.url + "/review/audit")
        table = browser.find_element(By.ID, "audit-table")
        assert "Role confirmed" in table.text
        assert "review.action." not in table.text
        wrap = browser.find_element(By.CSS_SELECTOR, ".review-table-wrap")
        scroll, client = browser.execute_script("return [arguments[0].scrollWidth, arguments[0].clientWidth];", wrap)
        assert scroll <= client + 1, "the audit table scrolls sideways: %d in %d" % (scroll, client)
    finally:
        browser.set_window_size(412, 860)
