"""Uräus's options: the open readings of NOTES.md §5, each with its proposed default."""

from __future__ import annotations

from rules.core import OptionSpec

OPTION_SPECS = (
    OptionSpec(
        name="chain",
        default="choose",
        choices=("choose", "always"),
        doc=(
            "A captured piece set back on its scale field meets a piece it could occupy or "
            "capture there. choose: its owner decides whether it does (the rulebook says "
            "'kann'); declined, it is set on the field ahead instead. always: it always does."
        ),
        source="uraeus.de.txt 'Schlagen von Spielsteinen'; NOTES.md §5 Ambiguities: Capture chains",
    ),
    OptionSpec(
        name="past_head",
        default="stop",
        choices=("stop", "leave"),
        doc=(
            "A piece driven toward the head field with pips left over. stop: it stops on the "
            "head field 0 and the pips are lost. leave: it leaves the track and goes back to "
            "its owner's border field."
        ),
        source="uraeus.de.txt 'Vertreiben von Spielsteinen'; NOTES.md §5 Ambiguities: Field 0",
    ),
    OptionSpec(
        name="renewal",
        default="repeat",
        choices=("repeat", "once"),
        doc=(
            "A double kept by staying or re-occupying. repeat: it may be kept so again and "
            "again (the literal reading). once: after one renewal it must be dissolved."
        ),
        source="uraeus.de.txt 'Verbleiben und Wiederbesetzen von Spielsteinen'; "
        "NOTES.md §5 Ambiguities: One round",
    ),
)
