"""Horus's options: the rule readings that the text leaves open (NOTES.md §3)."""

from __future__ import annotations

from rules.core import OptionSpec

OPTION_SPECS = (
    OptionSpec(
        name="island",
        default="enclosed",
        choices=("enclosed", "strict"),
        doc=(
            "Which land is an island (its regions score double). enclosed: land that a "
            "flood from outside the layout cannot reach without crossing water; river "
            "tiles meeting at a corner close the ring, and gaps inside it do not open it. "
            "strict: a group of land tiles with water across every half edge of its "
            "boundary."
        ),
        source="horus.de.txt 'Der Fluss' (Insel) and 'ENDABRECHNUNG'; NOTES.md §3 "
        "Ambiguities, Island",
    ),
    OptionSpec(
        name="nile_stone",
        default="any-size",
        choices=("any-size", "up-to-five"),
        doc=(
            "Where the Nile card's stone may go. any-size: any free tile of another region "
            "bordering the river, a region of six or more too (the rulebook names the Nile "
            "card as the second way such a region's stones can change). up-to-five: only "
            "into a region of at most five tiles, as for a stone set with a Horus card."
        ),
        source="horus.de.txt '4. Aktion: Einen Königreich-Stein gemäß der Horuskarte "
        "setzen' (2) and 'Die Nilkarte'; NOTES.md §3 Ambiguities, Nile-card turn",
    ),
    OptionSpec(
        name="end_room",
        default="half-edge",
        choices=("half-edge", "full-edge"),
        doc=(
            "When a river end counts as blocked. half-edge: when no free position for a "
            "tile touches it along at least half an edge. full-edge: when no free position "
            "touches it along a whole edge."
        ),
        source="horus.de.txt 'Der Fluss' (Als Fluss); NOTES.md §3 Ambiguities, Blocking "
        "a river end",
    ),
    OptionSpec(
        name="bag_river",
        default="at-river",
        choices=("at-river", "aside"),
        doc=(
            "A river tile from the bag that can replace neither river end (each end's "
            "every new place would block it). at-river: it is laid at the river as a "
            "river/necropolis tile would be, and the compulsory river/necropolis tile "
            "follows. aside: it leaves the game as the temple does when it has no place, "
            "and the turn goes on with the card."
        ),
        source="horus.de.txt 'Den Fluss verlängern' (muss anstelle eines der beiden "
        "Flussenden gelegt werden) and 'Der Horustempel'; not in NOTES.md §3",
    ),
)
