"""Gimmel scenarios, one or more per rule.

Each test cites its source: the rulebook file ``gimmel.de.txt`` and heading, and the rule
number in ``rulebooks/NOTES.md`` §2 (Gimmel).
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from rules import CHANCE, IllegalMove, View, get_game, new_game
from rules.catalogue import catalogue
from rules.gimmel import (
    OFFSETS,
    ClaimDraw,
    DrawLots,
    GimmelKit,
    Kind,
    Leap,
    Pass,
    Place,
)
from rules.gimmel.notation import state_from_json, state_to_json
from rules.grid import Square

GIMMEL = get_game("gimmel")
RULEBOOK = "gimmel.de.txt"
SCENARIOS = True  # every test cites its rulebook heading and NOTES.md rule (conftest.py)
B, C, F = Kind.BEETLE, Kind.CAT, Kind.FALCON
LETTERS = {"b": B, "c": C, "f": F}


def sq(name: str) -> Square:
    return Square.parse(name)


def position(
    pieces: str = "",
    *,
    lost=((0, 0, 0), (0, 0, 0)),
    reserve=None,
    to_act: int = 0,
    options=None,
    columns: int = 8,
    rows: int = 18,
):
    """A position after the lot, seat 0 White.

    ``pieces`` like ``"c5:F d7:b"``: upper case White (seat 0), lower case Black (seat 1).
    ``lost`` counts each seat's captured beetles, cats and falcons (so White's score is
    what Black lost); the rest of each seat's pieces are in reserve unless ``reserve``
    says otherwise. ``to_act`` is the seat to move; the turns played are the fewest
    that placed these pieces.
    """
    kit = GimmelKit("test", "", columns, rows)
    state = GIMMEL.new(2, options, kit)
    per_kind = state.reserve[0][0]
    document = state_to_json(state)
    document["white"] = 0
    on_board = [[0, 0, 0], [0, 0, 0]]
    for entry in pieces.split():
        name, letter = entry.split(":")
        seat, kind = (0 if letter.isupper() else 1), LETTERS[letter.lower()]
        document["board"][name] = {"player": seat, "piece": kind.value}
        on_board[seat][list(LETTERS.values()).index(kind)] += 1
    if reserve is None:
        reserve = [
            [per_kind - lost[seat][k] - on_board[seat][k] for k in range(3)] for seat in (0, 1)
        ]
    document["reserve"] = [dict(zip(("beetle", "cat", "falcon"), r, strict=True)) for r in reserve]
    placed = 6 * per_kind - sum(map(sum, reserve))
    document["ply"] = placed + (placed - to_act) % 2  # even: White (seat 0) to act
    return state_from_json(document)


def refused(state, move) -> IllegalMove:
    with pytest.raises(IllegalMove) as error:
        GIMMEL.play(state, move)
    assert error.value.rule in catalogue()
    return error.value


def targets(state, square: str) -> set[str]:
    return {
        str(m.dst) for m in GIMMEL.legal_moves(state) if isinstance(m, Leap) and m.src == sq(square)
    }


# -- NOTES.md §2 rule 1; gimmel.de.txt "1. Spielvorbereitung" --------------------------


@pytest.mark.cites(RULEBOOK, "1. Spielvorbereitung", "§2 rule 1")
def test_each_player_has_twelve_pieces_four_of_each_kind_and_the_board_starts_empty():
    state = new_game("gimmel")
    assert state.reserve == ((4, 4, 4), (4, 4, 4))
    assert not any(state.board)
    assert (state.kit.columns, state.kit.rows) == (8, 18)  # the default kit, NOTES.md §2
    assert GIMMEL.scores(state) == (0, 0)


@pytest.mark.cites(RULEBOOK, "1. Spielvorbereitung", "§2 rule 1")
def test_colours_are_drawn_by_lot_and_white_moves_first():
    state = new_game("gimmel")
    assert GIMMEL.to_act(state) is CHANCE
    assert GIMMEL.legal_moves(state) == ()
    assert GIMMEL.chance_outcomes(state) == (
        (DrawLots(white=0), Fraction(1, 2)),
        (DrawLots(white=1), Fraction(1, 2)),
    )
    for white in (0, 1):
        after = GIMMEL.play(state, DrawLots(white=white))
        assert GIMMEL.to_act(after) == white
        assert after.colour(white) == "white"
        assert after.colour(1 - white) == "black"


@pytest.mark.cites(RULEBOOK, "1. Spielvorbereitung", "§2 rule 1")
def test_nothing_is_played_before_the_lot_and_the_lot_happens_once():
    state = new_game("gimmel")
    error = refused(state, Place(0, B, sq("a1")))
    assert error.rule == "gimmel.colours-by-lot"
    assert "the colour lot" in str(error)
    after = GIMMEL.play(state, DrawLots(white=1))
    assert refused(after, DrawLots(white=0)).rule == "gimmel.colours-by-lot"


@pytest.mark.cites(RULEBOOK, "1. Spielvorbereitung", "§2 rule 1")
def test_the_lot_gives_white_to_one_of_the_two_seats():
    state = new_game("gimmel")
    for white in (2, True):
        error = refused(state, DrawLots(white=white))
        assert error.rule == "gimmel.colours-by-lot"
    assert GIMMEL.to_act(state) is CHANCE


@pytest.mark.cites(RULEBOOK, "1. Spielvorbereitung", "§2 rule 1")
def test_only_the_two_seats_play():
    state = GIMMEL.play(new_game("gimmel"), DrawLots(white=0))
    error = refused(state, Place(2, B, sq("a1")))
    assert error.rule == "gimmel.turn-order"
    assert "seat 2 is not at this table of 2" in str(error)
    claimable = scored(22, 20, options={"draw": "claim"})
    assert refused(claimable, ClaimDraw(7)).rule == "gimmel.turn-order"


@pytest.mark.cites(RULEBOOK, "1. Spielvorbereitung", "§2 rule 1")
def test_players_alternate():
    state = GIMMEL.play(new_game("gimmel"), DrawLots(white=1))
    state = GIMMEL.play(state, Place(1, F, sq("d9")))
    assert GIMMEL.to_act(state) == 0
    error = refused(state, Place(1, B, sq("a1")))
    assert error.rule == "gimmel.turn-order"
    assert '"player":1' in str(error) and "seat 0's turn" in str(error)
    state = GIMMEL.play(state, Place(0, C, sq("e9")))
    assert GIMMEL.to_act(state) == 1


# -- NOTES.md §2 rule 2; "3. Spielverlauf" and "3.1 Setzen eines Steines" ------------


@pytest.mark.cites(RULEBOOK, "3. Spielverlauf", "§2 rule 2")
def test_a_turn_is_exactly_one_of_place_move_capture():
    state = position("d5:B e6:c")
    kinds = {type(m) for m in GIMMEL.legal_moves(state)}
    assert kinds == {Place, Leap}
    after = GIMMEL.play(state, Leap(0, sq("d5"), sq("e6")))  # a capture ends the turn
    assert GIMMEL.to_act(after) == 1


@pytest.mark.cites(RULEBOOK, "3.1 Setzen eines Steines", "§2 rule 2")
def test_a_piece_may_be_placed_on_any_empty_square_at_any_time():
    state = position("d5:f")
    places = [m for m in GIMMEL.legal_moves(state) if isinstance(m, Place)]
    assert len(places) == 3 * (8 * 18 - 1)  # every kind, every empty square
    assert {m.to for m in places} == {s for s in state.grid.squares if s != sq("d5")}


@pytest.mark.cites(RULEBOOK, "3.1 Setzen eines Steines", "§2 rule 4")
def test_placing_needs_an_empty_square_and_never_captures():
    state = position("d5:f e5:F")
    assert refused(state, Place(0, B, sq("d5"))).rule == "gimmel.place-on-empty"
    assert refused(state, Place(0, B, sq("e5"))).rule == "gimmel.place-on-empty"


@pytest.mark.cites(RULEBOOK, "1. Spielvorbereitung", "§2 rule 1")
def test_placing_needs_a_piece_of_that_kind_in_reserve():
    state = position(reserve=((4, 0, 4), (4, 4, 4)), options=None)
    error = refused(state, Place(0, C, sq("a1")))
    assert error.rule == "gimmel.no-reserve"
    assert not any(isinstance(m, Place) and m.kind is C for m in GIMMEL.legal_moves(state))


@pytest.mark.cites(RULEBOOK, "3. Spielverlauf", "§2 rule 2")
def test_only_a_piece_on_the_board_moves_and_only_your_own():
    state = position("d5:B e9:f")
    assert refused(state, Leap(0, sq("a1"), sq("a2"))).rule == "gimmel.no-piece"
    assert refused(state, Leap(0, sq("e9"), sq("e12"))).rule == "gimmel.not-own-piece"


@pytest.mark.cites(RULEBOOK, "3.1 Setzen eines Steines", "§2 rule 2")
def test_pieces_stay_on_the_board():
    state = position("a1:F")
    assert refused(state, Leap(0, sq("a1"), sq("i1"))).rule == "gimmel.off-board"
    assert refused(state, Place(0, B, sq("a19"))).rule == "gimmel.off-board"


@pytest.mark.cites(RULEBOOK, "3. Spielverlauf", "§2 rule 2")
def test_pass_only_when_no_placement_or_leap_exists():
    # A 4 x 3 board filled by White's twelve pieces: White can neither place (no piece
    # left, no empty square) nor leap (every target holds a White piece).
    fill = "a1:B b1:B c1:B d1:B a2:C b2:C c2:C d2:C a3:F b3:F c3:F d3:F"
    state = position(fill, reserve=((0, 0, 0), (4, 4, 4)), columns=4, rows=3)
    assert GIMMEL.legal_moves(state) == (Pass(0),)
    state = GIMMEL.play(state, Pass(0))
    assert GIMMEL.legal_moves(state) == (Pass(1),)  # Black: no empty square to place on
    error = refused(position("d5:B"), Pass(0))
    assert error.rule == "gimmel.pass"
    assert "a player who can place or leap may not pass" in str(error)


@pytest.mark.cites(RULEBOOK, "3. Spielverlauf", "§2 rule 2")
def test_two_passes_in_a_row_end_the_game_drawn():
    fill = "a1:B b1:B c1:B d1:B a2:C b2:C c2:C d2:C a3:F b3:F c3:F d3:F"
    state = position(fill, reserve=((0, 0, 0), (4, 4, 4)), columns=4, rows=3)
    state = GIMMEL.play(state, Pass(0))
    assert not GIMMEL.is_over(state)
    state = GIMMEL.play(state, Pass(1))
    outcome = GIMMEL.outcome(state)
    assert outcome.is_draw and outcome.reason == "gimmel.stalemate"
    assert GIMMEL.to_act(state) is None


# -- NOTES.md §2 rule 3; "3.2 Bewegen eines Steines" --------------------------------


def offsets_from(state, square: str) -> set[tuple[int, int]]:
    src = sq(square)
    return {
        (Square.parse(t).col - src.col, Square.parse(t).row - src.row)
        for t in targets(state, square)
    }


@pytest.mark.cites(RULEBOOK, "3.2 Bewegen eines Steines", "§2 rule 3")
def test_beetle_moves_one_square_in_any_direction():
    got = offsets_from(position("d9:B"), "d9")
    assert got == {(dc, dr) for dc in (-1, 0, 1) for dr in (-1, 0, 1)} - {(0, 0)}


@pytest.mark.cites(RULEBOOK, "3.2 Bewegen eines Steines", "§2 rule 3")
def test_cat_goddess_moves_two_straight_or_a_knights_move_not_two_diagonally():
    got = offsets_from(position("d9:C"), "d9")
    assert len(got) == 12
    assert {(2, 0), (-2, 0), (0, 2), (0, -2)} <= got
    assert {(1, 2), (2, 1), (-1, 2), (-2, 1), (1, -2), (2, -1), (-1, -2), (-2, -1)} <= got
    assert not got & {(2, 2), (2, -2), (-2, 2), (-2, -2)}
    state = position("d9:C")
    assert refused(state, Leap(0, sq("d9"), sq("f11"))).rule == "gimmel.cat-move"


@pytest.mark.cites(RULEBOOK, "3.2 Bewegen eines Steines", "§2 rule 3")
def test_falcon_reaches_every_square_at_distance_three():
    got = offsets_from(position("d9:F"), "d9")
    assert len(got) == 24
    assert all(max(abs(dc), abs(dr)) == 3 for dc, dr in got)
    assert {(3, 0), (3, 3), (3, 1), (1, 3), (2, 3)} <= got  # straight, diagonal, 2+1 mixes
    assert got == set(OFFSETS[F])


@pytest.mark.cites(RULEBOOK, "3.2 Bewegen eines Steines", "§2 rule 3")
def test_full_distance_is_compulsory():
    state = position("d9:C e12:F")
    error = refused(state, Leap(0, sq("d9"), sq("d10")))
    assert error.rule == "gimmel.full-distance"
    assert refused(state, Leap(0, sq("e12"), sq("e14"))).rule == "gimmel.full-distance"
    assert refused(state, Leap(0, sq("e12"), sq("e12"))).rule == "gimmel.full-distance"


@pytest.mark.cites(RULEBOOK, "3.2 Bewegen eines Steines", "§2 rule 3")
def test_no_piece_moves_further_than_its_distance():
    state = position("d9:B e12:F")
    assert refused(state, Leap(0, sq("d9"), sq("d11"))).rule == "gimmel.beetle-move"
    assert refused(state, Leap(0, sq("e12"), sq("e16"))).rule == "gimmel.falcon-move"


@pytest.mark.cites(RULEBOOK, "3.2 Bewegen eines Steines", "§2 rule 3")
def test_jumping_over_own_and_enemy_pieces_is_allowed():
    # Falcon on a1 with pieces on a2, a3 (own and enemy) and b2, c3 on the diagonal.
    state = position("a1:F a2:B a3:c b2:b c3:C")
    assert {"a4", "d4"} <= targets(state, "a1")


@pytest.mark.cites(RULEBOOK, "3.2 Bewegen eines Steines", "§2 rule 3")
def test_edges_cut_the_pattern():
    assert len(targets(position("a1:F"), "a1")) == 7
    assert targets(position("a1:C"), "a1") == {"a3", "c1", "b3", "c2"}


# -- NOTES.md §2 rule 4; "3.3 Schlagen eines Steines" ---------------------------------


@pytest.mark.cites(RULEBOOK, "3.3 Schlagen eines Steines", "§2 rule 4")
@pytest.mark.parametrize(("letter", "value"), [("b", 1), ("c", 3), ("f", 6)])
def test_capturing_removes_the_piece_and_scores_its_value(letter, value):
    state = position(f"d9:F d12:{letter}")
    after = GIMMEL.play(state, Leap(0, sq("d9"), sq("d12")))
    assert after.board[after.grid.index(sq("d12"))].owner == 0
    assert after.board[after.grid.index(sq("d9"))] is None
    assert GIMMEL.scores(after) == (value, 0)
    assert GIMMEL.situations(state, Leap(0, sq("d9"), sq("d12"))) == ("leap", "capture")


@pytest.mark.cites(RULEBOOK, "3.3 Schlagen eines Steines", "§2 rule 4")
def test_capturing_is_optional():
    state = position("d9:B e10:b")
    moves = set(GIMMEL.legal_moves(state))
    assert Leap(0, sq("d9"), sq("e10")) in moves  # the capture
    assert Leap(0, sq("d9"), sq("d10")) in moves  # and leaps that do not capture
    assert Place(0, B, sq("a1")) in moves


@pytest.mark.cites(RULEBOOK, "3.3 Schlagen eines Steines", "§2 rule 4")
def test_no_landing_on_your_own_piece():
    state = position("d9:B e10:C")
    assert refused(state, Leap(0, sq("d9"), sq("e10"))).rule == "gimmel.own-piece"
    assert "e10" not in targets(state, "d9")


# -- NOTES.md §2 rule 5; "4. Ende des Spiels" ---------------------------------------


@pytest.mark.cites(RULEBOOK, "4. Ende des Spiels", "§2 rule 5")
def test_first_to_thirty_wins_and_the_game_is_over():
    # White has 27 (Black lost 4 falcons and a cat) and captures a cat.
    state = position("d9:F d12:c", lost=((0, 0, 0), (0, 1, 4)))
    assert GIMMEL.scores(state) == (27, 0)
    after = GIMMEL.play(state, Leap(0, sq("d9"), sq("d12")))
    assert GIMMEL.scores(after) == (30, 0)
    outcome = GIMMEL.outcome(after)
    assert outcome.winners == (0,) and outcome.reason == "gimmel.target"
    assert GIMMEL.to_act(after) is None and GIMMEL.legal_moves(after) == ()
    assert refused(after, Place(1, B, sq("a1"))).rule == "gimmel.game-over"


@pytest.mark.cites(RULEBOOK, "4. Ende des Spiels", "§2 rule 5")
def test_reaching_thirty_wins_even_when_the_draw_clause_would_hold():
    # White 24, Black 28 (a lead of 4: no draw yet); White's cat takes a falcon: 30
    # against 28 is within 3 with both over 20, but reaching the target is the goal.
    state = position("d10:C d12:f", lost=((1, 1, 4), (0, 2, 3)))
    assert GIMMEL.scores(state) == (24, 28)
    assert GIMMEL.outcome(state) is None
    after = GIMMEL.play(state, Leap(0, sq("d10"), sq("d12")))
    assert GIMMEL.scores(after) == (30, 28)
    assert GIMMEL.outcome(after).reason == "gimmel.target"
    assert GIMMEL.outcome(after).winners == (0,)


# -- NOTES.md §2 Ambiguities, draw clause; "4. Ende des Spiels" ----------------------


def scored(white: int, black: int, *, options=None, pieces=""):
    """A position whose scores are exactly ``white`` and ``black`` points."""

    def lose(points: int) -> tuple[int, int, int]:
        falcons = min(4, points // 6)
        cats = min(4, (points - 6 * falcons) // 3)
        beetles = points - 6 * falcons - 3 * cats
        assert beetles <= 4, "not reachable"
        return (beetles, cats, falcons)

    # White's score is what Black lost, and the other way round.
    return position(pieces, lost=(lose(black), lose(white)), options=options)


@pytest.mark.cites(RULEBOOK, "4. Ende des Spiels", "§2 Ambiguities: Draw clause")
def test_draw_is_automatic_when_both_have_twenty_and_neither_leads_by_more_than_three():
    state = scored(22, 20)
    assert GIMMEL.scores(state) == (22, 20)
    outcome = GIMMEL.outcome(state)
    assert outcome.is_draw and outcome.reason == "gimmel.draw"
    assert GIMMEL.is_over(state)


@pytest.mark.cites(RULEBOOK, "4. Ende des Spiels", "§2 Ambiguities: Draw clause")
@pytest.mark.parametrize(("white", "black"), [(24, 20), (19, 19), (20, 16)])
def test_no_draw_with_a_lead_over_three_or_a_player_under_twenty(white, black):
    state = scored(white, black)
    assert GIMMEL.scores(state) == (white, black)
    assert GIMMEL.outcome(state) is None


@pytest.mark.cites(RULEBOOK, "4. Ende des Spiels", "§2 Ambiguities: Draw clause")
def test_automatic_draw_follows_a_capture():
    # White 18, Black 21; White captures a cat: 21-21, both at least 20, lead 0.
    state = scored(18, 21, pieces="d9:F d12:c")
    after = GIMMEL.play(state, Leap(0, sq("d9"), sq("d12")))
    assert GIMMEL.scores(after) == (21, 21)
    assert GIMMEL.outcome(after).reason == "gimmel.draw"


@pytest.mark.cites(RULEBOOK, "4. Ende des Spiels", "§2 Ambiguities: Draw clause")
def test_claim_option_lets_either_player_claim_and_play_goes_on_otherwise():
    options = {"draw": "claim"}
    state = scored(22, 20, options=options, pieces="d9:F")
    assert not GIMMEL.is_over(state)  # no automatic end
    moves = GIMMEL.legal_moves(state)
    assert ClaimDraw(0) in moves and ClaimDraw(1) in moves
    assert any(isinstance(m, Leap) for m in moves)  # play may go on
    after = GIMMEL.play(state, ClaimDraw(1))  # Black claims although White is to act
    outcome = GIMMEL.outcome(after)
    assert outcome.is_draw and outcome.reason == "gimmel.draw-claimed"


@pytest.mark.cites(RULEBOOK, "4. Ende des Spiels", "§2 Ambiguities: Draw clause")
def test_a_draw_is_claimed_only_in_the_draw_situation_and_only_with_the_claim_option():
    assert refused(scored(24, 20, options={"draw": "claim"}), ClaimDraw(0)).rule == (
        "gimmel.draw-claim"
    )
    error = refused(scored(21, 19, options={"draw": "claim"}), ClaimDraw(0))
    assert error.rule == "gimmel.draw-claim"
    assert "both players on at least 20 points" in str(error) and "21-19" in str(error)
    error = refused(scored(10, 8), ClaimDraw(0))
    assert error.rule == "gimmel.draw-claim"
    assert "draws are automatic with these options" in str(error)


# -- NOTES.md §2 rule 6; "SPIELVARIANTE" ---------------------------------------------


@pytest.mark.cites(RULEBOOK, "SPIELVARIANTE", "§2 rule 6")
def test_variant_has_eight_of_each_kind():
    state = new_game("gimmel", options={"variant": True})
    assert state.reserve == ((8, 8, 8), (8, 8, 8))
    assert GIMMEL.score_bounds(state) == (0, 80)


@pytest.mark.cites(RULEBOOK, "SPIELVARIANTE", "§2 rule 6")
def test_variant_target_is_sixty():
    # Black lost 7 falcons and 5 cats: 57; White captures a cat for 60.
    options = {"variant": True}
    state = position("d9:F d12:c", lost=((0, 0, 0), (0, 5, 7)), options=options)
    assert GIMMEL.scores(state) == (57, 0)
    after = GIMMEL.play(state, Leap(0, sq("d9"), sq("d12")))
    assert GIMMEL.outcome(after).winners == (0,)
    # 30 points decide nothing in the variant.
    state = position("d9:F", lost=((0, 0, 0), (0, 0, 5)), options=options)
    assert GIMMEL.scores(state) == (30, 0)
    assert GIMMEL.outcome(state) is None


@pytest.mark.cites(RULEBOOK, "SPIELVARIANTE", "§2 rule 6")
def test_variant_draw_needs_forty_each_and_a_margin_of_five():
    options = {"variant": True}
    state = position("", lost=((1, 1, 6), (0, 3, 6)), options=options)
    assert GIMMEL.scores(state) == (45, 40)
    assert GIMMEL.outcome(state).reason == "gimmel.draw"
    state = position("", lost=((1, 1, 6), (0, 4, 6)), options=options)
    assert GIMMEL.scores(state) == (48, 40)
    assert GIMMEL.outcome(state) is None
    # The standard numbers do not apply: 22-20 is no draw in the variant.
    state = position("", lost=((2, 0, 3), (1, 1, 3)), options=options)
    assert GIMMEL.scores(state) == (22, 20)
    assert GIMMEL.outcome(state) is None


# -- the table view -----------------------------------------------------------------


@pytest.mark.cites(RULEBOOK, "1. Spielvorbereitung", "§2 rule 1")
def test_table_view_is_the_full_view_for_gimmel():
    # Nothing in Gimmel is hidden: reserves lie beside the board.
    full = new_game("gimmel")
    table = new_game("gimmel", view=View.TABLE)
    assert table.view is View.TABLE
    assert GIMMEL.chance_outcomes(table) == GIMMEL.chance_outcomes(full)
    table = GIMMEL.play(table, DrawLots(white=0))
    full = GIMMEL.play(full, DrawLots(white=0))
    assert GIMMEL.legal_moves(table) == GIMMEL.legal_moves(full)
