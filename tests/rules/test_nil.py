"""Nil scenarios: every numbered rule of NOTES.md §1, every option, and the situations the
rulebook's missing figures show, rebuilt from its words (a line ending before a red
field, Abb. 3/4; a line led into the notch of a U-shaped red field, Abb. 5/6; a crossing,
Abb. 13-16; an encirclement, Abb. 17/18; a line ended without room, Abb. 10-12).

Positions are written as the river from the start point: ``"k1:S-N k2:S-E"`` is a tile on
k1 whose line runs from its south edge midpoint to its north one, then one on k2 from
south to east; the kind is the plain kind with that line unless named (``:slant-right``,
``:universal/curve`` for a universal standing in for a curve). They use the shipped
reconstruction kit (``rules/kits/nil.toml``): start point S of k1, goal row 21.
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from dataclasses import replace
from fractions import Fraction

import pytest

from rules import CHANCE, IllegalMove, KitError, NotationError, View, get_game, parse_state
from rules.catalogue import catalogue
from rules.grid import Square
from rules.kits import load_kit, read_kit_file
from rules.nil import UNKNOWN, Draw, EndTurn, Lay, NoPlay, Step, Tile, turn_parts
from rules.nil.geometry import PORT_NAMES, continuations, turn
from rules.nil.placement import candidates, fits, has_room, room
from rules.notation import dumps
from rules.playout import game_rng, random_playout

NIL = get_game("nil")
KIT = load_kit("nil")
RULEBOOK = "nil.de.txt"
SCENARIOS = True  # every test cites its rulebook heading and NOTES.md rule (conftest.py)

SPIELBEGINN = "SPIELBEGINN:"
SETZEN = "WIE SETZT MAN DIE STEINE?"
WICHTIG = "WICHTIGE REGELN FÜR DAS „NIL“-SPIEL:"
KREUZEN = "WIE MAN DEN FLUSSLAUF MIT EINEM UNIVERSALSTEIN KREUZT:"
UNIVERSAL = "UNIVERSALSTEINE:"
KEINE = "KEINE SPIELMÖGLICHKEIT:"
ENDE = "SPIEL-ENDE:"

#: A column up from the start point to k7, ending before the red field k8 (Abb. 3/4).
COLUMN = "k1:S-N k2:S-N k3:S-N k4:S-N k5:S-N k6:S-N k7:S-N"
#: A river led into the notch i9 of the U-shaped red field h8 i8 j8 h9 j9 (Abb. 5/6).
NOTCH = COLUMN + " k8:S-N k9:S-N k10:S-N k11:S-W j11:E-W i11:E-S i10:N-S i9:N-SW:slant-right"
#: A river that the next tile on l3 may only leave by crossing (Abb. 17).
POCKET = "k1:S-N k2:S-N k3:S-N k4:S-E l4:W-E m4:W-S m3:N-S m2:N-W l2:E-N"


def sq(name: str) -> Square:
    return Square.parse(name)


def kind_with_line(entry: int, exit: int) -> str:
    line = (min(entry, exit), max(entry, exit))
    for kind in KIT.kinds:
        if not kind.universal and any(shape == line for _, shape in kind.shapes):
            return kind.name
    raise ValueError(f"no kind has the line {line}")


def position(
    path: str = "",
    *,
    racks=None,
    seat: int = 0,
    players: int = 2,
    laid=(),
    options=None,
    view: View = View.FULL,
    greens=(),
    reds=(),
):
    """A position in play after the lot (seat 0 began), the river as ``path``."""
    state = NIL.new(players, options, KIT, view)
    steps, tiles = [], {}
    for token in path.split():
        parts = token.split(":")
        cell = sq(parts[0])
        a, b = parts[1].split("-")
        entry, exit = PORT_NAMES.index(a), PORT_NAMES.index(b)
        kind = parts[2] if len(parts) > 2 else kind_with_line(entry, exit)
        kind, _, declared = kind.partition("/")
        steps.append(Step(cell, entry, exit))
        tiles[cell] = Tile(cell, kind, declared or None)
    racks = [list(rack) for rack in (racks or [[] for _ in range(players)])]
    order = [k.name for k in KIT.kinds]
    used = Counter(t.kind for t in tiles.values()) + Counter(k for r in racks for k in r)
    bag = tuple(k.count - used[k.name] for k in KIT.kinds)
    assert min(bag) >= 0
    if view is View.TABLE:
        shown = tuple(tuple(UNKNOWN for _ in rack) for rack in racks)
        bag = None
    else:
        shown = tuple(tuple(sorted(rack, key=order.index)) for rack in racks)
    state = replace(
        state,
        starter=0,
        seat=seat,
        racks=shown,
        bag=bag,
        bag_size=KIT.printed - sum(used.values()),
        tiles=tuple(sorted(tiles.values(), key=lambda t: (t.cell.row, t.cell.col))),
        path=tuple(steps),
        laid=tuple(laid),
        greens=tuple(greens),
        reds=tuple(reds),
    )
    assert parse_state(dumps(NIL.state_to_json(state))) == state  # a readable position
    return state


def refused(state, move, rule: str, *fragments: str) -> IllegalMove:
    with pytest.raises(IllegalMove) as error:
        NIL.play(state, move)
    assert error.value.rule == rule, str(error.value)
    assert rule in catalogue()
    message = str(error.value)
    assert NIL.move_text(move) in message
    for fragment in fragments:
        assert fragment in message, message
    return error.value


def lays(state, cell=None):
    return [
        m
        for m in NIL.legal_moves(state)
        if isinstance(m, Lay) and (cell is None or m.to == sq(cell))
    ]


def field_value(cell: str) -> int:
    return KIT.fields[KIT.field_at[sq(cell)]].value


# -- NOTES.md §1 rule 1 and the tile model: the kit ---------------------------------------


@pytest.mark.cites(RULEBOOK, "AUSSTATTUNG:", "§1 rule 1")
def test_the_default_kit_has_104_printed_tiles_4_universal_4_blanks_on_21_by_21():
    assert KIT.printed == 104
    assert sum(k.count for k in KIT.kinds if k.universal) == 4
    assert KIT.blanks == 4
    assert (KIT.columns, KIT.rows) == (21, 21)  # US patent 3,075,771: 441 squares
    assert len(KIT.kinds) == 9
    text = _kit_path().read_text(encoding="utf-8")
    assert "RECONSTRUCTION" in text and "NOTES.md" in text
    colours = Counter(f.colour for f in KIT.fields)
    assert colours["green"] and colours["red"] and colours["blue"]
    assert any(f.colour == "red" and len(f.cells) == 5 for f in KIT.fields)  # U-shaped


def _kit_path():
    from rules.kits import default_kit_path

    return default_kit_path("nil")


@pytest.mark.cites(RULEBOOK, SPIELBEGINN, "§1 rule 4")
def test_nine_kinds_five_of_which_can_open_the_game():
    openers = set()
    for kind in KIT.kinds:
        state = position(racks=[[kind.name] * 4, []])
        if lays(state):
            openers.add(kind.name)
    assert openers == {"straight", "curve", "slant-right", "slant-left", "universal"}
    assert len(KIT.kinds) - len(openers) == 4


@pytest.mark.cites(RULEBOOK, WICHTIG, "§1 rule 6")
def test_tiles_turn_in_quarter_turns_and_never_flip():
    assert [turn(PORT_NAMES.index("S"), q) for q in range(4)] == [4, 6, 0, 2]  # S W N E
    right = {line for _, line in KIT.kind["slant-right"].shapes}
    left = {line for _, line in KIT.kind["slant-left"].shapes}
    assert len(right) == len(left) == 4 and not right & left  # mirror kinds stay apart
    assert len(KIT.kind["straight"].shapes) == 2  # a straight turned twice looks the same
    # A rotation that gives the same line lays the same tile: one legal move, same result.
    state = position(racks=[["straight"], []])
    assert [m.rotation for m in lays(state)] == [0]
    assert NIL.play(state, Lay(0, sq("k1"), "straight", 2)) == NIL.play(state, lays(state)[0])


@pytest.mark.cites(RULEBOOK, SETZEN, "§1 rule 8")
def test_the_universal_tile_runs_side_to_side_and_corner_to_corner():
    (universal,) = [k for k in KIT.kinds if k.universal]
    names = {(PORT_NAMES[a], PORT_NAMES[b]) for a, b in universal.lines}
    assert names == {("N", "S"), ("NE", "SW"), ("E", "W"), ("SE", "NW")}


@pytest.mark.cites(RULEBOOK, "SPIELTAKTIK:", "§1 Ambiguities: Where a line continues at a corner")
def test_a_line_at_a_corner_continues_into_the_three_cells_around_it_or_diagonally():
    corner = PORT_NAMES.index("NE")
    around = continuations(sq("k1"), corner, 21, 21, diagonal_only=False)
    assert sorted(str(c) for c, _ in around) == ["k2", "l1", "l2"]
    diagonal = continuations(sq("k1"), corner, 21, 21, diagonal_only=True)
    assert [(str(c), PORT_NAMES[p]) for c, p in diagonal] == [("l2", "SW")]
    edge = continuations(sq("k1"), PORT_NAMES.index("N"), 21, 21, diagonal_only=False)
    assert [(str(c), PORT_NAMES[p]) for c, p in edge] == [("k2", "S")]
    # The option in play: from k1's NE corner only l2 takes a tile.
    state = position("k1:S-NE:slant-right", racks=[["curve", "straight", "diagonal"], []])
    # l1 lies on the near edge: every line in it from that corner would touch the edge.
    assert {str(m.to) for m in lays(state)} == {"k2", "l2"}
    diag = position(
        "k1:S-NE:slant-right",
        racks=[["curve", "straight", "diagonal"], []],
        options={"corner": "diagonal"},
    )
    assert {str(m.to) for m in lays(diag)} == {"l2"}
    refused(diag, Lay(0, sq("k2"), "straight", 0), "nil.line-end", "k2 does not join")


@pytest.mark.cites(RULEBOOK, "SPIELREGEL:", "§1 rule 2")
def test_one_line_from_the_start_to_the_blue_goal_ending_at_as_high_a_number_as_possible():
    column = " ".join(f"k{row}:S-N" for row in range(1, 21))
    state = position(column, racks=[["universal", "curve"], ["hook-left"]])
    # No second line: a tile anywhere but at the end of the one line is refused.
    refused(state, Lay(0, sq("c5"), "curve"), "nil.line-end", "c5 does not join")
    # Straight up into k21, the line ends on blue 50 (the curve left counts -2) ...
    straight = NIL.play(state, Lay(0, sq("k21"), "universal", 0, "straight"))
    assert NIL.outcome(straight).reason == "nil.end-blue"
    assert straight.scores[0] == 5 + 50 - 2
    # ... or it turns along row 21 and ends on l21's 25.
    along = NIL.play(state, Lay(0, sq("k21"), "curve", 0))  # S to E, on in the blue zone
    assert not NIL.is_over(along)
    turned = NIL.play(along, Lay(0, sq("l21"), "universal", 2, "curve"))  # W to N
    assert turned.scores[0] == 2 + 5 + 25 and field_value("l21") == 25


# -- rule 3: the first player -------------------------------------------------------------


@pytest.mark.cites(RULEBOOK, SPIELBEGINN, "§1 rule 3")
def test_the_highest_three_tile_draw_begins_and_a_tie_draws_again():
    state = NIL.new(3, None, KIT)
    assert NIL.to_act(state) is CHANCE
    outcomes = dict(NIL.chance_outcomes(state))
    assert outcomes[Draw("universal")] == Fraction(4, 104)
    refused(state, Lay(0, sq("k1"), "straight"), "nil.bag-draw", "first-player lot")
    # Seat 0 draws 1+1+2 = 4, seat 1 draws 5+5+3 = 13, seat 2 draws 13 too: a tie.
    for kind in ("straight", "straight", "curve", "bend", "bend", "diagonal", "bend", "bend"):
        state = NIL.play(state, Draw(kind))
    assert dict(NIL.chance_outcomes(state))[Draw("bend")] == Fraction(8 - 4, 104 - 8)
    state = NIL.play(state, Draw("slant-left"))
    assert state.contenders == (1, 2) and state.starter is None and state.lots == ()
    for kind in ("straight",) * 3 + ("curve",) * 3:
        state = NIL.play(state, Draw(kind))
    assert state.starter == 2 and state.seat == 2
    assert state.pending == (2,) * 5 + (0,) * 5 + (1,) * 5  # then five each, from the starter
    assert state.bag_size == 104  # the lot's tiles went back
    assert "first-player lot: seat" in NIL.chance_name(NIL.new(2, None, KIT))


@pytest.mark.cites(RULEBOOK, SPIELBEGINN, "§1 rule 3")
def test_the_player_who_won_the_lot_lays_the_first_tile():
    state = replace(position(racks=[["straight"], ["straight"]], seat=1), starter=1)
    refused(state, Lay(0, sq("k1"), "straight"), "nil.first-player", "seat 1's turn")
    # Once the winner has passed (no tile to open), the next seat's turn is plain turn order.
    passed = NIL.play(replace(state, racks=(("straight",), ("bend",))), NoPlay(1))
    refused(passed, Lay(1, sq("k1"), "bend"), "nil.turn-order", "seat 0's turn")


# -- rule 4: the opening ------------------------------------------------------------------


@pytest.mark.cites(RULEBOOK, SPIELBEGINN, "§1 rule 4")
def test_the_opening_tile_lies_on_the_start_field_touching_the_start_point():
    state = position(racks=[["straight", "hook-right", "universal", "curve"], ["curve"]])
    refused(state, Lay(0, sq("k2"), "straight"), "nil.opening", "start field k1, not on k2")
    refused(state, Lay(0, sq("k1"), "straight", 1), "nil.opening", "touch the start point")
    # A hook from the start point runs into the near edge: it cannot open (Abb. 2).
    refused(state, Lay(0, sq("k1"), "hook-right"), "nil.edge", "edge at SE")
    after = NIL.play(state, Lay(0, sq("k1"), "universal", 0, "straight"))
    assert after.path == (Step(sq("k1"), 4, 0),)
    assert after.board[sq("k1")] == Tile(sq("k1"), "universal", "straight")


@pytest.mark.cites(RULEBOOK, SPIELBEGINN, "§1 rule 4")
def test_in_a_corner_start_field_one_tile_opens_and_a_player_who_cannot_passes_it_on():
    # A kit whose start field sits in the board's corner: a curve to the west would run
    # into the side edge, so only the curve to the east opens.
    data = read_kit_file("nil")
    data = copy.deepcopy(data)
    data["board"]["start"] = "a1"
    data["board"]["start_port"] = "S"
    kit = NIL.kit_from_json(data)
    bag = tuple(k.count - (k.name in ("curve", "straight")) for k in kit.kinds)
    state = replace(
        NIL.new(2, None, kit), starter=0, racks=(("curve",), ("straight",)), bag=bag, bag_size=102
    )
    refused(state, Lay(0, sq("a1"), "curve", 1), "nil.edge", "edge at W")
    assert NIL.legal_moves(state) == (Lay(0, sq("a1"), "curve", 0),)
    # Seat 1 holds only a straight, which opens: seat 0 (holding none that opens) passes.
    stuck = replace(state, racks=(("hook-left",), ("straight",)))
    assert NIL.legal_moves(stuck) == (NoPlay(0),)
    passed = NIL.play(stuck, NoPlay(0))
    assert passed.seat == 1 and passed.scores == (0, 0) and passed.racks[0] == ("hook-left",)
    assert NIL.describe(stuck, NoPlay(0)) == "Seat 0 cannot open; the next seat opens."


# -- rule 5: turns ------------------------------------------------------------------------


@pytest.mark.cites(RULEBOOK, SPIELBEGINN, "§1 rule 5")
def test_each_tile_extends_the_end_of_the_single_line():
    state = position("k1:S-N k2:S-E", racks=[["straight", "curve", "diagonal"], ["curve"]])
    refused(
        state,
        Lay(0, sq("k3"), "straight"),
        "nil.line-end",
        "k3 does not join the line's end (E of k2)",
    )
    refused(
        state,
        Lay(0, sq("l2"), "straight"),
        "nil.line-end",
        "does not start at the line's end (W of l2)",
    )
    refused(
        state,
        Lay(0, sq("v2"), "straight"),
        "nil.off-board",
        "v2 is not a cell of the 21 x 21 board",
    )
    refused(state, Lay(0, sq("k2"), "straight"), "nil.no-stacking", "k2 holds a curve already")
    refused(state, Lay(0, sq("l2"), "bend", 1), "nil.tile-in-rack", "no bend on the rack")
    refused(state, Lay(0, sq("l2"), "dragon"), "nil.tile-in-rack", "no tile kind 'dragon'")
    refused(state, Lay(1, sq("l2"), "straight", 1), "nil.turn-order", "seat 0's turn")
    after = NIL.play(state, Lay(0, sq("l2"), "straight", 1))
    assert after.end == Step(sq("l2"), PORT_NAMES.index("W"), PORT_NAMES.index("E"))
    assert after.racks[0] == ("curve", "diagonal") and after.laid == ("straight",)


@pytest.mark.cites(RULEBOOK, SPIELBEGINN, "§1 rule 5")
def test_a_turn_lays_one_to_five_tiles_then_ends_and_the_rack_is_refilled():
    state = position(racks=[["straight"] * 5, ["curve"] * 5])
    refused(state, EndTurn(0), "nil.end-turn", "at least one tile")
    for row in range(1, 6):
        state = NIL.play(state, Lay(0, sq(f"k{row}"), "straight"))
    refused(state, NoPlay(0), "nil.end-turn", "the turn is ended, not passed")
    assert turn_parts(state) == {
        "tiles": 5,
        "green": 5,
        "blue": 0,
        "bonus": 20,
        "red": 0,
        "total": 30,
    }
    assert NIL.describe(state, EndTurn(0)) == (
        "Seat 0 ends the turn with 5 tiles: 30 points (tiles 5, green 5, bonus 20)."
    )
    assert "five-tile-bonus" in NIL.situations(state, EndTurn(0))
    state = NIL.play(state, EndTurn(0))
    assert state.scores == (30, 0) and state.seat == 1
    assert NIL.to_act(state) is CHANCE and state.pending == (0,) * 5
    for _ in range(5):
        state = NIL.play(state, Draw("diagonal"))
    assert state.racks[0] == ("diagonal",) * 5 and NIL.to_act(state) == 1


# -- rule 6: placement --------------------------------------------------------------------


@pytest.mark.cites(RULEBOOK, SETZEN, "§1 Ambiguities: Sharp angle")
def test_lines_joined_at_a_corner_never_make_a_sharp_angle():
    # k1's line ends at its NE corner; on k2 the next line enters at k2's SE corner.
    state = position("k1:S-NE:slant-right", racks=[["bend", "slant-right", "straight"], ["curve"]])
    refused(state, Lay(0, sq("k2"), "bend", 3), "nil.sharp-angle", "k2 from SE to SW", "below 90")
    # Exactly 90 degrees (SE to W) is not sharp by default; the option makes it sharp.
    assert NIL.violation(state, Lay(0, sq("k2"), "slant-right", 1)) is None
    strict = position(
        "k1:S-NE:slant-right",
        racks=[["bend", "slant-right", "straight"], ["curve"]],
        options={"sharp_angle": "right"},
    )
    refused(strict, Lay(0, sq("k2"), "slant-right", 1), "nil.sharp-angle", "below or at 90")
    # Junctions at edge midpoints are free: a curve may turn at once.
    assert (
        NIL.violation(position("k1:S-N", racks=[["curve"], []]), Lay(0, sq("k2"), "curve", 0))
        is None
    )
    assert "sharp-angle-refused" in NIL.situations(state, Lay(0, sq("k2"), "slant-right", 1))


@pytest.mark.cites(RULEBOOK, SETZEN, "§1 Ambiguities: Room for another tile")
def test_the_line_always_ends_with_room_for_another_tile():
    # Abb. 10-12: a curve on n2 would end facing the line's bend on m2, which no tile and
    # no universal can take: nowhere to go on.
    path = "k1:S-E l1:W-NW l2:SW-E m2:W-SE n1:NW-N"
    state = position(path, racks=[["curve", "straight", "universal"], ["curve"]])
    refused(state, Lay(0, sq("n2"), "curve", 1), "nil.room", "W of n2 with no room")
    assert all(m.to == sq("n2") for m in lays(state))
    assert Lay(0, sq("n2"), "curve", 1) not in lays(state)


@pytest.mark.cites(RULEBOOK, SETZEN, "§1 Ambiguities: Room for another tile")
def test_room_means_a_tile_that_could_itself_go_on_not_a_dead_end_pocket():
    # From a random game: a bend on n5 (NW to SW) would end where one tile fits (on n4's
    # corner side), but that tile could neither go on nor face a line a universal crosses.
    path = (
        "k1:S-E l1:W-E m1:W-N m2:S-E n2:W-NE o3:SW-NW n4:SE-S n3:N-W m3:E-N m4:S-W l4:E-N "
        "l5:S-NW l6:SW-E m6:W-SE"
    )
    state = position(path, racks=[["bend", "curve", "universal"], ["curve"]])
    pocket = Step(sq("n5"), PORT_NAMES.index("NW"), PORT_NAMES.index("SW"))
    assert fits(state, *pocket)  # one tile ahead there is a fit ...
    assert not has_room(state, *pocket)  # ... that leads nowhere
    refused(state, Lay(0, sq("n5"), "bend", 0), "nil.room", "SW of n5 with no room")


#: From a random game (``game_rng(5, 0)``, 4 players): the line ends at SE of h3, by i2.
SEALED = (
    "k1:S-W j1:E-NE k2:SW-NW k3:SW-NE l4:SW-S l3:N-E:universal/curve m3:W-S m2:N-SE n1:NW-E "
    "o1:W-NE p2:SW-NE p3:SE-NE q4:SW-NW q5:SW-NE r6:SW-SE:universal/bend "
    "s6:SW-NW:universal/bend s7:SW-W r7:E-NW q8:SE-E r8:W-N r9:S-W q9:E-W p9:E-W o9:E-W "
    "n9:E-S n8:N-E o8:W-S o7:N-S o6:N-S o5:N-S o4:N-W n4:E-SE o3:NW-S o2:N-NW n3:SE-NW "
    "m4:SE-NW m5:SW-W l5:E-NW k6:SE-SW j5:NE-S j4:N-E k4:W-SW:universal/hook-right j3:NE-NW "
    "i3:NE-N i4:S-W h4:E-SW g3:NE-S g2:N-W f2:E-NW e3:SE-N e4:S-SW d3:NE-SE e2:NW-SE e1:NE-E "
    "f1:W-E g1:W-E h1:W-NE h2:SE-N h3:S-SE"
)


@pytest.mark.cites(RULEBOOK, SETZEN, "§1 Ambiguities: Room for another tile")
def test_room_is_a_way_on_not_a_two_tile_look_ahead():
    # Rule 2: "Die Linie muß immer so enden, daß noch genügend Raum ist, einen weiteren
    # Stein anzusetzen." A slant-right on i2 (NW to E) leaves two tiles of room, on j2 and
    # beyond, but the line walled in by its own bends can go no further: the tile after it
    # could never be laid, so it is refused.
    racks = [[], [], [], ["straight", "straight", "slant-right", "diagonal", "diagonal"]]
    state = position(SEALED, racks=racks, seat=3, players=4)
    refused(state, Lay(3, sq("i2"), "slant-right", 3), "nil.room", "E of i2 with no room")
    # Had it been laid, no tile of any kind could go on from it: all four universals are
    # on the board, and no plain tile on j2, in any turn, is legal.
    every = list(KIT.plain_kinds)
    dead = position(SEALED + " i2:NW-E:slant-right", racks=[[], [], [], every[:5]], seat=3,
                    players=4)  # fmt: skip
    for kind in every:
        for rotation in range(4):
            assert NIL.violation(replace(dead, racks=((), (), (), (kind,))),
                                 Lay(3, sq("j2"), kind, rotation)) is not None  # fmt: skip
    # Every lay the engine offers leaves a tile that can itself be laid.
    for move in lays(state):
        after = NIL.play(state, move)
        more = replace(after, racks=((), (), (), tuple(KIT.plain_kinds)), laid=after.laid)
        assert lays(more) or after.finished


#: From a random game (``game_rng(5, 99)``, 4 players): the line has come down the
#: right-hand side to t10 and turned into t9; t8 and t7 below it are walled in.
WALLED = (
    "k1:S-E l1:W-E:universal/straight m1:W-NE n2:SW-W m2:E-W l2:E-NW:universal/slant-right "
    "k2:NE-N k3:S-N k4:S-W j4:E-N j5:S-E k5:W-E l5:W-SE m4:NW-N m5:S-E n5:W-E o5:W-E p5:W-NE "
    "q6:SW-NE r7:SW-NE s8:SW-S s7:N-S s6:N-E t6:W-SE t5:NE-SE t4:NE-E u4:W-N u5:S-N u6:S-NW "
    "u7:SW-N u8:S-N u9:S-N u10:S-W t10:E-S"
)


@pytest.mark.cites(RULEBOOK, SETZEN, "§1 Ambiguities: Room for another tile")
def test_room_is_a_way_whose_tiles_keep_to_cells_of_their_own():
    # Rule 2 and "Kein Stein darf auf einen anderen gesetzt werden": a slant-left on t9
    # (N to SE) leads the line down into t8, walled in with t7 below it. A walk may go
    # t8 (NE to SE), t7 (NE to N) and t8 again (S to NW), out at its NW corner; a line
    # cannot, since one tile covers a cell. The ways out cross the line twice (s7's
    # straight, then r7's diagonal), and seat 2 would keep no universal tile.
    racks = [["straight", "slant-right", "diagonal", "diagonal", "hook-right"],
             ["straight", "curve", "slant-left", "diagonal", "universal"],
             ["slant-left", "slant-left", "diagonal", "hook-left"],
             ["curve", "curve", "curve", "slant-right", "diagonal"]]  # fmt: skip
    state = position(WALLED, racks=racks, seat=2, players=4, laid=["curve"])
    into = Lay(2, sq("t9"), "slant-left", 2)
    refused(state, into, "nil.room", "SE of t9 with room only for 2 crossings", "hold 0 of the 2")
    assert into not in lays(state) and NIL.violation(state, EndTurn(2)) is None
    # Had it been laid (as the engine once allowed), the next player could lay nothing:
    # no tile of any kind on t8, the one empty cell at t9's SE corner, and no crossing.
    dead = position(WALLED + " t9:N-SE:slant-left", racks=[[], [], [], []], seat=3, players=4)
    assert [cell for cell, _ in candidates(dead) if cell not in dead.board] == [sq("t8")]
    for kind in (*KIT.plain_kinds, "universal"):
        for rotation in range(4):
            for declared in [None] if kind != "universal" else KIT.plain_kinds:
                move = Lay(3, sq("t8"), kind, rotation, declared)
                probe = replace(dead, racks=((), (), (), (kind, "universal")))
                assert NIL.violation(probe, move) is not None, move
    # Only two crossings would carry it on.
    assert room(dead, *dead.end) == 2


@pytest.mark.cites(RULEBOOK, SETZEN, "§1 rule 6")
def test_the_line_touches_the_edge_only_at_the_start_and_in_the_blue_goal():
    # Abb. 10-12: along the near row to b1; a straight on a1 would run into the side edge.
    row = "k1:S-W " + " ".join(f"{c}1:E-W" for c in "jihgfedcb")
    state = position(row, racks=[["straight", "curve", "slant-right"], ["curve"]])
    refused(
        state, Lay(0, sq("a1"), "straight", 1), "nil.edge", "a1 would touch the board's edge at W"
    )
    # A curve up from a1 keeps off the edge.
    assert NIL.violation(state, Lay(0, sq("a1"), "curve", 3)) is None
    assert {str(m.to) for m in lays(state)} == {"a1"}


@pytest.mark.cites(RULEBOOK, WICHTIG, "§1 rule 6")
def test_no_tile_is_laid_on_another():
    state = position("k1:S-N k2:S-N k3:S-E", racks=[["straight", "universal"], []])
    refused(state, Lay(0, sq("k2"), "straight"), "nil.no-stacking", "k2 holds a straight already")
    refused(state, Lay(0, sq("k1"), "universal", 0, "curve"), "nil.no-stacking")


# -- rule 7: crossing ---------------------------------------------------------------------


@pytest.mark.cites(RULEBOOK, KREUZEN, "§1 rule 7")
def test_a_crossing_needs_a_lead_and_a_universal_that_replaces_the_tile_there():
    # Abb. 13-16: the line runs up column k and back round; a straight on l3 leads it to
    # k3, and the universal tile replaces the straight there and carries the line across.
    path = "k1:S-N k2:S-N k3:S-N k4:S-E l4:W-E m4:W-S m3:N-W"
    state = position(path, racks=[["straight", "universal", "curve"], ["curve"]])
    lead = Lay(0, sq("l3"), "straight", 1)
    assert lead in lays(state)
    assert "lead" in NIL.situations(state, lead)
    led = NIL.play(state, lead)
    refused(led, EndTurn(0), "nil.crossing-unfinished", "must cross in this turn")
    crossing = Lay(0, sq("k3"), "universal")
    assert lays(led) == [crossing]
    assert NIL.describe(led, crossing) == (
        "Seat 0 crosses the line on k3 with a universal, from E to W (+5); the straight there "
        "goes back to the bag."
    )
    assert "crossing" in NIL.situations(led, crossing)
    crossed = NIL.play(led, crossing)
    assert crossed.board[sq("k3")] == Tile(sq("k3"), "universal", None)
    assert crossed.path[-1] == Step(sq("k3"), PORT_NAMES.index("E"), PORT_NAMES.index("W"))
    assert crossed.bag[0] == led.bag[0] + 1 and crossed.bag_size == led.bag_size + 1
    assert NIL.violation(crossed, EndTurn(0)) is None
    # Without a universal tile the lead leaves no room: refused.
    bare = position(path, racks=[["straight", "curve"], ["universal"]])
    refused(bare, lead, "nil.room", "would hold no universal tile")
    # A crossing is the second tile of a turn, never the first.
    first = position(path + " l3:E-W", racks=[["universal"], []])
    refused(first, crossing, "nil.crossing-lead", "two tiles in one turn")


@pytest.mark.cites(RULEBOOK, KREUZEN, "§1 rule 7")
def test_the_line_crosses_as_often_as_its_player_holds_universals():
    # The rulebook sets no limit: each crossing takes a universal tile and a tile leading
    # to it; the universal that has just crossed leads on to the next. In the walled-in
    # corner by t9 (WALLED) the way on crosses s7's straight and then r7's diagonal.
    racks = [["straight"], ["straight"], ["slant-left", "slant-left", "bend", "universal",
             "universal"], ["curve"]]  # fmt: skip
    state = position(WALLED, racks=racks, seat=2, players=4)
    into = Lay(2, sq("t9"), "slant-left", 2)
    assert into in lays(state)  # seat 2 keeps the two universals the way needs
    state = NIL.play(state, into)
    state = NIL.play(state, Lay(2, sq("t8"), "bend", 2))  # NE to SE
    lead = Lay(2, sq("t7"), "slant-left", 1)  # NE to W, facing s7
    assert "lead" in NIL.situations(state, lead)
    state = NIL.play(state, lead)
    first, second = Lay(2, sq("s7"), "universal"), Lay(2, sq("r7"), "universal")
    assert lays(state) == [first]
    state = NIL.play(state, first)
    refused(state, EndTurn(2), "nil.crossing-unfinished", "at W of s7")
    assert lays(state) == [second] and "crossing" in NIL.situations(state, second)
    bag = state.bag
    state = NIL.play(state, second)
    assert state.end == Step(sq("r7"), PORT_NAMES.index("E"), PORT_NAMES.index("W"))
    assert [state.board[sq(c)].kind for c in ("s7", "r7")] == ["universal", "universal"]
    returned = [k.name for k, before, after in zip(KIT.kinds, bag, state.bag, strict=True)
                if after > before]  # fmt: skip
    assert returned == ["diagonal"]  # r7's; s7's straight went back at the first crossing
    assert turn_parts(state)["bonus"] == 20 and NIL.violation(state, EndTurn(2)) is None
    # With one universal the tile into the corner is refused: two crossings, one tile.
    one = position(WALLED, racks=[["straight"], ["universal"], [*racks[2][:4], "curve"],
                   ["curve"]], seat=2, players=4)  # fmt: skip
    refused(one, into, "nil.room", "room only for 2 crossings", "hold 1 of the 2")
    # In the table view the rack is not seen: allowed while two universals are off the
    # board, and noted as unchecked.
    table = position(WALLED, racks=racks, seat=2, players=4, view=View.TABLE)
    notes = NIL.play(table, into).unchecked
    assert len(notes) == 1 and "holds 2 universal tiles for the crossings" in notes[0]


@pytest.mark.cites(RULEBOOK, KREUZEN, "§1 rule 7")
def test_a_cell_is_crossed_once():
    # k3 was crossed (its straight S-N replaced by a universal carrying E-W across); the
    # line led back to k3's NW corner cannot cross there again.
    path = "k1:S-N k2:S-N k3:S-N k4:S-E l4:W-E m4:W-S m3:N-W l3:E-W k3:E-W:universal j3:E-N j4:S-SE"
    state = position(path, racks=[["universal"], []], laid=["hook-right"])
    refused(state, Lay(0, sq("k3"), "universal"), "nil.crossing-line", "already crosses itself")


@pytest.mark.cites(RULEBOOK, SETZEN, "§1 rule 7")
def test_the_line_meets_itself_only_where_a_universal_crosses_a_straight_line():
    # Led to k2 from the west, where the line bends (S to E): a universal cannot keep a bend.
    bent = position(
        "k1:S-N k2:S-E l2:W-N l3:S-W k3:E-W j3:E-S j2:N-E",
        racks=[["universal"], []],
        laid=["curve"],
    )
    refused(bent, Lay(0, sq("k2"), "universal"), "nil.crossing-line", "k2 bends (S to E)")
    # A plain tile whose line would end on a point of the line is refused: on k2 a slant
    # from N to SE would end where k1's line meets l2's.
    path = "k1:S-NE:slant-right l2:SW-N:slant-right l3:S-W k3:E-S"
    meet = position(path, racks=[["slant-left", "curve", "straight"], []])
    refused(meet, Lay(0, sq("k2"), "slant-left", 2), "nil.no-crossing", "meet the line again at SE")
    assert Lay(0, sq("k2"), "slant-left", 2) not in lays(meet)


# -- rule 8: universal tiles --------------------------------------------------------------


@pytest.mark.cites(RULEBOOK, UNIVERSAL, "§1 rule 8")
def test_a_universal_stands_in_for_a_declared_kind_and_scores_its_own_value():
    state = position("k1:S-N", racks=[["universal", "hook-left"], ["curve"]])
    refused(state, Lay(0, sq("k2"), "universal"), "nil.universal-declare", "must say which tile")
    refused(
        state,
        Lay(0, sq("k2"), "hook-left", 0, "curve"),
        "nil.universal-declare",
        "only a universal",
    )
    refused(
        state,
        Lay(0, sq("k2"), "universal", 0, "universal"),
        "nil.universal-declare",
        "not 'universal'",
    )
    move = Lay(0, sq("k2"), "universal", 0, "curve")
    assert (
        NIL.describe(state, move)
        == "Seat 0 lays a universal for a curve on k2, turned 0, from S to E (+5)."
    )
    assert NIL.describe(state, move, "de") == (
        "Platz 0 setzt einen Stein „Universalstein“ anstelle eines Steins „Bogen“ auf k2, "
        "0 Vierteldrehungen, von S nach O (+5)."
    )
    after = NIL.play(state, move)
    assert after.end.exit == PORT_NAMES.index("E") and turn_parts(after)["tiles"] == 5


@pytest.mark.cites(RULEBOOK, "GEWINNPUNKTE:", "§1 Ambiguities: Universal value")
def test_a_universal_scores_its_own_value_standing_in_or_crossing():
    # "Werte aller während einer Runde gesetzten Steine": the universal's printed value,
    # whichever kind it stands in for, and when it crosses.
    universal, straight = KIT.kind["universal"].value, KIT.kind["straight"].value
    assert universal != straight
    state = position("k1:S-N", racks=[["universal"], []])
    stand_in = NIL.play(state, Lay(0, sq("k2"), "universal", 0, "straight"))
    assert turn_parts(stand_in)["tiles"] == universal
    path = "k1:S-N k2:S-N k3:S-N k4:S-E l4:W-E m4:W-S m3:N-W l3:E-W"
    led = position(path, racks=[["universal"], []], laid=["straight"])
    crossed = NIL.play(led, Lay(0, sq("k3"), "universal"))
    assert turn_parts(crossed)["tiles"] == straight + universal


@pytest.mark.cites(RULEBOOK, UNIVERSAL, "§1 rule 8")
def test_a_universal_that_is_the_only_playable_tile_must_be_played():
    # Diagonals and bends have no edge port: at k7's north edge only the universal fits.
    state = position(COLUMN, racks=[["diagonal", "bend", "universal"], ["curve"]])
    assert all(m.kind == "universal" for m in lays(state)) and lays(state)
    refused(state, NoPlay(0), "nil.universal-compulsory", "must be used")
    plain = position(COLUMN, racks=[["straight", "universal"], ["curve"]])
    refused(plain, NoPlay(0), "nil.no-play", "must be laid: straight on k8")


# -- rule 9: encirclement -----------------------------------------------------------------


@pytest.mark.cites(RULEBOOK, "EINKREISUNG:", "§1 rule 9")
def test_an_encirclement_forces_a_player_without_universal_to_pass_and_the_encircler_crosses():
    # Abb. 17: seat 0 holds a universal and leads the line into the pocket l3, walled in
    # by the line on every side and corner; every tile laid on l3 leads to a crossing.
    state = position(
        POCKET.rsplit(" ", 1)[0],
        racks=[
            ["curve", "straight", "universal"],
            ["straight", "curve", "diagonal", "slant-left", "slant-right"],
        ],
    )
    enclose = Lay(0, sq("l2"), "curve", 3)
    assert enclose in lays(state)
    state = NIL.play(NIL.play(state, enclose), EndTurn(0))
    for kind in ("curve", "curve", "curve"):
        state = NIL.play(state, Draw(kind))
    # Seat 1 has no universal: no tile may lead into the pocket, so it cannot play.
    assert NIL.legal_moves(state) == (NoPlay(1),)
    refused(state, Lay(1, sq("l3"), "straight", 0), "nil.room", "no universal tile")
    lost = sum(KIT.kind[k].value for k in state.racks[1])
    state = NIL.play(state, NoPlay(1))
    assert state.scores[1] == -lost and state.racks[1] == () and state.pending == (1,) * 5
    for _ in range(5):
        state = NIL.play(state, Draw("hook-left"))
    # Abb. 18: the encircler comes round again and crosses with its two tiles.
    lead = Lay(0, sq("l3"), "straight", 0)
    assert lead in lays(state)
    state = NIL.play(state, lead)
    crossing = Lay(0, sq("l4"), "universal")
    assert lays(state) == [crossing]
    state = NIL.play(state, crossing)
    assert state.end == Step(sq("l4"), PORT_NAMES.index("S"), PORT_NAMES.index("N"))


@pytest.mark.cites(RULEBOOK, "EINKREISUNG:", "§1 Ambiguities: Room for another tile")
def test_an_encircler_without_a_universal_is_refused_by_the_room_rule():
    # NOTES.md: "A crossing continuation counts as room only if the placer still holds a
    # universal, as rule 9 implies." The curve on l2 walls the line into the pocket l3,
    # whence it goes on only by a crossing: the encircler must keep a universal for it.
    walls = POCKET.rsplit(" ", 1)[0]
    enclose = Lay(0, sq("l2"), "curve", 3)
    bare = position(walls, racks=[["curve", "straight", "diagonal"], ["curve"]])
    refused(bare, enclose, "nil.room", "room only for a crossing", "no universal tile")
    assert enclose not in lays(bare)
    # In the table view the rack is not seen: allowed while a universal is off the board,
    # and noted as unchecked ...
    table = position(walls, view=View.TABLE, racks=[["curve", "straight", "diagonal"], []])
    after = NIL.play(table, enclose)
    assert any("holds a universal tile" in note for note in after.unchecked)
    # ... and refused once all four universals are on the board.
    gone = walls.replace("k1:S-N k2:S-N", "k1:S-N:universal/straight k2:S-N:universal/straight")
    gone = gone.replace("k4:S-E", "k4:S-E:universal/curve").replace(
        "m4:W-S", "m4:W-S:universal/curve"
    )
    table = position(gone, view=View.TABLE, racks=[["curve", "straight", "diagonal"], []])
    refused(table, enclose, "nil.room", "no universal tile")


# -- rule 10: scoring ---------------------------------------------------------------------


@pytest.mark.cites(RULEBOOK, "SPIELTAKTIK:", "§1 rule 10")
def test_a_line_ending_before_a_red_field_makes_every_next_tile_pay():
    # Abb. 3/4: the line ends at k7's north edge, facing the red field k8.
    state = position(COLUMN, seat=1, view=View.TABLE, racks=[["curve"] * 5, ["curve"] * 5])
    placed = lays(state)
    assert placed and {str(m.to) for m in placed} == {"k8"}
    assert all("red-penalty" in NIL.situations(state, m) for m in placed)
    after = NIL.play(state, placed[0])
    assert turn_parts(after)["red"] == -field_value("k8") == -10


@pytest.mark.cites(RULEBOOK, "SPIELTAKTIK:", "§1 Ambiguities: Where a line continues at a corner")
def test_a_line_led_into_the_notch_of_a_u_shaped_red_field_makes_every_next_tile_pay():
    # Abb. 5/6: the line ends at i9's south-west corner; h8, i8 and h9 around it are all
    # cells of one U-shaped red field.
    state = position(NOTCH, seat=1, view=View.TABLE, racks=[["curve"] * 5, ["curve"] * 5])
    placed = lays(state)
    assert {str(m.to) for m in placed} == {"h8", "i8", "h9"}
    u = KIT.field_at[sq("h8")]
    assert len(KIT.fields[u].cells) == 5 and sq("i9") not in KIT.field_at  # the notch
    assert all("red-penalty" in NIL.situations(state, m) for m in placed)


@pytest.mark.cites(RULEBOOK, WICHTIG, "§1 rule 10")
def test_a_u_shaped_red_field_is_charged_once_a_turn_and_the_next_player_pays_again():
    full = position(NOTCH, seat=1, racks=[["curve"], ["hook-left", "straight", "curve"]])
    u = KIT.field_at[sq("h8")]
    state = NIL.play(full, Lay(1, sq("i8"), "hook-left", 1))  # into i8, out to the west
    second = Lay(1, sq("h8"), "straight", 1)  # on across h8, the same U
    assert "red-penalty" not in NIL.situations(state, second)
    assert NIL.describe(state, second).endswith("(red field already paid this turn).")
    state = NIL.play(state, second)
    parts = turn_parts(state)
    assert parts["red"] == -25 and state.reds == (u,)
    state = NIL.play(state, EndTurn(1))
    assert state.scores[1] == parts["total"]
    assert state.reds == ()  # a new turn: the next player who enters pays again


@pytest.mark.cites(RULEBOOK, "GEWINNPUNKTE:", "§1 rule 10")
def test_a_turn_scores_values_green_blue_and_the_bonus_less_red_fields():
    path = " ".join(f"k{row}:S-N" for row in range(1, 19))
    state = position(path, racks=[["straight", "straight", "universal", "curve"], ["curve"]])
    finish = Lay(0, sq("k21"), "universal", 0, "straight")
    refused(state, finish, "nil.line-end", "k21 does not join")
    state = NIL.play(state, Lay(0, sq("k19"), "straight"))  # red 15
    state = NIL.play(state, Lay(0, sq("k20"), "straight"))
    assert "blue-finish" in NIL.situations(state, finish)
    assert NIL.describe(state, finish).endswith("; the river ends on blue 50.")
    over = NIL.play(state, finish)
    # straights 1 + 1, universal 5, blue 50, red k19 -15; then each curve left on a rack -2.
    assert over.scores == (1 + 1 + 5 + 50 - 15 - 2, -2)
    assert NIL.outcome(over).reason == "nil.end-blue" and NIL.outcome(over).winners == (0,)
    refused(over, EndTurn(0), "nil.game-over", "the game is over")


@pytest.mark.cites(RULEBOOK, "GEWINNPUNKTE:", "§1 Ambiguities: Green fields")
def test_a_green_field_of_several_cells_counts_once_a_turn():
    data = copy.deepcopy(read_kit_file("nil"))
    data["fields"].append({"colour": "green", "value": 7, "cells": ["k2", "k3"]})
    kit = NIL.kit_from_json(data)
    bag = tuple(k.count - 3 * (k.name == "straight") for k in kit.kinds)
    state = replace(
        NIL.new(2, None, kit), starter=0, racks=(("straight",) * 3, ()), bag=bag, bag_size=101
    )
    for row in (1, 2, 3):
        state = NIL.play(state, Lay(0, sq(f"k{row}"), "straight"))
    assert turn_parts(state)["green"] == 7
    assert NIL.play(state, EndTurn(0)).scores == (3 + 7, 0)


# -- rule 11: no play ---------------------------------------------------------------------


@pytest.mark.cites(RULEBOOK, KEINE, "§1 rule 11")
def test_no_play_costs_the_racks_values_returns_it_and_draws_five():
    state = position(COLUMN, racks=[["diagonal", "diagonal", "bend"], ["curve"]])
    assert NIL.legal_moves(state) == (NoPlay(0),)
    assert (
        NIL.describe(state, NoPlay(0))
        == "Seat 0 cannot lay a tile, shows the rack and loses 11 points."
    )
    after = NIL.play(state, NoPlay(0))
    assert after.scores == (-11, 0) and after.racks[0] == ()
    assert after.bag_size == state.bag_size + 3 and after.pending == (0,) * 5
    assert after.seat == 1 and after.no_play_run == 1


@pytest.mark.cites(RULEBOOK, KEINE, "§1 Ambiguities: Rule 11")
def test_a_tile_that_fits_is_laid_by_the_player_whose_turn_it_is():
    # "Findet ein Mitspieler unter diesen Steinen noch einen passenden Stein, so muß
    # dieser Stein gesetzt werden": the engine knows which tiles fit, so showing the rack
    # is refused while one does, and the player whose turn it is lays it, not the one
    # who pointed it out.
    state = position(COLUMN, racks=[["diagonal", "bend", "straight"], ["curve"]])
    assert NoPlay(0) not in NIL.legal_moves(state)
    refused(state, NoPlay(0), "nil.no-play", "must be laid: straight on k8")
    refused(state, Lay(1, sq("k8"), "straight"), "nil.turn-order", "seat 0's turn")
    assert NIL.play(state, Lay(0, sq("k8"), "straight")).racks[0] == ("diagonal", "bend")


# -- rule 12: the blue zone ---------------------------------------------------------------


@pytest.mark.cites(RULEBOOK, WICHTIG, "§1 rule 12")
def test_once_in_the_blue_zone_the_line_stays_there():
    column = " ".join(f"k{row}:S-N" for row in range(1, 21))
    state = position(column + " k21:S-E", racks=[["curve", "universal"], ["curve"]])
    assert state.in_blue
    # On l21 (blue) the line may run on along the zone or end at the top, not back out.
    assert NIL.violation(state, Lay(0, sq("l21"), "universal", 1, "straight")) is None
    refused(state, Lay(0, sq("l21"), "curve", 1), "nil.room", "S of l21 with no room")
    stray = position(column + " k21:S-E l21:W-S:curve", racks=[["universal"], ["curve"]])
    refused(stray, Lay(0, sq("l20"), "universal", 0, "straight"), "nil.blue-zone",
            "l20 is outside the blue zone")  # fmt: skip


@pytest.mark.cites(RULEBOOK, WICHTIG, "§1 rule 12")
def test_option_same_turn_the_player_who_entered_the_blue_zone_goes_on():
    path = " ".join(f"k{row}:S-N" for row in range(1, 21)).replace("k20:S-N", "k20:S-E")
    path += " l20:W-N l21:S-W"
    racks = [["curve", "straight", "slant-left"], ["curve"]]
    default = position(path, racks=racks, laid=["curve"])
    assert NIL.violation(default, EndTurn(0)) is None
    same = position(path, racks=racks, laid=["curve"], options={"blue_zone": "same-turn"})
    refused(same, EndTurn(0), "nil.blue-same-turn", "while a tile can still be laid")


# -- rule 13: the end ---------------------------------------------------------------------


@pytest.mark.cites(RULEBOOK, ENDE, "§1 Ambiguities: 2 rounds")
def test_the_game_ends_after_two_rounds_without_a_placement():
    # Two rounds of two players: the fourth turn in a row without a tile ends it.
    third = NIL.play(replace(position(COLUMN, racks=[["diagonal"], ["bend"]]), no_play_run=2),
                     NoPlay(0))  # fmt: skip
    assert third.no_play_run == 3 and not NIL.is_over(third)
    state = position(COLUMN, racks=[["diagonal"], ["bend"]])
    state = replace(state, no_play_run=3)
    over = NIL.play(state, NoPlay(0))
    assert NIL.outcome(over).reason == "nil.end-no-play" and NIL.is_over(over)
    assert over.scores == (-3, -5)  # seat 0's shown rack; seat 1's tile left at the end
    short = position(COLUMN, racks=[["diagonal"], ["bend"]], options={"no_play_end": "two-turns"})
    short = NIL.play(short, NoPlay(0))
    for _ in range(5):
        short = NIL.play(short, Draw("diagonal"))
    assert not NIL.is_over(short)
    short = NIL.play(short, NoPlay(1))
    assert NIL.outcome(short).reason == "nil.end-no-play"


@pytest.mark.cites(RULEBOOK, ENDE, "§1 rule 13")
def test_the_game_ends_when_all_tiles_are_placed():
    # A small kit of ten tiles (nine straights, one universal): the universal and six
    # straights stand on k1-k7, seat 0 holds the last three straights, the bag is empty.
    data = copy.deepcopy(read_kit_file("nil"))
    for tile in data["tiles"]:
        tile["count"] = {"straight": 9, "universal": 1}.get(tile["name"], 0)
    kit = NIL.kit_from_json(data)
    north = (PORT_NAMES.index("S"), PORT_NAMES.index("N"))
    cells = [sq(f"k{row}") for row in range(1, 8)]
    tiles = (Tile(cells[0], "universal", "straight"), *(Tile(c, "straight") for c in cells[1:]))
    state = replace(
        NIL.new(2, None, kit),
        starter=0,
        racks=(("straight",) * 3, ()),
        bag=(0,) * len(kit.kinds),
        bag_size=0,
        tiles=tiles,
        path=tuple(Step(c, *north) for c in cells),
    )
    assert kit.printed == len(state.tiles) + sum(map(len, state.racks)) + state.bag_size
    assert parse_state(dumps(NIL.state_to_json(state))) == state
    for row in (8, 9, 10):
        state = NIL.play(state, Lay(0, sq(f"k{row}"), "straight"))
    over = NIL.play(state, EndTurn(0))
    assert NIL.outcome(over).reason == "nil.end-all-placed"
    assert over.scores == (3 * 1 - field_value("k8"), 0)  # three straights, the red k8


# -- the table view -----------------------------------------------------------------------


def _hidden(moves, state_full):
    """The moves as the table sees them: draws to racks unseen."""
    seen = []
    state = state_full
    for move in moves:
        if isinstance(move, Draw) and state.starter is not None:
            seen.append(Draw(None))
        else:
            seen.append(move)
        state = NIL.play(state, move)
    return seen


@pytest.mark.cites(RULEBOOK, SETZEN, "§1 rule 6")
def test_a_game_replayed_in_the_table_view_checks_every_placement_from_the_board():
    full = NIL.new(3, None, KIT)
    playout = random_playout(NIL, full, game_rng(11, 0), 3000)
    assert playout.finished
    table = NIL.new(3, None, KIT, View.TABLE)
    state = table
    flagged = {}
    for move in _hidden(playout.moves, full):
        if not flagged and isinstance(move, Lay) and state.path:
            # Before the real tile, wrong ones are flagged with their rules: on the line,
            # off the board, and on an empty cell away from the line's end.
            end = state.end.cell
            away = next(cell for cell in (Square(c, r) for r in range(KIT.rows)
                                          for c in range(KIT.columns))
                        if cell not in state.board
                        and max(abs(cell.col - end.col), abs(cell.row - end.row)) > 1)  # fmt: skip
            for cell in (state.path[0].cell, Square(KIT.columns, move.to.row), away):
                with pytest.raises(IllegalMove) as error:
                    NIL.play(state, Lay(move.player, cell, "straight"))
                flagged[error.value.rule] = str(error.value)
        state = NIL.play(state, move)
    assert set(flagged) == {"nil.no-stacking", "nil.off-board", "nil.line-end"}
    assert "k1 holds a" in flagged["nil.no-stacking"]
    assert "does not join the line's end" in flagged["nil.line-end"]
    assert all(f"[{rule}]" in message for rule, message in flagged.items())
    assert state.path == playout.final.path and NIL.is_over(state)
    assert all(t == UNKNOWN for rack in state.racks for t in rack)
    # Turn scores come from the board alone; what needs a rack (a no-play's rack, the
    # tiles left at the end) is listed, not guessed: the scores differ by exactly that.
    unseen = [0, 0, 0]
    replay = full
    for move in playout.moves:
        if isinstance(move, NoPlay) and replay.path:
            unseen[move.player] += sum(KIT.kind[k].value for k in replay.racks[move.player])
        replay = NIL.play(replay, move)
    for seat, rack in enumerate(replay.racks):
        unseen[seat] += sum(KIT.kind[k].value for k in rack)
    assert replay == playout.final and any(unseen)
    assert [t - f for t, f in zip(state.scores, playout.final.scores, strict=True)] == unseen
    assert state.unchecked


@pytest.mark.cites(RULEBOOK, KEINE, "§1 rule 11")
def test_in_the_table_view_a_no_play_is_recorded_as_unchecked():
    state = position(COLUMN, view=View.TABLE, racks=[["curve"] * 5, ["curve"] * 5])
    assert NoPlay(0) in NIL.legal_moves(state)
    after = NIL.play(state, NoPlay(0))
    assert after.scores == (0, 0)
    assert "not deducted" in after.unchecked[0] and "not checked" in after.unchecked[0]
    assert NIL.chance_outcomes(after) == ((Draw(None), Fraction(1)),)
    assert NIL.describe(after, Draw(None)) == "Seat 0 draws an unseen tile out of the bag."
    # A kind all of whose tiles lie on the board cannot be laid, whatever the rack holds.
    path = "k1:S-N:universal/straight k2:S-N:universal/straight k3:S-N:universal/straight "
    path += "k4:S-N:universal/straight k5:S-N"
    gone = position(path, view=View.TABLE, racks=[["curve"] * 5, ["curve"] * 5])
    refused(gone, Lay(0, sq("k6"), "universal", 0, "straight"), "nil.tile-in-rack",
            "every universal tile of the kit is on the board already")  # fmt: skip
    assert NIL.violation(gone, Lay(0, sq("k6"), "straight")) is None


@pytest.mark.cites(RULEBOOK, SPIELBEGINN, "§1 rule 4")
def test_in_the_table_view_a_pass_at_the_opening_is_recorded_as_unchecked():
    # "Wenn der erste Spieler keinen geeigneten Stein hat, um das Spiel zu beginnen, muß
    # der Spieler zur Linken anfangen": the pass needs the rack; unseen and not shown, it
    # is recorded as unchecked.
    state = position(view=View.TABLE, racks=[["curve"] * 5, ["curve"] * 5])
    assert NoPlay(0) in NIL.legal_moves(state)
    after = NIL.play(state, NoPlay(0))
    assert after.seat == 1 and after.scores == (0, 0)
    assert len(after.unchecked) == 1 and "not checked" in after.unchecked[0]
    assert "opening" in after.unchecked[0]
    # Shown, it is checked from the board and nothing is left unchecked.
    shown = ("hook-left",) * 5
    assert NIL.play(state, NoPlay(0, shown)).unchecked == ()


@pytest.mark.cites(RULEBOOK, KEINE, "§1 rule 11")
def test_in_the_table_view_a_rack_shown_for_no_play_is_checked_from_the_board():
    state = position(COLUMN, view=View.TABLE, racks=[["curve"] * 5, ["curve"] * 5])
    shown = ("diagonal", "diagonal", "bend", "bend", "diagonal")
    assert NIL.is_report(NoPlay(0, shown)) and not NIL.is_report(NoPlay(0))
    assert NoPlay(0, shown) not in NIL.legal_moves(state)
    after = NIL.play(state, NoPlay(0, shown))
    assert after.scores == (-19, 0) and after.unchecked == ()
    assert NIL.describe(state, NoPlay(0, shown)).endswith("shows the rack and loses 19 points.")
    with_straight = ("diagonal", "diagonal", "bend", "bend", "straight")
    refused(state, NoPlay(0, with_straight), "nil.no-play", "must be laid: straight on k8")
    with_universal = ("diagonal", "diagonal", "bend", "bend", "universal")
    refused(state, NoPlay(0, with_universal), "nil.universal-compulsory", "must be used")
    refused(state, NoPlay(0, shown[:3]), "nil.no-play", "holds 5 tiles; 3 were shown")
    refused(state, NoPlay(0, ("universal",) * 5), "nil.tile-in-rack", "only 4 of the kit")
    # In the full view the rack shown must be the rack.
    full = position(COLUMN, racks=[["diagonal", "bend"], ["curve"]])
    refused(full, NoPlay(0, ("bend", "bend")), "nil.no-play", "not seat 0's rack")
    assert NIL.play(full, NoPlay(0, ("bend", "diagonal"))) == NIL.play(full, NoPlay(0))


# -- bad input ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        (
            lambda d: d["board"].update(start="k5"),
            "field 'board.start_port': the start point must lie on exactly one edge",
        ),
        (lambda d: d["board"].update(start="a1", start_port="SW"), "board.start_port"),
        (
            lambda d: d["board"].update(columns=2),
            "field 'board.columns': expected a whole number from 3",
        ),
        (lambda d: d["board"].update(start="z9"), "field 'board.start': z9 is not a cell"),
        (
            lambda d: d["tiles"][0].update(lines=[["S", "S"]]),
            "field 'tiles[0].lines[0]': a line joins two different ports",
        ),
        (
            lambda d: d["tiles"][0].update(lines=[["S", "Q"]]),
            "field 'tiles[0].lines[0]': expected a port",
        ),
        (
            lambda d: d["tiles"][0].update(lines=[["S", "N"], ["E", "W"]]),
            "field 'tiles[0].lines': a tile has one line",
        ),
        (
            lambda d: d["tiles"][1].update(lines=[["W", "E"]]),
            "field 'tiles[1].lines': the same line, turned, as tile kind 'straight'",
        ),
        (lambda d: d["tiles"][0].update(count=-1), "field 'tiles[0].count'"),
        (
            lambda d: d["fields"][0].update(cells=["v1"]),
            "field 'fields[0].cells[0]': v1 is not a cell of the 21 x 21 board",
        ),
        (
            lambda d: d["fields"][1].update(cells=["c4"]),
            "field 'fields[1].cells[0]': c4 already belongs to fields[0]",
        ),
        (lambda d: d["fields"][0].update(cells=["k1"]), "k1 is the start field"),
        (lambda d: d["fields"][0].update(colour="purple"), "field 'fields[0].colour'"),
        (
            lambda d: d.update(fields=[f for f in d["fields"] if f["colour"] != "blue"]),
            "no blue field touches the goal edge (N)",
        ),
        (
            lambda d: d.update(tiles=[t for t in d["tiles"] if t["name"] != "universal"]),
            "expected a universal tile kind",
        ),
        (
            # Straights only, and the one blue field off their column: no way to the goal.
            lambda d: d.update(
                tiles=[t for t in d["tiles"] if t["name"] in ("straight", "universal")],
                fields=[f for f in d["fields"] if f["colour"] != "blue" or f["cells"] == ["c21"]],
            ),
            "field 'board': no tile laid on the start field k1 from its port S could lead the "
            "line to a blue field on the goal edge (N)",
        ),
    ],
)
@pytest.mark.cites(RULEBOOK, "AUSSTATTUNG:", "§1 rule 1")
def test_impossible_kits_name_the_field(change, fragment):
    data = copy.deepcopy(read_kit_file("nil"))
    change(data)
    with pytest.raises(KitError) as error:
        NIL.kit_from_json(data)
    assert fragment in str(error.value)


@pytest.mark.cites(RULEBOOK, "SPIELREGEL:", "§1 rule 2")
def test_malformed_states_and_moves_name_the_bad_field():
    state = position(COLUMN, racks=[["curve"], ["straight"]])
    document = NIL.state_to_json(state)
    bad = json.loads(json.dumps(document))
    bad["path"][0][1] = "UP"
    with pytest.raises(NotationError, match=r"path\[0\]\[1\]: expected one of N"):
        parse_state(bad)
    bad = json.loads(json.dumps(document))
    bad["bag"]["straight"] += 1
    with pytest.raises(NotationError, match="bag"):
        parse_state(bad)
    bad = json.loads(json.dumps(document))
    bad["path"][3] = ["l4", "W", "E"]
    bad["tiles"]["l4"] = bad["tiles"].pop("k4")
    with pytest.raises(NotationError, match=r"path\[3\]: the line does not continue from the end"):
        parse_state(bad)
    bad = json.loads(json.dumps(document))
    bad["path"][2][2] = "E"
    with pytest.raises(
        NotationError, match=r"path\[2\]: the straight on k3 has no line from S to E"
    ):
        parse_state(bad)
    bad = json.loads(json.dumps(document))
    bad["tiles"]["k2"] = {"tile": "universal", "as": None}
    bad["bag"]["universal"] -= 1
    bad["bag"]["straight"] += 1
    with pytest.raises(NotationError, match=r"tiles\.k2\.as: a universal tile names the kind"):
        parse_state(bad)
    bad = json.loads(json.dumps(document))
    bad["tiles"]["a1"] = {"tile": "straight", "as": None}
    with pytest.raises(NotationError, match="path: every tile on the board lies on the line"):
        parse_state(bad)
    with pytest.raises(NotationError, match=r"move\.rotation: expected a whole number from 0 to 3"):
        NIL.move_from_json(
            {"type": "lay", "player": 0, "to": "k8", "tile": "curve", "rotation": 4, "as": None}
        )
    with pytest.raises(NotationError, match=r"move\.as: missing"):
        NIL.move_from_json({"type": "lay", "player": 0, "to": "k8", "tile": "curve", "rotation": 0})


@pytest.mark.cites(RULEBOOK, "SPIELREGEL:", "§1 rule 2")
def test_a_state_repr_pastes_back_and_documented_moves_read():
    from pathlib import Path

    from rules.notation import loads

    state = position(COLUMN, racks=[["curve"], ["straight"]])
    assert eval(repr(state), {"parse_state": parse_state}) == state
    doc = (Path(__file__).resolve().parents[2] / "docs" / "notation.md").read_text(encoding="utf-8")
    import re

    moves = [
        loads(body)
        for tag, body in re.findall(r"```json (\S+)\n(.*?)```", doc, re.S)
        if tag == "nil-move"
    ]
    assert len(moves) == 6
    for document in moves:
        assert NIL.move_to_json(NIL.move_from_json(document)) == document
