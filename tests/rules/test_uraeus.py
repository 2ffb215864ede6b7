"""Uräus scenarios: every numbered rule of NOTES.md §5, every option, and every worked
example ("Beispiele") of ``uraeus.de.txt``. The rulebook's pictures are missing, so each
example is rebuilt from its words; the test names the example.

Positions are written field by field: ``"10:r> 12:b<"`` is a red piece (seat 0) on field
10 facing the tail and a blue one (seat 1) on 12 facing the head; ``"12:r>/b<"`` is a
double on 12, red below and blue on top. Seats are red, blue, green, yellow.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from rules import CHANCE, IllegalMove, get_game, new_game
from rules.catalogue import catalogue
from rules.uraeus import HEAD, TAIL, Advance, Pass, Pending, Return, Roll, Stone
from rules.uraeus.notation import state_from_json, state_to_json

URAEUS = get_game("uraeus")
RULEBOOK = "uraeus.de.txt"
SCENARIOS = True  # every test cites its rulebook heading and NOTES.md rule (conftest.py)
SEATS = "rbgy"
FACE = {">": TAIL, "<": HEAD}


def table(
    pieces: str = "",
    *,
    players: int = 2,
    turn: int = 0,
    roll: int | None = None,
    home=None,
    border=None,
    options=None,
    pending: tuple[int, int] | None = None,
):
    """A position in play: ``turn`` to move with ``roll`` (or waiting for the die)."""
    state = new_game("uraeus", players=players, options=options)
    document = state_to_json(state)
    document["rolloff"] = None
    document["turn"] = turn
    document["roll"] = roll
    home = list(home or [0] * players)
    on_track = [0] * players
    for entry in pieces.split():
        field, stack = entry.split(":")
        stones = []
        for piece in stack.split("/"):
            seat = SEATS.index(piece[0])
            on_track[seat] += 1
            stones.append({"player": seat, "facing": "tail" if piece[1] == ">" else "head"})
        document["track"][field] = stones
    if pending is not None:
        on_track[pending[0]] += 1
        document["pending"] = {"player": pending[0], "field": pending[1]}
    document["home"] = home
    document["border"] = (
        list(border) if border is not None else [3 - on_track[s] - home[s] for s in range(players)]
    )
    document["finished"] = [s for s in range(players) if home[s] == 3]
    return state_from_json(document)


def at(state, field: int) -> str:
    """The pieces on ``field`` in the test notation, lower first."""
    return "/".join(
        f"{SEATS[s.owner]}{'>' if s.facing == TAIL else '<'}" for s in state.track[field]
    )


def moves_of(state, src):
    return [m for m in URAEUS.legal_moves(state) if isinstance(m, Advance) and m.src == src]


def ends(state, src) -> set[str]:
    """Where the piece on ``src`` can end with this roll, as "field:facing" (or "home")."""
    found = set()
    for move in moves_of(state, src):
        after = URAEUS.play(state, move)
        if after.home[move.player] > state.home[move.player]:
            found.add("home")
            continue
        for field, stones in enumerate(after.track):
            if stones != state.track[field] and field != src and stones:
                top = stones[-1]
                if top.owner == move.player:
                    found.add(f"{field}:{'>' if top.facing == TAIL else '<'}")
                    break
        else:
            found.add(f"{src}:{at(after, src)[-1]}")
    return found


def refused(state, move, rule: str, *fragments: str) -> IllegalMove:
    with pytest.raises(IllegalMove) as error:
        URAEUS.play(state, move)
    assert error.value.rule == rule, str(error.value)
    assert rule in catalogue()
    message = str(error.value)
    assert URAEUS.move_text(move) in message
    for fragment in fragments:
        assert fragment in message, message
    return error.value


# -- NOTES.md §5 rule 1: the track, the pieces, the die ---------------------------------


@pytest.mark.cites(RULEBOOK, "Das Spielbrett", "§5 rule 1")
def test_the_track_and_the_pieces():
    state = new_game("uraeus", players=4)
    assert len(state.track) == 64 and state.kit.tail == 63
    assert state.kit.scale == (21, 30, 37, 41, 53)
    assert state.kit.goose == (59, 60, 61, 62)
    assert state.border == (3, 3, 3, 3) and state.home == (0, 0, 0, 0)
    assert not any(state.track)
    for players in (1, 5):
        with pytest.raises(ValueError, match="uraeus takes 2 to 4 players"):
            new_game("uraeus", players=players)


@pytest.mark.cites(RULEBOOK, "Spielsteine und Spielwürfel", "§5 rule 1")
def test_the_die_is_a_chance_node_with_six_faces():
    state = table("10:r>", roll=None)
    assert URAEUS.to_act(state) is CHANCE
    assert URAEUS.chance_outcomes(state) == tuple((Roll(f), Fraction(1, 6)) for f in range(1, 7))
    for face in (0, 7, -1):
        refused(state, Roll(face), "uraeus.die-face", f"a die shows 1 to 6, not {face}")


# -- §5 rule 2: the roll-off, clockwise turns, entering ------------------------------


@pytest.mark.cites(RULEBOOK, "Spielbeginn", "§5 rule 2")
def test_the_highest_roll_starts_and_ties_roll_again():
    state = new_game("uraeus", players=3)
    assert URAEUS.chance_name(state) == "the roll-off die of seat 0"
    for face in (5, 5, 2):
        state = URAEUS.play(state, Roll(face))
    assert state.contenders == (0, 1)  # seats 0 and 1 tied on 5
    refused(state, Advance(0, None), "uraeus.die-first", "waiting for the roll-off die of seat 0")
    for face in (3, 6):
        state = URAEUS.play(state, Roll(face))
    assert state.contenders == () and state.turn == 1
    assert URAEUS.to_act(state) is CHANCE  # the starter rolls for the first move
    state = URAEUS.play(state, Roll(4))
    assert URAEUS.to_act(state) == 1


@pytest.mark.cites(RULEBOOK, "Spielzüge", "§5 rule 2")
def test_turns_go_clockwise_and_each_moves_one_piece_by_the_roll():
    state = table(players=3, turn=1, roll=4)
    refused(state, Advance(0, None), "uraeus.turn-order", "it is seat 1's turn, not seat 0's")
    refused(state, Advance(5, None), "uraeus.turn-order", "seat 5 is not at this table of 3")
    state = URAEUS.play(state, Advance(1, None))
    assert at(state, 4) == "b>"
    assert URAEUS.to_act(state) is CHANCE and state.turn == 2
    refused(state, Advance(2, None), "uraeus.die-first", "waiting for the die of seat 2")
    state = URAEUS.play(state, Roll(1))
    refused(state, Roll(3), "uraeus.die-first", "it is seat 2's turn, not chance's")


@pytest.mark.cites(RULEBOOK, "Spielbeginn", "§5 rule 2")
def test_a_new_piece_is_set_on_the_head_field_and_moved_from_there():
    state = table(roll=3)
    after = URAEUS.play(state, Advance(0, None))
    assert at(after, 3) == "r>" and after.border == (2, 3)
    # The head field is not a step, and a piece cannot turn on it.
    refused(state, Advance(0, None, 1), "uraeus.head-field", "cannot turn there")
    state = table("10:r>", border=(0, 3), home=(2, 0), roll=2)
    refused(state, Advance(0, None), "uraeus.no-entry", "no piece of yours is left on the border")


@pytest.mark.cites(RULEBOOK, "Spielzüge", "§5 rule 2")
def test_only_your_own_pieces_on_the_track_move():
    state = table("10:r> 14:b>", roll=2)
    refused(state, Advance(0, 14), "uraeus.no-piece", "no piece of yours stands on field 14")
    refused(state, Advance(0, 11), "uraeus.no-piece", "field 11")
    refused(state, Advance(0, 99), "uraeus.no-piece", "field 99")


# -- §5 rule 3; "Zugrichtungen der Spielsteine" and its Beispiele ----------------------


@pytest.mark.cites(RULEBOOK, "Beispiele Zugrichtungen eines Spielsteins", "§5 rule 3")
def test_example_turning_two_steps_on_or_turn_then_one_back():
    state = table("10:r>", roll=2)
    assert ends(state, 10) == {"12:>", "9:<", "11:<"}
    # The two paths of the example, as the rulebook lists them.
    assert at(URAEUS.play(state, Advance(0, 10)), 12) == "r>"
    assert at(URAEUS.play(state, Advance(0, 10, 1)), 9) == "r<"


@pytest.mark.cites(RULEBOOK, "Zugrichtungen der Spielsteine", "§5 rule 3")
def test_one_turn_per_move_at_any_step_counting_as_a_step():
    state = table("10:r>", roll=3)
    # On 3; turn first and 2 back; 1 on, turn, 1 back; 2 on and turn.
    assert ends(state, 10) == {"13:>", "8:<", "10:<", "12:<"}
    for step in (0, 4, -1):
        refused(state, Advance(0, 10, step), "uraeus.turn-step", "1 to 3", f"not {step}")


@pytest.mark.cites(RULEBOOK, "Zugrichtungen der Spielsteine", "§5 rule 3")
def test_a_roll_of_one_can_be_just_a_turn():
    state = table("10:r>", roll=1)
    after = URAEUS.play(state, Advance(0, 10, 1))
    assert at(after, 10) == "r<"


# -- §5 rule 4; "Überspringen von Spielsteinen" ---------------------------------------


@pytest.mark.cites(RULEBOOK, "Beispiele Überspringen eines Spielsteins", "§5 rule 4")
def test_example_passing_over_a_piece_and_turning_on_it():
    state = table("10:r> 11:b>", roll=3)
    after = URAEUS.play(state, Advance(0, 10))  # 1st, 2nd and 3rd step on: passes 11
    assert at(after, 13) == "r>" and at(after, 11) == "b>"
    after = URAEUS.play(state, Advance(0, 10, 2))  # on, turn on the blue piece, back
    assert at(after, 10) == "r<" and at(after, 11) == "b>"


@pytest.mark.cites(RULEBOOK, "Überspringen von Spielsteinen", "§5 rule 4")
def test_several_pieces_own_and_opposing_are_passed_from_behind_each_field_a_step():
    state = table("10:r> 11:b> 12:r> 13:b>", roll=4)
    after = URAEUS.play(state, Advance(0, 10))
    assert at(after, 14) == "r>"


@pytest.mark.cites(RULEBOOK, "Überspringen von Spielsteinen", "§5 rule 4")
def test_a_piece_facing_the_mover_is_never_passed():
    state = table("10:r> 12:b<", roll=4)
    refused(state, Advance(0, 10), "uraeus.pass-from-front", "the piece on field 12 faces this")
    assert "14:>" not in ends(state, 10)


# -- §5 rule 5; "Besetzen von Spielsteinen", "Verbleiben und Wiederbesetzen" -----------


@pytest.mark.cites(RULEBOOK, "Beispiele Besetzen eines Spielsteins", "§5 rule 5")
def test_example_occupying_from_behind_and_turning_on_top():
    state = table("10:r> 12:b>", roll=2)
    assert at(URAEUS.play(state, Advance(0, 10)), 12) == "b>/r>"
    assert URAEUS.situations(state, Advance(0, 10)) == ("advance", "double")
    state = table("10:r> 12:b>", roll=3)
    assert at(URAEUS.play(state, Advance(0, 10, 3)), 12) == "b>/r<"


@pytest.mark.cites(RULEBOOK, "Besetzen von Spielsteinen", "§5 rule 5")
def test_the_lower_piece_of_a_double_cannot_move():
    state = table("12:r>/b>", turn=0, roll=2)
    refused(state, Advance(0, 12), "uraeus.lower-piece", "lower one of a double")
    assert moves_of(state, 12) == []


@pytest.mark.cites(RULEBOOK, "Besetzen von Spielsteinen", "§5 Ambiguities: One round")
def test_a_double_lasts_one_round():
    # Blue made the double on 12; at blue's next turn the upper piece must move.
    state = table("12:r>/b> 30:b>", turn=1, roll=2)
    assert {m.src for m in URAEUS.legal_moves(state)} == {12}
    refused(
        state, Advance(1, 30), "uraeus.double-one-round", "the upper piece on field 12 must move"
    )
    refused(state, Advance(1, None), "uraeus.double-one-round")
    after = URAEUS.play(state, Advance(1, 12))
    assert at(after, 12) == "r>" and at(after, 14) == "b>"


@pytest.mark.cites(RULEBOOK, "Besetzen von Spielsteinen", "§5 rule 5")
def test_a_blocked_double_lasts_until_it_is_free():
    # Blue's upper piece on 12 sits between doubles on 11 and 13 that turn their backs
    # on it: with a 2 it can go neither way, so the double stands and blue moves another.
    state = table("11:r</g< 12:r>/b> 13:g>/y> 30:b>", players=4, turn=1, roll=2)
    assert moves_of(state, 12) == []
    assert {m.src for m in URAEUS.legal_moves(state)} == {None, 30}


@pytest.mark.cites(RULEBOOK, "Besetzen von Spielsteinen", "§5 rule 5")
def test_the_owner_chooses_which_of_several_freed_doubles_to_dissolve():
    state = table("12:r>/b> 20:r>/b>", turn=1, roll=2)
    assert {m.src for m in URAEUS.legal_moves(state)} == {12, 20}


@pytest.mark.cites(
    RULEBOOK, "Beispiele Verbleiben und Wiederbesetzen eines Spielsteins", "§5 rule 5"
)
def test_example_staying_with_a_one():
    state = table("12:r>/b> 30:b>", turn=1, roll=1)
    after = URAEUS.play(state, Advance(1, 12, 1))
    assert at(after, 12) == "r>/b<"
    assert "stay" in URAEUS.situations(state, Advance(1, 12, 1))


@pytest.mark.cites(
    RULEBOOK, "Beispiele Verbleiben und Wiederbesetzen eines Spielsteins", "§5 rule 5"
)
def test_example_reoccupying_one_step_on_turn_one_step_back():
    # The upper piece faces away from the lower's back: step off, turn, step back on.
    state = table("12:r>/b< 30:b>", turn=1, roll=3)
    move = Advance(1, 12, 2)
    after = URAEUS.play(state, move)
    assert at(after, 12) == "r>/b>"
    assert "reoccupy" in URAEUS.situations(state, move)
    # Renewal may repeat by default (the literal reading).
    again = table("12:r>/b> 30:b>", turn=1, roll=1)
    kept = URAEUS.play(again, Advance(1, 12, 1))
    assert at(kept, 12) == "r>/b<"


@pytest.mark.cites(
    RULEBOOK, "Verbleiben und Wiederbesetzen von Spielsteinen", "§5 Ambiguities: One round"
)
def test_option_renewal_once_allows_a_double_to_be_kept_once():
    options = {"renewal": "once"}
    state = table("12:r>/b> 30:b>", turn=1, roll=1, options=options)
    kept = URAEUS.play(state, Advance(1, 12, 1))
    assert kept.track[12][1].renewed
    # Round the table again: blue rolls a 1 once more.
    document = state_to_json(kept)
    document.update(turn=1, roll=1)
    again = state_from_json(document)
    refused(again, Advance(1, 12, 1), "uraeus.renewal-once", "must now be dissolved")
    assert Advance(1, 12, 1) not in URAEUS.legal_moves(again)


# -- §5 rule 6; "Schlagen von Spielsteinen" and its Beispiele --------------------------


@pytest.mark.cites(RULEBOOK, "Beispiele Schlagen von Spielsteinen", "§5 rule 6")
def test_example_capturing_from_the_front_with_the_last_step():
    state = table("10:r> 12:b<", roll=2)
    after = URAEUS.play(state, Advance(0, 10))
    assert at(after, 12) == "r>"
    assert at(after, 0) == "b>"  # 12 lies in 1-21: back to the head field
    assert URAEUS.situations(state, Advance(0, 10)) == ("advance", "capture")


@pytest.mark.cites(RULEBOOK, "Beispiele Schlagen von Spielsteinen", "§5 rule 6")
def test_example_capturing_the_upper_piece_of_a_double():
    state = table("10:r> 12:g>/b<", players=3, roll=2)
    after = URAEUS.play(state, Advance(0, 10))
    assert at(after, 12) == "g>/r>"  # the lower stays, the capturer is the new upper
    assert at(after, 0) == "b>"


@pytest.mark.cites(RULEBOOK, "Beispiele Schlagen von Spielsteinen", "§5 rule 6")
def test_example_the_upper_piece_captures_its_own_lower_piece():
    # One step on, turn, one step back: the upper piece enters the lower from its front.
    state = table("12:b>/r> 30:b>", turn=0, roll=3)
    after = URAEUS.play(state, Advance(0, 12, 2))
    assert at(after, 12) == "r<" and at(after, 0) == "b>"


@pytest.mark.cites(RULEBOOK, "Schlagen von Spielsteinen", "§5 rule 6")
def test_a_piece_passed_first_can_be_captured_after_turning():
    state = table("10:r> 11:b>", roll=4)  # 11 (pass), 12, turn, 11 from the front
    after = URAEUS.play(state, Advance(0, 10, 3))
    assert at(after, 11) == "r<" and at(after, 0) == "b>"


@pytest.mark.cites(RULEBOOK, "Schlagen von Spielsteinen", "§5 rule 6")
def test_capturing_only_with_the_last_step_and_own_pieces_too():
    state = table("10:r> 12:r<", roll=2)
    after = URAEUS.play(state, Advance(0, 10))
    assert at(after, 12) == "r>" and at(after, 0) == "r>"
    state = table("10:r> 12:b<", roll=3)
    refused(state, Advance(0, 10), "uraeus.pass-from-front", "step 2 of 3")


@pytest.mark.cites(RULEBOOK, "Schlagen von Spielsteinen", "§5 rule 6")
def test_only_the_upper_piece_of_a_double_is_captured_and_only_from_its_front():
    # Upper facing the tail: a piece coming from below meets its back, not its front.
    state = table("10:r> 12:g</b>", players=3, roll=2)
    refused(state, Advance(0, 10), "uraeus.double-wall", "the double on field 12")
    refused(table("10:r> 12:g</b>", players=3, roll=3), Advance(0, 10), "uraeus.double-wall")


# -- §5 rule 7: where captured pieces go ---------------------------------------------


@pytest.mark.parametrize(
    ("captured_on", "goes_to"),
    [(1, 0), (21, 0), (22, 21), (30, 21), (31, 30), (37, 30), (38, 37), (41, 37), (42, 41),
     (53, 41), (54, 53), (62, 53)],
)  # fmt: skip
@pytest.mark.cites(RULEBOOK, "Schlagen von Spielsteinen", "§5 rule 7")
def test_capture_return_table_every_row(captured_on, goes_to):
    assert URAEUS.kit_from_json(new_game("uraeus").kit.to_json()).return_field(captured_on) == (
        goes_to
    )
    # Played out: red captures blue on ``captured_on`` from blue's front with one step.
    state = table(f"{captured_on - 1}:r> {captured_on}:b<", roll=1)
    after = URAEUS.play(state, Advance(0, captured_on - 1))
    assert at(after, captured_on) == "r>"
    assert at(after, goes_to) == ("b>" if goes_to == 0 else "b<")  # head first toward 0


@pytest.mark.cites(RULEBOOK, "Schlagen von Spielsteinen", "§5 Ambiguities: Capture chains")
def test_a_returned_piece_may_occupy_what_stands_on_its_scale_field():
    state = table("29:r> 30:b< 21:g<", players=3, roll=1)
    after = URAEUS.play(state, Advance(0, 29))
    assert after.pending == Pending(1, 21)
    assert URAEUS.to_act(after) == 1
    assert URAEUS.legal_moves(after) == (Return(1, True), Return(1, False))
    refused(after, Advance(1, None), "uraeus.capture-return", "decides first")
    engaged = URAEUS.play(after, Return(1, True))
    assert at(engaged, 21) == "g</b<"  # from behind: a double
    assert engaged.pending is None and engaged.turn == 1 and URAEUS.to_act(engaged) is CHANCE


@pytest.mark.cites(RULEBOOK, "Schlagen von Spielsteinen", "§5 Ambiguities: Capture chains")
def test_a_chain_of_two_captures_down_the_scale_fields():
    # Red takes blue on 31 (back to 30); blue takes green on 30 (back to 21); green
    # takes yellow on 21 (back to the head field).
    state = table("30:g> 21:y> 32:r< 31:b>", players=4, roll=1)
    after = URAEUS.play(state, Advance(0, 32))
    assert at(after, 31) == "r<" and after.pending == Pending(1, 30)
    after = URAEUS.play(after, Return(1, True))
    assert at(after, 30) == "b<" and after.pending == Pending(2, 21)
    assert "capture-chain" in URAEUS.situations(URAEUS.play(state, Advance(0, 32)), Return(1, True))
    after = URAEUS.play(after, Return(2, True))
    assert at(after, 21) == "g<" and at(after, 0) == "y>"
    assert after.pending is None and after.turn == 1


@pytest.mark.cites(RULEBOOK, "Schlagen von Spielsteinen", "§5 Ambiguities: Capture chains")
def test_declining_sets_the_returned_piece_on_the_field_ahead():
    state = table("29:r> 30:b< 21:g<", players=3, roll=1)
    after = URAEUS.play(URAEUS.play(state, Advance(0, 29)), Return(1, False))
    assert at(after, 21) == "g<" and at(after, 22) == "b<"
    # Only on the scale field may it engage: declined, it takes the next free field
    # ahead and leaves the pieces on the fields between alone (here, its own capturer).
    state = table("21:g< 22:b> 23:r< 40:r>", players=3, roll=1)
    after = URAEUS.play(URAEUS.play(state, Advance(0, 23)), Return(1, False))
    assert after.pending is None
    assert at(after, 21) == "g<" and at(after, 22) == "r<" and at(after, 23) == "b<"
    refused(after, Return(1, True), "uraeus.die-first")
    waiting = table("10:r>", roll=2)
    refused(waiting, Return(0, True), "uraeus.capture-return", "no captured piece is waiting")


@pytest.mark.cites(RULEBOOK, "Schlagen von Spielsteinen", "§5 Ambiguities: Capture chains")
def test_option_chain_always_engages_at_once():
    options = {"chain": "always"}
    state = table("29:r> 30:b< 21:g>", players=3, roll=1, options=options)
    after = URAEUS.play(state, Advance(0, 29))
    assert after.pending is None
    assert at(after, 21) == "b<" and at(after, 0) == "g>"  # blue took green from its front


@pytest.mark.cites(RULEBOOK, "Schlagen von Spielsteinen", "§5 rule 7")
def test_a_double_that_cannot_be_captured_sends_the_piece_to_the_field_ahead():
    # The rulebook's own example: scale field 30 held by a double whose upper piece faces
    # the head, so the returning piece would meet its back: it goes to 31.
    state = table("36:r> 37:b< 30:g>/y<", players=4, roll=1)
    after = URAEUS.play(state, Advance(0, 36))
    assert at(after, 30) == "g>/y<" and at(after, 31) == "b<"
    assert after.pending is None


# -- §5 rule 8; "Vertreiben von Spielsteinen" and its Beispiel ------------------------


@pytest.mark.cites(RULEBOOK, "Beispiel Vertreiben eines Spielsteins", "§5 rule 8")
def test_example_driving_back():
    # The left piece faces the right one two fields ahead, which faces it.
    for roll in (3, 4, 5, 6):
        state = table("20:r> 22:b<", roll=roll)
        refused(state, Advance(0, 20), "uraeus.pass-from-front", "faces this one")
        assert moves_of(state, 20) and all(m.turn is not None for m in moves_of(state, 20))
        forced = moves_of(state, 20)[0]
        assert "drive" in URAEUS.situations(state, forced)
    assert ends(table("20:r> 22:b<", roll=1), 20) >= {"21:>"}
    after = URAEUS.play(table("20:r> 22:b<", roll=2), Advance(0, 20))
    assert at(after, 22) == "r>" and at(after, 21) == "b<"  # 22 goes back to scale field 21


@pytest.mark.cites(RULEBOOK, "Vertreiben von Spielsteinen", "§5 Ambiguities: Field 0")
def test_driving_past_the_head_field_stops_there_and_loses_the_pips():
    # Blue on 3 faces red on 2: red cannot turn and run on, so it is driven to the head.
    state = table("2:r< 3:b<", roll=5)
    assert moves_of(state, 2) == [Advance(0, 2)]
    after = URAEUS.play(state, Advance(0, 2))
    assert at(after, 0) == "r>" and after.border == (2, 2)
    assert "drive-past-head" in URAEUS.situations(state, Advance(0, 2))
    refused(state, Advance(0, 2, 4), "uraeus.turn-step", "stops on the head field at step 2")


@pytest.mark.cites(RULEBOOK, "Vertreiben von Spielsteinen", "§5 rule 8")
def test_only_a_driven_piece_goes_past_the_head_field():
    state = table("3:r<", roll=6)  # free to turn and use all six steps
    refused(state, Advance(0, 3), "uraeus.past-head", "can use all 6 steps on the track")
    assert all(m.turn is not None for m in moves_of(state, 3))


@pytest.mark.cites(RULEBOOK, "Spielzüge", "§5 rule 2")
def test_a_move_that_changes_nothing_is_no_move():
    # From the head field: one step out, turn, one step back would change nothing.
    state = table("0:r> 20:r>", roll=3, border=(1, 3))
    refused(state, Advance(0, 0, 2), "uraeus.must-move", "back to where it stood")
    assert Advance(0, 0, 2) not in URAEUS.legal_moves(state)


@pytest.mark.cites(RULEBOOK, "Vertreiben von Spielsteinen", "§5 Ambiguities: Field 0")
def test_option_past_head_leave_sends_the_piece_to_its_border():
    state = table("2:r< 3:b<", roll=5, options={"past_head": "leave"})
    after = URAEUS.play(state, Advance(0, 2))
    assert not after.track[0] and after.border == (3, 2)
    exact = URAEUS.play(table("2:r<", roll=2, options={"past_head": "leave"}), Advance(0, 2))
    assert at(exact, 0) == "r>"  # reaching the head field exactly is not past it


@pytest.mark.cites(RULEBOOK, "Vertreiben von Spielsteinen", "§5 rule 8")
def test_a_piece_facing_the_head_on_the_first_fields_hinders_new_pieces():
    state = table("2:b<", roll=4)
    assert all(m.turn is not None for m in moves_of(state, None))
    refused(state, Advance(0, None), "uraeus.pass-from-front", "field 2")


@pytest.mark.cites(RULEBOOK, "Vertreiben von Spielsteinen", "§5 rule 8")
def test_no_piece_is_driven_past_the_tail_field():
    state = table("60:r>", roll=5)
    refused(state, Advance(0, 60), "uraeus.tail-exact", "reached at step 3 of 5")
    refused(state, Advance(0, 60, 5), "uraeus.tail-exact")
    assert all(m.turn is not None and m.turn <= 3 for m in moves_of(state, 60))


@pytest.mark.cites(RULEBOOK, "Vertreiben von Spielsteinen", "§5 rule 8")
def test_only_the_upper_piece_of_a_double_is_driven():
    state = table("20:g>/r> 22:b< 30:r>", players=3, roll=3)
    assert moves_of(state, 20)
    after = URAEUS.play(state, moves_of(state, 20)[0])
    assert at(after, 20).startswith("g>")


# -- §5 rule 9; "Blockieren von Spielsteinen" and its Beispiel ------------------------


@pytest.mark.cites(RULEBOOK, "Beispiel Blockieren eines Spielsteins", "§5 rule 9")
def test_example_blocking():
    # The middle piece (red, on 20) between a double on 19, its back to red, and blue on
    # 21 facing red.
    position = "19:g>/y< 20:r> 21:b<"
    for roll in (2, 3, 4, 5, 6):
        state = table(position, players=4, roll=roll, border=(0, 2, 2, 2), home=(2, 0, 0, 0))
        assert URAEUS.legal_moves(state) == (Pass(0),)
    state = table(position, players=4, roll=1, border=(0, 2, 2, 2), home=(2, 0, 0, 0))
    assert ends(state, 20) == {"20:<", "21:>"}  # turn on the spot, or capture blue
    error = refused(state, Pass(0), "uraeus.pass", "a piece can move, for example")
    assert "the piece on 20" in str(error)


@pytest.mark.cites(RULEBOOK, "Blockieren von Spielsteinen", "§5 rule 9")
def test_a_double_is_passed_from_neither_side():
    behind = table("10:r> 12:g>/b>", players=3, roll=4)
    refused(behind, Advance(0, 10), "uraeus.double-wall", "passed from neither side")
    front = table("14:r< 12:g>/b>", players=3, roll=4)
    refused(front, Advance(0, 14), "uraeus.double-wall")
    # Occupying a double would make three: no.
    refused(table("10:r> 12:g>/b>", players=3, roll=2), Advance(0, 10), "uraeus.double-wall")


@pytest.mark.cites(RULEBOOK, "Blockieren von Spielsteinen", "§5 rule 9")
def test_a_blocked_player_passes_and_play_goes_on():
    state = table("19:g>/y< 20:r> 21:b<", players=4, roll=4, border=(0, 2, 2, 2), home=(2, 0, 0, 0))
    after = URAEUS.play(state, Pass(0))
    assert after.turn == 1 and URAEUS.to_act(after) is CHANCE
    assert URAEUS.situations(state, Pass(0)) == ("pass",)


# -- §5 rule 10; "Die Gänsefelder" ----------------------------------------------------


@pytest.mark.cites(RULEBOOK, "Die Gänsefelder", "§5 rule 10")
def test_a_piece_on_a_goose_field_must_move_next_turn():
    state = table("60:r> 30:r>", roll=2)
    assert {m.src for m in URAEUS.legal_moves(state)} == {60}
    refused(state, Advance(0, 30), "uraeus.goose-field", "the piece on field 60 must move now")
    # Out, within, or onto the tail field:
    assert ends(table("60:r> 30:r>", roll=3), 60) >= {"home"}
    assert ends(table("60:r> 30:r>", roll=1), 60) >= {"61:>"}
    assert "goose" in URAEUS.situations(state, Advance(0, 60))


@pytest.mark.cites(RULEBOOK, "Die Gänsefelder", "§5 rule 10")
def test_a_blocked_goose_piece_waits():
    # Red on 60 between two doubles that turn their backs on it.
    state = table("59:g>/y< 60:r> 61:g>/b> 30:r>", players=4, roll=2)
    assert moves_of(state, 60) == []
    assert {m.src for m in URAEUS.legal_moves(state)} == {None, 30}


@pytest.mark.cites(RULEBOOK, "Die Gänsefelder", "§5 Ambiguities: Goose field with two pieces")
def test_goose_piece_and_double_freed_together_the_owner_chooses():
    state = table("60:r> 12:b>/r> 40:r>", roll=2)
    assert {m.src for m in URAEUS.legal_moves(state)} == {60, 12}
    two = table("60:r> 62:r<", roll=1)
    assert {m.src for m in URAEUS.legal_moves(two)} == {60, 62}


# -- §5 rule 11; "Spielende" and its Beispiele ----------------------------------------


@pytest.mark.cites(RULEBOOK, "Beispiel Erreichen des Schwanzfeldes", "§5 rule 11")
def test_example_reaching_the_tail_with_two_steps():
    state = table("61:r>", roll=2)
    after = URAEUS.play(state, Advance(0, 61))
    assert after.home == (1, 0) and not after.track[61]
    assert "home" in URAEUS.situations(state, Advance(0, 61))


@pytest.mark.cites(RULEBOOK, "weiter Beispiele Erreichen des Schwanzfeldes", "§5 rule 11")
def test_further_examples_reaching_the_tail_after_turning():
    state = table("62:r<", roll=2)  # turn, then one step the other way
    assert URAEUS.play(state, Advance(0, 62, 1)).home == (1, 0)
    state = table("62:r<", roll=4)  # one on, turn, two back
    assert URAEUS.play(state, Advance(0, 62, 2)).home == (1, 0)


@pytest.mark.cites(RULEBOOK, "Spielende", "§5 rule 11")
def test_the_tail_field_is_reached_exactly():
    state = table("58:r>", roll=6)
    refused(state, Advance(0, 58), "uraeus.tail-exact", "reached at step 5 of 6")


@pytest.mark.cites(RULEBOOK, "Spielende", "§5 rule 11")
def test_first_home_wins_and_the_others_play_on_for_places():
    state = table("61:r> 40:b> 41:g>", players=3, roll=2, home=(2, 2, 2))
    after = URAEUS.play(state, Advance(0, 61))
    assert after.finished == (0,) and not URAEUS.is_over(after)
    assert after.turn == 1
    # Later blue finishes too: the game is over, green is third.
    document = state_to_json(after)
    document.update(turn=1, roll=3, track={"60": [{"player": 1, "facing": "tail"}],
                                          "41": [{"player": 2, "facing": "tail"}]})  # fmt: skip
    later = URAEUS.play(state_from_json(document), Advance(1, 60))
    outcome = URAEUS.outcome(later)
    assert outcome.winners == (0,) and outcome.reason == "uraeus.all-home"
    assert outcome.ranking == ((0,), (1,), (2,))
    refused(later, Roll(3), "uraeus.game-over", "the game is over")


@pytest.mark.cites(RULEBOOK, "Spielende", "§5 rule 11")
def test_finished_players_are_skipped():
    state = table("40:b> 41:g>", players=3, turn=2, roll=1, home=(3, 0, 0))
    after = URAEUS.play(state, Advance(2, 41))
    assert after.turn == 1  # seat 0 has finished


# -- the legal moves are the distinct outcomes ------------------------------------------


@pytest.mark.cites(RULEBOOK, "Zugrichtungen der Spielsteine", "§5 rule 3")
def test_legal_moves_are_the_distinct_results_each_with_one_path():
    state = table("10:r> 20:r> 30:b<", roll=4)
    moves = URAEUS.legal_moves(state)
    results = [URAEUS.play(state, m) for m in moves]
    assert len(set(results)) == len(results)
    # A piece on the head field and one from the border reach the same field, but the
    # border differs: two outcomes. Two pieces on the head field are one outcome.
    state = table("0:r>", roll=2)
    assert {m.src for m in URAEUS.legal_moves(state)} == {None, 0}
    two = table("0:r>/r>", roll=2)
    assert len([m for m in URAEUS.legal_moves(two) if m.src == 0 and m.turn is None]) == 1


@pytest.mark.cites(RULEBOOK, "Zugrichtungen der Spielsteine", "§5 rule 3")
def test_another_path_to_a_listed_result_is_accepted():
    state = table("10:r>", roll=6)
    # Turning at step 6 (the last) and at... each distinct; the straight path is listed.
    listed = {URAEUS.play(state, m) for m in URAEUS.legal_moves(state)}
    for turn in (None, 1, 2, 3, 4, 5, 6):
        assert URAEUS.play(state, Advance(0, 10, turn)) in listed


@pytest.mark.cites(RULEBOOK, "Schlagen von Spielsteinen", "§5 rule 7")
def test_stones_and_pending_round_trip():
    state = table("0:r>/b> 12:r>/b<", roll=None, pending=(1, 21))
    assert state.track[0] == (Stone(0, TAIL), Stone(1, TAIL))
    assert state_from_json(state_to_json(state)) == state
