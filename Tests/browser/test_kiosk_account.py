"""A kiosk's own platform account in a real browser (REV-12, KIO-05): an administrator opens the form
under the kiosk on /review/kiosks, types the account's e-mail and password once, and the page then names
the kiosk's own account; the password is on no page, in no address and in no file of the data folder."""
import os
import subprocess

import pytest
from selenium.webdriver.common.by import By

from conftest import HarServer, database, har_binary, sign_in, unique_email, wait_for

ADMIN = unique_email("kiosk-admin")
PASSWORD = "kiosk browser service 4"


@pytest.fixture(scope="module")
def server():
    running = HarServer(env={"HAR_COORDINATORS": ADMIN, "HAR_PLATFORM_VERIFIED": ADMIN}).start()
    yield running
    running.remove()


def files_holding(folder, text):
    """The files under `folder` whose bytes hold `text`."""
    needle = text.encode()
    found = []
    for root, _, names in os.walk(folder):
        for name in names:
            path = os.path.join(root, name)
            with open(path, "rb") as handle:
                if needle in handle.read():
                    found.append(path)
    return found


def test_REV_12_KIO_05_an_administrator_gives_the_kiosk_its_own_account(driver, server):
    sign_in(driver, server, ADMIN)
    env = {k: v for k, v in os.environ.items() if not k.startswith("HAR_")}
    env["HAR_DATA_DIR"] = server.data_dir
    subprocess.run([har_binary(), "users", "grant", ADMIN, "admin"], env=env, check=True, stdout=subprocess.DEVNULL)
    driver.get(server.url + "/review/kiosks")
    driver.find_element(By.ID, "k-site").send_keys("Abbey of its own account")
    driver.find_element(By.ID, "kiosk-create-submit").click()
    wait_for(driver, lambda d: d.find_elements(By.ID, "enrolment-link"))
    with database(server) as db:
        kiosk_id = db.execute("SELECT max(id) FROM kiosks").fetchone()[0]

    driver.get(server.url + "/review/kiosks")
    row = driver.find_element(By.ID, "kiosk-%d" % kiosk_id)
    assert not driver.find_element(By.ID, "d-password-%d" % kiosk_id).is_displayed(), "folded until asked for"
    row.find_element(By.CSS_SELECTOR, "details.kiosk-dedicated summary").click()
    service = unique_email("kiosk-service")
    driver.find_element(By.ID, "d-email-%d" % kiosk_id).send_keys(service)
    password = driver.find_element(By.ID, "d-password-%d" % kiosk_id)
    assert password.get_attribute("type") == "password"
    password.send_keys(PASSWORD)
    driver.find_element(By.CSS_SELECTOR, "#dedicated-%d button[type=submit]" % kiosk_id).click()
    wait_for(driver, lambda d: "own account)" in d.find_element(By.ID, "kiosk-%d" % kiosk_id).text)
    assert service in driver.find_element(By.ID, "kiosk-%d" % kiosk_id).text
    assert PASSWORD not in driver.page_source and PASSWORD.replace(" ", "+") not in driver.current_url
    with database(server) as db:
        assert db.execute("SELECT account_email FROM kiosks WHERE id = ?", (kiosk_id,)).fetchone()[0] == service
    server.stop()
    assert files_holding(server.data_dir, PASSWORD) == [], "the password is kept nowhere"
