"""What a reading says of a Gimmel position (vision/readers/gimmel.py ``shows`` and
``mismatch``), the tracker's evidence for a move: a square misread the same way before
and after a move is no evidence either way, so a piece the reader keeps getting wrong
does not block every move made elsewhere on the board."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from rendered_tables import benchmark_table, rendered_table

from calibration import views
from companion.tracker import Claim, Verdict, explain
from rules import get_game, new_game
from rules.gimmel.model import DrawLots, Kind, Place
from rules.grid import Square
from vision.readers.gimmel import (
    EMPTY,
    KINDS_APART,
    MOST_TAUGHT,
    UNKNOWN,
    Observation,
    ReaderSettings,
    keep_to_counts,
    mismatch,
    position,
    read,
    shows,
    teach,
)

GAME = get_game("gimmel")


def start():
    state = GAME.play(new_game("gimmel"), DrawLots(white=0))
    state = GAME.play(state, Place(player=0, kind=Kind("falcon"), to=Square.parse("e5")))
    return GAME.play(state, Place(player=1, kind=Kind("cat"), to=Square.parse("d12")))


def reading(state, *, wrong=None, sure=0.9):
    """A reading of ``state`` on every square, with ``wrong`` squares read otherwise."""
    squares = {str(square): EMPTY for square in state.grid.squares} | position(state)
    squares |= wrong or {}
    return Observation("gimmel", squares, dict.fromkeys(squares, sure))


def test_a_square_misread_before_and_after_is_no_evidence_against_the_move():
    before = start()
    placed = Place(player=0, kind=Kind("beetle"), to=Square.parse("c3"))
    after = GAME.play(before, placed)
    # The reader takes the white falcon on e5 for a beetle, every time.
    misread = {"e5": "white beetle"}
    then = reading(before, wrong=misread)
    now = reading(after, wrong=misread)
    # Judged square by square against the whole board, no state shows what was read.
    assert not shows(now, after) and mismatch(now, after) == 0.9
    # Judged on what changed since the table last agreed with the camera, the move does.
    since = (then.squares, before)
    assert shows(now, after, since)
    assert mismatch(now, after, since) == 0.0
    # The table as it was does not: c3 changed in the reading.
    assert not shows(now, before, since) and mismatch(now, before, since) == 0.9
    # Nor does another placement: c3 reads a beetle, not a cat, and d4 did not change.
    other = GAME.play(before, Place(player=0, kind=Kind("cat"), to=Square.parse("c3")))
    assert mismatch(now, other, since) == 0.9


def test_a_square_whose_reading_changed_counts_and_unknown_never_does():
    before = start()
    then = reading(before)
    # Nothing moved, but a square flickered: the reading changed on a8, so it counts.
    now = reading(before, wrong={"a8": "black cat"}, sure=0.4)
    since = (then.squares, before)
    assert not shows(now, before, since) and mismatch(now, before, since) == 0.4
    # A hand over a square: unknown says nothing, whatever stood there.
    hidden = reading(before, wrong={"e5": UNKNOWN, "h1": UNKNOWN})
    assert shows(hidden, before, since) and shows(hidden, before)
    # A piece that really moved is seen where the state changed, not where it stayed.
    taken = dict(hidden.squares) | {"e5": EMPTY}
    gone = Observation("gimmel", taken, hidden.confidence)
    assert mismatch(gone, before, since) == 0.9


def profile_with(examples):
    """A profile's pieces as ``teach`` sees them: each class's examples."""
    from calibration.profiles import Profile, Settings

    pieces = {label: {"instances": list(found)} for label, found in examples.items()}
    return Profile("gimmel", "gimmel-corners", Settings(), {}, pieces, frame=[50.0, 0.0, 0.0])


def looks_of(squares):
    return {name: ([60.0, 1.0, 2.0], [3.0, 0.8, 0.6, 1.2, 0.9]) for name in squares}


def test_a_kind_misread_on_a_board_the_table_agreed_to_teaches_the_profile():
    state = start()
    seen = reading(state, wrong={"e5": "white beetle"}, sure=0.3)
    light, apart = np.full((32, 32), 71.0, np.float32), np.full((32, 32), 30.0, np.float32)
    seen = Observation("gimmel", seen.squares, seen.confidence, looks=looks_of(["e5", "d12"]),
                       views={"e5": (light, apart)})  # fmt: skip
    profile = profile_with({"white falcon": [], "white beetle": [], "black cat": []})
    taught: set = set()
    assert teach(profile, seen, state, unsure=0.2, taught=taught) == ["e5"]
    example = profile.pieces["white falcon"]["instances"][0]
    assert example["square"] == "e5" and example["taught"] is True
    assert example["shape"] == [3.0, 0.8, 0.6, 1.2, 0.9]
    # The piece as the camera saw it straight on is kept too (calibration.views).
    kept_light, kept_apart = views.decode(example["view"])
    assert np.allclose(kept_light, light, atol=0.4) and np.allclose(kept_apart, apart, atol=0.25)
    assert not profile.pieces["white beetle"]["instances"]
    # d12's black cat was read right and surely enough (0.3 >= 0.2): nothing to teach.
    assert not profile.pieces["black cat"]["instances"]
    # The same piece on the same square is taught once.
    assert teach(profile, seen, state, unsure=0.2, taught=taught) == []
    assert len(profile.pieces["white falcon"]["instances"]) == 1
    # Read right but unsurely: taught too, so that the next such reading is sure.
    assert teach(profile, seen, state, unsure=0.5, taught=taught) == ["d12"]
    assert "view" not in profile.pieces["black cat"]["instances"][0]  # none was seen


def test_a_board_that_differs_otherwise_than_in_kinds_teaches_nothing():
    state = start()
    profile = profile_with({"white falcon": [], "white beetle": [], "black cat": []})
    # A piece where the state has none: the board is not yet the state (a move entered
    # on the tablet before it was made, say).
    extra = reading(state, wrong={"a1": "white cat", "e5": "white beetle"})
    extra = Observation("gimmel", extra.squares, extra.confidence, looks=looks_of(["a1", "e5"]))
    assert teach(profile, extra, state) is None
    # A piece of the other colour: swapped pieces, not a kind misread.
    swapped = reading(state, wrong={"e5": "black falcon"})
    swapped = Observation("gimmel", swapped.squares, swapped.confidence, looks=looks_of(["e5"]))
    assert teach(profile, swapped, state) is None
    assert all(not kind["instances"] for kind in profile.pieces.values())
    # A hand over a square hides it: it neither teaches nor stops the rest teaching.
    hidden = reading(state, wrong={"e5": UNKNOWN, "d12": "black beetle"}, sure=0.9)
    hidden = Observation("gimmel", hidden.squares, hidden.confidence, looks=looks_of(["d12"]))
    profile.pieces["black beetle"] = {"instances": []}
    assert teach(profile, hidden, state) == ["d12"]
    assert profile.pieces["black cat"]["instances"][0]["square"] == "d12"


def test_the_pieces_taught_are_bounded_the_oldest_going_first():
    state = start()
    profile = profile_with({"white falcon": [{"square": "c8", "lab": [1, 2, 3], "shape": [0] * 5}],
                            "black cat": []})  # fmt: skip
    seen = reading(state, wrong={"e5": "white beetle"})
    seen = Observation("gimmel", seen.squares, seen.confidence, looks=looks_of(["e5"]))
    for _ in range(MOST_TAUGHT + 3):
        teach(profile, seen, state, taught=set())
    examples = profile.pieces["white falcon"]["instances"]
    # The set-up's own example stays; the taught ones are capped.
    assert examples[0]["square"] == "c8" and "taught" not in examples[0]
    assert sum(1 for e in examples if e.get("taught")) == MOST_TAUGHT


def test_a_piece_doubtful_only_against_the_other_colour_is_sure_against_the_other_kinds():
    """gimmel.de.txt, "1. Spielvorbereitung" (each player gets twelve pieces of one
    colour) and "3.1 Setzen eines Steines" (a new piece on any empty square); NOTES.md,
    Gimmel rules 1 and 2: a player sets down a piece of their own colour. A white cat
    set down on c3 that the reader takes for a black cat nearly as readily (a glinting
    top: confidence 0.3) but for no white falcon or beetle (margins 0.9 and 0.85) is no
    question for the table: the rules leave white's kinds only, and against those it is
    sure."""

    before = start()  # white (player 0) to move
    cat = Place(player=0, kind=Kind("cat"), to=Square.parse("c3"))
    falcon = Place(player=0, kind=Kind("falcon"), to=Square.parse("c3"))
    now = reading(GAME.play(before, cat))
    margins = {"c3": {"white cat": 0.0, "black cat": 0.3, "white falcon": 0.9,
                      "white beetle": 0.85, "black falcon": 0.95, "black beetle": 0.9}}  # fmt: skip
    # Sure that a piece stands there (``occupied``); doubtful which (``confidence``).
    seen = Observation("gimmel", now.squares, now.confidence | {"c3": 0.3},
                       occupied=dict(now.confidence), margins=margins)  # fmt: skip
    since = (reading(before).squares, before)
    assert mismatch(seen, GAME.play(before, cat), since) == 0.0
    # 0.9 over the white falcon, weighed as a cat's margin over a falcon counts
    # (``KINDS_APART``), at most 1.
    assert mismatch(seen, GAME.play(before, falcon), since) == 1.0
    assert mismatch(seen, GAME.play(before, falcon), since, apart={}) == 0.9
    # Without the margins the falcon costs what the nearest class does: 0.3.
    plain = Observation("gimmel", seen.squares, seen.confidence, occupied=seen.occupied)
    assert mismatch(plain, GAME.play(before, falcon), since) == 0.3

    def claim(observation):
        return Claim("camera", matches=lambda s: shows(observation, s, since),
                     mismatch=lambda s: mismatch(observation, s, since), tolerance=0.75,
                     margin=0.7)  # fmt: skip

    assert explain(GAME, before, claim(seen)) == Verdict("move", move=cat)
    asked = explain(GAME, before, claim(plain))
    assert asked.kind == "question" and cat in asked.choices and falcon in asked.choices


def test_a_cat_and_a_falcon_need_less_margin_between_them_than_a_falcon_and_a_beetle():
    """gimmel.de.txt, "3.1 Setzen eines Steines" (a new piece on any empty square);
    NOTES.md, Gimmel rules 1 and 2: white may set down a cat, a falcon or a beetle on
    c3. A falcon read there by 0.6 over a cat is taken (the reader seldom takes the one
    for the other: ``KINDS_APART``); a falcon read by 0.6 over a beetle is asked, as is
    the cat without the weighing."""
    before = start()
    kinds = {k: Place(player=0, kind=Kind(k), to=Square.parse("c3"))
             for k in ("cat", "falcon", "beetle")}  # fmt: skip
    now = reading(GAME.play(before, kinds["falcon"]))
    since = (reading(before).squares, before)

    def seen(over_cat: float, over_beetle: float) -> Observation:
        margins = {"c3": {"white falcon": 0.0, "white cat": over_cat,
                          "white beetle": over_beetle, "black falcon": 0.95,
                          "black cat": 0.95, "black beetle": 0.95}}  # fmt: skip
        return Observation("gimmel", now.squares,
                           now.confidence | {"c3": min(over_cat, over_beetle)},
                           occupied=dict(now.confidence), margins=margins)  # fmt: skip

    def verdict(observation: Observation, apart=None) -> Verdict:
        claim = Claim("camera", matches=lambda s: shows(observation, s, since),
                      mismatch=lambda s: mismatch(observation, s, since, apart),
                      tolerance=0.75, margin=0.7)  # fmt: skip
        return explain(GAME, before, claim)

    assert KINDS_APART[frozenset({"cat", "falcon"})] == pytest.approx(0.7 / 0.5)
    near_cat = seen(over_cat=0.6, over_beetle=0.9)
    assert mismatch(near_cat, GAME.play(before, kinds["cat"]), since) == pytest.approx(0.84)
    assert verdict(near_cat) == Verdict("move", move=kinds["falcon"])
    asked = verdict(near_cat, apart={})
    assert asked.kind == "question" and set(asked.choices) == {kinds["falcon"], kinds["cat"]}
    # Under 0.5 between them, still asked.
    assert verdict(seen(over_cat=0.45, over_beetle=0.9)).kind == "question"
    near_beetle = verdict(seen(over_cat=0.9, over_beetle=0.6))
    assert near_beetle.kind == "question"
    assert set(near_beetle.choices) == {kinds["falcon"], kinds["beetle"]}


def test_a_readings_margins_are_its_confidence_over_each_class():
    """On a rendered table (seed 691: black falcons whose tops mirror the lamp), each
    piece read has a margin over every class, the least of which is its confidence; the
    black falcons read doubtfully against white falcons are read surely against the
    other black kinds, the only other pieces their owner could have set there."""
    table = rendered_table(691)
    seen = read(table.frame, table.sheet, table.profile, camera=table.camera)
    assert set(seen.margins) == set(seen.pieces)
    for name, label in seen.pieces.items():
        margins = seen.margins[name]
        assert margins[label] == 0.0 and len(margins) == 6
        assert min(m for other, m in margins.items() if other != label) == seen.confidence[name]
    for name in ("b5", "b6", "c5"):
        assert table.truth["position"][name] == seen.squares[name] == "black falcon"
        # Too doubtful for the table to take on its confidence alone (``MARGIN``) ...
        assert seen.confidence[name] < 0.6
        # ... but sure against what else its owner could have set there.
        assert min(seen.margins[name]["black cat"], seen.margins[name]["black beetle"]) > 0.75


def counted(labels, margins, occupied=None):
    """A reading of ``labels``, each piece as doubtful as its nearest margin."""
    confidence = {name: min((m for c, m in margins.get(name, {}).items() if c != label),
                            default=1.0)
                  for name, label in labels.items()}  # fmt: skip
    return Observation("gimmel", dict(labels), confidence,
                       occupied=dict.fromkeys(labels, 1.0) | (occupied or {}),
                       margins=margins)  # fmt: skip


def test_a_class_read_more_often_than_the_rules_allow_is_read_otherwise_where_cheapest():
    """gimmel.de.txt, "1. Spielvorbereitung": four pieces of each kind a player; NOTES.md,
    Gimmel rule 1. Five white falcons read: the one nearest to reading otherwise (g2,
    0.2 from a white beetle) is read so, as doubtfully as the count made it; its margins
    are kept as far from each class as they were, less the lead it lost."""
    five = dict.fromkeys(("a1", "b2", "c3", "d4", "g2"), "white falcon")
    sure = {"white falcon": 0.0, "black falcon": 0.8, "white beetle": 0.9, "white cat": 0.9}
    margins = dict.fromkeys(five, sure) | {
        "g2": {"white falcon": 0.0, "white beetle": 0.2, "white cat": 0.5, "black falcon": 0.7}
    }
    seen = counted(five | {"h9": EMPTY}, margins)
    kept = keep_to_counts(seen, 4)
    assert kept.squares == five | {"g2": "white beetle", "h9": EMPTY}
    assert kept.confidence["g2"] == 0.0 and kept.confidence["a1"] == 0.8
    assert kept.margins["g2"] == pytest.approx(
        {"white falcon": 0.0, "white beetle": 0.0, "white cat": 0.3, "black falcon": 0.5}
    )
    assert seen.squares["g2"] == "white falcon"  # the reading given is left as it was
    # The variant's eight of each kind (NOTES.md, Gimmel rule 6): nothing to change.
    assert keep_to_counts(seen, 8) is seen
    # A class with no room left is no way out: with four white beetles on the board
    # already, g2 becomes what is next nearest (a white cat).
    beetles = dict.fromkeys(("e5", "e6", "e7", "e8"), "white beetle")
    full = counted(five | beetles, margins | {key: {"white beetle": 0.0} for key in beetles})
    assert keep_to_counts(full, 4).squares["g2"] == "white cat"
    # Emptying a square weighs its occupancy three times (``EMPTYING_WEIGHT``): c3,
    # barely sure anything stands there (0.05, so 0.15), is emptied before g2 is read
    # as a beetle (0.2) ...
    unsure = counted(five, margins, occupied={"c3": 0.05})
    emptied = keep_to_counts(unsure, 4)
    assert emptied.squares["c3"] == EMPTY and "c3" not in emptied.margins
    assert list(emptied.squares.values()).count("white falcon") == 4
    # ... but at 0.1 (0.3) it stays a piece, and g2 is read as the beetle it likely is.
    doubtful = keep_to_counts(counted(five, margins, occupied={"c3": 0.1}), 4)
    assert doubtful.squares["c3"] == "white falcon" and doubtful.squares["g2"] == "white beetle"


#: Rendered tables where one piece is read as the other colour's, which then has five of
#: a kind on the board: (seed, square, piece). Both frames are smeared by motion, and
#: are read here as they are: sharpened first (``ReaderSettings.blur``), the reader
#: reads both pieces right by their looks alone; and 221's white falcon, read black by
#: a hair, is read white by its light side (``ReaderSettings.side_light_below``), so
#: that too is left out here; and both are read right once their lightness is taken
#: back through their squares' tone (``ReaderSettings.board_tone``), left out too.
OVER = ((221, "g11", "white falcon"), (681, "b7", "black cat"))
AS_THEY_ARE = ReaderSettings(blur=None, side_light_below=0.0, board_tone=False)


@pytest.mark.parametrize(("seed", "square", "piece"), OVER)
def test_the_rules_count_puts_right_a_piece_read_as_the_other_colour(seed, square, piece):
    table = rendered_table(seed)
    assert table.truth["position"][square] == piece
    alone = read(table.frame, table.sheet, table.profile, camera=table.camera,
                 settings=AS_THEY_ARE)  # fmt: skip
    assert alone.squares[square] != piece
    assert list(alone.pieces.values()).count(alone.squares[square]) == 5
    kept = read(table.frame, table.sheet, table.profile, camera=table.camera, most_of_each=4,
                settings=AS_THEY_ARE)  # fmt: skip
    assert kept.squares[square] == piece
    assert kept.squares == keep_to_counts(alone, 4).squares
    toned = read(table.frame, table.sheet, table.profile, camera=table.camera,
                 settings=replace(AS_THEY_ARE, board_tone=True))  # fmt: skip
    assert toned.squares[square] == piece


def test_a_reading_far_over_the_count_is_left_as_it_is():
    """A reading over the rules' count by more than a few pieces in all is a disturbed
    one (a hand or a sleeve over the board read as pieces): reading otherwise there
    would empty or recolour real pieces, so it is left as it was."""
    sure = {"white cat": 0.0, "black cat": 0.6, "white beetle": 0.9, "white falcon": 0.9}
    squares = [f"{file}{rank}" for file in "abcdefgh" for rank in (3, 4)]
    eight = counted(dict.fromkeys(squares[:8], "white cat"),
                    {name: dict(sure) for name in squares[:8]})  # fmt: skip
    assert keep_to_counts(eight, 4) is eight  # four too many
    assert keep_to_counts(eight, 4, over_at_most=4).pieces != eight.pieces
    seven = counted(dict.fromkeys(squares[:7], "white cat"),
                    {name: dict(sure) for name in squares[:7]})  # fmt: skip
    kept = keep_to_counts(seven, 4)  # three too many: kept to the count
    assert list(kept.pieces.values()).count("white cat") == 4
    assert list(kept.pieces.values()).count("black cat") == 3


def test_the_count_reads_a_piece_otherwise_before_it_empties_its_square():
    """gimmel.de.txt, "1. Spielvorbereitung"; NOTES.md, Gimmel rule 1 (four of each
    kind a player). The reader benchmark's frame 743: a white beetle on g2, little unlike
    its square, is read as a fifth white cat; it is nearer to emptying (how sure a piece
    stands there) than to a white beetle (its margin), but emptying weighs three times
    (``gimmel.EMPTYING_WEIGHT``), so the count reads it as the beetle it is. Read with
    the views' difference not thinned out (``views.ViewSettings.thin_out_px``); thinned,
    g2 reads as a fifth white falcon, nearer to a white beetle than to emptying."""
    table = benchmark_table(743)
    assert table.truth["position"]["g2"] == "white beetle"
    settings = replace(ReaderSettings(), view=replace(views.ViewSettings(), thin_out_px=1))
    alone = read(table.frame, table.sheet, table.profile, camera=table.camera,
                 settings=settings)  # fmt: skip
    assert alone.squares["g2"] == "white cat"
    assert list(alone.pieces.values()).count("white cat") == 5
    assert alone.occupied["g2"] < alone.margins["g2"]["white beetle"]
    kept = keep_to_counts(alone, 4)
    assert kept.squares["g2"] == "white beetle"
    assert kept.squares == read(table.frame, table.sheet, table.profile, camera=table.camera,
                                most_of_each=4, settings=settings).squares  # fmt: skip
    # Every visible square is read right now; thinned too.
    hidden = set(table.truth["unknown"])
    visible = {n: piece for n, piece in table.truth["position"].items() if n not in hidden}
    assert {n: piece for n, piece in kept.pieces.items() if n not in hidden} == visible
    thinned = read(table.frame, table.sheet, table.profile, camera=table.camera, most_of_each=4)
    assert {n: piece for n, piece in thinned.pieces.items() if n not in hidden} == visible
