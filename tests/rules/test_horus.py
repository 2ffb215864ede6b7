"""Horus scenarios: every numbered rule of NOTES.md §3 and every option, rebuilt from the
rulebook's words (its pictures are missing): a turn's five actions, the bag tile, the
card and its tile, stones by region size, the river with its two ends (Beispiel 4, 5),
the Nile card, the temple, a stack running out, the end; and the table view.

Layouts are ``(x, y, kind)`` tiles in half edges beside the start tiles (the pyramid at
0,0, the river ends at -2,0 and 2,0); see ``horus_positions``. The final count has its
own module (``test_horus_count.py``), geometry and kit theirs.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from horus_positions import HORUS, KIT, RULEBOOK, play, position, refused

from rules import CHANCE, IllegalMove, View, new_game
from rules.horus import (
    DrawCard,
    DrawTile,
    Lay,
    MoveStone,
    PlayCard,
    PlayNile,
    Pos,
    ReplaceEnd,
    SetAside,
    SetStone,
    SkipStone,
)
from rules.horus.legality import bag_moves
from rules.playout import game_rng, random_playout

SCENARIOS = True
VORBEREITUNG = "SPIELVORBEREITUNG"
ABLAUF = "SPIELABLAUF"
A1 = "1. Aktion: Ein Gebietsplättchen aus dem Beutel ziehen und anlegen"
A2 = "2. Aktion: Eine Horuskarte von der Hand ausspielen"
A3 = "3. Aktion: Ein Gebietsplättchen gemäß der Horuskarte anlegen"
A4 = "4. Aktion: Einen Königreich-Stein gemäß der Horuskarte setzen"
A5 = "5. Aktion: Eine Horuskarte nachziehen"
ERSTE = "Ausnahme in der ersten Runde"
LEGE = "LEGEREGELN FÜR GEBIETSPLÄTTCHEN"
REGIONEN = "Die Regionen"
VERLAENGERN = "Den Fluss verlängern"
VERAENDERN = "Den Flusslauf verändern"
NILKARTE = "Die Nilkarte"
TEMPEL = "Der Horustempel"
ENDE = "SPIELENDE"

HAND = ["desert/3", "hills/2", "farmland/5", "swamp/1", "?/?"]
#: Regions for the stone rules: a single desert, two hills, six farmland in a row, and a
#: necropolis; a second necropolis joins the farmland to the desert.
STONES = [
    (0, 2, "desert"),
    (0, -2, "hills"),
    (2, -2, "hills"),
    (-4, 0, "necropolis"),
    (0, 4, "necropolis"),
    *((x, 6, "farmland") for x in range(-6, 6, 2)),
]
#: The river end at 2,0 with a single free place beside it, 2,-2, which is itself shut
#: in: a tile there blocks the end, and the end moved there is blocked. The farmland at
#: 0,-4 joins the desert to the layout.
SHUT_IN = [(2, 2, "hills"), (4, 0, "hills"), (4, -2, "swamp"), (0, -2, "farmland"),
           (2, -4, "desert"), (0, -4, "farmland")]  # fmt: skip
#: Every free place at the river also touches land: the temple has nowhere to go. The
#: hills at -4,0 join the ring to the river end.
RING = [
    (-4, 0, "hills"),
    *((x, 4, "hills" if x % 4 else "swamp") for x in range(-6, 8, 2)),
    *((x, -4, "swamp" if x % 4 else "hills") for x in range(-6, 8, 2)),
    *((x, y, "hills" if y else "swamp") for x in (-6, 6) for y in (-2, 0, 2)),
]
DESERT_ROW = [(x, 4, "desert") for x in range(-8, 10, 2)]  # nine desert tiles
HILLS_ROW = [(x, -4, "hills") for x in range(-8, 12, 2)]  # ten hills tiles
#: Necropolises joining the rows above to the pyramid (no region takes them in).
ABOVE = (0, 2, "necropolis")
BELOW = (0, -2, "necropolis")


# -- set-up and turns --------------------------------------------------------------------


@pytest.mark.cites(RULEBOOK, VORBEREITUNG, "§3 rule 1")
def test_setup_deals_five_cards_each_and_seat_0_begins():
    state = new_game("horus", players=3)
    assert HORUS.to_act(state) is CHANCE
    assert state.pending == (0, 1, 2) * 5
    rng = game_rng(1, 0)
    while state.pending:
        outcomes = HORUS.chance_outcomes(state)
        assert all(isinstance(m, DrawCard) for m, _ in outcomes)
        state = HORUS.play(state, outcomes[rng.randrange(len(outcomes))][0])
    assert [len(h) for h in state.hands] == [5, 5, 5]
    assert sum(state.pile) == 50 - 15
    assert (state.seat, state.phase) == (0, "draw")
    draws = HORUS.chance_outcomes(state)
    assert {m.kind for m, _ in draws} == {*KIT.terrain_names, "river", "temple"}
    assert sum(p for _, p in draws) == 1


@pytest.mark.cites(RULEBOOK, ABLAUF, "§3 rule 2")
def test_a_turn_is_five_actions_in_order():
    state = position(phase="bag-tile", in_hand="desert", hands=[HAND, HAND[:4]])
    refused(state, PlayCard(0, "hills/2"), "horus.action-order", "the bag tile laid")
    state = HORUS.play(state, Lay(0, "desert", Pos(0, 2)))
    assert state.phase == "card"
    refused(state, Lay(0, "hills", Pos(0, -2)), "horus.action-order", "a card played")
    state = HORUS.play(state, PlayCard(0, "hills/2"))
    assert state.phase == "stack-tile"
    refused(state, SetStone(0, Pos(0, 2)), "horus.action-order", "the tile the card names")
    state = HORUS.play(state, Lay(0, "hills", Pos(0, -2)))
    assert state.phase == "stone"
    assert HORUS.legal_moves(state) == (SkipStone(0),)  # no region of two
    state = HORUS.play(state, SkipStone(0))
    # Action 5: the hand is filled up to five, then the next seat draws from the bag.
    assert (state.seat, state.phase, state.pending) == (1, "draw", (0,))
    assert HORUS.to_act(state) is CHANCE
    assert all(isinstance(m, DrawCard) for m, _ in HORUS.chance_outcomes(state))


@pytest.mark.cites(RULEBOOK, ABLAUF, "§3 rule 1")
def test_only_the_seat_whose_turn_it_is_acts():
    state = position(phase="card", hands=[HAND, HAND[:4]], seat=0)
    refused(state, PlayCard(1, "desert/3"), "horus.turn-order", "seat 0's turn")


@pytest.mark.cites(RULEBOOK, A1, "§3 rule 2")
def test_the_bag_tile_is_the_one_drawn():
    state = position(phase="draw")
    state = HORUS.play(state, DrawTile("swamp"))
    assert (state.phase, state.in_hand) == ("bag-tile", "swamp")
    refused(state, Lay(0, "desert", Pos(0, 2)), "horus.bag-tile", "is a swamp, not desert")
    assert HORUS.play(state, Lay(0, "swamp", Pos(0, 2))).phase == "card"


@pytest.mark.cites(RULEBOOK, A2, "§3 rule 2")
def test_the_card_played_comes_from_the_hand_and_names_the_tile():
    state = position(phase="card", hands=[HAND, HAND[:4]])
    refused(state, PlayCard(0, "desert/1"), "horus.card-in-hand", "holds no desert/1")
    refused(state, PlayCard(0, "sand/1"), "horus.card-in-hand", "no card 'sand/1'")
    state = HORUS.play(state, PlayCard(0, "desert/3"))
    refused(state, Lay(0, "hills", Pos(0, 2)), "horus.card-tile", "names desert, not hills")
    refused(state, Lay(0, "necropolis", Pos(0, 2)), "horus.card-tile")
    assert HORUS.play(state, Lay(0, "desert", Pos(0, 2))).stack("desert") == 9


@pytest.mark.cites(RULEBOOK, A3, "§3 rule 2")
def test_a_question_mark_card_takes_any_stack_river_and_necropolis_included():
    state = position(phase="card", hands=[HAND, HAND[:4]])
    state = HORUS.play(state, PlayCard(0, "?/?"))
    laid = {type(m).__name__ + ":" + getattr(m, "tile", "river") for m in HORUS.legal_moves(state)}
    assert laid == {"Lay:desert", "Lay:hills", "Lay:farmland", "Lay:swamp", "Lay:river",
                    "Lay:necropolis", "ReplaceEnd:river"}  # fmt: skip
    after = HORUS.play(state, Lay(0, "necropolis", Pos(0, 2)))
    assert after.stack("river") == KIT.river_stack - 1


@pytest.mark.cites(RULEBOOK, A3, "§3 Ambiguities: Empty bag or stack")
def test_an_empty_stack_gives_no_tile():
    tiles = [(x, 2, "desert") for x in range(-4, 16, 2)]
    state = position(tiles, phase="stack-tile", card="?/3", stacks={"desert": 0})
    refused(state, Lay(0, "desert", Pos(-4, 4)), "horus.stack-empty", "desert stack is empty")


# -- regions and stones -----------------------------------------------------------------


@pytest.mark.cites(RULEBOOK, REGIONEN, "§3 rule 4")
def test_regions_are_same_terrain_groups_and_never_river_necropolis_or_temple():
    tiles = [(0, 2, "desert"), (2, 3, "desert"), (4, 2, "necropolis"), (6, 2, "desert"),
             (0, -2, "temple"), (-4, 0, "river")]  # fmt: skip
    regions = position(tiles).layout.regions
    assert sorted((r.terrain, r.size) for r in regions) == [("desert", 1), ("desert", 2)]


@pytest.mark.cites(RULEBOOK, A4, "§3 rule 2")
def test_a_stone_goes_on_a_region_of_exactly_the_cards_number():
    state = position(STONES, card="hills/2")
    refused(state, SetStone(0, Pos(0, 2)), "horus.stone-size", "a region of 2", "has 1 tiles")
    after = HORUS.play(state, SetStone(0, Pos(2, -2)))
    assert (Pos(2, -2), 0) in [(s.at, s.player) for s in after.stones]
    # "?" in the corners: any region of 1 to 5.
    question = position(STONES, card="desert/?")
    assert {m.at for m in HORUS.legal_moves(question) if isinstance(m, SetStone)} == {
        Pos(0, 2), Pos(0, -2), Pos(2, -2)}  # fmt: skip


@pytest.mark.cites(RULEBOOK, A4, "§3 rule 5")
def test_regions_of_six_or_more_take_no_stone_not_even_with_a_question_mark():
    state = position(STONES, card="?/?")
    refused(state, SetStone(0, Pos(0, 6)), "horus.stone-six", "has 6 tiles")


@pytest.mark.cites(RULEBOOK, A4, "§3 rule 5")
def test_one_stone_a_tile_and_only_on_terrain():
    state = position(STONES, [(0, -2, 1)], card="hills/2")
    refused(state, SetStone(0, Pos(0, -2)), "horus.stone-one-per-tile", "stone of seat 1")
    refused(state, SetStone(0, Pos(-4, 0)), "horus.stone-terrain", "necropolis")
    refused(state, SetStone(0, Pos(0, 0)), "horus.stone-terrain", "pyramid")
    refused(state, SetStone(0, Pos(9, 9)), "horus.stone-terrain", "no tile lies at 9,9")
    assert SetStone(0, Pos(2, -2)) in HORUS.legal_moves(state)


@pytest.mark.cites(RULEBOOK, ERSTE, "§3 rule 5")
def test_in_the_first_round_every_card_counts_as_one():
    state = position(STONES, card="hills/2", turns=1)
    refused(state, SetStone(0, Pos(0, -2)), "horus.first-round", "counts as 1")
    assert HORUS.play(state, SetStone(0, Pos(0, 2))).turns == 2
    # After every player's first turn the numbers count.
    later = position(STONES, card="hills/2", turns=2)
    refused(later, SetStone(0, Pos(0, 2)), "horus.stone-size")


@pytest.mark.cites(RULEBOOK, LEGE, "§3 rule 5")
def test_the_stone_action_is_skipped_only_when_no_stone_can_be_set():
    state = position(STONES, card="hills/2")
    refused(state, SkipStone(0), "horus.stone-skip", "a stone can still be set")
    none = position(STONES, card="swamp/4")  # no region of four
    assert HORUS.legal_moves(none) == (SkipStone(0),)
    assert HORUS.play(none, SkipStone(0)).seat == 1


@pytest.mark.cites(
    RULEBOOK, VORBEREITUNG, "§3 Ambiguities: a player with no kingdom stones left skips action 4"
)
def test_a_player_with_no_stone_left_skips_the_action():
    tiles = [*HILLS_ROW, *DESERT_ROW, ABOVE, BELOW, (-4, 0, "swamp"), (4, 0, "farmland")]
    mine = [(x, y, 0) for x, y, kind in tiles if kind not in ("farmland", "necropolis")]
    assert len(mine) == 20
    state = position(tiles, mine, card="farmland/1")
    refused(state, SetStone(0, Pos(4, 0)), "horus.stone-supply", "no kingdom stone left")
    assert HORUS.legal_moves(state) == (SkipStone(0),)


# -- the river ----------------------------------------------------------------------------


@pytest.mark.cites(RULEBOOK, VERLAENGERN, "§3 rule 6")
def test_a_river_tile_from_the_bag_replaces_an_end_which_is_laid_again_beside_it():
    state = position(phase="bag-tile", in_hand="river")
    refused(state, Lay(0, "river", Pos(0, 2)), "horus.river-replace-end", "takes the place")
    refused(state, ReplaceEnd(0, Pos(4, 0), Pos(6, 0)), "horus.river-replace-end",
            "no river end lies at 4,0")  # fmt: skip
    refused(state, ReplaceEnd(0, Pos(2, 0), Pos(0, 2)), "horus.end-attach",
            "beside the river tile just laid at 2,0")  # fmt: skip
    # Beispiel 4 (A, B): the river tile where the end lay, the end beside it.
    after = HORUS.play(state, ReplaceEnd(0, Pos(2, 0), Pos(4, 1)))
    assert after.layout.kind[Pos(2, 0)] == "river"
    assert after.layout.ends == (Pos(-2, 0), Pos(4, 1))
    assert after.phase == "river-stack"


@pytest.mark.cites(RULEBOOK, VERLAENGERN, "§3 rule 6")
def test_then_a_river_necropolis_tile_is_compulsory_as_river_or_necropolis():
    state = position([(0, -2, "desert")], phase="river-stack")
    refused(state, PlayCard(0, "?/?"), "horus.action-order", "compulsory river/necropolis")
    refused(state, Lay(0, "desert", Pos(0, 2)), "horus.river-stack", "not desert")
    refused(state, Lay(0, "river", Pos(0, -4)), "horus.river-touch", "not touch the river")
    # As river: any free place at the river (Beispiel 4, F) or an end's place, the end
    # then laid anywhere at the river.
    assert HORUS.play(state, Lay(0, "river", Pos(0, 2))).phase == "card"
    moved = HORUS.play(state, ReplaceEnd(0, Pos(-2, 0), Pos(1, 2)))
    assert moved.layout.ends == (Pos(2, 0), Pos(1, 2))
    # As necropolis (Beispiel 4, C): laid as a terrain tile, never part of a region.
    necropolis = HORUS.play(state, Lay(0, "necropolis", Pos(-2, -2)))
    assert necropolis.layout.kind[Pos(-2, -2)] == "necropolis"
    assert [r.tiles for r in necropolis.layout.regions] == [(Pos(0, -2),)]


@pytest.mark.cites(RULEBOOK, VERLAENGERN, "§3 Ambiguities: Blocking a river end")
def test_no_tile_may_block_a_river_end():
    state = position(SHUT_IN, phase="bag-tile", in_hand="desert")
    assert state.layout.room_around_ends(False)[Pos(2, 0)] == (Pos(2, -2),)
    refused(state, Lay(0, "desert", Pos(2, -2)), "horus.river-end-blocked",
            "would block the river end at 2,0")  # fmt: skip
    assert Pos(2, -2) in HORUS.refused_blocks(state)


@pytest.mark.cites(RULEBOOK, VERLAENGERN, "§3 Ambiguities: Blocking a river end")
def test_the_river_end_itself_may_not_be_laid_where_it_is_blocked():
    state = position(SHUT_IN, phase="bag-tile", in_hand="river")
    refused(state, ReplaceEnd(0, Pos(2, 0), Pos(2, -2)), "horus.river-end-blocked",
            "the river end at 2,-2")  # fmt: skip
    assert all(m.end == Pos(-2, 0) for m in HORUS.legal_moves(state))


#: Both river ends shut in as SHUT_IN shuts in the one at 2,0 (mirrored for -2,0): no
#: end can be replaced, but 0,2 above the pyramid is free at the river.
BOTH_SHUT_IN = [*SHUT_IN, (-2, 2, "hills"), (-4, 0, "hills"), (-4, -2, "swamp"),
                (-2, -4, "desert")]  # fmt: skip


@pytest.mark.cites(RULEBOOK, VERLAENGERN, "§3 rule 6")
def test_option_bag_river_a_river_tile_no_end_can_take_is_laid_at_the_river_or_set_aside():
    state = position(BOTH_SHUT_IN, phase="bag-tile", in_hand="river")
    for end, to in ((Pos(2, 0), Pos(2, -2)), (Pos(-2, 0), Pos(-2, -2))):
        refused(state, ReplaceEnd(0, end, to), "horus.river-end-blocked", f"river end at {to}")
    # at-river (the default): laid at the river, and the compulsory tile follows.
    legal = HORUS.legal_moves(state)
    assert Lay(0, "river", Pos(0, 2)) in legal
    assert all(isinstance(m, Lay) and m.tile == "river" for m in legal)
    refused(state, SetAside(0), "horus.set-aside", "can be laid")
    assert HORUS.play(state, Lay(0, "river", Pos(0, 2))).phase == "river-stack"
    # aside: it leaves the game as a temple with no place does; no compulsory tile.
    aside = position(
        BOTH_SHUT_IN, phase="bag-tile", in_hand="river", options={"bag_river": "aside"}
    )
    assert HORUS.legal_moves(aside) == (SetAside(0),)
    refused(aside, Lay(0, "river", Pos(0, 2)), "horus.river-replace-end", "takes the place")
    after = HORUS.play(aside, SetAside(0))
    assert after.aside == ("river",) and after.phase == "card"
    # Where an end can be replaced, the option changes nothing.
    free = position(SHUT_IN, phase="bag-tile", in_hand="river", options={"bag_river": "aside"})
    assert HORUS.legal_moves(free) == HORUS.legal_moves(
        position(SHUT_IN, phase="bag-tile", in_hand="river")
    )


@pytest.mark.cites(RULEBOOK, TEMPEL, "§3 rule 8")
def test_a_terrain_tile_from_the_bag_always_has_a_place():
    # The rulebook sends only the temple out of the game when it has no place; the
    # engine would do the same with any bag tile (rules/horus/__init__.py), which for a
    # terrain tile never arises: the layout's outside has room away from the river ends.
    checked = 0

    def every_terrain_fits(state, move):
        nonlocal checked
        if state.phase == "bag-tile" and not move.chance:
            for terrain in KIT.terrain_names:
                assert bag_moves(state, terrain, []) != [SetAside(state.seat)], (terrain, state)
            checked += 1

    for index in range(3):
        initial = new_game("horus", players=4)
        random_playout(HORUS, initial, game_rng(11, index), 5000, every_terrain_fits)
    assert checked > 100


@pytest.mark.cites(RULEBOOK, VERAENDERN, "§3 rule 6")
def test_the_river_may_branch_and_other_arms_may_be_blocked():
    # Beispiel 5: an arm at 0,-2 below the pyramid, hemmed in on both sides; a desert
    # below it shuts it, which is allowed: it is no end.
    tiles = [(0, -2, "river"), (-2, -3, "hills"), (2, -3, "hills")]
    state = position(tiles, phase="bag-tile", in_hand="desert")
    after = HORUS.play(state, Lay(0, "desert", Pos(0, -4)))
    assert after.layout.blocked_ends(ends=[Pos(0, -2)]) == (Pos(0, -2),)
    assert after.layout.blocked_ends() == ()
    assert len(after.layout.ends) == 2


@pytest.mark.cites(RULEBOOK, VERLAENGERN, "§3 Ambiguities: Blocking a river end")
def test_option_end_room_full_edge_counts_only_places_along_a_whole_edge():
    # Beside the end at 2,0 only 1,-2, 2,-2 and 3,-2 are free. A desert at 1,-3 covers the
    # first two and leaves 3,-2, which touches the end along half an edge only.
    tiles = [(2, 2, "hills"), (4, 0, "hills"), (-1, -2, "farmland")]
    default = position(tiles, phase="bag-tile", in_hand="desert")
    room = default.layout.room_around_ends(False)[Pos(2, 0)]
    assert set(room) == {Pos(1, -2), Pos(2, -2), Pos(3, -2)}
    after = HORUS.play(default, Lay(0, "desert", Pos(1, -3)))
    assert after.layout.room_around_ends(False)[Pos(2, 0)] == (Pos(3, -2),)
    strict = position(tiles, phase="bag-tile", in_hand="desert", options={"end_room": "full-edge"})
    refused(strict, Lay(0, "desert", Pos(1, -3)), "horus.river-end-blocked",
            "would block the river end at 2,0")  # fmt: skip


# -- the Nile card --------------------------------------------------------------------

#: Regions at the river: a desert above the pyramid, hills below it; a farmland above the
#: desert that does not touch the river; six hills at the river on the right.
NILE_LAYOUT = [(0, 2, "desert"), (0, -2, "hills"), (0, 4, "farmland"),
               *((x, -1, "swamp") for x in range(4, 16, 2))]  # fmt: skip


@pytest.mark.cites(RULEBOOK, NILKARTE, "§3 rule 7")
def test_the_nile_card_lays_two_river_necropolis_tiles_then_moves_a_stone():
    state = position(NILE_LAYOUT, [(0, 2, 0), (0, -2, 1)], phase="card", hands=[HAND, []])
    state = HORUS.play(state, PlayNile(0))
    assert (state.phase, state.nile_tiles, state.nile) == ("nile-tiles", 2, (False, True))
    state = play(state, Lay(0, "river", Pos(-2, -2)), Lay(0, "necropolis", Pos(-4, 0)))
    assert state.phase == "nile-stone"
    refused(state, MoveStone(0, Pos(0, -2), Pos(0, 4)), "horus.nile-stone", "no stone of seat 0")
    refused(state, MoveStone(0, Pos(0, 2), Pos(0, 4)), "horus.nile-stone",
            "region at 0,4 does not border the river")  # fmt: skip
    refused(state, SkipStone(0), "horus.stone-skip", "can still be moved")
    # Into a region of six with a free tile (NOTES.md §3: the stone may enter it).
    after = HORUS.play(state, MoveStone(0, Pos(0, 2), Pos(6, -1)))
    assert [(s.at, s.player) for s in after.stones] == [(Pos(0, -2), 1), (Pos(6, -1), 0)]
    assert after.seat == 1 and after.hands[0] == tuple(HAND)  # no card to draw


@pytest.mark.cites(RULEBOOK, NILKARTE, "§3 rule 7")
def test_the_nile_card_is_played_once_a_game():
    state = position(phase="card", hands=[HAND, []], nile=(False, True))
    refused(state, PlayNile(0), "horus.nile-once", "seat 0 has played its Nile card already")
    assert PlayNile(0) not in HORUS.legal_moves(state)


@pytest.mark.cites(RULEBOOK, A4, "§3 Ambiguities: Nile-card turn")
def test_option_nile_stone_up_to_five_keeps_the_stone_out_of_big_regions():
    options = {"nile_stone": "up-to-five"}
    state = position(NILE_LAYOUT, [(0, 2, 0)], phase="nile-stone", card="nile", options=options)
    refused(state, MoveStone(0, Pos(0, 2), Pos(6, -1)), "horus.stone-six", "has 6 tiles")
    assert HORUS.play(state, MoveStone(0, Pos(0, 2), Pos(0, -2))).seat == 1


# -- the temple -----------------------------------------------------------------------


@pytest.mark.cites(RULEBOOK, TEMPEL, "§3 rule 8")
def test_the_temple_touches_the_river_and_no_land():
    state = position([(0, 2, "desert")], phase="bag-tile", in_hand="temple")
    refused(state, Lay(0, "temple", Pos(0, 4)), "horus.temple-river", "would not touch the river")
    refused(state, Lay(0, "temple", Pos(-2, 2)), "horus.temple-land", "touch the desert at 0,2")
    refused(state, SetAside(0), "horus.set-aside", "can be laid")
    after = HORUS.play(state, Lay(0, "temple", Pos(0, -2)))
    assert after.layout.kind[Pos(0, -2)] == "temple"
    # Later tiles may be laid at the temple (Beispiel 6, F).
    later = position([(0, 2, "desert"), (0, -2, "temple")], phase="bag-tile", in_hand="desert")
    assert HORUS.play(later, Lay(0, "desert", Pos(0, -4))).phase == "card"


@pytest.mark.cites(RULEBOOK, TEMPEL, "§3 rule 8")
def test_a_temple_with_no_place_leaves_the_game():
    state = position(RING, phase="bag-tile", in_hand="temple")
    assert HORUS.legal_moves(state) == (SetAside(0),)
    after = HORUS.play(state, SetAside(0))
    assert after.aside == ("temple",) and after.phase == "card"
    assert "temple" not in after.layout.kind.values()


# -- a stack runs out; the end ----------------------------------------------------------


@pytest.mark.cites(RULEBOOK, ENDE, "§3 rule 11")
def test_an_emptied_terrain_stack_takes_its_cards_from_every_hand():
    hands = [["desert/1", "hills/2", "farmland/2", "swamp/2"],
             ["desert/2", "desert/4", "hills/3", "swamp/5", "?/?"]]  # fmt: skip
    state = position([*DESERT_ROW, ABOVE], phase="stack-tile", card="desert/3", hands=hands,
                     stacks={"desert": 1})  # fmt: skip
    after = HORUS.play(state, Lay(0, "desert", Pos(10, 4)))
    assert after.exhausted == ("desert",)
    assert after.hands == (("hills/2", "farmland/2", "swamp/2"), ("hills/3", "swamp/5", "?/?"))
    assert after.pending == (0, 0, 1, 1)  # filled up at once, the current seat first
    # A desert card drawn later is given up and replaced.
    desert = DrawCard("desert/5")
    assert desert in [m for m, _ in HORUS.chance_outcomes(after)]
    again = HORUS.play(after, desert)
    assert again.pending == after.pending and again.hands == after.hands
    assert "given up" in HORUS.describe(after, desert)
    # Named at the table later, a desert card is refused.
    table = position([*DESERT_ROW, ABOVE, (10, 4, "desert")], phase="card", view=View.TABLE,
                     stacks={"desert": 0})  # fmt: skip
    refused(table, PlayCard(0, "desert/3"), "horus.card-exhausted", "desert stack is empty")


@pytest.mark.cites(RULEBOOK, A5, "§3 Ambiguities: Also unsaid")
def test_the_draw_pile_is_reshuffled_from_the_discards_less_emptied_terrains():
    tiles = [*DESERT_ROW, ABOVE, (10, 4, "desert")]
    state = position(tiles, phase="card", hands=[HAND[1:], HAND[:4]], stacks={"desert": 0})
    discards = state.pile
    state = replace(state, pile=(0,) * len(KIT.cards), discards=discards, pending=(1,))
    outcomes = HORUS.chance_outcomes(state)
    assert {KIT.card[m.card].terrain for m, _ in outcomes} == {"hills", "farmland", "swamp", "?"}
    after = HORUS.play(state, DrawCard("swamp/3"))
    assert after.hands[1] == ("desert/3", "hills/2", "farmland/5", "swamp/1", "swamp/3")
    desert_cards = [i for i, name in enumerate(KIT.card_names) if name.startswith("desert")]
    assert all(after.pile[i] == 0 and after.discards[i] == discards[i] for i in desert_cards)
    assert sum(after.pile) + sum(after.discards) == sum(discards) - 1


@pytest.mark.cites(RULEBOOK, ENDE, "§3 rule 12")
def test_the_game_ends_after_the_turn_that_empties_a_second_stack_tied_winners_share():
    tiles = [*HILLS_ROW, *DESERT_ROW, ABOVE, BELOW, (-4, 0, "swamp"), (4, 0, "farmland")]
    stones = [(-8, -4, 0), (-8, 4, 1), (4, 0, 1)]
    state = position(tiles, stones, phase="stack-tile", card="desert/?",
                     stacks={"hills": 0, "desert": 1})  # fmt: skip
    state = HORUS.play(state, Lay(0, "desert", Pos(10, 4)))
    assert state.empty_stacks == ("desert", "hills") and not HORUS.is_over(state)
    while HORUS.to_act(state) is CHANCE:  # the hands filled up again at once
        state = HORUS.play(state, HORUS.chance_outcomes(state)[0][0])
    assert HORUS.scores(state) == (10, 11)
    state = HORUS.play(state, SetStone(0, Pos(-4, 0)))  # the player finishes the turn
    assert HORUS.is_over(state) and HORUS.to_act(state) is None
    outcome = HORUS.outcome(state)
    assert (outcome.winners, outcome.reason) == ((0, 1), "horus.end-two-stacks")
    refused(state, DrawTile("desert"), "horus.game-over", "the game is over")


# -- the table view -------------------------------------------------------------------


def _table_moves(moves):
    """What the table sees of a full-view game: no card draws, the bag tile unseen until
    laid, the card played unnamed."""
    for move in moves:
        if isinstance(move, DrawCard):
            continue
        if isinstance(move, DrawTile):
            yield DrawTile(None)
        elif isinstance(move, PlayCard):
            yield PlayCard(move.player, None)
        else:
            yield move


@pytest.mark.cites(RULEBOOK, LEGE, "§3 rule 3")
def test_a_game_replayed_in_the_table_view_counts_the_same_and_flags_an_illegal_placement():
    full = new_game("horus", players=3)
    playout = random_playout(HORUS, full, game_rng(5, 0), 5000)
    assert playout.finished
    table = new_game("horus", players=3, view=View.TABLE)
    flagged = None
    for move in _table_moves(playout.moves):
        if flagged is None and isinstance(move, Lay) and table.phase == "bag-tile":
            # The same tile laid on top of the pyramid instead: refused from the table.
            with pytest.raises(IllegalMove) as error:
                HORUS.play(table, Lay(move.player, move.tile, Pos(1, 1)))
            flagged = error.value
        table = HORUS.play(table, move)
    assert flagged is not None and flagged.rule == "horus.overlap"
    assert HORUS.is_over(table)
    assert HORUS.scores(table) == HORUS.scores(playout.final)
    assert table.tiles == playout.final.tiles and table.stones == playout.final.stones
    notes = [note for note in table.unchecked if "was not seen" in note]
    assert len(notes) == table.turns - sum(1 for m in playout.moves if isinstance(m, PlayNile))


@pytest.mark.cites(RULEBOOK, A2, "§3 rule 2")
def test_the_table_view_infers_what_an_unseen_card_showed():
    state = position(STONES, phase="card", view=View.TABLE)
    state = play(state, PlayCard(0, None), Lay(0, "hills", Pos(4, -2)))
    # Any region of 1 to 5 would do; the stone on the hills of three tells the number.
    assert {m.at for m in HORUS.legal_moves(state) if isinstance(m, SetStone)} == {
        Pos(0, 2), Pos(0, -2), Pos(2, -2), Pos(4, -2)}  # fmt: skip
    after = HORUS.play(state, SetStone(0, Pos(4, -2)))
    (note,) = after.unchecked
    assert "the hills tile and a stone on a region of 3 fit hills/3, hills/?, ?/3, ?/?" in note
    # The placement rules hold from the table alone: a tile on the pyramid is refused.
    unseen = play(position(phase="card", view=View.TABLE), PlayCard(0, None))
    refused(unseen, Lay(0, "swamp", Pos(0, 1)), "horus.overlap")


@pytest.mark.cites(RULEBOOK, VERLAENGERN, "§3 rule 6")
def test_the_documented_moves_round_trip_and_play():
    import json
    import re
    from pathlib import Path

    doc = Path(__file__).resolve().parents[2] / "docs" / "notation.md"
    blocks = re.findall(r"```json (\S+)\n(.*?)```", doc.read_text(encoding="utf-8"), re.S)
    moves = [json.loads(body) for tag, body in blocks if tag == "horus-move"]
    assert len(moves) == 7
    for document in moves:
        assert HORUS.move_to_json(HORUS.move_from_json(document)) == document
    # The first six are seat 0's first turn (every card counts 1 in the first round).
    state = position(phase="draw", hands=[HAND, HAND[:4]], turns=0)
    state = play(state, *(HORUS.move_from_json(m) for m in moves[:6]))
    assert state.layout.ends == (Pos(-2, 0), Pos(4, 1))
    assert [(s.at, s.player) for s in state.stones] == [(Pos(0, 2), 0)]
    assert state.seat == 1


@pytest.mark.cites(RULEBOOK, A1, "§3 rule 2")
def test_draws_are_chance_moves_and_nothing_else_happens_while_one_is_due():
    state = position(phase="draw")
    refused(state, Lay(0, "desert", Pos(0, 2)), "horus.draw", "waiting for a tile from the bag")
    refused(state, DrawTile("pyramid"), "horus.draw", "no 'pyramid' tiles")
    laid = position(phase="card", hands=[HAND, HAND[:4]])
    refused(laid, DrawCard("desert/3"), "horus.draw", "seat 0's turn, not chance's")


@pytest.mark.cites(RULEBOOK, TEMPEL, "§3 rule 8")
def test_the_table_view_records_a_tile_set_aside_unseen_as_unchecked():
    # The table does not see the bag tile: only a temple could lack a place here, so the
    # tile put away is taken to be the temple, and that it was is not checked.
    state = position(RING, phase="bag-tile", in_hand="?", view=View.TABLE)
    after = HORUS.play(state, SetAside(0))
    assert after.aside == ("temple",) and after.bag[-1] == 0
    (note,) = after.unchecked
    assert "set the bag tile aside unseen" in note and "taken to be the temple" in note
    # Where every kind still in the bag has a legal place, no tile may be set aside.
    start = position(phase="bag-tile", in_hand="?", view=View.TABLE)
    refused(start, SetAside(0), "horus.set-aside", "a tile leaves the game only when it cannot")
    # Both ends shut in and bag_river=aside: a river tile would have no place either, and
    # which of the two was put away is not seen; the bag still counts it.
    options = {"bag_river": "aside"}
    both = position(BOTH_SHUT_IN, phase="bag-tile", in_hand="?", view=View.TABLE, options=options)
    after = HORUS.play(both, SetAside(0))
    assert after.aside == () and after.bag == both.bag and after.phase == "card"
    (note,) = after.unchecked
    assert "a river or a temple would have had no legal place" in note
    assert "still counted in the bag" in note
