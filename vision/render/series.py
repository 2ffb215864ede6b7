"""Series of frames from one seed: play positions, the board photos, the camera's
calibration photos.

A series seed fixes the table (``vision.render.table``: board, lamp, camera); frame
``i`` of a series draws from its own stream (the seed and the frame's number), so the
first ten frames of a series of a thousand are the ten frames of a series of ten, and
every kind of series of one seed shares one table:

- ``play``: positions from seeded random playouts (``rules.playout``): about a third
  are openings (up to 16 plies, a few pieces), the rest middle games (17 to 80 plies,
  most pieces on the board), one frame per position, a hand over the board in some.
- ``board``: the photos ``companion calibrate board`` takes: the empty board, then
  the reference set-up (``calibration/setups/GAME.toml``) ``count - 1`` times (at least
  once), its pieces placed anew in each, the last of them turned half a turn if asked,
  from the set-up's camera pose, no hand.
- ``calibration``: chessboard photos for ``companion calibrate camera`` (9x6 inner
  corners, 25 mm squares), ``count`` of them (15 is a good number).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import numpy as np

from calibration.profiles import load_setup
from calibration.sheet import load_sheet
from rules import get_game, new_game
from rules.playout import random_playout
from vision.render.chessboard import render_card_photo
from vision.render.frame import FrameOptions, Rendered, render_frame
from vision.render.table import Table, make_table
from vision.render.truth import position_of

#: Games the renderer draws (a board with a marker sheet and pieces it has shapes for).
GAMES = ("gimmel",)
KINDS = ("play", "board", "calibration")
#: Streams of a series seed (the table, then one per kind).
TABLE, PLAY, BOARD, CALIBRATION = 0, 1, 2, 3
#: Plies of the positions: openings (the share of them, their plies), middle games.
OPENING_SHARE = 0.35
OPENING_PLIES = (1, 16)
MIDDLE_PLIES = (17, 80)


class RenderError(ValueError):
    """A series that cannot be rendered (an unknown game or kind)."""


def stream(seed: int, *key: int) -> np.random.Generator:
    """The generator of one stream of a series seed (a frame's, the table's)."""
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=key))


def check(game: str, kind: str) -> None:
    if game not in GAMES:
        raise RenderError(f"the renderer draws {', '.join(GAMES)}; not {game!r}")
    if kind not in KINDS:
        raise RenderError(f"kind: expected one of {', '.join(KINDS)} (got {kind!r})")


def series_table(game: str, seed: int) -> Table:
    """The table set-up of a series seed."""
    check(game, "play")
    return make_table(game, load_sheet(game), stream(seed, TABLE))


def play_state(game_name: str, rng: np.random.Generator) -> Any:
    """A position from a seeded random playout: an opening or a middle game."""
    game = get_game(game_name)
    if rng.random() < OPENING_SHARE:
        plies = int(rng.integers(OPENING_PLIES[0], OPENING_PLIES[1] + 1))
    else:
        plies = int(rng.integers(MIDDLE_PLIES[0], MIDDLE_PLIES[1] + 1))
    seeded = random.Random(int(rng.integers(2**63)))
    return random_playout(game, new_game(game_name), seeded, plies).final


def play_frame(
    table: Table,
    seed: int,
    index: int,
    *,
    options: FrameOptions | None = None,
    hand: bool | None = None,
) -> Rendered:
    """Frame ``index`` (from 0) of the play series ``seed`` on its ``table``; ``hand``
    forces a hand in or out, all else unchanged (see ``render_frame``)."""
    rules = get_game(table.game)
    state_rng, frame_rng = stream(seed, PLAY, index).spawn(2)
    state = play_state(table.game, state_rng)
    extra = {"kind": "play", "seed": seed, "frame": index + 1, "state": rules.state_to_json(state)}
    return render_frame(
        table, position_of(state), frame_rng, options=options, hand=hand, extra=extra
    )


def board_photo(
    table: Table,
    game: str,
    seed: int,
    index: int,
    *,
    options: FrameOptions | None = None,
    turned: bool = False,
) -> Rendered:
    """Board photo ``index`` of the series ``seed`` (its table ``table``): 0 the empty
    board, any other the reference set-up, its pieces placed anew from the photo's own
    stream (so that photo 3 is the same whether photos 0-2 were rendered or not);
    ``turned``: the set-up turned half a turn (``SetUp.turned``), its truth saying so."""
    effects = (options or FrameOptions()).effects
    extra: dict[str, Any] = {"kind": "board", "photo": "empty" if index == 0 else "setup"}
    position: dict[str, str] = {}
    if index:
        setup = load_setup(game)
        position = setup.turned(load_sheet(game)).pieces if turned else setup.pieces
        if turned:
            extra["turned"] = True
    extra |= {"seed": seed, "frame": index + 1}
    return render_frame(table, position, stream(seed, BOARD, index), hand=False,
                        options=FrameOptions(camera="fixed", effects=effects),
                        extra=extra)  # fmt: skip


def render_series(
    game: str,
    seed: int,
    count: int,
    kind: str = "play",
    *,
    options: FrameOptions | None = None,
    table: Table | None = None,
    turned: int = 0,
) -> Iterator[Rendered]:
    """The frames of a series (see the module's words); for ``board``, the empty board
    and ``count - 1`` photos of the set-up (at least one), its pieces placed anew on
    their squares in each, the last ``turned`` of them of the set-up turned half a turn
    (``SetUp.turned``). Each frame's truth names the seed and frame."""
    check(game, kind)
    options = options or FrameOptions()
    if count < 0:
        raise RenderError(f"count: expected 0 or more (got {count})")
    photos = max(2, count) - 1  # of the set-up
    if turned and (kind != "board" or not 0 <= turned < photos):
        raise RenderError(
            f"turned: expected 0 to {photos - 1} of the {photos} set-up photos, the first "
            f"of the set-up as it is (got {turned})"
            if kind == "board"
            else f"turned: only board photos show the set-up (got kind {kind!r})"
        )
    table = table or series_table(game, seed)
    if kind == "play":
        for index in range(count):
            yield play_frame(table, seed, index, options=options)
    elif kind == "board":
        for index in range(max(2, count)):
            yield board_photo(table, game, seed, index, options=options,
                              turned=index > photos - turned)  # fmt: skip
    else:
        for index in range(count):
            rendered = render_card_photo(table, stream(seed, CALIBRATION, index), options=options)
            rendered.truth.update({"seed": seed, "frame": index + 1})
            yield rendered
