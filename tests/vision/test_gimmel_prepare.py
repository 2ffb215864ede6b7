"""What ``gimmel.prepare`` works out once a profile, so that a frame's time goes to the
frame: each kind's outline on every square as the camera saw the set-up (the fit's cover
masks, ``calibration.silhouettes.cover_masks``), used while the camera stays where the
profile's photos were taken from (``Profile.eye``, within ``EYE_STAYS_MM``), and where a
piece on each may shade its neighbours (``gimmel.shadow_zones``, from the profile's
lamp)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from rendered_tables import rendered_table

from calibration import silhouettes
from calibration.registration import register
from vision.readers import gimmel

#: A rendered table whose play frame has white beetles on light squares, which the
#: reader fits (``test_gimmel_texture``).
SEED = 82


@pytest.fixture(scope="module")
def table():
    found = rendered_table(SEED)
    return found.sheet, found.profile, found.frame, found.camera, found.truth


def test_a_prepared_profile_fits_a_frame_without_working_out_an_outline(table):
    sheet, profile, frame, camera, truth = table
    silhouettes._cover_masks.cache_clear()
    gimmel._beyond_square.cache_clear()
    gimmel.prepare(profile, sheet=sheet)
    warmed = silhouettes._cover_masks.cache_info()
    assert warmed.currsize >= len(truth["position"]) + 100  # every square of 144
    shaded = gimmel._beyond_square.cache_info()
    assert profile.lamp is not None and shaded.currsize == 144  # where each may shade
    seen = gimmel.read(frame, sheet, profile, camera=camera)
    after = silhouettes._cover_masks.cache_info()
    assert after.hits > warmed.hits  # the frame had squares to fit ...
    assert after.misses == warmed.misses  # ... and worked out no outline for them
    assert gimmel._beyond_square.cache_info().misses == shaded.misses  # nor a shadow
    assert seen.squares["b15"] == "white beetle"  # read as before (the texture test's)


def test_a_camera_moved_away_from_the_profiles_place_is_seen_from_where_it_is(table):
    sheet, profile, frame, camera, _ = table
    registration = register(frame, sheet, camera=camera)
    here = silhouettes.board_eye(registration)
    kept = np.asarray(profile.eye)
    # The play frame's camera was nudged a little: the profile's place stands for it.
    assert 0 < np.linalg.norm(here - kept) <= gimmel.EYE_STAYS_MM
    fitter = gimmel.Fitter.of(profile, registration, (), gimmel.ReaderSettings())
    assert np.array_equal(fitter.eye, kept)
    # Learnt with the camera elsewhere (or the camera since moved): its own place.
    away = dataclasses.replace(profile, eye=[kept[0] + 40.0, kept[1], kept[2]])
    fitter = gimmel.Fitter.of(away, registration, (), gimmel.ReaderSettings())
    assert np.array_equal(fitter.eye, here)
    # A profile learnt before the place was kept: the frame's own, as before.
    older = dataclasses.replace(profile, eye=None)
    assert np.array_equal(
        gimmel.Fitter.of(older, registration, (), gimmel.ReaderSettings()).eye, here
    )


def test_the_pieces_arrays_are_kept_until_the_profile_is_taught_another_piece(table):
    _, profile, _, _, _ = table
    settings = gimmel.ReaderSettings()
    kinds = gimmel.Kinds.of(profile, settings)
    assert gimmel.Kinds.of(profile, settings) is kinds  # not worked out again each frame
    examples = profile.pieces["white beetle"]["instances"]
    examples.append(dict(examples[0], taught=True))  # as ``gimmel.teach`` adds one
    try:
        taught = gimmel.Kinds.of(profile, settings)
        assert taught is not kinds and len(taught.kind_of) == len(kinds.kind_of) + 1
        # Another reading's settings: worked out for them.
        other = gimmel.ReaderSettings(shape_weight=1.0)
        assert gimmel.Kinds.of(profile, other).settings == other
    finally:
        examples.pop()
    assert len(gimmel.Kinds.of(profile, settings).kind_of) == len(kinds.kind_of)
