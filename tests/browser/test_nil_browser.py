"""The demo's Nil table in a real browser (headless Chromium): its panel, the board with
the river, grows tile by tile as the bots lay them, without the page reloading."""

from __future__ import annotations

import re

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from browser.conftest import record_texts, recorded_texts

pytestmark = pytest.mark.browser

#: How Nil describes a tile laid: "Seat 1 lays a curve on k2, turned 1, from S to E (+2)."
LAID = re.compile(r"\bSeat \d lays an? [a-z-]+ .*on [a-u]\d+")


def tiles_drawn(browser) -> int:
    return browser.execute_script("return document.querySelectorAll('#board .tile').length;")


def test_the_nil_panel_grows_tile_by_tile_without_reloading(demo, browser):
    browser.get(demo.url("/tables/nil"))
    browser.execute_script("window.__loadedOnce = Date.now();")
    marker = browser.execute_script("return window.__loadedOnce;")
    WebDriverWait(browser, 20).until(
        lambda driver: driver.find_elements(By.CSS_SELECTOR, "#board svg.panel-nil")
    )
    assert browser.find_element(By.TAG_NAME, "h1").text == "Nil"
    record_texts(browser, "#last")
    # The board's tiles grow as the bots lay them; a finished game begins again from an
    # empty board, so the count to beat is the lowest seen since.
    lowest = [tiles_drawn(browser)]

    def grown(driver) -> bool:
        count = tiles_drawn(driver)
        lowest[0] = min(lowest[0], count)
        return count > lowest[0]

    WebDriverWait(browser, 30, poll_frequency=0.05).until(grown)
    WebDriverWait(browser, 30, poll_frequency=0.05).until(
        lambda driver: any(LAID.search(text) for text in recorded_texts(driver, "#last"))
    )
    assert browser.execute_script("return window.__loadedOnce;") == marker, "the page reloaded"
    # The picture is the Nil board: cells to tap, the kit's numbered fields, the river.
    cells = browser.find_elements(By.CSS_SELECTOR, "#board .place[data-place='k1']")
    assert len(cells) == 1
    fields = browser.find_elements(By.CSS_SELECTOR, "#board .cell[data-field='blue']")
    assert len(fields) >= 10
    assert browser.find_elements(By.CSS_SELECTOR, "#board .river, #board .start")
