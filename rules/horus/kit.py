"""The Horus kit: the tiles, cards and stones of one copy, read from a kit file.

The rulebook gives 120 tiles, 20 of each terrain, 50 Horus cards, 4 Nile cards and 20
stones a player, but not how the tiles divide between the bag and the face-up stacks,
how many river and river/necropolis tiles there are, how the three start tiles lie, nor
the cards' split by terrain and number (NOTES.md §3, Components: "NF"). All of that is
kit data; the shipped kit (``rules/kits/horus.toml``) is a documented reconstruction.
A kit is checked when read: counts that do not add up are refused naming the field.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

from rules.horus.geometry import Pos, adjacent, contact, neighbours
from rules.kitfields import KitFields

KIT_VERSION = 1
#: A card's "?" (an icon or number the player chooses).
ANY = "?"
#: Numbers a card's corners can show; "?" lets the player choose one of them.
NUMBERS = (1, 2, 3, 4, 5)
START_TILES = 3  # the pyramid and the two river ends ("drei Startplättchen")


@dataclass(frozen=True)
class Terrain:
    """A terrain: its tiles in all, in the bag (sand back) and in its face-up stack
    (purple back)."""

    name: str
    german: str
    count: int
    bag: int
    stack: int

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "german": self.german,
            "count": self.count,
            "bag": self.bag,
            "stack": self.stack,
        }


@dataclass(frozen=True)
class Card:
    """A kind of Horus card: the terrain in its centre (``"?"``: any stack) and the
    number in its corners (``None`` for ``"?"``: a region of 1 to 5)."""

    terrain: str
    number: int | None

    @property
    def name(self) -> str:
        return f"{self.terrain}/{ANY if self.number is None else self.number}"

    @staticmethod
    def parse(name: str) -> Card:
        terrain, sep, number = name.partition("/")
        if not sep or not terrain:
            raise ValueError(f"a card is named TERRAIN/NUMBER, not {name!r}")
        if number == ANY:
            return Card(terrain, None)
        if number not in {str(n) for n in NUMBERS}:
            raise ValueError(f"a card's number is 1 to 5 or '?', not {number!r} in {name!r}")
        return Card(terrain, int(number))


@dataclass(frozen=True)
class HorusKit:
    name: str
    description: str
    tiles: int  # printed tiles in the box
    stones: int  # kingdom stones a player
    stone_colours: tuple[str, ...]  # the stones' colours, one a seat, in seat order
    hand: int  # Horus cards in a hand
    nile_cards: int
    terrains: tuple[Terrain, ...]
    river_bag: int  # river tiles in the bag
    river_stack: int  # river/necropolis tiles: the fifth stack
    temple: int  # the temple, in the bag (0 or 1)
    pyramid: Pos  # the start tile with the step pyramid
    ends: tuple[Pos, Pos]  # the two start tiles with a barge: the river's ends
    cards: tuple[tuple[Card, int], ...]  # each kind of Horus card and how many

    @cached_property
    def terrain(self) -> dict[str, Terrain]:
        return {t.name: t for t in self.terrains}

    @cached_property
    def terrain_names(self) -> tuple[str, ...]:
        return tuple(t.name for t in self.terrains)

    @cached_property
    def bag_kinds(self) -> tuple[str, ...]:
        """What the bag can hold, in a fixed order: each terrain, river, temple."""
        return (*self.terrain_names, "river", "temple")

    @cached_property
    def bag_counts(self) -> tuple[int, ...]:
        return (*(t.bag for t in self.terrains), self.river_bag, self.temple)

    @cached_property
    def stack_names(self) -> tuple[str, ...]:
        """The five face-up stacks: one per terrain, then the river/necropolis stack."""
        return (*self.terrain_names, "river")

    @cached_property
    def stack_counts(self) -> tuple[int, ...]:
        return (*(t.stack for t in self.terrains), self.river_stack)

    @cached_property
    def card_names(self) -> tuple[str, ...]:
        return tuple(card.name for card, _ in self.cards)

    @cached_property
    def card(self) -> dict[str, Card]:
        return {card.name: card for card, _ in self.cards}

    @property
    def horus_cards(self) -> int:
        return sum(count for _, count in self.cards)

    def to_json(self) -> dict[str, Any]:
        return {
            "kit": KIT_VERSION,
            "game": "horus",
            "name": self.name,
            "description": self.description,
            "tiles": self.tiles,
            "stones": self.stones,
            "stone_colours": list(self.stone_colours),
            "hand": self.hand,
            "nile_cards": self.nile_cards,
            "horus_cards": self.horus_cards,
            "terrains": [t.to_json() for t in self.terrains],
            "river": {"bag": self.river_bag, "stack": self.river_stack, "temple": self.temple},
            "start": {"pyramid": list(self.pyramid), "ends": [list(e) for e in self.ends]},
            "cards": [
                {
                    "terrain": card.terrain,
                    "number": ANY if card.number is None else card.number,
                    "count": count,
                }
                for card, count in self.cards
            ],
        }


FIELDS = ("tiles", "stones", "stone_colours", "hand", "nile_cards", "horus_cards", "terrains",
          "river", "start", "cards")  # fmt: skip
RESERVED = ("river", "necropolis", "temple", "pyramid", "end", ANY)


def kit_from_json(data: Any) -> HorusKit:
    """Validate a kit document (parsed TOML or JSON) and build the kit; an impossible
    kit raises ``KitError`` naming the field (``terrains[1].stack``, ``cards``)."""
    read = KitFields("horus", KIT_VERSION)
    fail, table, whole = read.fail, read.table, read.whole
    name, description = read.header(data, FIELDS)
    for field in FIELDS:
        if field not in data:
            raise fail(field, "missing")
    tiles = whole(data["tiles"], "tiles", 1, 999)
    stones = whole(data["stones"], "stones", 1, 99)
    stone_colours = data["stone_colours"]
    if (
        not isinstance(stone_colours, list)
        or len(stone_colours) < 4
        or not all(isinstance(c, str) and c for c in stone_colours)
        or len(set(stone_colours)) != len(stone_colours)
    ):
        raise fail("stone_colours", "expected at least 4 different colour names, one a seat",
                   stone_colours)  # fmt: skip
    hand = whole(data["hand"], "hand", 1, 10)
    nile_cards = whole(data["nile_cards"], "nile_cards", 2, 99)
    horus_cards = whole(data["horus_cards"], "horus_cards", 1, 999)

    raw_terrains = data["terrains"]
    if not isinstance(raw_terrains, list) or len(raw_terrains) < 2:
        raise fail("terrains", "expected a list of at least two terrains", raw_terrains)
    terrains: list[Terrain] = []
    for i, raw in enumerate(raw_terrains):
        where = f"terrains[{i}]"
        entry = table(raw, where, ("name", "german", "count", "bag", "stack"))
        terrain_name = entry["name"]
        if not isinstance(terrain_name, str) or not terrain_name.strip() or "/" in terrain_name:
            raise fail(f"{where}.name", "expected a name without '/'", terrain_name)
        if terrain_name in RESERVED:
            raise fail(f"{where}.name", f"{terrain_name!r} names a tile that is no terrain")
        if any(t.name == terrain_name for t in terrains):
            raise fail(f"{where}.name", "two terrains have this name", terrain_name)
        german = entry["german"]
        if not isinstance(german, str) or not german.strip():
            raise fail(f"{where}.german", "expected the terrain's German name", german)
        terrain = Terrain(
            terrain_name,
            german,
            whole(entry["count"], f"{where}.count", 1, 999),
            whole(entry["bag"], f"{where}.bag", 0, 999),
            whole(entry["stack"], f"{where}.stack", 0, 999),
        )
        if terrain.bag + terrain.stack != terrain.count:
            raise fail(
                f"{where}.stack",
                f"the {terrain.name} tiles in the bag ({terrain.bag}) and in the stack "
                f"({terrain.stack}) do not add up to its count ({terrain.count})",
                terrain.stack,
            )
        terrains.append(terrain)

    river = table(data["river"], "river", ("bag", "stack", "temple"))
    river_bag = whole(river["bag"], "river.bag", 0, 999)
    river_stack = whole(river["stack"], "river.stack", 0, 999)
    temple = whole(river["temple"], "river.temple", 0, 1)
    printed = sum(t.count for t in terrains) + river_bag + river_stack + temple + START_TILES
    if printed != tiles:
        raise fail(
            "tiles",
            f"the terrains ({sum(t.count for t in terrains)}), river tiles in the bag "
            f"({river_bag}), river/necropolis tiles ({river_stack}), the temple ({temple}) "
            f"and the {START_TILES} start tiles make {printed}, not {tiles}",
            tiles,
        )

    start = table(data["start"], "start", ("pyramid", "ends"))
    pyramid = _pos(read, start["pyramid"], "start.pyramid")
    raw_ends = start["ends"]
    if not isinstance(raw_ends, list) or len(raw_ends) != 2:
        raise fail("start.ends", "expected the positions of the two river ends", raw_ends)
    ends = tuple(_pos(read, raw, f"start.ends[{i}]") for i, raw in enumerate(raw_ends))
    layout = (pyramid, *ends)
    for i, at in enumerate(layout):
        for other in layout[:i]:
            if contact(at, other) == "overlap":
                raise fail("start", f"the start tiles at {other} and {at} overlap")
    for i, end in enumerate(ends):
        if not adjacent(end, pyramid):
            raise fail(
                f"start.ends[{i}]",
                f"the river end does not touch the pyramid tile at {pyramid}: it lies "
                "beside it along a whole or half an edge",
                list(end),
            )
        if all(any(contact(p, t) == "overlap" for t in layout) for p in neighbours(end)):
            raise fail(f"start.ends[{i}]", "the river end is blocked from the start", list(end))

    raw_cards = data["cards"]
    if not isinstance(raw_cards, list) or not raw_cards:
        raise fail("cards", "expected a list of Horus card kinds", raw_cards)
    cards: list[tuple[Card, int]] = []
    names = {t.name for t in terrains}
    for i, raw in enumerate(raw_cards):
        where = f"cards[{i}]"
        entry = table(raw, where, ("terrain", "number", "count"))
        centre = entry["terrain"]
        if centre != ANY and centre not in names:
            raise fail(f"{where}.terrain", f"expected a terrain of the kit or {ANY!r}", centre)
        number = entry["number"]
        if number != ANY:
            number = whole(number, f"{where}.number", NUMBERS[0], NUMBERS[-1])
        card = Card(centre, None if number == ANY else number)
        if any(c == card for c, _ in cards):
            raise fail(f"{where}", f"the card {card.name} is listed twice")
        cards.append((card, whole(entry["count"], f"{where}.count", 1, 999)))
    listed = sum(count for _, count in cards)
    if listed != horus_cards:
        raise fail("cards", f"the card kinds count {listed} cards, not horus_cards = {horus_cards}")
    if horus_cards < 4 * hand:
        raise fail("horus_cards", f"too few to deal {hand} cards to four players", horus_cards)
    return HorusKit(
        name=name,
        description=description,
        tiles=tiles,
        stones=stones,
        stone_colours=tuple(stone_colours),
        hand=hand,
        nile_cards=nile_cards,
        terrains=tuple(terrains),
        river_bag=river_bag,
        river_stack=river_stack,
        temple=temple,
        pyramid=pyramid,
        ends=(ends[0], ends[1]),
        cards=tuple(cards),
    )


def _pos(read: KitFields, value: Any, where: str) -> Pos:
    if (
        not isinstance(value, list)
        or len(value) != 2
        or any(isinstance(v, bool) or not isinstance(v, int) for v in value)
    ):
        raise read.fail(where, "expected a position [x, y] in whole half edges", value)
    return Pos(value[0], value[1])
