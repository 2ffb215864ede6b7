"""Horus's rules (H. Jean Vanaise, Amigo 2008), as ``rulebooks/horus.de.txt`` and
NOTES.md §3 read them.

Rule ids and their words are in ``rules/catalogue/horus.toml``; the open readings are the
options in ``options.py``. What the table alone decides is in ``legality.py``; how each
move changes the state in ``turns.py``; the final count in ``scoring.py``.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from rules.core import CHANCE, Game, Outcome, View, Violation
from rules.errors import OptionError
from rules.horus import legality as rules_
from rules.horus import notation, turns, words
from rules.horus import scoring as counting
from rules.horus.geometry import Pos
from rules.horus.kit import HorusKit, kit_from_json
from rules.horus.legality import DUE, MOVE_PHASES, Problem
from rules.horus.model import (
    UNKNOWN,
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
    Tile,
)
from rules.horus.options import OPTION_SPECS


class Horus(Game[HorusState, HorusMove, HorusKit]):
    name = "horus"
    title = "Horus"
    state_type = HorusState
    min_players = 2
    max_players = 4
    option_specs = OPTION_SPECS
    game_over_rule = "horus.game-over"
    turn_rule = "horus.turn-order"
    chance_rule = "horus.draw"

    # -- set-up ---------------------------------------------------------------------

    def new(
        self,
        players: int,
        options: Mapping[str, Any] | None,
        kit: HorusKit,
        view: View = View.FULL,
    ) -> HorusState:
        self.check_players(players)
        resolved = self.options(options)
        if not isinstance(kit, HorusKit):
            raise TypeError(f"horus: expected a HorusKit, got {kit!r}")
        if players > kit.nile_cards:
            raise OptionError(
                f"horus: each player takes a Nile card; the kit {kit.name!r} has "
                f"{kit.nile_cards} for {players} players"
            )
        view = View(view)
        full = view is View.FULL
        start = [Tile(kit.pyramid, "pyramid"), *(Tile(end, "end") for end in kit.ends)]
        state = HorusState(
            kit=kit,
            options=resolved,
            view=view,
            players=players,
            tiles=tuple(sorted(start, key=lambda t: (t.at.y, t.at.x))),
            stones=(),
            bag=kit.bag_counts,
            stacks=kit.stack_counts,
            hands=((),) * players,
            pile=tuple(count for _, count in kit.cards) if full else None,
            discards=(0,) * len(kit.cards) if full else None,
            nile=(True,) * players,
            seat=0,
            phase="draw",
        )
        return turns.deal(state)

    def kit_from_json(self, data: Any) -> HorusKit:
        return kit_from_json(data)

    def kit_to_json(self, kit: HorusKit) -> dict[str, Any]:
        return kit.to_json()

    # -- whose turn -----------------------------------------------------------------

    def to_act(self, state: HorusState):
        if state.finished:
            return None
        if state.pending or state.phase == "draw":
            return CHANCE
        return state.seat

    def seats(self, state: HorusState) -> int:
        return state.players

    def chance_name(self, state: HorusState, lang: str = "en") -> str:
        return words.chance_name(state, lang)

    def chance_outcomes(self, state: HorusState) -> tuple[tuple[HorusMove, Fraction], ...]:
        if self.to_act(state) is not CHANCE:
            return ()
        if state.pending:
            counts = turns.drawable(state)
            total = sum(counts)
            return tuple(
                (DrawCard(name), Fraction(count, total))
                for name, count in zip(state.kit.card_names, counts, strict=True)
                if count
            )
        if state.view is View.TABLE:
            return ((DrawTile(None), Fraction(1)),)
        total = sum(state.bag)
        return tuple(
            (DrawTile(kind), Fraction(count, total))
            for kind, count in zip(state.kit.bag_kinds, state.bag, strict=True)
            if count
        )

    def legal_moves(self, state: HorusState) -> tuple[HorusMove, ...]:
        seat = self.to_act(state)
        if seat is None or seat is CHANCE:
            return ()
        cache = state.move_cache
        if "moves" not in cache:
            refused: list[Pos] = []
            cache["moves"] = tuple(self._moves(state, refused))
            cache["refused"] = tuple(refused)
        return cache["moves"]

    def refused_blocks(self, state: HorusState) -> tuple[Pos, ...]:
        """Places refused in this position because a tile there would block a river
        end (for simulations' counts)."""
        self.legal_moves(state)
        return state.move_cache.get("refused", ())

    def _moves(self, state: HorusState, refused: list[Pos]) -> list[HorusMove]:
        phase, seat = state.phase, state.seat
        if phase == "bag-tile":
            moves: list[HorusMove] = []
            for kind in rules_.bag_kinds_possible(state):
                moves += rules_.bag_moves(state, kind, refused)
            return list(dict.fromkeys(moves))
        if phase in ("river-stack", "nile-tiles"):
            return rules_.river_stack_moves(state, refused)
        if phase == "card":
            moves = []
            if state.view is View.FULL:
                moves += [PlayCard(seat, name) for name in dict.fromkeys(state.hands[seat])]
            else:
                moves.append(PlayCard(seat, None))
            if state.nile[seat]:
                moves.append(PlayNile(seat))
            return moves
        if phase == "stack-tile":
            moves = []
            for name in rules_.stack_choices(state):
                if name == "river":
                    moves += rules_.river_stack_moves(state, refused)
                else:
                    moves += rules_.lay_moves(state, name, refused)
            return moves
        moves = rules_.stone_moves(state) if phase == "stone" else rules_.move_stone_moves(state)
        if not moves or rules_.skip_problem(state) is None:
            moves.append(SkipStone(seat))
        return moves

    # -- legality -------------------------------------------------------------------

    def rule_violation(self, state: HorusState, move: HorusMove) -> Violation | None:
        if isinstance(move, DrawTile):
            if move.kind is not None and move.kind not in state.kit.bag_kinds:
                return Violation(self.chance_rule, f"the bag holds no {move.kind!r} tiles")
            return None  # the core checks that it is a listed outcome
        if isinstance(move, DrawCard):
            if move.card not in state.kit.card:
                return Violation(self.chance_rule, f"the kit has no card {move.card!r}")
            return None
        phases = MOVE_PHASES.get(type(move))
        if phases is None:
            raise TypeError(f"not a Horus move: {move!r}")
        if state.phase not in phases:
            return Violation("horus.action-order", f"the turn waits for {DUE[state.phase]}")
        problem = self._problem(state, move)
        return None if problem is None else Violation(*problem)

    def _problem(self, state: HorusState, move: HorusMove) -> Problem | None:
        phase = state.phase
        if isinstance(move, Lay | ReplaceEnd):
            return self._tile_problem(state, move)
        if isinstance(move, SetAside):
            kinds = rules_.bag_kinds_possible(state)
            if not kinds:
                return Problem("horus.bag-tile", "the bag holds no tile any more")
            placeable = [k for k in kinds if rules_.bag_moves(state, k, []) != [move]]
            if len(placeable) == len(kinds):
                first = rules_.bag_moves(state, placeable[0], [])[0]
                shown = first.at if isinstance(first, Lay) else first.to
                return Problem(
                    "horus.set-aside",
                    f"the {placeable[0] if len(kinds) == 1 else 'bag'} tile can be laid (at "
                    f"{shown}): a tile leaves the game only when it cannot",
                )
            return None
        if isinstance(move, PlayCard):
            return self._card_problem(state, move)
        if isinstance(move, PlayNile):
            if not state.nile[move.player]:
                return Problem(
                    "horus.nile-once", f"seat {move.player} has played its Nile card already"
                )
            return None
        if isinstance(move, SetStone):
            return rules_.stone_problem(state, move.at)
        if isinstance(move, MoveStone):
            return rules_.move_stone_problem(state, move.source, move.to)
        if isinstance(move, SkipStone):
            if phase == "stone" and not state.stones_left(state.seat):
                return None
            return rules_.skip_problem(state)
        raise TypeError(f"not a Horus move: {move!r}")

    def _tile_problem(self, state: HorusState, move: Lay | ReplaceEnd) -> Problem | None:
        phase = state.phase
        tile = move.tile if isinstance(move, Lay) else "river"
        if phase == "bag-tile":
            possible = rules_.bag_kinds_possible(state)
            if tile not in possible:
                if state.in_hand == UNKNOWN:
                    return Problem("horus.bag-tile", f"the bag holds no {tile} tile any more")
                return Problem(
                    "horus.bag-tile",
                    f"the tile drawn from the bag is a {state.in_hand}, not {tile}",
                )
            laid_at_river = isinstance(move, Lay) and tile == "river"
            if laid_at_river and rules_.replace_moves(state, True, []):
                return Problem(
                    "horus.river-replace-end",
                    "a river tile from the bag takes the place of a river end",
                )
            if laid_at_river and state.options["bag_river"] == "aside":
                return Problem(
                    "horus.river-replace-end",
                    "a river tile from the bag takes the place of a river end; where neither "
                    "end can move, it leaves the game (option bag_river=aside)",
                )
        elif phase in ("river-stack", "nile-tiles"):
            if tile not in ("river", "necropolis"):
                return Problem(
                    "horus.river-stack",
                    f"the turn lays a river/necropolis tile, as river or necropolis, not {tile}",
                )
        else:  # the card's tile
            choices = rules_.stack_choices(state)
            stack = "river" if tile in ("river", "necropolis") else tile
            if stack not in state.kit.stack_names:
                return Problem("horus.card-tile", f"no stack holds {tile} tiles")
            if stack not in choices:
                card = rules_.card_of(state)
                if card is not None and card.terrain != "?" and stack != card.terrain:
                    return Problem(
                        "horus.card-tile", f"the card {card.name} names {card.terrain}, not {tile}"
                    )
                return Problem("horus.stack-empty", f"the {stack} stack is empty")
        if isinstance(move, ReplaceEnd):
            return rules_.replace_problem(state, move.end, move.to, phase == "bag-tile")
        return rules_.lay_problem(state, tile, move.at)

    def _card_problem(self, state: HorusState, move: PlayCard) -> Problem | None:
        kit = state.kit
        if move.card is None:
            if state.view is View.FULL:
                return Problem("horus.card-in-hand", "the full view names the card played")
            return None
        if move.card not in kit.card:
            return Problem("horus.card-in-hand", f"the kit has no card {move.card!r}")
        terrain = kit.card[move.card].terrain
        if terrain in state.exhausted:
            return Problem(
                "horus.card-exhausted",
                f"the {terrain} stack is empty: {terrain} cards were given up",
            )
        if state.view is View.FULL and move.card not in state.hands[move.player]:
            return Problem("horus.card-in-hand", f"seat {move.player} holds no {move.card} card")
        return None

    # -- play -----------------------------------------------------------------------

    def apply(self, state: HorusState, move: HorusMove) -> HorusState:
        after = turns.apply(state, move)
        if after.tiles is state.tiles and "layout" in state.__dict__:
            # The same tiles: the layout worked out for them serves the new state too.
            after.__dict__["layout"] = state.layout
        return after

    # -- reports --------------------------------------------------------------------

    def scores(self, state: HorusState) -> tuple[int, ...]:
        """The count as it stands (the final count once the game is over)."""
        cache = state.move_cache
        if "scores" not in cache:
            cache["scores"] = counting.totals(counting.count(state), state.players)
        return cache["scores"]

    def score_bounds(self, state: HorusState) -> tuple[int, int]:
        terrain_tiles = sum(t.count for t in state.kit.terrains)
        return (0, counting.CAP * terrain_tiles)

    def outcome(self, state: HorusState) -> Outcome | None:
        if not state.finished:
            return None
        scores = self.scores(state)
        places = sorted(set(scores), reverse=True)
        ranking = tuple(tuple(s for s in range(state.players) if scores[s] == p) for p in places)
        detail = "scores " + "-".join(str(s) for s in scores)
        return Outcome(ranking[0], "horus.end-two-stacks", detail, ranking)

    def situations(self, state: HorusState, move: HorusMove) -> tuple[str, ...]:
        return words.situations(self, state, move)

    def describe(self, state: HorusState, move: HorusMove, lang: str = "en") -> str:
        return words.describe(state, move, lang)

    def diagram(self, state: HorusState) -> str:
        return words.diagram(state, self.scores(state))

    def seat_colour(self, state: HorusState, seat: int) -> str | None:
        colours = state.kit.stone_colours
        return colours[seat] if 0 <= seat < len(colours) else None

    def where(self, state: HorusState) -> str:
        actor = self.to_act(state)
        if actor is None:
            turn = "game over"
        elif actor is CHANCE:
            turn = "drawing"
        else:
            turn = f"seat {actor} to act: {DUE[state.phase]}"
        scores = "-".join(str(s) for s in self.scores(state))
        return f"horus turn {state.turns + 1}, {turn}, {len(state.tiles)} tiles, count {scores}"

    # -- notation -------------------------------------------------------------------

    def state_to_json(self, state: HorusState) -> dict[str, Any]:
        return notation.state_to_json(state)

    def state_from_json(self, data: Any) -> HorusState:
        return notation.state_from_json(data)

    def move_to_json(self, move: HorusMove) -> dict[str, Any]:
        return notation.move_to_json(move)

    def move_from_json(self, data: Any) -> HorusMove:
        return notation.move_from_json(data)

    # -- for simulation -------------------------------------------------------------

    def is_report(self, move: HorusMove) -> bool:
        """A card named at the table (tablet input in the table view) is a report: the
        table view lists only the unseen card."""
        return isinstance(move, PlayCard) and move.card is not None

    def playout_weights(
        self, state: HorusState, moves: tuple[HorusMove, ...]
    ) -> tuple[float, ...] | None:
        return words.playout_weights(state, moves)

    def random_move(self, state: HorusState, rng: random.Random) -> HorusMove:
        """Any well-formed move: every type, seats one beyond the table, positions
        around the layout and anywhere near it, every tile kind and card."""
        kit = state.kit
        player = rng.randrange(state.players + 1)
        layout = state.layout
        spots = list(layout.candidates) + list(layout.kind)

        def pos() -> Pos:
            if spots and rng.random() < 0.8:
                base = rng.choice(spots)
                return Pos(base.x + rng.randrange(-1, 2), base.y + rng.randrange(-1, 2))
            return Pos(rng.randrange(-20, 21), rng.randrange(-20, 21))

        roll = rng.random()
        kinds = [*kit.terrain_names, "river", "necropolis", "temple", "pyramid"]
        if roll < 0.08:
            return DrawTile(rng.choice([*kit.bag_kinds, None]))
        if roll < 0.14:
            return DrawCard(rng.choice([*kit.card_names, "desert/7"]))
        if roll < 0.45:
            return Lay(player, rng.choice(kinds), pos())
        if roll < 0.55:
            ends = list(layout.ends) or [pos()]
            return ReplaceEnd(player, rng.choice([*ends, pos()]), pos())
        if roll < 0.6:
            return SetAside(player)
        if roll < 0.7:
            return PlayCard(player, rng.choice([*kit.card_names, None]))
        if roll < 0.75:
            return PlayNile(player)
        if roll < 0.88:
            return SetStone(player, pos())
        if roll < 0.94:
            return MoveStone(player, pos(), pos())
        return SkipStone(player)


HORUS = Horus()
