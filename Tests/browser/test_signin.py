"""Sign-in screen, LOG-01..16."""
import json
import os

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from conftest import (ROOT, HarServer, css, make_driver, rgb, sign_in, unique_email, wait_for)

IDLE, BRAND, FOCUS, BLACK = rgb("#757575"), rgb("#8F2227"), rgb("#208AD4"), rgb("#000000")


def open_signin(browser, server):
    browser.get(server.url + "/signin")
    return browser.find_element(By.ID, "email"), browser.find_element(By.ID, "password")


def blur(browser):
    browser.find_element(By.CLASS_NAME, "signin-title").click()


def test_LOG_01_signed_out_visitors_land_on_signin(browser, server):
    for path in ("/", "/reports", "/settings", "/reports/new"):
        browser.get(server.url + path)
        if path == "/reports/new" and not browser.current_url.endswith("/signin"):
            continue  # the creation screen is another engineer's; it may not exist yet
        assert browser.current_url.split("?")[0].endswith("/signin"), path


def test_LOG_02_every_element_is_there(browser, server):
    email, password = open_signin(browser, server)
    logo = browser.find_element(By.CLASS_NAME, "signin-logo")
    assert logo.get_attribute("src").split("?")[0].endswith("/static/img/logo.svg") and logo.get_attribute("alt")
    toggle = browser.find_element(By.ID, "password-toggle")
    assert toggle.is_displayed()
    # The eye sits inside the password field, at its right end.
    field, eye = password.rect, toggle.rect
    assert field["x"] + field["width"] - 60 <= eye["x"] and eye["x"] + eye["width"] <= field["x"] + field["width"]
    assert field["y"] <= eye["y"] and eye["y"] + eye["height"] <= field["y"] + field["height"] + 1
    assert browser.find_element(By.ID, "forgot-link").text == "Forgot password?"
    assert browser.find_element(By.ID, "connect").text == "Connect"
    assert "created" in browser.find_element(By.ID, "auto-account").text
    # The forgot-password page explains honestly who resets passwords.
    browser.find_element(By.ID, "forgot-link").click()
    assert "coordinator" in browser.find_element(By.TAG_NAME, "main").text


def test_LOG_03_centred_except_forgot_right_aligned(browser, server):
    for width in (360, 1200):
        browser.set_window_size(width, 900)
        email, password = open_signin(browser, server)
        middle = browser.execute_script("return document.documentElement.clientWidth") / 2
        for element_id in ("email", "password", "connect", "auto-account"):
            r = browser.find_element(By.ID, element_id).rect
            assert abs(r["x"] + r["width"] / 2 - middle) <= 2, (element_id, width)
        logo = browser.find_element(By.CLASS_NAME, "signin-logo").rect
        assert abs(logo["x"] + logo["width"] / 2 - middle) <= 2
        forgot = browser.find_element(By.ID, "forgot-link").rect
        assert abs((forgot["x"] + forgot["width"]) - (email.rect["x"] + email.rect["width"])) <= 2
    browser.set_window_size(412, 860)


def test_LOG_04_fields_start_grey_text_and_red_border(browser, server):
    for field in open_signin(browser, server):
        assert css(browser, field, "color") == IDLE
        assert css(browser, field, "border-top-color") == BRAND
        assert css(browser, field, "border-left-color") == BRAND


def test_LOG_05_focused_field_border_is_blue(browser, server):
    for field in open_signin(browser, server):
        field.click()
        assert css(browser, field, "border-top-color") == FOCUS
        assert css(browser, field, "border-bottom-color") == FOCUS


def test_LOG_06_text_is_black_while_the_field_holds_text(browser, server):
    email, password = open_signin(browser, server)
    email.send_keys("a")
    password.send_keys("b")
    assert css(browser, email, "color") == BLACK
    assert css(browser, password, "color") == BLACK


def test_LOG_07_leaving_a_field_restores_the_red_border(browser, server):
    email, password = open_signin(browser, server)
    email.send_keys("someone@example.org")
    password.click()
    assert css(browser, email, "border-top-color") == BRAND
    blur(browser)
    assert css(browser, password, "border-top-color") == BRAND


def test_LOG_08_leaving_the_email_field_trims_it(browser, server):
    email, _ = open_signin(browser, server)
    email.send_keys("   someone@example.org \t ")
    blur(browser)
    assert email.get_attribute("value") == "someone@example.org"
    assert browser.find_element(By.ID, "email-error").text == ""


def test_LOG_09_an_emptied_field_is_grey_again(browser, server):
    email, password = open_signin(browser, server)
    for field in (email, password):
        field.send_keys("abc")
        assert css(browser, field, "color") == BLACK
        field.send_keys(Keys.BACKSPACE * 3)
        blur(browser)
        assert css(browser, field, "color") == IDLE


def test_LOG_10_placeholders(browser, server):
    email, password = open_signin(browser, server)
    assert email.get_attribute("placeholder") == "Email Address"
    assert password.get_attribute("placeholder") == "Password"
    assert browser.execute_script("return arguments[0].matches(':placeholder-shown')", email)


def load_cases():
    with open(os.path.join(ROOT, "Tests", "browser", "addr_spec_cases.json")) as f:
        return json.load(f)


def test_LOG_11_bad_address_shows_a_message_under_the_field(browser, server):
    email, _ = open_signin(browser, server)
    email.send_keys("not an address")
    blur(browser)
    message = browser.find_element(By.ID, "email-error")
    assert message.text == "This is not a valid e-mail address."
    assert message.rect["y"] > email.rect["y"] + email.rect["height"] - 1
    assert email.get_attribute("aria-invalid") == "true"
    email.clear()
    email.send_keys("fixed@example.org")
    blur(browser)
    assert message.text == ""


def test_LOG_11_addr_spec_edge_cases_in_the_browser(browser, server):
    open_signin(browser, server)
    cases = load_cases()
    results = browser.execute_script(
        "return arguments[0].map(function (c) { return window.HARAddrSpec.isValid(c.address); });", cases)
    wrong = [c["address"] for c, got in zip(cases, results) if got != c["valid"]]
    assert wrong == []


def test_LOG_12_connect_with_empty_email(browser, server):
    _, password = open_signin(browser, server)
    password.send_keys("secret")
    browser.find_element(By.ID, "connect").click()
    assert browser.find_element(By.ID, "email-error").text == "The e-mail address cannot be left empty."
    assert browser.current_url.endswith("/signin")
    assert browser.switch_to.active_element.get_attribute("id") == "email"


def test_LOG_13_connect_with_empty_password(browser, server):
    email, _ = open_signin(browser, server)
    email.send_keys("someone@example.org")
    browser.find_element(By.ID, "connect").click()
    assert browser.find_element(By.ID, "password-error").text == "The password cannot be left empty."
    assert browser.find_element(By.ID, "email-error").text == ""


def test_LOG_14_eye_starts_slashed_and_grey(browser, server):
    _, password = open_signin(browser, server)
    toggle = browser.find_element(By.ID, "password-toggle")
    assert password.get_attribute("type") == "password"
    assert toggle.find_element(By.CLASS_NAME, "icon-eye-slash").is_displayed()
    assert not toggle.find_element(By.CLASS_NAME, "icon-eye").is_displayed()
    assert css(browser, toggle, "color") == IDLE
    assert toggle.get_attribute("aria-pressed") == "false"


def test_LOG_15_eye_toggles_and_stays_grey(browser, server):
    _, password = open_signin(browser, server)
    password.send_keys("hunter2")
    toggle = browser.find_element(By.ID, "password-toggle")
    toggle.click()
    assert password.get_attribute("type") == "text"
    assert toggle.find_element(By.CLASS_NAME, "icon-eye").is_displayed()
    assert not toggle.find_element(By.CLASS_NAME, "icon-eye-slash").is_displayed()
    assert css(browser, toggle, "color") == IDLE
    assert toggle.get_attribute("aria-label") == "Hide password"
    toggle.click()
    assert password.get_attribute("type") == "password"
    assert toggle.find_element(By.CLASS_NAME, "icon-eye-slash").is_displayed()
    assert css(browser, toggle, "color") == IDLE


def test_LOG_16_connect_signs_in_and_the_cookie_outlives_the_browser(browser, server):
    email = sign_in(browser, server)
    assert browser.find_element(By.ID, "report-list")
    cookie = browser.get_cookie("har_session")
    assert cookie["httpOnly"] and cookie["sameSite"] == "Lax"
    assert cookie.get("expiry"), "a session cookie would die with the browser"
    # A new browser (a restart) given the stored cookie is still signed in.
    other = make_driver()
    try:
        other.get(server.url + "/healthz")
        other.add_cookie({"name": "har_session", "value": cookie["value"], "path": "/"})
        other.get(server.url + "/reports")
        assert other.current_url.endswith("/reports")
        other.find_element(By.ID, "settings-open").click()
        wait_for(other, lambda d: email in d.find_element(By.CLASS_NAME, "signed-in-as").text)
    finally:
        other.quit()


def test_LOG_16_wrong_password_is_a_clear_message(browser, server):
    email = unique_email()
    sign_in(browser, server, email, "first password")
    browser.delete_all_cookies()
    email_field, password = open_signin(browser, server)
    email_field.send_keys(email)
    password.send_keys("another password")
    browser.find_element(By.ID, "connect").click()
    error = wait_for(browser, lambda d: d.find_element(By.ID, "form-error"))
    assert error.text == "Wrong password for this e-mail address."
    assert "Exception" not in browser.page_source and "{" not in error.text
    assert browser.find_element(By.ID, "email").get_attribute("value") == email
    assert browser.find_element(By.ID, "password").get_attribute("value") == ""


@pytest.mark.parametrize("env, expected", [
    ({"HAR_PLATFORM_URL": "http://127.0.0.1:9", "HAR_CONSUMER_KEY": "k", "HAR_CONSUMER_SECRET": "s",
      "HAR_PLATFORM_CONNECT_TIMEOUT": "2", "HAR_PLATFORM_TIMEOUT": "5"}, "cannot be reached"),
    ({"HAR_PLATFORM_FAULTS": "fail5xx=1,seed=3"}, "busy or unavailable"),
])
def test_LOG_16_platform_down_or_failing_is_a_clear_message(driver, env, expected):
    broken = HarServer(env=env).start()
    try:
        driver.get(broken.url + "/signin")
        driver.find_element(By.ID, "email").send_keys(unique_email())
        driver.find_element(By.ID, "password").send_keys("whatever")
        driver.find_element(By.ID, "connect").click()
        error = wait_for(driver, lambda d: d.find_element(By.ID, "form-error"), timeout=20)
        assert expected in error.text
        assert "Exception" not in driver.page_source and "HTTP 5" not in driver.page_source
    finally:
        broken.remove()
