"""First use: the welcome screens on a browser's first visit and the guide to the list's
states at the first sign-in, in real Chromium against the real `har serve`; each shown once per browser,
keyboard-navigable, reopened from settings; English and French."""
import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from conftest import make_driver, unique_email, wait_for


@pytest.fixture
def newcomer():
    browser = make_driver(first_use=True)
    yield browser
    browser.quit()


def step(driver):
    return driver.find_element(By.ID, "welcome").get_attribute("data-step")


def is_open(driver, dialog_id):
    return driver.find_element(By.ID, dialog_id).get_attribute("open") is not None


def test_welcome_once_keyboard_and_swipe_then_the_guide_at_the_first_sign_in(newcomer, server):
    driver = newcomer
    driver.get(server.url + "/signin")
    wait_for(driver, lambda d: is_open(d, "welcome"))
    assert step(driver) == "1"
    # `hidden` hides a .button too (one global rule): no Back on the first screen, no Next on the last.
    assert not driver.find_element(By.ID, "welcome-back").is_displayed()
    assert driver.find_element(By.ID, "welcome-next").is_displayed()
    assert driver.find_element(By.ID, "welcome-step-1").text.startswith("Report heritage at risk")
    assert driver.find_element(By.ID, "welcome-done").text == "Sign in"
    # The keyboard: arrows, and Tab to the buttons.
    driver.switch_to.active_element.send_keys(Keys.ARROW_RIGHT)
    assert step(driver) == "2" and driver.find_element(By.ID, "welcome-progress").text == "Screen 2 of 3"
    driver.find_element(By.ID, "welcome-next").send_keys(Keys.ENTER)
    assert step(driver) == "3" and "without signal" in driver.find_element(By.ID, "welcome-step-3").text
    assert not driver.find_element(By.ID, "welcome-next").is_displayed()
    assert driver.find_element(By.ID, "welcome-back").is_displayed()
    driver.switch_to.active_element.send_keys(Keys.ARROW_LEFT)
    assert step(driver) == "2"
    # A swipe to the left is the next screen.
    driver.execute_script("""
        var d = document.getElementById('welcome');
        d.dispatchEvent(new PointerEvent('pointerdown', {clientX: 300, bubbles: true}));
        d.dispatchEvent(new PointerEvent('pointerup', {clientX: 100, bubbles: true}));""")
    assert step(driver) == "3"
    # Sign in, from any screen: the dialog closes onto the form.
    driver.find_element(By.ID, "welcome-done").click()
    wait_for(driver, lambda d: not is_open(d, "welcome"))
    assert driver.switch_to.active_element.get_attribute("id") == "email"
    driver.refresh()
    assert not is_open(driver, "welcome"), "shown once per browser"
    driver.find_element(By.ID, "email").send_keys(unique_email("newcomer"))
    driver.find_element(By.ID, "password").send_keys("correct horse")
    driver.find_element(By.ID, "connect").click()
    wait_for(driver, lambda d: d.current_url.endswith("/reports"))
    wait_for(driver, lambda d: is_open(d, "guide"))
    text = driver.find_element(By.ID, "guide").text
    for state in ("On this device", "Queued, sending", "Stored", "Needs attention"):
        assert state in text
    driver.find_element(By.ID, "guide-close").click()
    wait_for(driver, lambda d: not is_open(d, "guide"))
    driver.refresh()
    assert not is_open(driver, "guide") and not is_open(driver, "welcome")
    # Both reopen from settings.
    driver.find_element(By.ID, "settings-open").click()
    panel = driver.find_element(By.ID, "settings-panel")
    wait_for(driver, lambda d: d.find_element(By.ID, "guide-again").is_displayed())
    # The panel slides in: click once it is at rest.
    wait_for(driver, lambda d: d.execute_script(
        "return getComputedStyle(arguments[0]).transform", panel) in ("none", "matrix(1, 0, 0, 1, 0, 0)"))
    driver.find_element(By.ID, "guide-again").click()
    wait_for(driver, lambda d: is_open(d, "guide"))
    driver.find_element(By.ID, "guide-title").click()
    wait_for(driver, lambda d: not is_open(d, "guide"))
    driver.find_element(By.ID, "welcome-again").click()
    wait_for(driver, lambda d: is_open(d, "welcome"))
    assert step(driver) == "1" and driver.find_element(By.ID, "welcome-done").text == "OK"


def test_welcome_in_french(server):
    driver = make_driver("fr-FR", first_use=True)
    try:
        driver.get(server.url + "/signin")
        wait_for(driver, lambda d: is_open(d, "welcome"))
        assert driver.find_element(By.ID, "welcome-step-1").text.startswith("Signalez le patrimoine en péril")
        assert driver.find_element(By.ID, "welcome-done").text == "Se connecter"
        assert driver.find_element(By.ID, "welcome-progress").text == "Écran 1 sur 3"
    finally:
        driver.quit()
