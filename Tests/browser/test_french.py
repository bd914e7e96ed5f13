"""The suite once in French (a smoke test): Accept-Language chooses French; the switch is remembered."""
import pytest
from selenium.webdriver.common.by import By

from conftest import make_driver, sign_in, wait_for


@pytest.fixture(scope="module")
def driver():
    browser = make_driver("fr-FR")
    yield browser
    browser.quit()


def test_LOG_french_sign_in_page_from_accept_language(browser, server):
    browser.get(server.url + "/signin")
    assert browser.find_element(By.TAG_NAME, "html").get_attribute("lang") == "fr"
    assert browser.find_element(By.ID, "email").get_attribute("placeholder") == "Adresse e-mail"
    assert browser.find_element(By.ID, "password").get_attribute("placeholder") == "Mot de passe"
    assert browser.find_element(By.ID, "connect").text == "Se connecter"
    browser.find_element(By.ID, "connect").click()
    assert browser.find_element(By.ID, "email-error").text == "L’adresse e-mail ne peut pas rester vide."


def test_LST_french_list_dialog_words_and_dates(browser, server):
    sign_in(browser, server)
    assert browser.find_element(By.TAG_NAME, "html").get_attribute("lang") == "fr"
    assert browser.find_element(By.ID, "settings-open").get_attribute("aria-label") == "Ouvrir les paramètres"
    assert browser.find_element(By.ID, "report-list").get_attribute("data-failure-title") == (
        "Échec de la suppression du signalement")


def test_LOG_language_switch_is_remembered(browser, server):
    browser.get(server.url + "/signin")
    browser.find_element(By.CSS_SELECTOR, ".language-button[value='en']").click()
    wait_for(browser, lambda d: d.find_element(By.TAG_NAME, "html").get_attribute("lang") == "en")
    assert browser.current_url.endswith("/signin")
    browser.get(server.url + "/signin")
    assert browser.find_element(By.ID, "email").get_attribute("placeholder") == "Email Address"
    browser.find_element(By.CSS_SELECTOR, ".language-button[value='fr']").click()
    wait_for(browser, lambda d: d.find_element(By.TAG_NAME, "html").get_attribute("lang") == "fr")
