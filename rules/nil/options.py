"""Nil's options: the rule readings that the text leaves open (NOTES.md §1)."""

from __future__ import annotations

from rules.core import OptionSpec

OPTION_SPECS = (
    OptionSpec(
        name="corner",
        default="around",
        choices=("around", "diagonal"),
        doc=(
            "around: a line ending at a corner may continue into any of the three other "
            "cells sharing that corner, the sharp-angle rule deciding which tiles fit there. "
            "diagonal: only into the cell diagonally across."
        ),
        source="nil.de.txt 'SPIELTAKTIK' (Abb. 5, 6) and 'WIE SETZT MAN DIE STEINE?' (Abb. 9); "
        "NOTES.md §1 Ambiguities, where a line continues at a corner",
    ),
    OptionSpec(
        name="sharp_angle",
        default="acute",
        choices=("acute", "right"),
        doc=(
            "Where lines meet at a corner, the angle between the incoming and the outgoing "
            "line may not be sharp. acute: below 90 degrees is sharp. right: 90 degrees "
            "is sharp too."
        ),
        source="nil.de.txt 'WIE SETZT MAN DIE STEINE?' rule 1 (Abb. 9); NOTES.md §1 "
        "Ambiguities, sharp angle",
    ),
    OptionSpec(
        name="blue_zone",
        default="continue",
        choices=("continue", "same-turn"),
        doc=(
            "Once a tile stands on a blue field the line may not leave the blue zone and "
            "must end at a blue number. continue: whoever plays next goes on until it ends. "
            "same-turn: the player who entered the zone may not end the turn while a tile "
            "of the rack could still be laid."
        ),
        source="nil.de.txt 'WICHTIGE REGELN' rule 5; NOTES.md §1 rule 12",
    ),
    OptionSpec(
        name="no_play_end",
        default="two-rounds",
        choices=("two-rounds", "two-turns"),
        doc=(
            "The game ends when nobody could place a tile for two rounds. two-rounds: 2 x N "
            "turns in a row without a tile laid (N players). two-turns: 2 turns in a row."
        ),
        source="nil.de.txt 'SPIEL-ENDE' 3; NOTES.md §1 Ambiguities, 2 rounds",
    ),
)
