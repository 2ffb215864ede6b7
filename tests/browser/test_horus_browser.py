"""The demo's Horus table in a real browser (headless Chromium): its panel, the layout
with its regions and river ends, grows tile by tile as the bots lay them, without the
page reloading."""

from __future__ import annotations

import re

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from browser.conftest import record_texts, recorded_texts

pytestmark = pytest.mark.browser

#: How Horus describes a tile laid: "Seat 1 lays a desert tile at 2,-2."
LAID = re.compile(r"\bSeat \d lays (an? [a-z]+ tile|the temple) at -?\d+,-?\d+")


def tiles_drawn(browser) -> int:
    return browser.execute_script("return document.querySelectorAll('#board .tile').length;")


def test_the_horus_panel_grows_tile_by_tile_without_reloading(demo, browser):
    browser.get(demo.url("/tables/horus"))
    browser.execute_script("window.__loadedOnce = Date.now();")
    marker = browser.execute_script("return window.__loadedOnce;")
    WebDriverWait(browser, 20).until(
        lambda driver: driver.find_elements(By.CSS_SELECTOR, "#board svg.panel-horus")
    )
    assert browser.find_element(By.TAG_NAME, "h1").text == "Horus"
    record_texts(browser, "#last")
    # A finished game begins again from the three start tiles, so the count to beat is
    # the lowest seen since.
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
    # The picture is the Horus layout: the two river ends ringed, the pyramid, the count.
    assert len(browser.find_elements(By.CSS_SELECTOR, "#board .end")) == 2
    assert browser.find_elements(By.CSS_SELECTOR, "#board .pyramid")
    assert len(browser.find_elements(By.CSS_SELECTOR, "#board .count")) == 3
    assert browser.find_elements(By.CSS_SELECTOR, "#board .place[data-place='0,0']")
