"""Settings panel, SET-01..03: slides in from the right, closes three ways, saves per user."""
import time

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from conftest import css, make_driver, sign_in, unique_email, wait_for


def open_panel(browser):
    browser.find_element(By.ID, "settings-open").click()
    panel = browser.find_element(By.ID, "settings-panel")
    wait_for(browser, lambda d: panel.is_displayed() and panel.rect["x"] + panel.rect["width"] <= d.execute_script(
        "return document.documentElement.clientWidth") + 1 and css(d, panel, "transform") in ("none", "matrix(1, 0, 0, 1, 0, 0)"))
    return panel


def save(browser, accuracy=None, alert=None, wireless=None):
    if accuracy is not None:
        field = browser.find_element(By.ID, "gps-accuracy")
        field.clear()
        field.send_keys(str(accuracy))
    if alert is not None:
        field = browser.find_element(By.ID, "gps-alert")
        field.clear()
        field.send_keys(str(alert))
    if wireless is not None:
        box = browser.find_element(By.ID, "wireless-only")
        if box.is_selected() != wireless:
            browser.find_element(By.CSS_SELECTOR, "label.switch").click()
    status = browser.find_element(By.ID, "settings-status")
    browser.execute_script("arguments[0].textContent = ''", status)
    browser.find_element(By.ID, "settings-save").click()


def saved_settings(browser):
    return browser.execute_script("return JSON.parse(document.getElementById('har-settings').textContent)")


def test_SET_01_panel_slides_in_from_the_right_and_closes_three_ways(browser, server):
    sign_in(browser, server)
    gear = browser.find_element(By.ID, "settings-open")
    panel = browser.find_element(By.ID, "settings-panel")
    assert not panel.is_displayed()
    duration = css(browser, panel, "transition-duration")
    assert all(float(d.rstrip("s")) < 0.2 for d in duration.split(","))
    for closer in ("escape", "overlay", "button"):
        open_panel(browser)
        assert gear.get_attribute("aria-expanded") == "true"
        width = browser.execute_script("return document.documentElement.clientWidth")
        assert abs(panel.rect["x"] + panel.rect["width"] - width) <= 1
        assert browser.find_element(By.ID, "settings-overlay").is_displayed()
        assert browser.switch_to.active_element.get_attribute("id") == "gps-accuracy"
        if closer == "escape":
            browser.switch_to.active_element.send_keys(Keys.ESCAPE)
        elif closer == "overlay":
            browser.execute_script("document.getElementById('settings-overlay').dispatchEvent(new MouseEvent('click', {bubbles: true}))")
        else:
            browser.find_element(By.ID, "settings-close").click()
        wait_for(browser, lambda d: not panel.is_displayed())
        assert browser.switch_to.active_element.get_attribute("id") == "settings-open"
        assert gear.get_attribute("aria-expanded") == "false"


def test_SET_01_no_motion_when_reduced_motion_is_preferred(browser, server):
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-reduced-motion", "value": "reduce"}]})
    try:
        sign_in(browser, server)
        panel = browser.find_element(By.ID, "settings-panel")
        assert css(browser, panel, "transition-duration") in ("0s", "0s, 0s")
    finally:
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})


def test_SET_01_gps_accuracy_is_saved_bounded_and_follows_the_user(browser, server):
    email = sign_in(browser, server)
    open_panel(browser)
    assert browser.find_element(By.ID, "gps-accuracy").get_attribute("value") == "20"
    for bad in ("0", "1001", "2.5", "abc"):
        save(browser, accuracy=bad)
        error = wait_for(browser, lambda d: d.find_element(By.ID, "gps-accuracy-error").text)
        assert "from 1 to 1000" in error
    save(browser, accuracy=35)
    wait_for(browser, lambda d: d.find_element(By.ID, "settings-status").text == "Settings saved.")
    assert browser.find_element(By.ID, "gps-accuracy-error").text == ""
    assert saved_settings(browser)["gpsAccuracyMetres"] == 35
    browser.get(browser.current_url)  # reload
    assert browser.find_element(By.ID, "gps-accuracy").get_attribute("value") == "35"
    assert saved_settings(browser)["gpsAccuracyMetres"] == 35
    # Another device (a second browser) signing in as the same user gets the same settings.
    other = make_driver()
    try:
        sign_in(other, server, email)
        assert saved_settings(other)["gpsAccuracyMetres"] == 35
    finally:
        other.quit()


def test_SET_02_gps_alert_is_saved_and_bounded(browser, server):
    sign_in(browser, server)
    open_panel(browser)
    assert browser.find_element(By.ID, "gps-alert").get_attribute("value") == "60"
    for bad in ("4", "3601", "-10"):
        save(browser, alert=bad)
        error = wait_for(browser, lambda d: d.find_element(By.ID, "gps-alert-error").text)
        assert "from 5 to 3600" in error
    save(browser, alert=120)
    wait_for(browser, lambda d: d.find_element(By.ID, "settings-status").text == "Settings saved.")
    browser.get(browser.current_url)
    assert browser.find_element(By.ID, "gps-alert").get_attribute("value") == "120"
    assert saved_settings(browser)["gpsAlertSeconds"] == 120


def test_SET_03_wireless_only_switch_is_saved(browser, server):
    email = sign_in(browser, server)
    open_panel(browser)
    box = browser.find_element(By.ID, "wireless-only")
    assert box.get_attribute("role") == "switch" and not box.is_selected()
    assert browser.find_element(By.CSS_SELECTOR, "label.switch").rect["height"] >= 48
    save(browser, wireless=True)
    wait_for(browser, lambda d: d.find_element(By.ID, "settings-status").text == "Settings saved.")
    assert saved_settings(browser)["wirelessOnly"] is True
    browser.delete_all_cookies()
    sign_in(browser, server, email)
    assert saved_settings(browser)["wirelessOnly"] is True
    open_panel(browser)
    assert browser.find_element(By.ID, "wireless-only").is_selected()


def test_SET_sign_out_from_the_panel(browser, server):
    sign_in(browser, server)
    open_panel(browser)
    browser.find_element(By.ID, "sign-out").click()
    wait_for(browser, lambda d: "/signin" in d.current_url)
    assert "signed out" in browser.find_element(By.ID, "signin-notice").text
    browser.get(browser.current_url.split("/signin")[0] + "/reports")
    assert "/signin" in browser.current_url
