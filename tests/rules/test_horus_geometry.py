"""Horus geometry and kit: positions in half edges, contact along a whole or half an edge
(never a corner alone), enclosure by water; the kit's facts and its checks.

Positions are ``(x, y)`` in half edges; a tile is 2 x 2 (``horus_positions``).
"""

from __future__ import annotations

import copy

import pytest
from horus_positions import HORUS, KIT, RULEBOOK, position, refused

from rules import KitError, NotationError, new_game
from rules.horus import Lay, Pos, adjacent, contact
from rules.horus.geometry import cells, corners, neighbours, shared_boundary, unreached
from rules.kits import read_kit_file

SCENARIOS = True
LEGE = "LEGEREGELN FÜR GEBIETSPLÄTTCHEN"
MATERIAL = "SPIELMATERIAL"
VORBEREITUNG = "SPIELVORBEREITUNG"
FLUSS = "Der Fluss"


@pytest.mark.cites(RULEBOOK, LEGE, "§3 Ambiguities: Geometry")
@pytest.mark.parametrize(
    ("offset", "expected", "shared"),
    [
        ((2, 0), "full", 2),
        ((0, -2), "full", 2),
        ((2, 1), "half", 1),
        ((-1, 2), "half", 1),
        ((2, 2), "corner", 0),
        ((-2, 2), "corner", 0),
        ((1, 1), "overlap", 0),
        ((0, 0), "overlap", 0),
        ((1, 0), "overlap", 0),
        ((3, 0), "apart", 0),
        ((2, 3), "apart", 0),
    ],
)
def test_contact_in_half_edges(offset, expected, shared):
    a = Pos(4, -3)
    b = Pos(4 + offset[0], -3 + offset[1])
    assert contact(a, b) == expected
    assert contact(b, a) == expected
    assert adjacent(a, b) == (expected in ("full", "half"))
    assert shared_boundary(a, b) == shared


@pytest.mark.cites(RULEBOOK, LEGE, "§3 Ambiguities: Geometry")
def test_twelve_adjacent_places_and_four_corners():
    at = Pos(0, 0)
    around = neighbours(at)
    assert len(set(around)) == 12
    assert all(adjacent(at, p) for p in around)
    assert all(contact(at, p) == "corner" for p in corners(at))
    assert set(cells(at)) == {(0, 0), (1, 0), (0, 1), (1, 1)}


@pytest.mark.cites(RULEBOOK, LEGE, "§3 rule 3")
def test_full_and_half_edge_placements_are_legal():
    state = position(phase="bag-tile", in_hand="desert")
    # Beispiel 2: (A) flush against the river tile, (C) half an edge along.
    for at in (Pos(0, 2), Pos(1, 2), Pos(-1, -2), Pos(4, 1)):
        after = HORUS.play(state, Lay(0, "desert", at))
        assert after.layout.kind[at] == "desert"


@pytest.mark.cites(RULEBOOK, LEGE, "§3 rule 3")
def test_corner_only_contact_is_refused():
    state = position(phase="bag-tile", in_hand="desert")
    # Beispiel 2 (E): a corner touching only a corner is no contact.
    refused(state, Lay(0, "desert", Pos(4, 2)), "horus.corner-contact", "only at a corner")


@pytest.mark.cites(RULEBOOK, LEGE, "§3 rule 3")
def test_overlap_and_no_contact_are_refused():
    state = position(phase="bag-tile", in_hand="desert")
    refused(state, Lay(0, "desert", Pos(1, 1)), "horus.overlap", "1,1", "overlap the pyramid")
    refused(state, Lay(0, "desert", Pos(0, 5)), "horus.touch", "0,5", "touch no tile")


@pytest.mark.cites(RULEBOOK, LEGE, "§3 Ambiguities: Geometry")
def test_an_offset_between_half_edges_cannot_be_written():
    # Other offsets and skewed tiles (Beispiel 2 (G)) are no position: refused as input.
    with pytest.raises(NotationError, match=r"move\.at\[0\].*whole half edges.*0\.5"):
        HORUS.move_from_json({"type": "lay", "player": 0, "tile": "desert", "at": [0.5, 2]})
    with pytest.raises(NotationError, match=r"move\.at"):
        HORUS.move_from_json({"type": "lay", "player": 0, "tile": "desert", "at": [0, 2, 1]})


@pytest.mark.cites(RULEBOOK, FLUSS, "§3 Ambiguities: Island")
def test_walls_meeting_at_corners_close_a_ring():
    tile = Pos(0, 0)
    ring = [Pos(-2, 0), Pos(2, 0), Pos(0, 2), Pos(0, -2)]  # a plus: corners meet only
    walls = {c for at in ring for c in cells(at)}
    assert unreached(walls, [tile]) == {tile}
    # Take one arm away and the flood comes in.
    walls = {c for at in ring[:3] for c in cells(at)}
    assert unreached(walls, [tile]) == set()


@pytest.mark.cites(RULEBOOK, VORBEREITUNG, "§3 rule 1")
def test_the_kit_gives_the_start_layout_and_the_counts():
    state = new_game("horus", players=3)
    kinds = {t.at: t.kind for t in state.tiles}
    assert kinds == {Pos(0, 0): "pyramid", Pos(-2, 0): "end", Pos(2, 0): "end"}
    assert sum(t.count for t in KIT.terrains) == 80
    assert KIT.tiles == 120 and KIT.horus_cards == 50 and KIT.nile_cards == 4
    assert KIT.stones == 20
    assert state.nile == (True, True, True)
    assert all(state.stones_left(s) == 20 for s in range(3))


@pytest.mark.cites(RULEBOOK, "ENDABRECHNUNG", "§3 rule 1")
def test_the_seats_play_the_stone_colours_of_the_box():
    # Beispiel 7 names the players by their stones: Weiß, Gelb, Schwarz, Blau.
    state = new_game("horus", players=4)
    assert [HORUS.seat_colour(state, s) for s in range(4)] == ["white", "yellow", "black", "blue"]
    assert HORUS.seat_colour(state, 4) is None


def _broken(change):
    data = copy.deepcopy(read_kit_file("horus"))
    change(data)
    return data


@pytest.mark.cites(RULEBOOK, MATERIAL, "§3 rule 1")
@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        (
            lambda d: d["terrains"][0].update(stack=9),
            "field 'terrains[0].stack': the desert tiles in the bag (10) and in the stack (9) "
            "do not add up to its count (20) (got 9)",
        ),
        (lambda d: d.update(tiles=121), "field 'tiles'"),
        (lambda d: d["river"].update(stack=23), "make 119, not 120"),
        (lambda d: d["cards"][0].update(count=3), "field 'cards': the card kinds count 51"),
        (lambda d: d["cards"][0].update(terrain="sand"), "field 'cards[0].terrain'"),
        (lambda d: d["cards"][0].update(number=6), "field 'cards[0].number'"),
        (lambda d: d["cards"][1].update(number=1), "field 'cards[1]': the card desert/1"),
        (
            lambda d: d["start"].update(ends=[[-2, 0], [4, 0]]),
            "field 'start.ends[1]': the river end does not touch the pyramid tile at 0,0",
        ),
        (lambda d: d["start"].update(pyramid=[1, 1]), "field 'start': the start tiles"),
        (lambda d: d["river"].update(temple=2), "field 'river.temple'"),
        (lambda d: d.update(hand=True), "field 'hand'"),
        (lambda d: d.pop("stones"), "field 'stones': missing"),
        (
            lambda d: d.update(stone_colours=["white", "white", "black", "blue"]),
            "field 'stone_colours'",
        ),
        (lambda d: d.update(stone_colours=["white", "yellow"]), "field 'stone_colours'"),
        (lambda d: d.update(colour="red"), "field 'colour': unknown field"),
    ],
)
def test_a_kit_that_does_not_add_up_is_refused_naming_the_field(change, fragment):
    with pytest.raises(KitError) as error:
        HORUS.kit_from_json(_broken(change))
    assert fragment in str(error.value)
    assert isinstance(error.value, ValueError)
