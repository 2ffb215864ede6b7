"""The Uräus kit: the track's special fields and the pieces, read from a kit file.

The rulebook's text states all of it ("Das Spielbrett"); the kit still keeps it as data,
as it keeps every physical board, so that a differently printed board is a kit file.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rules.kitfields import KitFields

KIT_VERSION = 1


@dataclass(frozen=True)
class UraeusKit:
    name: str
    description: str
    tail: int  # the goal field; the head field (start) is 0
    scale: tuple[int, ...]  # fields that receive captured pieces, ascending
    goose: tuple[int, ...]  # fields whose piece must move on at once
    per_player: int
    colours: tuple[str, ...]

    def return_field(self, field: int) -> int:
        """Where a piece captured on ``field`` is set back: the nearest scale field below
        it, or the head field 0 (rulebook "Schlagen von Spielsteinen")."""
        return max((s for s in self.scale if s < field), default=0)

    def to_json(self) -> dict[str, Any]:
        return {
            "kit": KIT_VERSION,
            "game": "uraeus",
            "name": self.name,
            "description": self.description,
            "track": {"tail": self.tail, "scale": list(self.scale), "goose": list(self.goose)},
            "pieces": {"per_player": self.per_player, "colours": list(self.colours)},
        }


def kit_from_json(data: Any) -> UraeusKit:
    """Validate a kit document (parsed TOML or JSON) and build the kit."""
    read = KitFields("uraeus", KIT_VERSION)
    fail, table, whole = read.fail, read.table, read.whole
    name, description = read.header(data, ("track", "pieces"))

    track = table(data.get("track"), "track", ("tail", "scale", "goose"))
    tail = whole(track["tail"], "track.tail", 8, 999)
    fields = {}
    for key in ("scale", "goose"):
        value = track[key]
        if not isinstance(value, list):
            raise fail(f"track.{key}", "expected a list of field numbers", value)
        numbers = tuple(whole(v, f"track.{key}", 1, tail - 1) for v in value)
        if list(numbers) != sorted(set(numbers)):
            raise fail(f"track.{key}", "expected field numbers in ascending order, each once")
        fields[key] = numbers
    pieces = table(data.get("pieces"), "pieces", ("per_player", "colours"))
    per_player = whole(pieces["per_player"], "pieces.per_player", 1, 9)
    colours = pieces["colours"]
    if (
        not isinstance(colours, list)
        or len(colours) < 4
        or not all(isinstance(c, str) and c for c in colours)
        or len(set(colours)) != len(colours)
    ):
        raise fail("pieces.colours", "expected at least 4 different colour names", colours)
    return UraeusKit(
        name=name,
        description=description,
        tail=tail,
        scale=fields["scale"],
        goose=fields["goose"],
        per_player=per_player,
        colours=tuple(colours),
    )
