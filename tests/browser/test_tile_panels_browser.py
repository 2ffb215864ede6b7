"""The demo's tile tables, Nil and Horus, in a real browser (headless Chromium): each
panel grows tile by tile as the bots lay them, without the page reloading, and the
panel's own marks of where a legal move goes follow the page's Hints box."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from browser.conftest import record_texts, recorded_texts

pytestmark = pytest.mark.browser


def _nil_picture(browser: Any) -> None:
    # The Nil board: cells to tap, the kit's numbered fields, the river.
    assert len(browser.find_elements(By.CSS_SELECTOR, "#board .place[data-place='k1']")) == 1
    assert len(browser.find_elements(By.CSS_SELECTOR, "#board .cell[data-field='blue']")) >= 10
    assert browser.find_elements(By.CSS_SELECTOR, "#board .river, #board .start")


def _horus_picture(browser: Any) -> None:
    # The Horus layout: the two river ends ringed, the pyramid, a count row a player.
    assert len(browser.find_elements(By.CSS_SELECTOR, "#board .end")) == 2
    assert browser.find_elements(By.CSS_SELECTOR, "#board .pyramid")
    assert len(browser.find_elements(By.CSS_SELECTOR, "#board .count")) == 3
    assert browser.find_elements(By.CSS_SELECTOR, "#board .place[data-place='0,0']")


@dataclass(frozen=True)
class TileTable:
    game: str
    title: str
    #: How the game describes a tile laid, in the last move's words.
    laid: re.Pattern[str]
    picture: Callable[[Any], None]


#: "Seat 1 lays a curve on k2, turned 1, from S to E (+2)."
NIL_LAID = re.compile(r"\bSeat \d lays an? [a-z-]+ .*on [a-u]\d+")
#: "Seat 1 lays a desert tile at 2,-2."
HORUS_LAID = re.compile(r"\bSeat \d lays (an? [a-z]+ tile|the temple) at -?\d+,-?\d+")
TABLES = [
    TileTable("nil", "Nil", NIL_LAID, _nil_picture),
    TileTable("horus", "Horus", HORUS_LAID, _horus_picture),
]


def tiles_drawn(browser: Any) -> int:
    return browser.execute_script("return document.querySelectorAll('#board .tile').length;")


def marks_shown(browser: Any) -> list[str]:
    """The CSS display of each of the panel's marks of a legal place."""
    return browser.execute_script(
        "return Array.from(document.querySelectorAll('#board .next'))"
        ".map(function (e) { return getComputedStyle(e).display; });"
    )


@pytest.mark.parametrize("table", TABLES, ids=[t.game for t in TABLES])
def test_the_panel_grows_tile_by_tile_without_reloading(demo, browser, table):
    browser.get(demo.url(f"/tables/{table.game}"))
    browser.execute_script("window.__loadedOnce = Date.now();")
    marker = browser.execute_script("return window.__loadedOnce;")
    WebDriverWait(browser, 20).until(
        lambda driver: driver.find_elements(By.CSS_SELECTOR, f"#board svg.panel-{table.game}")
    )
    assert browser.find_element(By.TAG_NAME, "h1").text == table.title
    record_texts(browser, "#last")
    # The tiles grow as the bots lay them; a finished game begins again from its start,
    # so the count to beat is the lowest seen since.
    lowest = [tiles_drawn(browser)]

    def grown(driver) -> bool:
        count = tiles_drawn(driver)
        lowest[0] = min(lowest[0], count)
        return count > lowest[0]

    WebDriverWait(browser, 30, poll_frequency=0.05).until(grown)
    WebDriverWait(browser, 30, poll_frequency=0.05).until(
        lambda driver: any(table.laid.search(text) for text in recorded_texts(driver, "#last"))
    )
    assert browser.execute_script("return window.__loadedOnce;") == marker, "the page reloaded"
    table.picture(browser)


@pytest.mark.parametrize("table", TABLES, ids=[t.game for t in TABLES])
def test_the_panels_marks_of_legal_places_follow_the_hints_box(demo, browser, table):
    browser.get(demo.url(f"/tables/{table.game}"))
    # Hints start off on a new tablet: the marks are drawn but not shown.
    assert not browser.find_element(By.ID, "hints").is_selected()
    WebDriverWait(browser, 30, poll_frequency=0.05).until(
        lambda driver: (shown := marks_shown(driver)) and set(shown) == {"none"}
    )
    browser.execute_script("document.getElementById('hints').click();")
    WebDriverWait(browser, 30, poll_frequency=0.05).until(
        lambda driver: (shown := marks_shown(driver)) and "none" not in shown
    )
