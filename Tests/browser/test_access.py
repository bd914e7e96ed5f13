"""Every screen on a 360 px phone, by keyboard alone, with names a screen reader reads (
"Languages and access")."""
from selenium.webdriver.common.by import By
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

from conftest import sign_in, unique_email, wait_for
from helpers import open_creation

# The accessible name a screen reader would announce, computed the simple way: aria-label,
# aria-labelledby, a <label for>, a wrapping <label>, the text, or a title.
UNNAMED_CONTROLS = """
var unnamed = [];
document.querySelectorAll('input:not([type=hidden]), select, textarea, button, a[href]').forEach(function (el) {
  if (el.closest('[hidden]') || el.getAttribute('aria-hidden') === 'true') return;
  var name = (el.getAttribute('aria-label') || '').trim();
  if (!name && el.getAttribute('aria-labelledby')) {
    name = el.getAttribute('aria-labelledby').split(' ').map(function (id) {
      var ref = document.getElementById(id); return ref ? ref.textContent : '';
    }).join(' ').trim();
  }
  if (!name && el.id) { var label = document.querySelector('label[for="' + el.id + '"]'); if (label) name = label.textContent.trim(); }
  if (!name && el.closest('label')) name = el.closest('label').textContent.trim();
  if (!name) name = (el.textContent || '').trim() || (el.getAttribute('title') || '').trim();
  if (!name && el.querySelector('img[alt]')) name = el.querySelector('img[alt]').getAttribute('alt').trim();
  if (!name) unnamed.push(el.outerHTML.slice(0, 120));
});
return unnamed;
"""


def at_phone_width(browser):
    browser.set_window_size(360, 800)


def no_sideways_scroll(browser):
    return browser.execute_script("return document.documentElement.scrollWidth <= window.innerWidth + 1")


def test_every_screen_fits_360px_and_names_its_controls(browser, server):
    at_phone_width(browser)
    try:
        browser.get(server.url + "/signin")
        assert no_sideways_scroll(browser)
        assert browser.execute_script(UNNAMED_CONTROLS) == []
        sign_in(browser, server)
        for path in ["/reports", "/settings"]:
            browser.get(server.url + path)
            assert no_sideways_scroll(browser), path
            assert browser.execute_script(UNNAMED_CONTROLS) == [], path
        open_creation(browser, server)
        assert no_sideways_scroll(browser)
        assert browser.execute_script(UNNAMED_CONTROLS) == []
        browser.get(server.url + "/reports/new/submit")
        assert no_sideways_scroll(browser)
        assert browser.execute_script(UNNAMED_CONTROLS) == []
    finally:
        browser.set_window_size(412, 860)


def test_sign_in_and_settings_by_keyboard_alone(browser, server):
    browser.get(server.url + "/signin")
    order = []
    for _ in range(12):
        ActionChains(browser).send_keys(Keys.TAB).perform()
        active = browser.switch_to.active_element
        order.append(active.get_attribute("id") or active.get_attribute("class"))
        if active.get_attribute("id") == "connect":
            break
    # The fields come in reading order, the eye toggle right after the password, then Connect.
    assert [i for i in order if i in ("email", "password", "password-toggle", "connect")] == \
        ["email", "password", "password-toggle", "connect"]
    browser.find_element(By.ID, "email").send_keys(unique_email("keys"))
    browser.find_element(By.ID, "password").send_keys("correct horse" + Keys.ENTER)
    wait_for(browser, lambda d: d.current_url.endswith("/reports"))
    # The settings panel opens from the keyboard, takes the focus, and gives it back on Escape.
    gear = browser.find_element(By.CSS_SELECTOR, ".header [aria-controls], .header a[href='/settings']")
    gear.send_keys(Keys.ENTER)
    wait_for(browser, lambda d: d.switch_to.active_element.find_elements(By.XPATH, "ancestor-or-self::*[@role='dialog' or contains(@class,'settings-panel')]"))
    browser.switch_to.active_element.send_keys(Keys.ESCAPE)
    wait_for(browser, lambda d: d.switch_to.active_element == gear)
