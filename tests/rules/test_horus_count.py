"""The Horus final count ("ENDABRECHNUNG"): control by most stones with ties, the
temple's double, islands (option ``island``), the cap of 10, and the breakdown per
player and region; the rulebook's Beispiel 6 rebuilt from its words.

Layouts are ``(x, y, kind)`` tiles in half edges beside the start tiles (the pyramid at
0,0, the river ends at -2,0 and 2,0); see ``horus_positions``.
"""

from __future__ import annotations

import pytest
from horus_positions import HORUS, RULEBOOK, position

from rules.horus import Pos, breakdown, count

SCENARIOS = True
ABRECHNUNG = "ENDABRECHNUNG"
TEMPEL = "Der Horustempel"
FLUSS = "Der Fluss"

#: Beispiel 6: the temple (A) laid at a river tile (B), the pyramid; a desert (F) laid at
#: the temple later; farmland (D, four tiles) and hills (C, six tiles) grown up to it;
#: another desert (E) away from it.
BEISPIEL_6 = [
    (0, 2, "temple"),  # A, above the pyramid (B): it touches the river only
    (0, 4, "desert"),  # F
    *((x, 2, "farmland") for x in (-2, -4, -6)),  # D, the first at the temple
    (-4, 4, "farmland"),
    *((x, 2, "hills") for x in (2, 4, 6)),  # C, the first at the temple
    *((x, 4, "hills") for x in (4, 6, 8)),
    (-6, 0, "desert"),  # E
]


def region_at(regions, at):
    (found,) = [r for r in regions if Pos(*at) in r.tiles]
    return found


@pytest.mark.cites(RULEBOOK, TEMPEL, "§3 rule 8")
def test_beispiel_6_the_temple_doubles_and_no_region_is_worth_more_than_10():
    stones = [(-2, 2, 0), (2, 2, 1), (0, 4, 0), (-6, 0, 1)]
    state = position(BEISPIEL_6, stones)
    regions = count(state)
    farmland = region_at(regions, (-2, 2))
    hills = region_at(regions, (2, 2))
    temple_desert = region_at(regions, (0, 4))
    other_desert = region_at(regions, (-6, 0))
    assert (farmland.size, farmland.temple, farmland.value) == (4, True, 8)  # 4 x 2
    assert (hills.size, hills.temple, hills.capped, hills.value) == (6, True, True, 10)
    assert (temple_desert.size, temple_desert.temple, temple_desert.value) == (1, True, 2)
    assert (other_desert.size, other_desert.temple, other_desert.value) == (1, False, 1)
    assert not any(r.island for r in regions)
    assert HORUS.scores(state) == (8 + 2, 10 + 1)


@pytest.mark.cites(RULEBOOK, ABRECHNUNG, "§3 rule 10")
def test_the_most_stones_control_a_region_and_tied_players_each_score_it_in_full():
    tiles = [(x, 2, "hills") for x in range(-4, 6, 2)]  # five hills
    state = position(tiles, [(-4, 2, 0), (-2, 2, 1), (0, 2, 2), (2, 2, 0), (4, 2, 1)], players=3)
    (hills,) = count(state)
    assert hills.stones == (2, 2, 1) and hills.controllers == (0, 1)
    assert HORUS.scores(state) == (5, 5, 0)
    alone = position(tiles, [(-4, 2, 0), (-2, 2, 1), (0, 2, 0)], players=3)
    assert HORUS.scores(alone) == (5, 0, 0)
    assert HORUS.scores(position(tiles)) == (0, 0)  # no stone, no control


#: A desert below the pyramid, walled in by river tiles left and right (each laid at an
#: end) and by two below, offset by half an edge so that each touches the one beside it
#: and one side tile (the river is one piece: every river tile touches it).
ISLAND = [(0, -2, "desert"), (-2, -2, "river"), (2, -2, "river"), (-1, -4, "river"),
          (1, -4, "river")]  # fmt: skip
#: The same ring one tile wider, with the desert in its west half and an empty place
#: (2,-2) in its east half: the river end 2,0 closes the top, and the river at 4,0 joins
#: the east side to it.
GAPPED = [(0, -2, "desert"), (-2, -2, "river"), (4, -2, "river"), (-1, -4, "river"),
          (1, -4, "river"), (3, -4, "river"), (4, 0, "river")]  # fmt: skip


@pytest.mark.cites(RULEBOOK, FLUSS, "§3 rule 9")
def test_land_enclosed_by_river_is_an_island_and_scores_double():
    state = position(ISLAND, [(0, -2, 0)])
    (desert,) = count(state)
    assert (desert.island, desert.temple, desert.value) == (True, False, 2)
    strict = position(ISLAND, [(0, -2, 0)], options={"island": "strict"})
    assert count(strict)[0].island
    # Open the ring: no island.
    opened = position(ISLAND[:-1], [(0, -2, 0)])
    assert not count(opened)[0].island and HORUS.scores(opened) == (1, 0)


@pytest.mark.cites(RULEBOOK, FLUSS, "§3 Ambiguities: Island")
def test_option_island_strict_needs_water_on_every_edge_gaps_do_not_count():
    default = position(GAPPED, [(0, -2, 0)])
    assert count(default)[0].island and HORUS.scores(default) == (2, 0)
    strict = position(GAPPED, [(0, -2, 0)], options={"island": "strict"})
    assert not count(strict)[0].island and HORUS.scores(strict) == (1, 0)


@pytest.mark.cites(RULEBOOK, ABRECHNUNG, "§3 rule 9")
def test_temple_and_island_together_quadruple_and_the_cap_applies_after():
    # A desert on the island that also touches the temple at its corner... the temple
    # lies inside the ring too: ring of river around a desert and the temple.
    tiles = [(0, -2, "desert"), (2, -2, "temple"), (-2, -2, "river"), (4, -2, "river"),
             (-1, -4, "river"), (1, -4, "river"), (3, -4, "river")]  # fmt: skip
    state = position(tiles, [(0, -2, 0)])
    (desert,) = count(state)
    assert (desert.island, desert.temple, desert.multiplier, desert.value) == (True, True, 4, 4)
    # Three desert tiles there would make 12: capped at 10.
    big = [(x, y, "desert") for x in (0, 2, 4) for y in (-2,)] + [
        (6, -2, "temple"), (-2, -2, "river"), (8, -2, "river"), (4, 0, "river"), (6, 0, "river"),
        *((x, -4, "river") for x in (-1, 1, 3, 5, 7))]  # fmt: skip
    capped = position(big, [(0, -2, 0)])
    (deserts,) = count(capped)
    assert (deserts.size, deserts.multiplier, deserts.capped, deserts.value) == (3, 4, True, 10)


@pytest.mark.cites(RULEBOOK, ABRECHNUNG, "§3 rule 10")
def test_the_breakdown_lists_each_players_regions():
    state = position(BEISPIEL_6, [(-2, 2, 0), (2, 2, 1), (0, 4, 0), (-6, 0, 1), (4, 2, 0)])
    report = breakdown(state)
    assert report["scores"] == [8 + 10 + 2, 10 + 1]
    seat0 = report["players"][0]["regions"]
    assert sorted((r["terrain"], r["size"], r["value"], r["shared"]) for r in seat0) == [
        ("desert", 1, 2, False), ("farmland", 4, 8, False), ("hills", 6, 10, True)]  # fmt: skip
    hills = next(r for r in report["regions"] if r["terrain"] == "hills")
    assert hills["controllers"] == [0, 1] and hills["capped"] and hills["multiplier"] == 2
