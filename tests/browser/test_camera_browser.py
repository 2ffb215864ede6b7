"""The demo's Gimmel table, run from its simulated camera, in a real browser (headless
Chromium): a move the camera saw (journalled after the camera's input) appears on the
open page through the event stream, in words and on the board, without a reload; the
page shows the camera's health and links the board as the camera read it."""

from __future__ import annotations

import itertools
import urllib.request

import cv2
import numpy as np
import pytest
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from browser.conftest import get_json, record_texts, recorded_texts
from rules import View, get_game, new_game

pytestmark = pytest.mark.browser

#: Seconds to wait for a move the camera saw: a move by hand takes about 5 s at the
#: demo's 3 frames a second, and a misread one is re-seated or entered on the tablet.
CAMERA_MOVE = 150.0


def camera_moves(base: str, since: int) -> list[tuple[int, dict]]:
    """The Gimmel table's moves journalled after ``since`` right after the camera's
    input: (the move's seq, the move)."""
    entries = get_json(f"{base}/api/tables/gimmel/journal?since={since}")["entries"]
    return [
        (b["seq"], b["data"])
        for a, b in itertools.pairwise(entries)
        if a["kind"] == "input" and a["data"].get("source") == "camera" and b["kind"] == "move"
    ]


def words_of(base: str, seq: int) -> str:
    """The move journalled at ``seq`` in words, as the page says it: the table's game
    replayed from its start (the demo's: two seats, the shipped kit and options)."""
    game = get_game("gimmel")
    states = [new_game("gimmel", 2, view=View.TABLE)]
    for entry in get_json(f"{base}/api/tables/gimmel/journal?since=0")["entries"]:
        if entry["kind"] == "move":
            move = game.move_from_json(entry["data"])
            if entry["seq"] == seq:
                return game.describe(states[-1], move, "en")
            states.append(game.play(states[-1], move))
        elif entry["kind"] == "undo" and len(states) > 1:
            states.pop()
    raise AssertionError(f"no move at seq {seq} in the Gimmel table's game")


def test_a_move_the_camera_saw_appears_on_the_page_without_reloading(demo, browser):
    browser.get(demo.url("/tables/gimmel"))
    browser.execute_script("window.__loadedOnce = true;")
    loaded = int(browser.find_element(By.TAG_NAME, "body").get_attribute("data-seq"))
    record_texts(browser, "#last")

    def drawn(driver, move: dict) -> bool:
        """Whether the page's board has the move's piece on the square it went to."""
        pieces = driver.find_elements(By.CSS_SELECTOR, f'#board [data-place="{move["to"]}"] .piece')
        kind = move.get("piece")
        return bool(pieces) and (kind is None or pieces[0].get_attribute("data-kind") == kind)

    def a_camera_move_shown(driver):
        """A move the camera saw since the page was loaded, in the words the page was
        given through the event stream, and on its board now (a misread move the table's
        people put right on the tablet no longer is: a later one will be)."""
        texts = recorded_texts(driver, "#last")
        for seq, move in camera_moves(demo.base, loaded):
            words = words_of(demo.base, seq)
            if words in texts and drawn(driver, move):
                return words, move
        return False

    wait = WebDriverWait(browser, CAMERA_MOVE, poll_frequency=0.5,
                         ignored_exceptions=(StaleElementReferenceException,))  # fmt: skip
    words, move = wait.until(a_camera_move_shown)
    assert move["to"] in words
    assert browser.execute_script("return window.__loadedOnce;") is True, "the page reloaded"

    sources = browser.find_element(By.ID, "sources").text
    assert "camera: \u2713 connected" in sources
    link = browser.find_element(By.ID, "camera-view").get_attribute("href")
    assert link.endswith("/api/tables/gimmel/camera.jpg")
    with urllib.request.urlopen(link, timeout=10) as answer:
        assert answer.headers["Content-Type"] == "image/jpeg"
        picture = cv2.imdecode(np.frombuffer(answer.read(), np.uint8), cv2.IMREAD_COLOR)
    assert picture is not None and picture.shape[0] > picture.shape[1]  # the board upright
