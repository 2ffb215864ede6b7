"""Regie's options: the open readings of NOTES.md §4, each with its proposed default."""

from __future__ import annotations

from rules.core import OptionSpec

OPTION_SPECS = (
    OptionSpec(
        name="fall_through",
        default="forbidden",
        choices=("forbidden", "penalty"),
        doc=(
            "A chip put in where it would fall on past level 1. forbidden: such a move is "
            "not allowed (it must come to rest in level 1); if a chip falls through anyway, "
            "that is accepted with the rulebook's consequence: the player misses the next "
            "turn and the chip scores nothing if it reaches the box. penalty: it is "
            "allowed, and that consequence is its price."
        ),
        source=(
            "regie.de.txt 'Spielregeln', Zug A; NOTES.md §4 Ambiguities: Chip that falls through"
        ),
    ),
)
