"""Horus state documents: a state read from its notation is one the rules could have
built. The layout is checked as each placement is (contact, the river ends, the
temple), and the turn's fields agree with one another; a refusal names the field, the
position and, where one applies, the rule id, as a refused move does.

Layouts are ``(x, y, kind)`` tiles in half edges beside the start tiles (the pyramid at
0,0, the river ends at -2,0 and 2,0); see ``horus_positions``.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from horus_positions import HORUS, RULEBOOK, position

from rules import NotationError, parse_state
from rules.catalogue import catalogue
from rules.horus import Lay, Pos, Tile
from rules.notation import dumps

SCENARIOS = True
LEGE = "LEGEREGELN FÜR GEBIETSPLÄTTCHEN"
VERLAENGERN = "Den Fluss verlängern"
TEMPEL = "Der Horustempel"
ABLAUF = "SPIELABLAUF"


def _with_tile(tiles, *extra, **kw):
    """The notation of ``position(tiles)`` with the tiles ``extra`` added, taken from the
    bag so that the counts still add up."""
    document = HORUS.state_to_json(position(tiles, phase="card", **kw))
    for tile in extra:
        document["tiles"].append(list(tile))
        document["bag"][tile[2]] -= 1
    document["tiles"].sort(key=lambda t: (t[1], t[0]))
    return document


def _refused(document, rule: str, *fragments: str) -> NotationError:
    with pytest.raises(NotationError) as error:
        parse_state(dumps(document))
    assert error.value.rule == rule, str(error.value)
    assert rule in catalogue()
    message = str(error.value)
    assert f"[{rule}]" in message
    for fragment in fragments:
        assert fragment in message, message
    return error.value


@pytest.mark.cites(RULEBOOK, LEGE, "§3 rule 3")
def test_a_state_with_a_tile_touching_only_at_a_corner_is_refused():
    document = _with_tile([(0, 2, "desert")], (4, 2, "hills"))
    error = _refused(document, "horus.corner-contact", "hills at 4,2", "river end at 2,0")
    assert error.where == "tiles[4]"


@pytest.mark.cites(RULEBOOK, LEGE, "§3 rule 3")
def test_a_state_with_a_tile_touching_no_tile_is_refused():
    document = _with_tile([(0, 2, "desert")], (20, 20, "hills"))
    _refused(document, "horus.touch", "hills at 20,20", "not joined")
    # Two tiles that touch each other but not the layout are no better.
    document = _with_tile([(0, 2, "desert")], (20, 20, "hills"), (22, 20, "hills"))
    _refused(document, "horus.touch", "hills at 20,20")


@pytest.mark.cites(RULEBOOK, TEMPEL, "§3 rule 8")
def test_a_state_with_a_temple_laid_at_land_is_refused():
    # Off the river altogether: above the desert.
    document = _with_tile([(0, 2, "desert")], (0, 4, "temple"))
    _refused(document, "horus.temple-river", "temple at 0,4", "does not touch the river")
    # At a river tile that touches nothing but the temple and the desert's row: that
    # river tile could not have been laid (the river is one piece), so the temple was
    # not laid at the river either.
    tiles = [(0, 2, "desert"), (2, 3, "desert"), (2, 5, "desert")]
    document = _with_tile(tiles, (0, 4, "temple"), (0, 6, "river"))
    error = _refused(document, "horus.river-touch", "river tile at 0,6", "not joined to the river")
    assert error.where == "tiles[7]"


@pytest.mark.cites(RULEBOOK, VERLAENGERN, "§3 rule 6")
def test_a_state_with_river_tiles_apart_from_the_river_is_refused():
    # A river tile beside a desert only, and a river end laid away from the river.
    document = _with_tile([(0, 2, "desert")], (0, 4, "river"))
    _refused(document, "horus.river-touch", "river tile at 0,4", "tiles[")
    moved = _with_tile([(0, 2, "desert")])
    moved["tiles"] = [t if t != [2, 0, "end"] else [0, 4, "end"] for t in moved["tiles"]]
    moved["tiles"].sort(key=lambda t: (t[1], t[0]))
    _refused(moved, "horus.river-touch", "river end at 0,4", "not joined to the river")


@pytest.mark.cites(RULEBOOK, TEMPEL, "§3 rule 8")
def test_land_laid_at_the_temple_later_is_no_fault():
    # Beispiel 6 (F): the temple laid at the river end 2,0, a desert later beside both.
    document = _with_tile([(0, 2, "desert")], (2, 2, "temple"))
    state = parse_state(dumps(document))
    assert state.layout.kind[Pos(2, 2)] == "temple"


@pytest.mark.cites(RULEBOOK, VERLAENGERN, "§3 Ambiguities: Blocking a river end")
def test_a_state_with_a_blocked_river_end_is_refused():
    tiles = [(-4, 0, "swamp"), (-2, 2, "hills")]
    document = _with_tile(tiles, (-2, -2, "farmland"))
    _refused(document, "horus.river-end-blocked", "river end at -2,0", "tiles[2]")
    # With option end_room full-edge the three whole edges are enough.
    document = _with_tile([(-4, 0, "swamp"), (-2, 2, "hills")], (-2, -2, "farmland"),
                          options={"end_room": "full-edge"})  # fmt: skip
    _refused(document, "horus.river-end-blocked", "river end at -2,0")


@pytest.mark.cites(RULEBOOK, VERLAENGERN, "§3 Ambiguities: Blocking a river end")
def test_an_end_blocked_already_is_not_blamed_on_the_next_tile():
    # Not a state the rules or the notation give: built in code, the end at -2,0 boxed in.
    state = position([(-4, 0, "swamp"), (-2, 2, "hills")], phase="bag-tile", in_hand="desert")
    tiles = (*state.tiles, Tile(Pos(-2, -2), "farmland"))
    boxed = replace(state, tiles=tuple(sorted(tiles, key=lambda t: (t.at.y, t.at.x))))
    assert boxed.layout.blocked_ends() == (Pos(-2, 0),)
    assert HORUS.rule_violation(boxed, Lay(0, "desert", Pos(-4, 2))) is None


@pytest.mark.cites(RULEBOOK, LEGE, "§3 rule 3")
def test_overlapping_tiles_in_a_state_name_the_rule():
    document = _with_tile([(0, 2, "desert")], (1, 3, "hills"))
    _refused(document, "horus.overlap", "1,3", "overlaps the tile at 0,2")


@pytest.mark.cites(RULEBOOK, ABLAUF, "§3 rule 2")
@pytest.mark.parametrize(
    ("phase", "changes", "field", "fragment"),
    [
        ("stack-tile", {"card": None}, "card", "follows a Horus card played"),
        ("stone", {"card": "nile"}, "card", "follows a Horus card played"),
        ("card", {"card": "desert/3"}, "card", "comes before action 2"),
        ("nile-tiles", {"card": "desert/3"}, "card", 'follows the Nile card: "nile"'),
        ("nile-tiles", {"nile_tiles": 0}, "nile_tiles", "1 or 2 are still due"),
        ("nile-stone", {"nile_tiles": 1}, "nile_tiles", "only phase nile-tiles"),
        ("stack-tile", {"laid": "desert"}, "laid", "only in phase stone"),
    ],
)
def test_the_phase_the_card_and_the_nile_tiles_agree(phase, changes, field, fragment):
    document = HORUS.state_to_json(position(phase=phase, hands=[["desert/3"], []]))
    document |= changes
    with pytest.raises(NotationError) as error:
        parse_state(dumps(document))
    assert error.value.where == field
    assert fragment in str(error.value)


@pytest.mark.cites(RULEBOOK, ABLAUF, "§3 rule 2")
def test_a_phase_nile_tiles_with_a_horus_card_and_no_tile_due_is_refused():
    document = HORUS.state_to_json(position(phase="nile-tiles"))
    document |= {"card": "desert/3", "nile_tiles": 0}
    with pytest.raises(NotationError, match=r"^card: phase nile-tiles follows the Nile card"):
        parse_state(dumps(document))


@pytest.mark.cites(RULEBOOK, "4. Aktion: Einen Königreich-Stein gemäß der Horuskarte setzen",
                   "§3 rule 5")  # fmt: skip
@pytest.mark.parametrize(
    ("stones", "rule", "fragment"),
    [
        ([[0, 0, 0]], "horus.stone-terrain", "the tile at 0,0 is a pyramid"),
        ([[2, 0, 0]], "horus.stone-terrain", "the tile at 2,0 is a river end"),
        ([[9, 9, 0]], "horus.stone-terrain", "no tile lies at 9,9"),
        ([[0, 2, 0], [0, 2, 1]], "horus.stone-one-per-tile", "two stones on the tile at 0,2"),
    ],
)
def test_stones_in_a_state_name_the_rule_they_break(stones, rule, fragment):
    document = HORUS.state_to_json(position([(0, 2, "desert")]))
    document["stones"] = stones
    _refused(document, rule, fragment)


@pytest.mark.cites(RULEBOOK, "SPIELVORBEREITUNG", "§3 rule 1")
def test_a_layout_without_its_start_tiles_says_what_it_has():
    document = HORUS.state_to_json(position())
    document["tiles"] = [t for t in document["tiles"] if t[:2] != [2, 0]]
    with pytest.raises(NotationError, match="the layout has 1 river ends and 1 pyramid tiles"):
        parse_state(dumps(document))
