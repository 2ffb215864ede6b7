"""A still board's frames read together (``gimmel.vote``): the camera's frames of one
still scene differ by noise, and a doubtful square may tip one way in one frame and the
other in the next; what the frames say most, weighed by how sure each was, is the
reading the table explains."""

from __future__ import annotations

import numpy as np
import pytest

from vision.readers.gimmel import EMPTY, UNKNOWN, Observation, keep_to_counts, vote


def frame(labels, sure, occupied=None, **extra):
    return Observation("gimmel", dict(labels), dict(sure), occupied=dict(occupied or {}), **extra)


def test_a_square_tipping_between_two_kinds_is_what_the_frames_say_most_surely():
    readings = [
        frame({"h7": "white cat", "a1": EMPTY}, {"h7": 0.21, "a1": 1.0}),
        frame({"h7": "white falcon", "a1": EMPTY}, {"h7": 0.75, "a1": 1.0}),
        frame({"h7": "white cat", "a1": EMPTY}, {"h7": 0.18, "a1": 1.0}),
    ]
    voted = vote(readings)
    # Two doubtful cats (0.39 in all) against one sure falcon (0.75): a falcon, and as
    # sure as its lead over the cat, per frame.
    assert voted.squares == {"h7": "white falcon", "a1": EMPTY}
    assert voted.confidence["h7"] == pytest.approx((0.75 - 0.39) / 3)
    # Frames that agree keep their confidence.
    assert voted.confidence["a1"] == pytest.approx(1.0)
    # Turned round, the sure readings win again: the order of the frames does not count.
    assert vote(readings[::-1]).squares["h7"] == "white falcon"


def test_a_frame_that_could_not_read_a_square_says_nothing_of_it():
    readings = [
        frame({"c3": UNKNOWN, "d4": UNKNOWN}, {"c3": 0.0, "d4": 0.0}),  # a hand over both
        frame({"c3": "black beetle", "d4": UNKNOWN}, {"c3": 0.8, "d4": 0.0}),
    ]
    voted = vote(readings)
    assert voted.squares == {"c3": "black beetle", "d4": UNKNOWN}
    assert voted.confidence["c3"] == pytest.approx(0.8)  # the frame that read it


def test_whether_something_stands_there_is_voted_too():
    readings = [
        frame({"e5": EMPTY}, {"e5": 0.3}, {"e5": 0.3}),
        frame({"e5": "white beetle"}, {"e5": 0.6}, {"e5": 0.9}),
        frame({"e5": "white beetle"}, {"e5": 0.5}, {"e5": 0.7}),
    ]
    voted = vote(readings)
    assert voted.squares["e5"] == "white beetle"
    assert voted.confidence["e5"] == pytest.approx((1.1 - 0.3) / 3)
    assert voted.occupied["e5"] == pytest.approx((1.6 - 0.3) / 3)


def test_the_latest_frame_brings_what_a_table_teaches_from():
    view = (np.zeros((2, 2), np.float32), np.ones((2, 2), np.float32))
    older = frame({"e5": "white cat"}, {"e5": 0.9}, looks={"e5": ([1.0, 0, 0], [0.0])})
    latest = frame({"e5": "white cat"}, {"e5": 0.7}, board={"rms_mm": 0.3},
                   looks={"e5": ([2.0, 0, 0], [1.0])}, views={"e5": view})  # fmt: skip
    voted = vote([older, latest])
    assert voted.looks == latest.looks and voted.views is latest.views
    assert voted.board == {"rms_mm": 0.3}
    assert vote([latest]) is latest  # one frame: itself
    with pytest.raises(ValueError, match="no readings"):
        vote([])


def test_a_pieces_margin_over_each_class_is_voted_too():
    cat = {"white cat": 0.0, "black cat": 0.3, "white falcon": 0.9}
    readings = [
        frame({"h7": "white cat"}, {"h7": 0.3}, margins={"h7": cat}),
        # Read as a black cat once, doubtfully, and as sure as ever against a falcon.
        frame(
            {"h7": "black cat"},
            {"h7": 0.1},
            margins={"h7": {"black cat": 0.0, "white cat": 0.1, "white falcon": 0.8}},
        ),
        frame({"h7": "white cat"}, {"h7": 0.3}, margins={"h7": cat}),
        frame({"h7": EMPTY}, {"h7": 0.2}),  # read no piece: says nothing of which
        frame({"h7": UNKNOWN}, {"h7": 0.0}),  # a hand: not counted at all
    ]
    voted = vote(readings)
    assert voted.squares["h7"] == "white cat"
    margins = voted.margins["h7"]
    assert margins["white cat"] == 0.0
    # Per frame that read the square (four): its margin over the class less its margin
    # over the white cat (0.3 + (-0.1) + 0.3 + nothing) / 4.
    assert margins["black cat"] == pytest.approx(0.5 / 4)
    assert margins["white falcon"] == pytest.approx((0.9 + (0.8 - 0.1) + 0.9) / 4)
    # A frame without margins counts its confidence against every other class.
    older = frame({"h7": "white cat"}, {"h7": 0.6})
    assert vote([older, readings[0]]).margins["h7"] == pytest.approx(
        {"white cat": 0.0, "black cat": (0.6 + 0.3) / 2, "white falcon": (0.6 + 0.9) / 2}
    )
    # An empty square has no margins.
    assert vote(readings[3:4] * 2).margins == {}


def test_the_voted_reading_is_kept_to_the_rules_count():
    """Five white falcons read in each of three frames, one of them (a1 or b2) barely
    nearer a falcon than a white beetle by turns: kept to the count of four (NOTES.md,
    Gimmel rule 1) once voted, the square least surely a falcon over the frames is read
    a beetle; kept frame by frame, each frame's choice would weigh next to nothing and
    the vote would bring the five back."""
    falcons = ("a1", "b2", "c3", "d4", "e5")
    sure = {"white falcon": 0.0, "white beetle": 0.8, "black falcon": 0.8}

    def reading(doubtful, margin):
        margins = {name: dict(sure) for name in falcons}
        margins[doubtful] = {"white falcon": 0.0, "white beetle": margin, "black falcon": 0.8}
        nearest = {name: min(m for c, m in margins[name].items() if c != "white falcon")
                   for name in falcons}  # fmt: skip
        labels = dict.fromkeys(falcons, "white falcon")
        return frame(labels, nearest, dict.fromkeys(falcons, 1.0), margins=margins)

    readings = [reading("a1", 0.1), reading("b2", 0.05), reading("a1", 0.1)]
    one_by_one = vote([keep_to_counts(r, 4) for r in readings])
    assert list(one_by_one.squares.values()).count("white falcon") == 5
    voted = vote(readings, most_of_each=4)
    assert list(voted.squares.values()).count("white falcon") == 4
    # a1: (0.1 + 0.8 + 0.1) / 3 over a white beetle; b2: (0.8 + 0.05 + 0.8) / 3.
    assert voted.squares["a1"] == "white beetle" and voted.confidence["a1"] == 0.0
    assert vote(readings[:1], most_of_each=4).squares["a1"] == "white beetle"
