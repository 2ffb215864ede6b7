"""Horus's moves in words (English and German), its situations for simulations, the
weights a random player uses, and a plain-text diagram of the layout."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rules.horus import scoring as counting
from rules.horus.geometry import ADJACENT_OFFSETS, cells
from rules.horus.kit import ANY, Card
from rules.horus.model import (
    UNKNOWN,
    WATER,
    DrawCard,
    DrawTile,
    HorusMove,
    HorusState,
    Lay,
    MoveStone,
    PlayCard,
    PlayNile,
    ReplaceEnd,
    SetAside,
    SetStone,
    SkipStone,
)

if TYPE_CHECKING:
    from rules.horus.engine import Horus

#: German names of the tiles that are no terrain ("Flussplättchen", "Nekropole", ...).
TILES_DE = {
    "river": "Flussplättchen",
    "necropolis": "Nekropolenplättchen",
    "temple": "Horustempel",
    "pyramid": "Startplättchen mit der Stufenpyramide",
    "end": "Flussende",
}


def _german(lang: str) -> bool:
    if lang not in ("en", "de"):
        raise ValueError(f"unknown lang {lang!r}: the rules speak 'en' and 'de'")
    return lang == "de"


def tile_name(state: HorusState, kind: str, de: bool) -> str:
    """A tile in words: ``a desert tile`` / ``ein Plättchen „Wüste“``."""
    if kind in state.kit.terrain:
        if de:
            return f"ein Plättchen „{state.kit.terrain[kind].german}“"
        return f"a {kind} tile"
    if de:
        return {"temple": "den Horustempel", "end": "ein Flussende"}.get(
            kind, f"ein {TILES_DE[kind]}"
        )
    return {"temple": "the temple", "end": "a river end"}.get(kind, f"a {kind} tile")


def card_name(state: HorusState, name: str, de: bool) -> str:
    if not de:
        return f"the card {name}"
    card = Card.parse(name)
    centre = ANY if card.terrain == ANY else state.kit.terrain[card.terrain].german
    corner = ANY if card.number is None else str(card.number)
    return f"die Horuskarte „{centre} {corner}“"


def chance_name(state: HorusState, lang: str = "en") -> str:
    de = _german(lang)
    if state.pending:
        seat = state.pending[0]
        return f"eine Horuskarte für Platz {seat}" if de else f"a card for seat {seat}"
    if de:
        return f"ein Plättchen aus dem Beutel für Platz {state.seat}"
    return f"a tile from the bag for seat {state.seat}"


def describe(state: HorusState, move: HorusMove, lang: str = "en") -> str:
    de = _german(lang)
    if isinstance(move, DrawTile):
        seat = state.seat
        if move.kind is None:
            if de:
                return f"Platz {seat} zieht ein Plättchen aus dem Beutel, verdeckt bis zum Anlegen."
            return f"Seat {seat} draws a tile from the bag, unseen until laid."
        if de:
            return f"Platz {seat} zieht {tile_name(state, move.kind, de)} aus dem Beutel."
        return f"Seat {seat} draws {tile_name(state, move.kind, de)} from the bag."
    if isinstance(move, DrawCard):
        seat = state.pending[0]
        text = (f"Platz {seat} zieht {card_name(state, move.card, de)}" if de
                else f"Seat {seat} draws {card_name(state, move.card, de)}")  # fmt: skip
        terrain = state.kit.card[move.card].terrain
        if terrain in state.exhausted:
            german = state.kit.terrain[terrain].german
            text += (f"; der Stapel „{german}“ ist leer: die Karte wird sofort abgelegt und ersetzt"
                     if de else f"; the {terrain} stack is empty: the card is given up at once "
                     "and replaced")  # fmt: skip
        return text + "."
    who = f"Platz {move.player}" if de else f"Seat {move.player}"
    if isinstance(move, Lay):
        if de:
            return f"{who} legt {tile_name(state, move.tile, de)} bei {move.at} an."
        return f"{who} lays {tile_name(state, move.tile, de)} at {move.at}."
    if isinstance(move, ReplaceEnd):
        if de:
            return (f"{who} legt ein Flussplättchen anstelle des Flussendes bei {move.end} und "
                    f"das Flussende neu bei {move.to} an.")  # fmt: skip
        return (f"{who} lays a river tile in place of the river end at {move.end} and lays "
                f"the end again at {move.to}.")  # fmt: skip
    if isinstance(move, SetAside):
        tile = state.in_hand if state.in_hand != UNKNOWN else None
        if de:
            what = tile_name(state, tile, de) if tile else "das Plättchen aus dem Beutel"
            return f"{who} kann {what} nicht anlegen und nimmt es aus dem Spiel."
        what = tile_name(state, tile, de) if tile else "the tile from the bag"
        return f"{who} cannot lay {what} and takes it out of the game."
    if isinstance(move, PlayCard):
        if move.card is None:
            if de:
                return f"{who} spielt eine Horuskarte aus, die der Tisch nicht sieht."
            return f"{who} plays a Horus card the table does not see."
        if de:
            return f"{who} spielt {card_name(state, move.card, de)} aus."
        return f"{who} plays {card_name(state, move.card, de)}."
    if isinstance(move, PlayNile):
        return f"{who} spielt die Nilkarte aus." if de else f"{who} plays the Nile card."
    if isinstance(move, SetStone):
        layout = state.layout
        region = layout.regions[layout.region_of[move.at]]
        if de:
            german = state.kit.terrain[region.terrain].german
            return (f"{who} setzt einen Königreich-Stein auf das Plättchen „{german}“ bei "
                    f"{move.at} (eine Region aus {region.size} Plättchen).")  # fmt: skip
        return (f"{who} sets a kingdom stone on the {region.terrain} tile at {move.at} (a "
                f"region of {region.size}).")  # fmt: skip
    if isinstance(move, MoveStone):
        if de:
            return (f"{who} versetzt mit der Nilkarte einen Königreich-Stein von {move.source} "
                    f"nach {move.to}.")  # fmt: skip
        return f"{who} moves a kingdom stone with the Nile card from {move.source} to {move.to}."
    if isinstance(move, SkipStone):
        if de:
            return f"{who} setzt keinen Königreich-Stein; die Aktion entfällt."
        return f"{who} sets no kingdom stone; the action is skipped."
    raise TypeError(f"not a Horus move: {move!r}")


def situations(game: Horus, state: HorusState, move: HorusMove) -> tuple[str, ...]:
    """Labels for a legal move: ``draw-tile``, ``draw-card``, ``card-given-up`` (a card
    of an emptied terrain drawn and replaced), ``lay-terrain``, ``lay-river``,
    ``lay-necropolis``, ``lay-temple``, ``river-end-replaced``, ``tile-set-aside``,
    ``river-end-block-refused`` (a place was refused here for blocking a river end),
    ``stack-emptied``, ``card``, ``question-terrain``, ``question-number``,
    ``nile-card``, ``stone``, ``first-round-stone``, ``stone-moved``, ``stone-skipped``;
    on the move that ends the game ``end``, and for each region scored
    ``island-scored``, ``temple-doubled``, ``capped-region``, ``tied-control``."""
    if isinstance(move, DrawTile):
        return ("draw-tile",)
    if isinstance(move, DrawCard):
        if state.kit.card[move.card].terrain in state.exhausted:
            return ("draw-card", "card-given-up")
        return ("draw-card",)
    labels: list[str] = []
    if isinstance(move, Lay | ReplaceEnd):
        tile = move.tile if isinstance(move, Lay) else "river"
        if isinstance(move, ReplaceEnd):
            labels.append("river-end-replaced")
        elif tile in state.kit.terrain:
            labels.append("lay-terrain")
        else:
            labels.append(f"lay-{tile}")
        if game.refused_blocks(state):
            labels.append("river-end-block-refused")
        if state.phase != "bag-tile":
            stack = "river" if tile in ("river", "necropolis") else tile
            if state.stack(stack) == 1:
                labels.append("stack-emptied")
    elif isinstance(move, SetAside):
        labels.append("tile-set-aside")
    elif isinstance(move, PlayCard):
        labels.append("card")
        if move.card is not None:
            card = state.kit.card[move.card]
            if card.terrain == ANY:
                labels.append("question-terrain")
            if card.number is None:
                labels.append("question-number")
    elif isinstance(move, PlayNile):
        labels.append("nile-card")
    elif isinstance(move, SetStone):
        labels.append("stone")
        if state.first_round:
            labels.append("first-round-stone")
    elif isinstance(move, MoveStone):
        labels.append("stone-moved")
    elif isinstance(move, SkipStone):
        labels.append("stone-skipped")
    if isinstance(move, SetStone | MoveStone | SkipStone):
        after = game.apply(state, move)
        if after.finished:
            labels.append("end")
            for region in counting.count(after):
                if not region.controllers:
                    continue
                if region.island:
                    labels.append("island-scored")
                if region.temple:
                    labels.append("temple-doubled")
                if region.capped:
                    labels.append("capped-region")
                if len(region.controllers) > 1:
                    labels.append("tied-control")
    return tuple(labels)


def playout_weights(state: HorusState, moves: tuple[HorusMove, ...]) -> tuple[float, ...]:
    """How a random player chooses: river tiles go where they close around land, and
    terrain tiles join their own kind or the temple, as players seeking islands, big
    regions and the temple's double would; uniform choice would scatter tiles."""
    layout = state.layout
    kind = layout.kind
    wrapping = layout.land_at_water
    terrain = state.kit.terrain
    offsets = ADJACENT_OFFSETS
    weights = []
    for move in moves:
        if isinstance(move, Lay | ReplaceEnd):
            x, y = move.at if isinstance(move, Lay) else move.to
            tile = move.tile if isinstance(move, Lay) else "river"
            around = [(x + dx, y + dy) for dx, dy in offsets]
            if tile == "river":
                wrapped = sum(1 for p in around if p in wrapping)
                weights.append(1.0 + 4.0 * wrapped)
            elif tile in terrain:
                same = sum(1 for p in around if kind.get(p) == tile)
                temple = any(kind.get(p) == "temple" for p in around)
                weights.append(1.0 + 4.0 * same + 4.0 * temple)
            else:
                weights.append(1.0)
        else:
            weights.append(1.0)
    return tuple(weights)


def diagram(state: HorusState, scores: tuple[int, ...]) -> str:
    """The layout in half-edge cells, north up: terrain tiles by their initial (upper
    case with a stone, the stone's seat in the tile's north-west cell), ``~`` river,
    ``P`` the pyramid, ``E`` a river end, ``N`` a necropolis, ``T`` the temple."""
    marks = {"river": "~", "pyramid": "P", "end": "E", "necropolis": "N", "temple": "T"}
    stone_at = {s.at: s.player for s in state.stones}
    grid: dict[tuple[int, int], str] = {}
    for tile in state.tiles:
        mark = marks.get(tile.kind) or tile.kind[0]
        if tile.at in stone_at:
            mark = mark.upper()
        for cell in cells(tile.at):
            grid[cell] = mark
        if tile.at in stone_at:
            grid[(tile.at.x, tile.at.y + 1)] = str(stone_at[tile.at])
    xs = [x for x, _ in grid]
    ys = [y for _, y in grid]
    lines = []
    for y in range(max(ys), min(ys) - 1, -1):
        lines.append("".join(grid.get((x, y), " ") for x in range(min(xs), max(xs) + 1)))
    lines.append(f"x from {min(xs)}, y from {min(ys)} (half edges)")
    for seat in range(state.players):
        hand = ", ".join(state.hands[seat]) or ("not seen" if state.pile is None else "empty")
        nile = "; Nile card held" if state.nile[seat] else ""
        lines.append(f"seat {seat}: count {scores[seat]}; {state.stones_left(seat)} stones "
                     f"left; hand {hand}{nile}")  # fmt: skip
    return "\n".join(lines)


__all__ = ["UNKNOWN", "WATER", "chance_name", "describe", "diagram", "situations"]
