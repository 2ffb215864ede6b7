"""Photos of the set-up turned half a turn (``SetUp.turned``, ``companion calibrate
board --turned``) teach the reader's views what each kind looks like at both ends of the
board: on the reader benchmark's frames, a falcon on the far row that five photos of the
set-up as it is leave looking like a beetle is read as a falcon. Their pieces teach the
views alone, not the blobs' nearest examples (``ReaderSettings.turned_blobs``)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from rendered_tables import benchmark_table

from vision.readers import gimmel


def misread(seen, truth) -> list[tuple[str, str, str]]:
    return sorted(
        (name, truth["position"].get(name, gimmel.EMPTY), label)
        for name, label in seen.squares.items()
        if name not in truth["unknown"] and label != truth["position"].get(name, gimmel.EMPTY)
    )


READER = gimmel.ReaderSettings()


def read(table, settings=READER):
    return gimmel.read(table.frame, table.sheet, table.profile, camera=table.camera,
                       most_of_each=4, settings=settings)  # fmt: skip


#: The views' difference not thinned out (``views.ViewSettings.thin_out_px``), as the
#: reader was when the turned photos were measured: thinned, seed 270's falcon on f18
#: reads right from the set-up as it is too.
UNTHINNED = replace(READER, view=replace(READER.view, thin_out_px=1))


def test_a_far_rows_falcon_is_read_a_falcon_once_the_set_up_was_photographed_turned_too():
    # Seed 270: a black falcon on f18, the row farthest from where the camera looks
    # down; the set-up's black falcons stand on rows 3 to 11, turned on rows 8 to 16.
    plain = benchmark_table(270)
    assert ("f18", "black falcon", "black beetle") in misread(read(plain, UNTHINNED), plain.truth)
    turned = benchmark_table(270, turned=2)
    falcons = turned.profile.pieces["black falcon"]["instances"]
    assert sorted(e["square"] for e in falcons if e.get("turned")) == [
        "a16", "a16", "d10", "d10", "f8", "f8", "h13", "h13"]  # fmt: skip
    assert misread(read(turned, UNTHINNED), turned.truth) == []
    # Thinned, either reads every visible square right.
    assert misread(read(plain), plain.truth) == misread(read(turned), turned.truth) == []


@pytest.fixture(scope="module")
def seed_8():
    return benchmark_table(8, turned=2)


def test_turned_pieces_teach_the_views_and_not_the_blobs_nearest_examples(seed_8):
    profile = seed_8.profile
    instances = [e for kind in profile.pieces.values() for e in kind["instances"]]
    turned = sum(bool(e.get("turned")) for e in instances)
    assert 40 <= turned < len(instances)  # two of five photos, a piece or two passed over
    apart = gimmel.Kinds.of(profile, gimmel.ReaderSettings())
    both = gimmel.Kinds.of(profile, gimmel.ReaderSettings(turned_blobs=True))
    assert len(apart.kind_of) == len(instances) - turned and len(both.kind_of) == len(instances)
    # The views learn from every piece, turned or not: 24 turns of each.
    turns = 2 * gimmel.ReaderSettings().view.turns
    assert len(apart.view_model.examples) == len(both.view_model.examples)
    assert len(apart.view_model.examples) == turns * sum("view" in e for e in instances)
    assert np.array_equal(apart.view_model.weights, both.view_model.weights)


def test_a_black_falcon_is_read_black_with_the_turned_pieces_teaching_views_alone(seed_8):
    # Seed 8's black falcon on f8: as the blobs' examples too, the turned photos' pieces
    # (one of them a black falcon on f8 itself) make its blob nearer a white falcon's.
    assert ("f8", "black falcon", "white falcon") in misread(
        read(seed_8, gimmel.ReaderSettings(turned_blobs=True)), seed_8.truth
    )
    assert misread(read(seed_8), seed_8.truth) == []
