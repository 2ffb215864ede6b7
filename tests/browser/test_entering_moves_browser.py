"""Entering moves on the tablet in a real browser (headless Chromium) against the demo
with seats left to people: a move chosen from the buttons after the emulated die's roll
is journalled with the PIN; a placement tapped onto an occupied square is flagged with
its rule, in English and German, with the rulebook heading."""

from __future__ import annotations

import json
import re

import pytest
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from browser.conftest import (
    PACE,
    get_json,
    record_texts,
    recorded_texts,
    start_server,
    stop_server,
    wait_for_text,
)

pytestmark = pytest.mark.browser

DEMO_PIN = "1234"


@pytest.fixture(scope="module")
def people(tmp_path_factory):
    """The demo with Uräus seat 0 and both Gimmel seats left to the tablet."""
    humans = ("--human", "uraeus:0", "--human", "gimmel:0", "--human", "gimmel:1")
    server = start_server(tmp_path_factory.mktemp("people"), "--demo", "--pace", str(PACE), *humans)
    try:
        yield server
    finally:
        stop_server(server)


def click_when_ready(browser, css: str, timeout: float = 20.0):
    """Click the first element matching ``css`` once it is shown; return the element's
    text and its ``data-move``. The page redraws on every event, so an element found may
    be replaced before the click."""

    def clicked(driver):
        try:
            found = [e for e in driver.find_elements(By.CSS_SELECTOR, css) if e.is_displayed()]
            if not found:
                return False
            text, move = found[0].text, found[0].get_attribute("data-move")
            found[0].click()
            return text, move
        except StaleElementReferenceException:
            return False

    return WebDriverWait(browser, timeout, poll_frequency=0.05).until(clicked)


def test_a_move_chosen_after_the_dies_roll_is_journalled_with_the_pin(people, browser):
    browser.get(people.url("/tables/uraeus"))
    browser.execute_script("window.__loadedOnce = true;")
    browser.find_element(By.ID, "pin").send_keys(DEMO_PIN)
    # The die rolls for seat 0; when the roll allows several moves (one, the table makes),
    # seat 0 must choose, and the page offers them.
    WebDriverWait(browser, 60, poll_frequency=0.1).until(
        lambda _: people.state("uraeus")["to_act"] == 0
    )
    record_texts(browser, "#last")  # the bots and the die move on at once: keep every text
    chosen, move = click_when_ready(browser, "#moves button.move")
    WebDriverWait(browser, 20, poll_frequency=0.05).until(
        lambda driver: chosen in recorded_texts(driver, "#last")
    )
    journal = get_json(people.url("/api/tables/uraeus/journal?since=0"))["entries"]
    moves = [e["data"] for e in journal if e["kind"] == "move"]
    assert json.loads(move) in moves and json.loads(move)["player"] == 0
    assert browser.execute_script("return window.__loadedOnce;") is True  # no reload


def test_a_placement_onto_an_occupied_square_is_flagged_with_its_rule(people, browser):
    browser.get(people.url("/tables/gimmel"))
    browser.find_element(By.ID, "pin").send_keys(DEMO_PIN)
    # The bots draw the colour lot; then both seats are the tablet's.
    WebDriverWait(browser, 20).until(lambda _: isinstance(people.state("gimmel")["to_act"], int))
    seat = people.state("gimmel")["to_act"]
    click_when_ready(browser, f'[data-place="reserve:{seat}:beetle"]')
    click_when_ready(browser, '[data-place="a1"]')
    wait_for_text(browser, "#last", "a1")
    other = 1 - seat
    click_when_ready(browser, f'[data-place="reserve:{other}:beetle"]')
    click_when_ready(browser, '[data-place="a1"]')
    words = wait_for_text(browser, "#attention-words", re.compile(r"\[gimmel\.[a-z-]+\]"))
    rule = re.search(r"\[(gimmel\.[a-z-]+)\]", words).group(1)
    flag = browser.find_element(By.ID, "attention")
    assert "flag" in flag.get_attribute("class").split()
    assert browser.find_element(By.ID, "attention-head").text == "Not allowed:"
    assert browser.find_element(By.ID, "attention-other").text  # the German rule beside it
    assert "gimmel.de.txt" in browser.find_element(By.ID, "attention-source").text
    assert people.state("gimmel")["attention"]["rule"] == rule
    # In German the rulebook's own words lead.
    browser.find_element(By.ID, "lang").click()
    wait_for_text(browser, "#attention-head", "Nicht erlaubt:")
    assert (
        people.state("gimmel")["attention"]["german"]
        in browser.find_element(By.ID, "attention-words").text
    )


def test_the_position_editor_sets_a_game_in_progress(people, browser):
    browser.get(people.url("/tables/gimmel"))
    browser.find_element(By.ID, "pin").send_keys(DEMO_PIN)
    browser.find_element(By.CSS_SELECTOR, "#position summary").click()
    click_when_ready(browser, '#editor-board [data-place="e7"]')
    chosen, _ = click_when_ready(browser, "#editor-choices button:nth-child(4)")  # a falcon
    WebDriverWait(browser, 10).until(
        lambda driver: '"e7"' in driver.find_element(By.ID, "position-text").get_attribute("value")
    )
    before = people.state("gimmel")
    browser.find_element(By.CSS_SELECTOR, "#position-form > button[type=submit]").click()
    WebDriverWait(browser, 10).until(lambda _: people.state("gimmel")["seq"] > before["seq"])
    board = people.state("gimmel")["state"]["board"]
    # The draft started from the table's position: what was there stays, the falcon joins.
    assert board == {**before["state"]["board"], "e7": board["e7"]}
    assert board["e7"]["piece"] == "falcon" and "falcon" in chosen
