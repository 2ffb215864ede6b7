"""Regie scenarios: every numbered rule of NOTES.md §4, its readings and its option, on
small kits built here so that each situation is plain to see.

The test kit has 3 frame columns and bars of 5 cells (one cell outside the frame on each
side when centred, travel 1). A bar is written as its five cells: ``".o.o."`` has
windows at frame columns 0 and 2 when centred. Chips are placed as ``{(level, column):
seat}`` with levels 1 (top) to 6 and frame columns at the current positions; seat 0 is
red, 1 is blue.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from rules import CHANCE, IllegalMove, get_game, new_game
from rules.catalogue import catalogue
from rules.regie import (
    Doubt,
    Insert,
    MoveBox,
    Seen,
    SeenExit,
    Slide,
    Start,
    effective_kit,
)
from rules.regie.notation import state_from_json, state_to_json
from rules.regie.observe import Sighting, move_from_sightings, observe

REGIE = get_game("regie")
RULEBOOK = "regie.de.txt"
SCENARIOS = True  # every test cites its rulebook heading and NOTES.md rule (conftest.py)
OPEN = ".o.o."  # windows at frame columns 0 and 2
SHUT = "o.o.o"  # solid at columns 0 and 2 when centred; windows there one click right
STOPS = (OPEN, SHUT, OPEN, OPEN, OPEN, OPEN)  # a chip put in at column 0 or 2 stays in level 1
CASCADE = (OPEN, OPEN, SHUT, OPEN, OPEN, OPEN)  # chips in level 2 rest on level 3


def kit(*bars: str, chips: int = 8) -> dict:
    """A test kit document: six bars (top first), box rows 1-2-3 / 0-0-0 / 4-5-6."""
    assert len(bars) == 6
    return {
        "kit": 1,
        "game": "regie",
        "name": "test",
        "chips_per_player": chips,
        "frame": {"columns": 3},
        "levels": [{"cells": bar, "travel": 1} for bar in bars],
        "box": {"rows": [[1, 2, 3], [0, 0, 0], [4, 5, 6]], "under_frame": [1, 2, 3], "start": 2},
    }


def table(
    chips: dict | None = None,
    *,
    bars=STOPS,
    turn: int = 0,
    box: int = 2,
    levels=(0, 0, 0, 0, 0, 0),
    reserve=None,
    landed=(),
    last=(None, None),
    options=None,
    per_player: int = 8,
):
    """A position after the start: ``turn`` to move."""
    state = REGIE.new(2, options, REGIE.kit_from_json(kit(*bars, chips=per_player)))
    document = state_to_json(state)
    document.update(first=0, turn=turn, box=box, levels=list(levels), last=list(last))
    document["landed"] = list(landed)
    windows = [{} for _ in range(6)]
    counts = [0, 0]
    for (level, column), seat in (chips or {}).items():
        cell = 1 + column - levels[level - 1]
        windows[level - 1][str(cell)] = seat
        counts[seat] += 1
    document["windows"] = windows
    through = [sum(1 for chip in landed if chip["player"] == s) for s in (0, 1)]
    document["reserve"] = list(
        reserve if reserve is not None else [per_player - counts[s] - through[s] for s in (0, 1)]
    )
    document["ply"] = 2
    return state_from_json(document)


def chips_in(state) -> dict:
    """The chips in the levels as ``{(level, column): seat}`` at the current positions."""
    found = {}
    kit_ = effective_kit(state)
    for k, bar in enumerate(state.windows):
        for cell, seat in enumerate(bar):
            if seat is not None:
                found[(k + 1, cell - kit_.margin(k) + state.levels[k])] = seat
    return found


def refused(state, move, rule: str, *fragments: str) -> IllegalMove:
    with pytest.raises(IllegalMove) as error:
        REGIE.play(state, move)
    assert error.value.rule == rule, str(error.value)
    assert rule in catalogue()
    for fragment in (REGIE.move_text(move), *fragments):
        assert fragment in str(error.value), str(error.value)
    return error.value


# -- NOTES.md §4 rule 1: chips and the start position ---------------------------------


@pytest.mark.cites(RULEBOOK, "Start-Position", "§4 rule 1")
def test_start_position_levels_centred_box_in_the_middle_eight_chips_each():
    state = new_game("regie")
    assert state.levels == (0, 0, 0, 0, 0, 0)
    assert state.box == 2 and state.kit.box_rows[state.kit.box_row(2)] == (0,) * 7
    assert state.reserve == (8, 8) and not state.landed
    assert not any(any(bar) for bar in state.windows)


@pytest.mark.cites(RULEBOOK, "Spielregeln", "§4 rule 2")
def test_it_is_settled_who_begins_before_anything_moves():
    state = new_game("regie")
    assert REGIE.to_act(state) is CHANCE
    assert REGIE.chance_outcomes(state) == ((Start(0), Fraction(1, 2)), (Start(1), Fraction(1, 2)))
    refused(state, Slide(0, 1, 1), "regie.who-begins", "the choice of who begins")
    state = REGIE.play(state, Start(1))
    assert REGIE.to_act(state) == 1
    refused(state, Start(0), "regie.who-begins")


@pytest.mark.cites(RULEBOOK, "Chips", "§4 rule 1")
def test_no_chip_left_to_put_in():
    state = table(
        reserve=(0, 8), per_player=8, landed=[{"player": 0, "kind": "table", "side": "left"}] * 8
    )
    assert REGIE.is_over(state)
    state = table(
        {(2, 1): 0}, reserve=(0, 8), landed=[{"player": 0, "kind": "table", "side": "left"}] * 7
    )
    refused(state, Insert(0, 0), "regie.no-chip", "all your chips are in play already")


# -- §4 rule 2: the three moves -----------------------------------------------------


@pytest.mark.cites(RULEBOOK, "Spielregeln", "§4 rule 2")
def test_players_alternate():
    state = table()
    refused(state, Insert(1, 0), "regie.turn-order", "it is seat 0's turn, not seat 1's")
    after = REGIE.play(state, Insert(0, 0))
    assert REGIE.to_act(after) == 1


@pytest.mark.cites(RULEBOOK, "Spielregeln", "§4 rule 2")
def test_move_a_puts_a_chip_into_a_free_top_window_inside_the_frame():
    state = table({(1, 2): 1})
    assert [m.column for m in REGIE.legal_moves(state) if isinstance(m, Insert)] == [0]
    after = REGIE.play(state, Insert(0, 0))
    assert chips_in(after) == {(1, 0): 0, (1, 2): 1} and after.reserve == (7, 7)
    refused(state, Insert(0, 2), "regie.insert-slot", "no free window at frame column 2")
    refused(state, Insert(0, 1), "regie.insert-slot", "chips go in at columns 0")
    refused(state, Insert(0, 3), "regie.insert-slot")  # outside the frame


@pytest.mark.cites(RULEBOOK, "Spielregeln", "§4 Ambiguities: Chip that falls through at insertion")
def test_move_a_must_not_fall_through_to_level_two():
    # Level 2 open under column 0: a chip put in there would fall on.
    state = table(bars=(OPEN, OPEN, SHUT, OPEN, OPEN, OPEN))
    assert not any(isinstance(m, Insert) for m in REGIE.legal_moves(state))
    refused(state, Insert(0, 0), "regie.insert-falls-through", "must come to rest in level 1")


@pytest.mark.cites(RULEBOOK, "Spielregeln", "§4 Ambiguities: Chip that falls through at insertion")
def test_a_chip_that_falls_through_anyway_costs_the_next_turn_and_scores_nothing():
    state = table(bars=(OPEN, OPEN, OPEN, OPEN, OPEN, OPEN), box=1)
    move = Insert(0, 2, Seen(through=True))  # it happened: reality is accepted
    after = REGIE.play(state, move)
    assert after.landed[-1].value == 0 and after.landed[-1].column == 2  # worth 3 otherwise
    assert after.skips == (1, 0) and after.turn == 1
    assert "fall-through" in REGIE.situations(state, move)
    after = REGIE.play(after, Slide(1, 3, 1))
    assert after.turn == 1 and after.skips == (0, 0)  # red misses its turn: blue again
    after = REGIE.play(after, Slide(1, 4, 1))
    assert after.turn == 0


@pytest.mark.cites(RULEBOOK, "Spielregeln", "§4 Ambiguities: Chip that falls through at insertion")
def test_option_penalty_allows_a_fall_through_at_its_price():
    state = table(bars=(OPEN, OPEN, SHUT, OPEN, OPEN, OPEN), options={"fall_through": "penalty"})
    assert Insert(0, 0) in REGIE.legal_moves(state)
    after = REGIE.play(state, Insert(0, 0))
    assert chips_in(after) == {(2, 0): 0} and after.skips == (1, 0)


@pytest.mark.cites(RULEBOOK, "Spielregeln", "§4 rule 2")
def test_move_b_slides_a_level_one_click_never_a_ridged_end_into_the_frame():
    state = table(levels=(1, 0, 0, 0, 0, 0))
    refused(state, Slide(0, 1, 1), "regie.slide-travel", "level 1 cannot move right")
    refused(state, Slide(0, 7, 1), "regie.slide-travel", "the levels are 1 to 6")
    after = REGIE.play(state, Slide(0, 1, -1))
    assert after.levels[0] == 0


@pytest.mark.cites(RULEBOOK, "Spielregeln", "§4 rule 2")
def test_move_b_not_the_level_the_opponent_slid_last():
    state = table(turn=1, last=({"type": "slide", "level": 4}, None))
    refused(state, Slide(1, 4, 1), "regie.same-level", "level 4 was slid by the opponent")
    assert not any(isinstance(m, Slide) and m.level == 4 for m in REGIE.legal_moves(state))
    assert "slide-refused" in REGIE.situations(state, Slide(1, 5, 1))
    REGIE.play(state, Slide(1, 5, 1))


@pytest.mark.cites(RULEBOOK, "Spielregeln", "§4 rule 2")
def test_move_c_moves_the_box_one_position():
    state = table(box=2)
    assert {m.to for m in REGIE.legal_moves(state) if isinstance(m, MoveBox)} == {1, 3}
    for to in (2, 4, 0):
        refused(state, MoveBox(0, to), "regie.box-step", "the box moves one position from 2")
    refused(table(box=1), MoveBox(0, 3), "regie.box-step")


@pytest.mark.cites(RULEBOOK, "Spielregeln", "§4 rule 2")
def test_move_c_never_straight_back_where_the_opponent_moved_it_from():
    state = table(box=2, turn=1, last=({"type": "box", "from": 1}, None))
    refused(state, MoveBox(1, 1), "regie.box-back", "the opponent just moved the box from 1 to 2")
    assert REGIE.play(state, MoveBox(1, 3)).box == 3


@pytest.mark.cites(RULEBOOK, "Spielregeln", "§4 Ambiguities: If the opponent just moved the box")
def test_after_the_opponent_moved_the_box_to_an_end_no_box_move_is_left():
    state = table(box=3, turn=1, last=({"type": "box", "from": 2}, None))
    assert not any(isinstance(m, MoveBox) for m in REGIE.legal_moves(state))


# -- §4 rule 3: scoring -------------------------------------------------------------


@pytest.mark.cites(RULEBOOK, "Spielregeln", "§4 rule 3")
def test_a_slide_cascades_chips_of_both_players_through_several_levels_at_once():
    # Red sits in level 2 over column 0 with a blue chip resting on it in level 1;
    # blue sits in level 2 over column 2. Level 3 holds them; slid right it opens under
    # both columns, and all three drop through levels 3 to 6 into the box.
    state = table({(2, 0): 0, (1, 0): 1, (2, 2): 1}, bars=CASCADE, box=3)
    move = Slide(0, 3, 1)
    after = REGIE.play(state, move)
    assert chips_in(after) == {}
    new = after.landed[len(state.landed) :]
    assert [(c.owner, c.column, c.value) for c in new] == [(0, 0, 4), (1, 2, 6), (1, 0, 4)]
    assert REGIE.scores(after) == (4, 10)
    events = REGIE.situations(state, move)
    assert "cascade" in events and "multi-fall" in events


@pytest.mark.cites(
    RULEBOOK, "Spielregeln", "§4 Ambiguities: Chips dropped by either player's B or C move"
)
def test_chips_dropped_by_the_opponents_move_score_for_their_owner():
    state = table({(2, 0): 0}, turn=1, bars=CASCADE, box=1)
    after = REGIE.play(state, Slide(1, 3, 1))
    assert REGIE.scores(after) == (1, 0)  # red's chip, blue's slide


@pytest.mark.cites(RULEBOOK, "Spielregeln", "§4 rule 3")
def test_a_chip_scores_the_compartment_of_the_row_under_the_frame_when_it_falls():
    for box, value in ((1, 3), (2, 0), (3, 6)):
        state = table({(2, 2): 0}, bars=CASCADE, box=box)
        after = REGIE.play(state, Slide(0, 3, 1))
        assert after.landed[-1].value == value and after.landed[-1].row == box - 1


@pytest.mark.cites(RULEBOOK, "Spielregeln", "§4 rule 3")
def test_a_chip_carried_out_of_the_frame_falls_on_the_table_played_and_not_scored():
    state = table({(1, 0): 0})
    after = REGIE.play(state, Slide(0, 1, -1))  # level 1 left: column 0's window leaves
    chip = after.landed[-1]
    assert (chip.kind, chip.side, chip.value) == ("table", "left", 0)
    assert after.through(0) == 1 and REGIE.scores(after) == (0, 0)
    assert "table" in REGIE.situations(state, Slide(0, 1, -1))


# -- §4 rule 4: the end ---------------------------------------------------------------


def through(seat: int, count: int, value: int = 0) -> list[dict]:
    """``count`` chips of ``seat`` in the box, each worth ``value`` (0 to 3: the zero row,
    or the compartment of row 1 worth that much)."""
    chip = {"player": seat, "kind": "box", "column": max(value - 1, 0), "row": 0 if value else 1}
    return [{**chip, "value": value}] * count


@pytest.mark.cites(RULEBOOK, "Spielregeln", "§4 rule 4")
def test_the_game_ends_when_a_player_has_all_chips_through_and_the_higher_total_wins():
    # Red has 7 through worth 0; blue 2 worth 3 each and more in play. Red's last chip
    # goes through: red finished, but blue's 6 points win.
    landed = through(0, 7) + through(1, 2, 3)
    state = table({(2, 0): 0, (2, 2): 1}, bars=CASCADE, landed=landed, box=2)
    after = REGIE.play(state, Slide(0, 3, 1))
    assert after.through(0) == 8
    outcome = REGIE.outcome(after)
    assert outcome.reason == "regie.all-through" and outcome.winners == (1,)
    assert "red brought all 8 chips through; 0-6" in outcome.detail
    refused(after, MoveBox(1, 3), "regie.game-over", "the game is over")


@pytest.mark.cites(RULEBOOK, "Spielregeln", "§4 rule 4")
def test_equal_totals_draw():
    state = table({(2, 0): 0}, landed=through(0, 7, 1) + through(1, 7, 1), bars=CASCADE, box=2)
    outcome = REGIE.outcome(REGIE.play(state, Slide(0, 3, 1)))  # red's last chip: +0
    assert outcome.is_draw and outcome.ranking == ((0, 1),)
    assert outcome.detail.endswith("7-7")


# -- reality wins over the kit -------------------------------------------------------


@pytest.mark.cites(RULEBOOK, "Spielregeln", "§4 Ambiguities: Chip that falls through at insertion")
def test_reality_wins_a_chip_falls_through_where_the_kit_says_it_stops():
    state = table(box=1)  # the kit: level 2 is solid under column 0
    assert Insert(0, 0) in REGIE.legal_moves(state)
    seen = Seen(through=True, exits=(SeenExit("box", column=0),))
    after = REGIE.play(state, Insert(0, 0, seen))
    # The rulebook's consequence: missed turn, no score; the kit's error is kept.
    assert after.skips == (1, 0) and after.landed[-1].value == 0
    assert after.doubts == (Doubt(2, 1, 1, "window"),)
    assert after.doubts[0].field == "levels[1].cells[1]"
    assert "kit-doubt" in REGIE.situations(state, Insert(0, 0, seen))
    # From now on the game believes what it saw: column 0 lets a chip fall through.
    assert effective_kit(after).levels[1].cells[1] is True
    later = REGIE.play(after, Slide(1, 6, 1))
    later = REGIE.play(later, Slide(1, 5, 1))  # red's turn was missed
    refused(later, Insert(1, 0), "regie.turn-order")
    assert parse_back(after) == after


def parse_back(state):
    return state_from_json(state_to_json(state))


@pytest.mark.cites(RULEBOOK, "Spielregeln", "§4 rule 3")
def test_reality_wins_a_chip_stops_where_the_kit_says_it_falls():
    # A chip in level 5 over column 2; level 6 slid right opens under it, says the kit.
    bars = (OPEN, OPEN, OPEN, OPEN, OPEN, SHUT)
    state = table({(5, 2): 0}, bars=bars, box=1)
    predicted = REGIE.play(state, Slide(0, 6, 1))
    assert predicted.landed[-1].column == 2
    after = REGIE.play(state, Slide(0, 6, 1, Seen(exits=())))  # nothing entered the box
    assert after.landed == state.landed
    assert chips_in(after) == {(5, 2): 0}
    assert [d.field for d in after.doubts] == ["levels[5].cells[2]"]
    assert after.doubts[0].seen == "solid"


@pytest.mark.cites(RULEBOOK, "Spielregeln", "§4 rule 3")
def test_a_report_with_several_disagreeing_explanations_is_held_for_the_table():
    # A chip in level 2 that did not reach the box may have stopped in level 2, 3, 4, 5
    # or 6: the sensors cannot tell, so the engine does not guess.
    state = table({(2, 2): 0}, bars=CASCADE, box=1)
    refused(state, Slide(0, 3, 1, Seen(exits=())), "regie.unexplained", "tell the table")


@pytest.mark.cites(RULEBOOK, "Spielregeln", "§4 rule 3")
def test_a_correction_must_fit_the_frame_as_it_stood():
    # Red rests in level 1 over column 0 on level 2's solid cell, which did not move. A
    # report that red's chip reached the box cannot mean that cell was open all along.
    state = table({(1, 0): 0}, bars=(OPEN, SHUT, OPEN, OPEN, OPEN, "oo.oo"), turn=1, box=1)
    seen = Seen(exits=(SeenExit("box", column=0),))
    refused(state, Slide(1, 6, 1, seen), "regie.unexplained")


@pytest.mark.cites(RULEBOOK, "Spielregeln", "§4 rule 2")
def test_an_insertion_seen_where_the_kit_has_no_window_corrects_level_one():
    state = table()  # level 1 is solid at column 1, says the kit
    refused(state, Insert(0, 1), "regie.insert-slot")
    move = move_from_sightings(state, (Sighting("inserted", column=1),))
    after = REGIE.play(state, move)
    assert [(d.field, d.seen) for d in after.doubts] == [("levels[0].cells[2]", "window")]
    # Under that window level 2 is open, so the chip fell through: red misses a turn.
    assert chips_in(after) == {(2, 1): 0} and after.skips == (1, 0)


@pytest.mark.cites(RULEBOOK, "Spielregeln", "§4 Ambiguities: Chip that falls through at insertion")
def test_two_fall_throughs_in_a_row_each_cost_a_turn():
    state = table(bars=(OPEN,) * 6, options={"fall_through": "penalty"})
    state = REGIE.play(state, Insert(0, 0))  # red falls through: red misses a turn
    state = REGIE.play(state, Insert(1, 2))  # blue falls through too
    # Red's missed turn comes first, then blue's: so red moves, then blue again.
    assert state.turn == 0 and state.skips == (0, 0)
    state = REGIE.play(state, Slide(0, 3, 1))
    assert state.turn == 1


@pytest.mark.cites(RULEBOOK, "Spielregeln", "§4 rule 3")
def test_a_report_no_kit_correction_explains_is_refused():
    state = table()
    seen = Seen(exits=tuple(SeenExit("table", side="left") for _ in range(3)))
    refused(state, Slide(0, 4, 1, seen), "regie.unexplained", "check the sensors and the kit")


# -- what the sensors will see --------------------------------------------------------


@pytest.mark.cites(RULEBOOK, "Spielregeln", "§4 rule 3")
def test_sightings_of_a_move_and_back():
    state = table({(2, 0): 0, (1, 0): 1, (2, 2): 1}, bars=CASCADE, box=3)
    move = Slide(0, 3, 1)
    sightings = observe(state, move)
    assert sightings == (
        Sighting("level", level=3, position=1),
        Sighting("compartment", column=0),
        Sighting("compartment", column=2),
        Sighting("compartment", column=0),
    )
    reported = move_from_sightings(state, sightings)
    assert REGIE.is_report(reported)
    assert REGIE.play(state, reported) == REGIE.play(state, move)  # no doubt: as predicted
    assert observe(state, MoveBox(0, 2)) == (Sighting("box", position=2),)
    assert observe(table(), Insert(0, 0)) == (Sighting("inserted", column=0),)


@pytest.mark.cites(RULEBOOK, "Spielregeln", "§4 rule 2")
def test_sightings_that_describe_no_move_are_refused_with_the_reason():
    from rules import NotationError

    state = table()
    with pytest.raises(NotationError, match="a move slides it one click"):
        move_from_sightings(state, (Sighting("level", level=2, position=5),))
    with pytest.raises(NotationError, match=r"sightings\[1\]: after the action only chips"):
        move_from_sightings(state, (Sighting("box", position=1), Sighting("box", position=2)))
    with pytest.raises(NotationError, match="no sighting"):
        move_from_sightings(state, ())
