"""The camera commands of ``companion``: calibrating the camera, printing marker sheets,
checking the camera at the table, learning a board's appearance. Each runs a routine of
``calibration``/``vision`` and says what happened in words a user can act on; the JSON
files they write are the contracts (``docs/calibration.md``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TextIO


def calibrate_camera(
    images: list[str],
    *,
    pattern: str,
    square_mm: float,
    fix_aspect: bool,
    charuco: bool,
    marker_mm: float | None,
    out: str,
    stream: TextIO,
    as_json: bool = False,
) -> int:
    """``companion calibrate camera``: a progress line a photo, then the figures."""
    from calibration.camera import calibrate, make_pattern

    chosen = make_pattern(pattern, square_mm, charuco=charuco, marker_mm=marker_mm)
    width = max((len(Path(name).name) for name in images), default=0)

    def progress(name: str, word: str) -> None:
        if not as_json:
            print(f"{Path(name).name:<{width}}  {word}", file=stream, flush=True)

    result = calibrate(
        [(str(path), path) for path in images], chosen, fix_aspect=fix_aspect, progress=progress
    )
    result.save(out)
    if as_json:
        print(json.dumps(result.to_json()), file=stream)
    else:
        print(result.summary(), file=stream)
        print(f"written to {out}", file=stream)
    return 0


def markers(game: str, *, out: str, dpi: int, sheet: str | None, stream: TextIO) -> int:
    """``companion markers``: the printable sheet, and where to stick the markers."""
    from calibration.markers import general_instructions, write_sheet
    from calibration.sheet import load_sheet

    written = write_sheet(game, out, dpi, sheet_path=sheet)
    loaded = load_sheet(game, sheet)
    english, _german = general_instructions(loaded, "auto")
    for path in written:
        print(f"written {path} ({dpi} dpi: print at 100 %, check the 100 mm scale bar)",
              file=stream)  # fmt: skip
    print(english, file=stream)
    return 0


def calibrate_board(
    game: str,
    images: list[str],
    *,
    out: str,
    camera: str | None,
    sheet: str | None,
    stream: TextIO,
    pieces: str | None = None,
    turned: tuple[str, ...] | list[str] = (),
) -> int:
    """``companion calibrate board``: the empty board's photo, then one or more of the
    reference set-up (its pieces turned or nudged between photos: each adds examples of
    each kind), and ``turned``, photos of the set-up turned half a turn; the appearance
    profile. ``pieces``: a shapes file for the pieces."""
    import cv2

    from calibration.camera import CameraCalibration
    from calibration.profiles import ProfileError, learn, load_setup
    from calibration.sheet import load_sheet

    if len(images) < 2:
        raise ProfileError(
            f"expected the empty board's photo and then one or more of the reference set-up, "
            f"got {len(images)} photo{'' if len(images) == 1 else 's'} "
            f"(docs/calibration.md, 'Appearance profiles')"
        )
    loaded = load_sheet(game, sheet)
    setup = load_setup(game)
    shapes = None
    if pieces is not None:
        from calibration.shapes import ShapesError, load_shapes

        try:
            shapes = load_shapes(game, pieces)
        except ShapesError as error:
            raise ProfileError(str(error)) from None
    intrinsics = CameraCalibration.load(camera).to_json() if camera else None
    photos = []
    for path in [*images, *turned]:
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            raise ProfileError(f"{path}: not a readable photo (missing, or not an image)")
        photos.append((Path(path).name, image))
    photos, turned_photos = photos[: len(images)], photos[len(images) :]

    def progress(name: str, word: str) -> None:
        print(f"{name}  {word}", file=stream, flush=True)

    profile = learn(photos[0], photos[1], loaded, setup, camera=intrinsics, progress=progress,
                    shapes=shapes, more_setups=photos[2:],
                    turned_setups=turned_photos)  # fmt: skip
    profile.save(out)
    print(f"written to {out}: {len(profile.squares)} squares, "
          f"{len(profile.pieces)} kinds of piece", file=stream)  # fmt: skip
    return 0


def camera_check(
    game: str,
    *,
    source: str,
    calibration: str | None,
    sheet: str | None,
    out: str,
    stream: TextIO,
    as_json: bool = False,
) -> int:
    """``companion camera check``: one frame from the source, the board found in it, the
    square-on picture with the grid drawn over it written to ``out``, and the figures.
    Exit status 1 when the board is not visible (the picture then shows the frame)."""
    import cv2

    from calibration.board_plane import draw_grid, rectify
    from calibration.camera import CameraCalibration
    from calibration.registration import BoardNotVisible, register
    from calibration.sheet import load_sheet
    from vision.sources import open_source

    loaded = load_sheet(game, sheet)
    intrinsics = CameraCalibration.load(calibration).to_json() if calibration else None
    with open_source(source) as frames:
        frame = frames.latest(timeout=10.0)
    report: dict[str, object] = {"source": source, "frame": list(frame.size)}
    try:
        registration = register(frame.image, loaded, camera=intrinsics)
    except BoardNotVisible as error:
        cv2.imwrite(out, frame.image)
        report.update(board=None, problem=str(error), picture=out)
        print(json.dumps(report) if as_json else f"board not visible: {error}\n"
              f"the frame is in {out}", file=stream)  # fmt: skip
        return 1
    picture = draw_grid(rectify(frame.image, registration), loaded)
    if not cv2.imwrite(out, picture):
        raise OSError(f"cannot write the picture {out}")
    report.update(board=registration.summary(), picture=out)
    if as_json:
        print(json.dumps(report), file=stream)
    else:
        quality = registration.summary()
        print(f"board found: {quality['rms_mm']} mm rms over markers {quality['markers_used']}"
              f" (missing {quality['markers_missing'] or 'none'}), "
              f"{quality['px_per_mm']} px per mm", file=stream)  # fmt: skip
        print(f"the board square-on, with the grid drawn over it: {out}", file=stream)
    return 0


def read_images(
    game: str,
    images: list[str],
    *,
    profile: str,
    camera: str | None,
    sheet: str | None,
    stream: TextIO,
    as_json: bool = True,
    options: dict[str, object] | None = None,
) -> int:
    """``companion read``: one JSON object a line per image, its file name under
    ``image``; a frame that cannot be read says why in that line (``problem``). The
    game's ``options`` say how many pieces of each kind can stand on the board (the
    reader reads no more: ``gimmel.most_of_each``); ``ValueError`` for an option the game
    does not have."""
    import cv2

    from calibration.camera import CameraCalibration
    from calibration.profiles import Profile
    from calibration.sheet import load_sheet
    from rules import new_game
    from vision.readers import gimmel

    readers = {"gimmel": (gimmel.read, gimmel.most_of_each)}
    if game not in readers:
        raise ValueError(f"no camera reader for {game} yet; readers exist for {', '.join(readers)}")
    read, most_of_each = readers[game]
    most = most_of_each(new_game(game, options=options or {}))
    loaded = load_sheet(game, sheet)
    learnt = Profile.load(profile, game=game, sheet=loaded.name)
    gimmel.prepare(learnt, sheet=loaded)  # a profile that cannot be read with is said once
    intrinsics = CameraCalibration.load(camera).to_json() if camera else None
    failed = 0
    for path in images:
        line: dict[str, object] = {"image": Path(path).name}
        frame = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if frame is None:
            line["problem"] = "not a readable image"
        else:
            try:
                line |= read(frame, loaded, learnt, camera=intrinsics,
                             most_of_each=most).to_json()  # fmt: skip
            except ValueError as error:  # the board not visible, a black frame
                line["problem"] = str(error)
        failed += "problem" in line
        if as_json:
            print(json.dumps(line), file=stream, flush=True)
        else:
            pieces = line.get("pieces", {})
            said = line.get("problem") or " ".join(f"{k}:{v}" for k, v in sorted(pieces.items()))
            print(f"{line['image']}  {said}", file=stream, flush=True)
    return 1 if failed else 0
