"""Gimmel's options: the draw-clause reading and the variant."""

from __future__ import annotations

from typing import NamedTuple

from rules.core import Options, OptionSpec

OPTION_SPECS = (
    OptionSpec(
        name="draw",
        default="automatic",
        choices=("automatic", "claim"),
        doc=(
            "automatic: the game ends drawn as soon as both players have at least 20 points "
            "(variant 40) and neither leads by more than 3 (variant 5). claim: in that "
            "situation either player may claim the draw; otherwise play goes on."
        ),
        source="gimmel.de.txt '4. Ende des Spiels'; NOTES.md §2 Ambiguities, draw clause",
    ),
    OptionSpec(
        name="variant",
        default=False,
        choices=(False, True),
        doc=(
            "The rulebook's SPIELVARIANTE: 8 pieces of each kind a player, 60 points to win, "
            "draw margin 5 with both players on at least 40."
        ),
        source="gimmel.de.txt 'SPIELVARIANTE'; NOTES.md §2 rule 6",
    ),
)


class Terms(NamedTuple):
    """The numbers of the rules that the variant changes."""

    per_kind: int
    target: int
    draw_margin: int
    draw_minimum: int


STANDARD = Terms(per_kind=4, target=30, draw_margin=3, draw_minimum=20)
VARIANT = Terms(per_kind=8, target=60, draw_margin=5, draw_minimum=40)


def terms(options: Options) -> Terms:
    return VARIANT if options["variant"] else STANDARD
