"""Every game describes its moves in German as well as English (``describe(..., "de")``).

The German says what the English says: the same facts and the same numbers, in the
rulebooks' words. Random playouts check every move; a few exact sentences per game pin
the wording; an unknown language is refused by name.
"""

from __future__ import annotations

import re
from collections import Counter

import pytest

from rules import GAMES, get_game, new_game
from rules.gimmel import ClaimDraw, DrawLots, Kind, Leap, Place
from rules.gimmel import Pass as GimmelPass
from rules.grid import Square
from rules.playout import game_rng, random_playout
from rules.regie import Insert, MoveBox, Slide, Start
from rules.uraeus import Advance, Return, Roll
from rules.uraeus import Pass as UraeusPass
from rules.uraeus.notation import state_from_json, state_to_json

URAEUS = get_game("uraeus")
GIMMEL = get_game("gimmel")
REGIE = get_game("regie")
PLY_LIMIT = 1500
SEEDS = (1, 2, 3)

#: Words of the English sentences that are no German words (German words such as "die",
#: "in", "an", "Chip", "Position" and "Box" are left out on purpose).
ENGLISH = frozenset(
    """the a and of on onto into to by from with its there seat seats moves places leaps
    captures claims passes cannot shows begins slides puts piece pieces field level column
    compartment table white black red blue green yellow facing turning step double head
    tail home border track lot draw new back returned driven reaches makes keeps takes
    leaves alone set falls through next turn missed left right gives staying
    re-occupying""".split()  # noqa: SIM905
)


def numbers(text: str) -> Counter[str]:
    return Counter(re.findall(r"\d+", text))


def english_words(text: str) -> set[str]:
    """The English words in ``text``; square names such as "a1" are no words."""
    return {word for word in re.findall(r"[\w-]+", text.lower()) if word in ENGLISH}


def check_pair(english: str, german: str) -> None:
    assert german, f"no German for {english!r}"
    assert german != english
    assert numbers(german) == numbers(english), (english, german)
    assert not english_words(german), (english, german, english_words(german))
    assert german.endswith("."), german


def playouts():
    for name, game in GAMES.items():
        options = [{}] + [
            {spec.name: choice}
            for spec in game.option_specs
            for choice in spec.choices
            if choice != spec.default
        ]
        for players in sorted({game.min_players, game.max_players}):
            for chosen in options:
                for seed in SEEDS:
                    yield pytest.param(
                        name, players, chosen, seed, id=f"{name}-{players}p-{chosen}-{seed}"
                    )


@pytest.mark.parametrize(("name", "players", "options", "seed"), list(playouts()))
def test_every_move_of_a_random_playout_is_said_in_german_too(name, players, options, seed):
    game = get_game(name)
    said = []

    def on_move(state, move):
        english = game.describe(state, move)
        assert game.describe(state, move, "en") == english
        german = game.describe(state, move, "de")
        check_pair(english, german)
        said.append(german)
        if not move.chance:  # the moves not taken are said as well as the one taken
            for other in game.legal_moves(state)[:8]:
                check_pair(game.describe(state, other), game.describe(state, other, "de"))
        else:
            assert game.chance_name(state, "de") != game.chance_name(state)

    random_playout(
        game, new_game(name, players, options), game_rng(seed, players), PLY_LIMIT, on_move
    )
    assert said


@pytest.mark.parametrize("name", list(GAMES))
def test_an_unknown_language_is_refused_by_name(name):
    game = get_game(name)
    state = new_game(name)
    move = game.chance_outcomes(state)[0][0]
    with pytest.raises(ValueError, match="'fr'"):
        game.describe(state, move, "fr")
    with pytest.raises(ValueError, match="'fr'"):
        game.chance_name(state, "fr")


# -- pinned sentences ------------------------------------------------------------------


def uraeus_table(pieces: str, *, players=2, turn=0, roll=None, options=None):
    """An Uräus position after the roll-off: ``"10:r> 12:b<"`` is a red piece (seat 0)
    on 10 facing the tail and a blue one (seat 1) on 12 facing the head."""
    state = new_game("uraeus", players=players, options=options)
    document = state_to_json(state)
    document.update(rolloff=None, turn=turn, roll=roll)
    on_track = [0] * players
    for entry in pieces.split():
        field, piece = entry.split(":")
        seat = "rbgy".index(piece[0])
        on_track[seat] += 1
        facing = "tail" if piece[1] == ">" else "head"
        document["track"][field] = [{"player": seat, "facing": facing}]
    document["border"] = [3 - on_track[seat] for seat in range(players)]
    return state_from_json(document)


def said(game, state, move) -> tuple[str, str]:
    return game.describe(state, move), game.describe(state, move, "de")


def test_uraeus_sentences():
    start = new_game("uraeus")
    assert said(URAEUS, start, Roll(5)) == (
        "The roll-off die of seat 0 shows 5.",
        "Der Würfel von Platz 0 beim Auswürfeln zeigt eine 5.",
    )
    assert URAEUS.chance_name(start, "de") == "der Würfel von Platz 0 beim Auswürfeln"
    assert said(URAEUS, uraeus_table("", turn=1), Roll(4)) == (
        "The die of seat 1 shows 4.",
        "Der Würfel von Platz 1 zeigt eine 4.",
    )
    assert said(URAEUS, uraeus_table("", roll=3), Advance(0, None)) == (
        "Red (seat 0) moves a new piece by 3: to field 3, facing the tail.",
        "Rot (Platz 0) zieht mit der 3 einen neuen Spielstein: auf Feld 3, "
        "in Richtung Schwanzfeld.",
    )
    # An advance with a capture: red takes blue on 10 from its front with the last step.
    capture = uraeus_table("7:r> 10:b<", roll=3)
    assert said(URAEUS, capture, Advance(0, 7)) == (
        "Red (seat 0) moves the piece on 7 by 3: to field 10, facing the tail; captures.",
        "Rot (Platz 0) zieht mit der 3 den Spielstein von Feld 7: auf Feld 10, "
        "in Richtung Schwanzfeld; schlägt.",
    )
    turning = uraeus_table("12:b< 15:r>", turn=1, roll=4)
    assert said(URAEUS, turning, Advance(1, 12, 1)) == (
        "Blue (seat 1) moves the piece on 12 by 4, turning at step 1: to field 15, "
        "facing the tail; makes a double.",
        "Blau (Platz 1) zieht mit der 4 den Spielstein von Feld 12, mit Drehung beim 1. "
        "Schritt: auf Feld 15, in Richtung Schwanzfeld; bildet einen Doppelstein.",
    )
    home = uraeus_table("60:g>", players=3, turn=2, roll=3)
    assert said(URAEUS, home, Advance(2, 60)) == (
        "Green (seat 2) moves the piece on 60 by 3: home on the tail field 63; "
        "reaches the tail field.",
        "Grün (Platz 2) zieht mit der 3 den Spielstein von Feld 60: ins Ziel auf das "
        "Schwanzfeld 63; erreicht das Schwanzfeld.",
    )
    assert said(URAEUS, uraeus_table("", roll=4), UraeusPass(0))[1] == (
        "Rot (Platz 0) kann mit der 4 nicht ziehen und setzt aus."
    )
    # Blue's captured piece comes back to scale field 21, where green stands.
    waiting = URAEUS.play(uraeus_table("29:r> 30:b< 21:g<", players=3, roll=1), Advance(0, 29))
    assert said(URAEUS, waiting, Return(1, True)) == (
        "Blue (seat 1)'s captured piece, set back on 21, takes on the piece there.",
        "Der geschlagene Spielstein von Blau (Platz 1) kommt auf Feld 21 zurück und greift "
        "den Spielstein dort an.",
    )
    assert said(URAEUS, waiting, Return(1, False))[1] == (
        "Der geschlagene Spielstein von Blau (Platz 1) kommt auf Feld 21 zurück und lässt "
        "den Spielstein dort in Ruhe."
    )


def test_gimmel_sentences():
    state = new_game("gimmel")
    assert said(GIMMEL, state, DrawLots(white=1)) == (
        "The lot gives White to seat 1.",
        "Das Los teilt Platz 1 Weiß zu.",
    )
    assert GIMMEL.chance_name(state, "de") == "die Auslosung der Farben"
    state = GIMMEL.play(state, DrawLots(white=0))
    place = Place(0, Kind.FALCON, Square.parse("c3"))
    assert said(GIMMEL, state, place) == (
        "White (seat 0) places a falcon on c3.",
        "Weiß (Platz 0) setzt einen Falken auf c3.",
    )
    state = GIMMEL.play(state, place)
    cat = Place(1, Kind.CAT, Square.parse("c6"))
    assert said(GIMMEL, state, cat)[1] == "Schwarz (Platz 1) setzt eine Katzengöttin auf c6."
    state = GIMMEL.play(state, cat)
    capture = Leap(0, Square.parse("c3"), Square.parse("c6"))
    assert said(GIMMEL, state, capture) == (
        "White (seat 0)'s falcon leaps c3-c6 and captures the black cat (+3).",
        "Weiß (Platz 0) springt mit dem Falken von c3 nach c6 und schlägt die schwarze "
        "Katzengöttin (+3).",
    )
    state = GIMMEL.play(state, capture)
    state = GIMMEL.play(state, Place(1, Kind.BEETLE, Square.parse("c7")))
    state = GIMMEL.play(state, Place(0, Kind.CAT, Square.parse("e5")))
    beetle = Leap(1, Square.parse("c7"), Square.parse("c6"))
    assert said(GIMMEL, state, beetle) == (
        "Black (seat 1)'s beetle leaps c7-c6 and captures the white falcon (+6).",
        "Schwarz (Platz 1) springt mit dem Käfer von c7 nach c6 und schlägt den weißen "
        "Falken (+6).",
    )
    state = GIMMEL.play(state, beetle)
    assert said(GIMMEL, state, Leap(0, Square.parse("e5"), Square.parse("e7"))) == (
        "White (seat 0)'s cat leaps e5-e7.",
        "Weiß (Platz 0) springt mit der Katzengöttin von e5 nach e7.",
    )
    assert said(GIMMEL, state, ClaimDraw(0))[1] == "Weiß (Platz 0) beansprucht das Unentschieden."
    assert said(GIMMEL, state, GimmelPass(1))[1] == (
        "Schwarz (Platz 1) kann weder setzen noch springen und passt."
    )


def test_regie_sentences():
    state = new_game("regie", options={"fall_through": "penalty"})
    assert REGIE.chance_name(state, "de") == "die Festlegung, wer beginnt"
    sentences = []
    # The shipped kit: a chip put in at column 6 falls through into level 2; with the box
    # at position 3, sliding level 2 left drops it into the box (column 5's chute).
    for move in (Start(0), Insert(0, 6), MoveBox(1, 3), Slide(1, 2, -1)):
        sentences.append(said(REGIE, state, move))
        state = REGIE.play(state, move)
    assert sentences == [
        ("Red begins.", "Rot beginnt."),
        (
            "Red puts a chip in at column 6: the chip falls through: the next turn is missed.",
            "Rot setzt einen Chip in Spalte 6 ein: der Chip fällt durch, und Rot setzt im "
            "nächsten Durchgang aus.",
        ),
        (
            "Blue moves the box from position 2 to 3.",
            "Blau schiebt die Wertungsbox von Position 2 in Position 3.",
        ),
        (
            "Blue slides level 2 left: red into compartment 5 (+3).",
            "Blau schiebt Ebene 2 nach links: ein roter Chip fällt in Fach 5 (+3).",
        ),
    ]
    # A kit open all the way down: an insertion falls through into the box and scores 0.
    bars = [{"cells": ".o.o.", "travel": 1}] * 6
    box = {"rows": [[1, 2, 3], [0, 0, 0], [4, 5, 6]], "under_frame": [1, 2, 3], "start": 2}
    kit = {"kit": 1, "game": "regie", "name": "open", "chips_per_player": 8}
    kit.update(frame={"columns": 3}, levels=bars, box=box)
    state = REGIE.new(2, {"fall_through": "penalty"}, REGIE.kit_from_json(kit))
    state = REGIE.play(REGIE.play(state, Start(1)), MoveBox(1, 3))
    assert said(REGIE, state, Insert(0, 2)) == (
        "Red puts a chip in at column 2: red into compartment 2 (+0); the chip falls "
        "through: the next turn is missed.",
        "Rot setzt einen Chip in Spalte 2 ein: ein roter Chip fällt in Fach 2 (+0); der "
        "Chip fällt durch, und Rot setzt im nächsten Durchgang aus.",
    )
    state = REGIE.play(state, Insert(0, 2))
    assert said(REGIE, state, Slide(1, 1, 1))[1] == "Blau schiebt Ebene 1 nach rechts."
