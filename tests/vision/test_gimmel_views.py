"""The Gimmel reader sees each piece straight on too (``calibration.views``): on rendered
tables it reads pieces the blob's outline alone misreads; a profile learnt before views
were kept still reads; a profile whose kept view is damaged is refused by name."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from rendered_tables import rendered_table

from calibration import views
from calibration.profiles import ProfileError
from calibration.sheet import load_sheet
from vision.readers import gimmel

#: Tables whose play frame the blob's outline alone misreads (one and six pieces, with the
#: profile learnt from one set-up photo) and views read better. (Seed 3's two went once
#: the empty board's colour followed a square's light too: its blob alone reads it now.)
SEEDS = (33, 42)
#: The reading these figures were taken with: a piece fitted only from a margin under
#: ``fit_below``, whatever its nearest classes, and no top's rim asked (it reads seed
#: 33's pieces the blob alone misreads right without the views).
VIEWS_ALONE = gimmel.ReaderSettings(fit_kind_below=0.0, rim_gain=0.0)


@pytest.fixture(scope="module")
def tables():
    found = []
    for seed in SEEDS:
        table = rendered_table(seed)
        found.append((seed, table.profile, table.frame, table.truth))
    return found


def without_views(profile):
    """The profile as one learnt before views were kept."""
    older = copy.deepcopy(profile)
    for kind in older.pieces.values():
        for example in kind["instances"]:
            del example["view"]
    return older


def misread(seen, truth) -> list[str]:
    return sorted(
        name
        for name, label in seen.squares.items()
        if name not in truth["unknown"] and label != truth["position"].get(name, gimmel.EMPTY)
    )


def test_each_set_up_piece_is_kept_as_it_was_seen(tables):
    for _seed, profile, _play, _truth in tables:
        examples = [e for kind in profile.pieces.values() for e in kind["instances"]]
        assert len(examples) >= 20 and all("view" in e for e in examples)
        light, apart = views.decode(examples[0]["view"])
        assert light.shape == apart.shape == (32, 32)
        # A piece differs from its square: its view's middle is unlike the empty board.
        assert np.median(apart[12:20, 12:20]) > 15.0


def test_views_read_the_pieces_the_blob_alone_misreads(tables):
    sheet = load_sheet("gimmel")
    misread_with_views = []
    for seed, profile, play, truth in tables:
        camera = truth["camera"]
        # The views alone weighed: no fit of a piece whose kind alone is in doubt, which
        # puts seed 42's black beetle on e15 wrong (``test_gimmel_kind_doubt``).
        with_views = gimmel.read(play, sheet, profile, camera=camera, settings=VIEWS_ALONE)
        older = gimmel.read(play, sheet, without_views(profile), camera=camera,
                            settings=VIEWS_ALONE)  # fmt: skip
        # A profile learnt before views were kept still reads, much as it did then (6 of
        # seed 42's pieces misread then, 7 since the light is read changing across
        # squares: ``blobs.shaded_picture``).
        wrong = misread(older, truth)
        assert 0 < len(wrong) <= 7, (seed, wrong)
        seen_wrong = misread(with_views, truth)
        assert len(seen_wrong) < len(wrong), seed
        misread_with_views += seen_wrong
        # Each piece read from its blob keeps its view, for the table to teach from.
        assert set(with_views.views) <= set(with_views.pieces)
        assert len(with_views.views) >= len(with_views.pieces) - 2
    # Of the 7 pieces the blob alone misreads on these tables, the views leave two at most
    # (seed 42's black beetle on c15 the model takes for a falcon, learnt from one photo,
    # and its black falcon on b18 for a beetle, which the reading as it is, fitting a
    # piece whose kind is in doubt, reads right, if by 0.05: ``test_gimmel_kind_doubt``).
    # Before the views' lightness counted
    # from a difference of 4 rather than 8 (``views.ViewSettings.unlike_from``), b18 was
    # read right here; over one-photo tables of seeds 1-200 (throwaway script) the reader
    # misread 32 pieces with it against 38 before.
    assert len(misread_with_views) <= 2, misread_with_views


def test_a_damaged_view_in_a_profile_is_refused_naming_it(tables):
    _seed, profile, _play, _truth = tables[0]
    damaged = copy.deepcopy(profile)
    next(iter(damaged.pieces.values()))["instances"][0]["view"] = "AAAA"
    with pytest.raises(ProfileError, match="view of a set-up piece: expected 2048 bytes"):
        gimmel.prepare(damaged)
