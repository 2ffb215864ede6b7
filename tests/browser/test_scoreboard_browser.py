"""The scoreboard in a real browser (headless Chromium) against the demo service: it
follows the live event stream without reloading, and the start page leads to it."""

from __future__ import annotations

import re

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from browser.conftest import read_state, record_texts, recorded_texts, wait_for_text

pytestmark = pytest.mark.browser

#: How Uräus describes a roll: "The die of seat 1 shows 4.", "The roll-off die of seat 0 ...".
ROLL = re.compile(r"\bdie of seat \d+ shows [1-6]\b")
TABLES = {
    "uraeus": "Uräus",
    "regie": "Regie",
    "gimmel": "Gimmel",
    "nil": "Nil",
    "horus": "Horus",
}


def test_the_scoreboard_shows_die_rolls_live_without_reloading(demo, browser):
    browser.get(demo.url("/tables/uraeus"))
    browser.execute_script("window.__loadedOnce = Date.now();")
    marker = browser.execute_script("return window.__loadedOnce;")
    first = browser.find_element(By.ID, "last").text
    record_texts(browser, "#last")

    shown = wait_for_text(browser, "#last", lambda text: text != first and bool(ROLL.search(text)))
    assert ROLL.search(shown)
    # The page fetches the state once after loading, which could bring one roll: a second
    # roll shown since can only have come through the event stream.
    WebDriverWait(browser, 20, poll_frequency=0.05).until(
        lambda driver: sum(bool(ROLL.search(t)) for t in recorded_texts(driver, "#last")) >= 2
    )
    assert browser.execute_script("return window.__loadedOnce;") == marker, "the page reloaded"
    assert browser.find_element(By.ID, "link").text == "Live"
    state = read_state(demo.base, "uraeus")
    names = [e.text for e in browser.find_elements(By.CSS_SELECTOR, "#players .name")]
    assert names == state["players"]


def test_the_start_page_lists_the_tables_and_leads_to_a_scoreboard(demo, browser):
    browser.get(demo.url("/"))
    links = {}
    for anchor in browser.find_elements(By.CSS_SELECTOR, "a[href]"):
        href = anchor.get_attribute("href")
        found = re.search(r"/tables/([a-z]+)$", href)
        if found:
            links[found.group(1)] = anchor
    assert set(links) == set(TABLES)
    for table_id, title in TABLES.items():
        assert title in links[table_id].text

    links["gimmel"].click()
    WebDriverWait(browser, 10).until(lambda driver: driver.current_url.endswith("/tables/gimmel"))
    assert browser.find_element(By.TAG_NAME, "h1").text == "Gimmel"
    scores = [e.text for e in browser.find_elements(By.CSS_SELECTOR, "#players .score")]
    assert len(scores) == len(read_state(demo.base, "gimmel")["players"]) == 2
    assert all(re.fullmatch(r"\d+", score) for score in scores), scores
