"""The Gimmel reader: a frame to what stands on every square, with a confidence.

The board is registered from its markers, seen square-on, and corrected to the light the
profile was learnt in (from the markers' white margins). Each square is compared with
itself as the profile saw it empty: the pixels that differ by more than the profile's
threshold are a piece's. Too few such pixels in a square: it is empty. Otherwise the
piece's blob (``calibration.blobs``: the unlike pixels joined to the square's middle,
over a window wide enough for a leaning piece) gives its colour and shape (features
that do not depend on how it is turned), compared with each piece of the set-up as the
profile saw it through the same functions; the nearest example's kind wins, and its
margin over the next kind is the confidence. A square whose differing pixels are coloured
like nothing the set-up showed (a hand, a sleeve, a die) is "unknown", never guessed:
the tracker waits or asks.

Appearance reaches the reader only through the profile (``calibration.profiles``).
"""

from __future__ import annotations

import functools
import math
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import cv2
import numpy as np

from calibration import colour, sharpness, silhouettes, views
from calibration.blobs import SHAPE_FEATURES, Blob, blob_parts, difference, shape_distance
from calibration.board_plane import cell_boxes, rectified_size, rectify
from calibration.medians import median
from calibration.profiles import (
    Profile,
    ProfileError,
    board_squares,
    corrected_lab,
    corrected_to_lab,
    piece_blob,
    square_centre_px,
    white_patches,
)
from calibration.registration import Registration, register
from calibration.sheet import Sheet
from vision.readers import covered, rims

UNKNOWN = "unknown"
#: A square whose piece has no blob to compare with the examples is weighed by the fit
#: alone, from this distance (about a nearest example's, in Delta E).
FIT_ALONE_FROM = 10.0
EMPTY = "empty"
#: A frame's camera within this many mm of where the profile's photos were taken from
#: (``Profile.eye``) is taken to be there (``Fitter.of``): the profile's measurements
#: of it differ by up to about 3 mm between photos from a camera left alone.
EYE_STAYS_MM = 5.0


@dataclass(frozen=True)
class ReaderSettings:
    """The reading's scale and margin are the profile's (``shape_px_per_mm``,
    ``shape_margin_mm``), so that pieces are seen as the profile saw them.
    ``skin_chroma``: a piece whose pixels are this much more colourful (CIE chroma) than
    the most colourful piece the profile knows is not a piece (a hand over the square):
    unknown. ``shape_weight``: how much one unit of shape difference
    (``calibration.blobs.SHAPE_SCALES``) counts against a colour difference (Delta E).
    ``fit_below``: a piece whose kind the blob's nearest example gives by a margin under
    this is also fitted with each kind's shape (``calibration.silhouettes``; at a table
    under 0.8: ``MOUNTED``); ``fit_kind_below``: one whose class leads its colour's
    other kinds by a margin under this (``Kinds.margins``' measure: the kind in doubt,
    however sure the colour) is fitted too (the fit weighs the kinds' shapes as the
    camera sees them; on a glinting top its colour is no surer than the blob's). On the
    1000 frames of ``benchmarks/gimmel_reader.py``, at 0.8: 43 misread squares against
    49 (black falcons read as beetles on seeds 13, 486 and 585, a white cat where none
    is on 520, and on 954 a black falcon read as white and the white falcon the rules'
    count then read as a beetle, put right; none newly wrong), boards without an error
    96.19 % against 95.78 %. ``fit_weight`` is what one unit of fit score (Delta E times
    px) adds to a class's distance. A square a piece explains less than ``least_fit``
    better than the empty board (Delta E times square mm) holds none, whatever its blob
    (a hand's soft shadow); one with no blob at its middle that a piece explains better
    than that holds that piece (a white piece on a light square). The two look at a
    piece differently and err on different pieces; their sum errs on fewer (on rendered
    frames, seeds 1-100: 138 misread pieces of 1,531 by the examples alone, 36 with the
    fit).
    ``fit_also_sure``: on a square ``read`` is asked to fit (``fit_also``), the fitted
    kind's margin from which the fit also says how surely a piece stands there.
    ``fit``: the fit's own settings. ``least_texture`` and ``texture_doubt`` weigh a
    square's texture (``relative_textures``: how much its lightness changes from pixel to
    pixel, against the squares coloured like it in the same frame). A piece has edges an
    empty square has not (a white beetle on a light square differs little in colour, but its
    grooves and rim are sharp); a shadow or a sleeve's smooth cloth has none. A square
    unlike its empty self but smoother than ``least_texture`` holds nothing; one too little
    unlike to hold a piece but with ``texture_doubt`` times its fellows' texture is fitted
    (``fit``) to say. Set on rendered frames of seeds 101-200 (a throwaway script);
    ``benchmarks/gimmel_reader.py --frames 200`` then missed 7 pieces and read 4 where none
    is, against 17 and 10 before. ``texture_doubt`` was 3.0 then; at 2.5, on seeds 1-1000
    (a throwaway script), white pieces on light squares with a little less edge are
    fitted and found (seed 354's cat on h17, seed 852's falcons on f13 and g14): 49
    squares misread against 52, none newly, for 1.003 times the read time. Such a
    square with ``texture_sure`` times its fellows' texture is a piece once a piece
    explains it ``least_textured_fit`` better than the empty board (not ``least_fit``: a
    white piece on a light square differs from it by little, yet by edges an empty
    square does not have), and its view says which kind.
    Set on seeds 101-400 (a throwaway script: of the 78 pieces among such squares, 54
    were found before, 74 after, and no more empty squares were called pieces). A square
    as textured with a blob needs no more than that either: its blob is more evidence
    of a piece, not less (seeds 101-1000, throwaway script: 6 white pieces on light
    squares found that ``least_fit`` had emptied, one empty square read as a piece).
    The fit counts a piece's outline's edges towards whether one stands there
    (``silhouettes.FitSettings.edge_weight``), which does what the lower demand did for
    such squares: with it, 2,000 rather than 1,000 (seeds 101-1000, throwaway script:
    the edges with 1,000 found 6 pieces missed before and read 4 empty squares as
    pieces, 95 misread squares becoming 94; with 2,000, 7 found, 3 newly misread, 91,
    and the boards with an error 64 of 873 became 59).
    ``board_like_ab``: a blob coloured like no piece is a hand (unknown) unless its pixels
    are its square's own colour (their a and b within this of the empty board's there, as
    colourful as more light makes it: ``board_lit``) and lighter than the square's edge
    says, with no hand on a square next to it: the square's edge in a sleeve's shadow, or
    a bright spot, not a hand (on rendered frames of seeds 101-400, a throwaway script: of
    13 empty squares read as unknown, 12 were such squares and are read empty now; no
    other error came or went). ``view_weight``: what it adds to a
    class's distance that the piece's view (the piece as the camera sees it,
    ``calibration.views``) looks less like the class's kind, whatever its colour, than like
    the kind it looks most like (``views.KindModel``: about 2 between a kind it clearly
    shows and one it clearly does not); the view's settings are ``view``. Set on rendered
    frames of seeds 101-200 and 261-400 (weights 25, 50 and 100 tried, with a throwaway
    script): on seeds 261-400 the pieces' kinds were read wrong 6 times, against 12 with the
    nearest example's likeness (weighted 600) before. ``follow_light``: a piece's lightness
    is divided by how much lighter or darker its square is lit now than the empty photo
    showed it (the square's edge says so: ``blobs.shaded``), so a white piece in an arm's
    shadow is still white (the same benchmark: 13 pieces read as the other colour without, 6
    with); the fit compares a doubtful piece's colours so too (``fit_follows_light``), but
    says whether a piece stands there at all from the pixels as they are (a shadow made
    lighter looks like a piece). ``frame_light``: the lightness of the pieces the reader
    is surest of (a margin of ``sure_for_light`` or more) against their classes' in the
    set-up says how this frame's light differs from the set-up photos' beyond what the
    white patches correct (the camera's contrast, flare lifting the blacks), as a line
    (``frame_lightness``); every piece's lightness is taken back through it before its
    colour is compared. Both set on rendered frames of seeds 101-300 (a throwaway
    script): 12 pieces read as the other colour before, 5 after; on seeds 301-600, not
    looked at while setting them, 14 before and 11 after, and no more pieces missed or
    found where none is. ``blur``: a frame smeared by motion (the camera knocked) is
    sharpened first, the blur measured on the markers (``calibration.sharpness``), within
    ``blur_margin_mm`` of the grid (a piece's top leans out that far at most); None reads
    every frame as it is. ``side_below``: where a piece's top mirrors the lamp into the
    camera (``Fitter.glints``), a black top looks as light as a white one, and the blob,
    the view and the fit may all take a black falcon for a white one; its side, below
    the top, stays dark. A white piece read there whose class leads the same kind in
    black by a margin under this is read black when its side (``views.side_lightness``)
    is no lighter than the set-up's black pieces' of its kind (their median) by more than
    ``side_dark`` of the way to the white ones'; 0 never. Only that way: a glint makes a
    black top look white, not a white one black, while a black falcon's side may be lit
    and a white cat's facing side in its own shadow (seeds 948 and 971 of
    ``benchmarks/gimmel_reader.py``, read wrongly when either colour could be changed).
    Set on the views of seeds 101-400 kept for the kind model (a throwaway script: of
    the 854 pieces at glint squares, 3 were read in the wrong colour; all were put right
    and no other changed at a margin of 0.3 or 0.5 and a share of 0.15 to 0.35). The
    share is 0.2 for what all 1000 frames showed: white pieces read right whose sides
    lie 0.22 (971 g13) and 0.31 (714 b2) of the way, each under the margin. There: 32
    misread squares against 39 (7 colours put right: 8 f8, 117 c10, 251 h11, 340 f7, 578
    f3, 954 g14, and 673 e11 the count had made wrong; none newly wrong), boards without
    an error 97.22 % against 96.50 %.
    ``side_light_below`` and ``side_light``: the other way, only where the colour is
    nearly a toss: a black piece read whose class leads the same kind in white by a
    margin under ``side_light_below`` is read white when its side is lighter than the
    set-up's black pieces' by ``side_light`` or more of the way to the white ones',
    glint or none; 0 never. A black falcon's side is often lit (on the 1000 frames,
    dozens read right lie 0.5 to 0.9 of the way), but those were read black by a margin
    of 0.26 or more; of the black pieces read by under 0.2, the right ones' sides lie at
    most 0.47 of the way, and the two white falcons among them 0.78 (916 e10, a glint)
    and 0.93 (517 b17). Set on all 1000 frames (a throwaway script: on seeds 1-500 it
    changes nothing, on 501-1000 it puts those two right), the frames it is measured on.
    ``view_presence`` and ``view_presence_from``: a square with no blob that the fit
    says a piece explains (a white piece on a light square; or a frame's grain brought
    out by sharpening away its motion blur, a neighbour's shadow) is looked at straight
    on as well (its view, ``calibration.views``), before it is said to hold a piece.
    How much the view looks like the kind it looks most like (``Kinds.view_likeness``:
    about 1 for a piece plainly of a kind, about 0 or below for a view of no piece) adds
    ``view_presence`` (Delta E times square mm, as ``least_fit``) to the fit's evidence
    for each unit above ``view_presence_from``, and takes as much away for each unit
    below; 0 never. A square that even a likeness of 1 would not lift to a piece is not
    looked at (most squares fitted without a blob: their views would cost time).
    Set on the 820 fitted squares without a blob in the 1000 frames of
    ``benchmarks/gimmel_reader.py`` (285 of them pieces; a throwaway script): the fit
    alone missed 5 of those pieces and read 5 empty squares as pieces, four of them on
    seed 769 (a far board smeared by motion); with these, 3 missed and 1 (seed 780's g12,
    a neighbour's shadow under its leaning top, its view like a cat's); with 1000 to 2000
    and 0.3 to 0.55, 4 or 5 in all. Then the benchmark: 27 misread squares against 32
    (769's four empty squares, 852 a6 and 956 a14 put right; 780 g12 newly wrong), boards
    without an error 97.33 % against 97.22 %. On seeds 101-400, where most settings were
    set, only 124 d15 and 390 b17 are such squares read wrong, either way.
    ``view_presence_with_blob``: so too a piece fitted because its blob leaves its class
    in doubt: its view, looked at already for its kind, adds to the fit's evidence or
    takes from it the same way (a far board smeared by motion gives an empty square a
    blob, seed 769's f3, the fit's evidence 3189 against the 2900 asked, its view like
    no piece). On all 1000 frames (the kept profiles, a throwaway option): 16 squares
    misread against 18, 769 f3 and 424 f4 put right, none newly wrong.
    ``rim_gain``, ``rim_from``, ``rim_against``, ``rim_in_doubt``, ``rim``: a piece of
    a colour either names whose kind is in doubt (a margin under ``rim_in_doubt``)
    between the column (the pieces' shapes' cylinder: Gimmel's falcon) and another kind
    of its colour is asked whether its top shows a disc's rim (``rims.rim_scores``,
    ``rim`` its settings). Over its colour's ``rim_from``, the columns' costs (both
    colours': a rim says nothing of colour) are lowered by ``exp(-rim_gain * (score -
    rim_from))``: a column read so becomes surer (a table then takes a falcon set down
    without asking), and another kind is read as a column if that makes its colour's
    the least, the rules' count allowing (0 gain: never). Under its colour's
    ``rim_against``, they are raised by ``exp(rim_gain * (rim_against - score))``: no
    rim where a column's would show says no column stands there, and a beetle or a cat
    goddess read with a column close behind is read surer (a falcon can be read as its
    colour's other kind so). After the rules' count and the hands (a piece under a hand
    read as a column sent the count to empty seed 542's black beetle on b7); the
    column's own colour's cost alone lowered made seed 8's black falcon on f8, read
    white by 0.31, read white by 0.95. A black top's rim steps less from its side: on
    the reader benchmark's frames of seeds 1-409, of the pieces the step asks about (a
    throwaway script, hands' squares left out), the white falcons scored 0.90 or more
    (nine in ten 0.944 or more), the white beetles and cats 0.938 at most; the black
    falcons 0.843 or more, their median 0.944, the black beetles and cats 0.952 at most
    (nine in ten 0.939 or less). So black's ``rim_from`` is further out, and black
    has no ``rim_against``: at 0.84, seed 544's black falcon on h18, at the board's
    far edge, rim-scored 0.72, was read as a cat (on all 1000 frames, 13 misread
    squares against 12). Weighed so rather than only for white columns over 0.93 (the
    rule before; a throwaway script, from the readings the step is given), no piece
    outside a hand's squares is read otherwise on seeds 1-409, and 20 more pieces read
    right lead their colour's next kind by the 0.7 a table asks for
    (``companion.camera_source.MARGIN``) where they did not: 9 black falcons, 7 white
    beetles and 4 white cats. Black's is 0.945, about the median of the black falcons
    the step asks about (0.944 above; of every visible black falcon on seeds 1-300,
    0.964), not 0.95: rendered table 56's black falcon on g15 (rim 0.96), whose blob (a sliver of
    a black top on a dark square) is nearest a set-up black cat's sliver, led the black
    beetle by 0.66 to 0.70 and was taken 1.4 s after the hand left; at 0.945, by 0.73.
    On the reader benchmark's frames of seeds 1-350 read as a table reads them
    (``MOUNTED``, no count; a throwaway script), no piece is read otherwise and none
    wrongly by more; 27 black falcons lead their colour's other kinds by more (250 a1
    from 0.68 to 0.74), and one black beetle leads the black falcon by less (349 d10,
    from 0.70 to 0.64).
    White falcons the examples took for beetles were low (seed 144's a2, 494's c16),
    nearer the camera's side than any set-up falcon (807 e6) or blurred (980 e12);
    rim scores 0.965, 0.984, 0.986 and 0.945. On all 1000 frames (the kept profiles, a
    throwaway option): 12 squares misread against 16, those four put right, none
    newly wrong (13 with the rim weighed before the count: 542 b7).
    ``rim_present``: on a frame where a move is in question (``read`` asked to fit some
    squares, ``fit_also``: a table's), a square read as a piece but not surely there
    (``occupied`` under 1) whose top rim-scores this or more surely holds a piece:
    ``occupied`` 1. A white falcon on a light square is little unlike the board, so its
    share of unlike pixels says only "maybe something", and its colour in doubt kept the
    fit from vouching (rendered table 35's e14: occupied 0.66, asked about, its rim
    0.99; and again when a falcon set down on g11 could have leapt there from e14). Every
    such square, not only those asked to fit: a piece leaving is a move too. No empty square
    scores so high: on the reader benchmark's frames of seeds 121-600, the 57,367 visible
    empty squares scored 0.965 at most (median 0.906, 99.9 % under 0.955), and those of
    seeds 1-120 0.968 at most (workbench). None: never.
    ``covered_from``: a square read empty with this share or more of its edges' steps
    to its neighbours gone (``covered.steps_gone``: a hand or a sleeve, smooth and
    opaque, hides them; a shadow keeps them) is under a hand: unknown; None never.
    ``covered_piece_below``: so too a square read as a piece less surely than this (a
    hand's sleeve, its shadow or its knuckles read as a piece). On the reader
    benchmark's 1000 frames (a throwaway script), of the 960 squares under a hand read
    as pieces 201 are such squares, and none of the 15,171 visible ones read as pieces
    (without asking how sure: 207, and 1 visible).
    ``shadow_like`` and ``shadow_grow_mm``: a piece's shadow falls away from the lamp,
    onto the square beside it when the lamp is low or far to one side, and there it is
    unlike the empty board as a piece is (a dark piece on a dark square, by colour
    alone, is little unlike a shadow on it). Where a piece on a square that may hold one
    (its share of unlike pixels) may cast its shadow (``neighbour_shadows``: every kind
    turned every way, leaned from the profile's lamp onto the board, grown by
    ``shadow_grow_mm`` for the shadow's soft edge and a lamp placed only roughly), on
    the other squares of the grid, the pixels that look like the board in shadow (its
    colour darkened, ``silhouettes.shadow_cost`` within ``shadow_like``) are left out
    of those squares' shares, and the fit weighs a piece there against the board with
    that shadow on it, not the bare board; a piece's fit keeps its own shadow, which its
    shape explains. None never. On the 1000 frames of ``benchmarks/gimmel_reader.py``:
    22 misread squares against 23 (780 g12, the shadow of a white falcon on f12 under
    a low lamp read as a white cat, put right; none newly wrong; a first version, which
    took the shadow a piece casts beyond the grid for the board, in its own fit too,
    read seed 13's black falcon on h18, at the edge, as a beetle). At a table,
    rendered game 67's empty a5, in the shadow of a black falcon just set down on a6,
    is no longer read as a black cat (``benchmarks/gimmel_table.py``).
    ``board_tone``: with ``follow_light``, a piece's lightness is taken back through
    its square's tone (``square_tones``: the frame's line of lightness through the light
    and the dark squares, now against the empty photo, and the square's own light
    against that line), not divided by its square's own ratio alone: a camera's lower
    contrast lifts a dark square, and a white piece on it divided by that is made
    darker than it is (rendered seed 337's white falcon on c17 was read as a black
    falcon by 0.57). On the 1000 frames of ``benchmarks/gimmel_reader.py``: 22
    misread squares as before (337 c17 put right, seed 8's black falcon on f8 in a
    hand's shadow read white by 0.31 where it was read black by 0.28), without the
    count 99.9739 % of the cells against 99.972 %; one-photo tables 221 and 681 read
    their pieces' colours right without the count.
    ``turned_blobs``: whether the pieces of photos of the set-up turned
    (``SetUp.turned``; ``"turned"`` instances) are examples for the blobs too (their
    colour and outline, nearest example), not for the views alone: as blobs' examples
    they read rendered seed 8's black falcon on f8 as white (a turned black falcon
    stands on f8 itself), and turned photos are no better for the views alone
    (docs/calibration.md, "Appearance profiles").
    ``least_blob``: a blob whose area is under this share of the smallest blob among the
    set-up's examples (``Kinds.least_area``) is too small to say a piece's colour or
    outline (a few pixels of a white beetle on a light square that differ from it): the
    square is read as one with no blob at its middle, whose fit and view say whether a
    piece stands there and which. Read as a blob, rendered table 82's white beetle on
    b11 (a blob of 8.5 mm² against the examples' 52 mm² and more) led the white cat by
    0.56, and the table waited 2.6 s before taking it; on the frames where its few
    pixels missed the square's middle, the fit and the view read it by 0.92."""

    #: The tallest piece's height (the falcon's), for the lean of tops away from the
    #: camera: a square's band nearest the camera is where a neighbour's top leans in.
    piece_height_mm: float = 14.0
    skin_chroma: float = 12.0
    shape_weight: float = 3.0
    fit_below: float = 0.5
    fit_kind_below: float = 0.8
    fit_also_sure: float = 0.8
    fit_weight: float = 0.03
    least_fit: float = 2900.0
    fit: silhouettes.FitSettings = field(default_factory=silhouettes.FitSettings)
    least_texture: float = 0.8
    least_blob: float = 0.25
    texture_doubt: float = 2.5
    texture_sure: float = 5.0
    least_textured_fit: float = 2000.0
    board_like_ab: float = 6.0
    view_weight: float = 100.0
    view: views.ViewSettings = field(default_factory=views.ViewSettings)
    follow_light: bool = True
    fit_follows_light: bool = True
    frame_light: bool = True
    sure_for_light: float = 0.6
    blur: sharpness.BlurSettings | None = field(default_factory=sharpness.BlurSettings)
    blur_margin_mm: float = 40.0
    side_below: float = 0.3
    side_dark: float = 0.2
    side_light_below: float = 0.2
    side_light: float = 0.6
    view_presence: float = 1500.0
    view_presence_from: float = 0.3
    covered_from: float | None = 0.65
    covered_piece_below: float = 0.5
    cover: covered.CoverSettings = field(default_factory=covered.CoverSettings)
    shadow_like: float | None = 10.0
    shadow_grow_mm: float = 2.0
    turned_blobs: bool = False
    board_tone: bool = True
    view_presence_with_blob: bool = True
    rim_gain: float = 40.0
    rim_from: tuple[tuple[str, float], ...] = (("white", 0.93), ("black", 0.945))
    rim_against: tuple[tuple[str, float], ...] = (("white", 0.91),)
    rim_in_doubt: float = 0.8
    rim_present: float | None = 0.975
    rim: rims.RimSettings = field(default_factory=rims.RimSettings)


#: The reading at a table: a piece whose kind the blob gives by a margin under 0.8 is
#: fitted too, not under 0.5 alone. A piece set down whose kind the blob reads by 0.5 to
#: 0.8 was waited for or asked about (rendered game 98: a black falcon read by 0.53,
#: committed 2.2 s after the hand left; with this, every move of that game within 0.4
#: s). In all 100 rendered games (``benchmarks/gimmel_table.py``): 3988 of 4000 moves
#: committed correctly against 3980, none falsely either way, 12 entered on the tablet
#: against 20, and 6 commits 0.5 s or more after the hand left against 9, the latest 1.6
#: s against 2.2 s. Every square alike: fitting only the squares a move hangs on (a
#: neighbour's leaning top read as a piece among them, its fellows unfitted) committed a
#: false move in rendered game 67. A table's camera is mounted, so the fit's masks of
#: each square are kept (``prepare``), and the fit costs less than on a photo from a new
#: place; still, reading costs about a quarter more (ten frames of rendered tables, each
#: read 20 times each way interleaved, throwaway script: median 63.7 ms against 51.4 ms,
#: on a busy machine; 5.1 squares fitted a frame against 1.7). On photos
#: (``benchmarks/gimmel_reader.py``'s frames, seeds 1-120, interleaved: 32.8 ms against
#: 23.8 ms) it costs more, for no more read right (seeds 101-400, at 0.7 and at 0.9: one
#: square read right that was misread, one misread that was right).
MOUNTED = ReaderSettings(fit_below=0.8)


@dataclass(frozen=True)
class Observation:
    """What a frame shows: ``squares`` maps every square to ``"empty"``, a piece such as
    ``"white falcon"``, or ``"unknown"``; ``confidence`` each reading's margin (0-1): for
    a piece, over the nearest other kind or colour; ``occupied`` how sure the reader is
    that a square holds a piece or not, whatever piece (a square missing: its
    ``confidence``); ``board`` the registration's quality figures and the motion blur the
    frame was sharpened for (``motion_blur``: its length in px and angle, or None); ``looks`` each
    piece's blob as the reader saw it (its Lab colour and shape features) and ``views``
    its view (lightness and difference, as ``calibration.views.encode`` takes them:
    encoded only when taught, as most readings teach nothing), from which the table can
    teach the profile what a misread piece really was (``teach``). ``margins``: for each
    square read as a piece, its margin over every class (0 over its own), as
    ``confidence`` measures it over the nearest: the rules may leave only some classes
    possible there (a player sets down a piece of their own colour), and a piece read
    doubtfully as against the other colour may be read surely as against the other
    kinds (``mismatch``)."""

    game: str
    squares: dict[str, str]
    confidence: dict[str, float]
    board: dict[str, Any] = field(default_factory=dict)
    occupied: dict[str, float] = field(default_factory=dict)
    looks: dict[str, tuple[list[float], list[float]]] = field(default_factory=dict, repr=False)
    views: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict, repr=False)
    margins: dict[str, dict[str, float]] = field(default_factory=dict, repr=False)

    @property
    def pieces(self) -> dict[str, str]:
        """The occupied squares, as the renderer's truth and the tests state positions."""
        return {name: label for name, label in self.squares.items()
                if label not in (EMPTY, UNKNOWN)}  # fmt: skip

    @property
    def unknown(self) -> list[str]:
        return [name for name, label in self.squares.items() if label == UNKNOWN]

    def to_json(self) -> dict[str, Any]:
        return {"game": self.game, "pieces": self.pieces, "unknown": self.unknown,
                "confidence": {k: round(v, 3) for k, v in self.confidence.items()},
                "occupied": {k: round(v, 3) for k, v in self.occupied.items()},
                "board": self.board}  # fmt: skip


def prepare(
    profile: Profile, settings: ReaderSettings = ReaderSettings(), sheet: Sheet | None = None
) -> None:
    """Work out what reading with ``profile`` needs once (each set-up piece's view turned
    every way: a few tenths of a second; which squares are alike in colour, for their
    textures; given the ``sheet``, each kind's outline on every square as the camera saw
    the set-up, and where a piece on it may shade its neighbours: a few more tenths), so
    that the first frame read takes no longer than the others. A table calls it when it
    loads a profile; ``read`` does it itself otherwise. ``ProfileError`` for a profile
    that cannot be read with."""
    Kinds.of(profile, settings)
    # In the order a profile keeps its squares, which is the sheet's (``board_squares``).
    colours = np.ascontiguousarray(profile.square_colours(list(profile.squares)), np.float32)
    _fellows(colours.tobytes(), len(colours), TEXTURE_ALIKE)
    if sheet is not None and profile.eye is not None and profile.palettes and profile.shapes:
        # Each kind's outline on every square from where the camera was, as a fit asks
        # for it (``Fitter.masks``): it does not change while the camera stays put.
        ps = profile.settings
        centres = [square_centre_px(sheet, cell, ps.shape_px_per_mm, ps.shape_margin_mm)
                   for cell in board_squares(sheet)[1]]  # fmt: skip
        fitter = Fitter.of(profile, None, (), settings)
        fitter.masks(centres)
        fitter.outlines(centres)
    if (sheet is not None and settings.shadow_like is not None and profile.lamp is not None
            and profile.shapes is not None):  # fmt: skip
        # Where each square's piece may shade its neighbours, from where the lamp is.
        cells, ps = board_squares(sheet)[1], profile.settings
        width = rectified_size(sheet, ps.shape_px_per_mm, ps.shape_margin_mm)[0]
        shadow_zones(sheet, cells, range(len(cells)), profile, settings, width)


#: Where a blob's area is among its shape features (``SHAPE_FEATURES``).
AREA = SHAPE_FEATURES.index("area")


def read(
    image: np.ndarray,
    sheet: Sheet,
    profile: Profile,
    *,
    camera: Any = None,
    settings: ReaderSettings = ReaderSettings(),
    registration: Registration | None = None,
    most_of_each: int | None = None,
    fit_also: frozenset[str] = frozenset(),
) -> Observation:
    """Read a frame (BGR). ``BoardNotVisible`` when too few markers are in view; a frame
    too dark or blown out to correct raises ``colour.ColourError``. ``most_of_each``: at
    most this many pieces of each kind in each colour stand on the board (the game's
    rules: ``most_of_each(state)``); a class read more often than that is read otherwise
    where that costs least, unless the reading is over by more than a few pieces in all
    (``keep_to_counts``). The count comes before the squares under a hand are reported
    unknown (``ReaderSettings.covered_from``): a hand read as many pieces tells it to
    leave the reading be, so on such a frame ``read(..., most_of_each=n)`` is not
    ``keep_to_counts(read(...), n)``. ``fit_also``: squares (a table's squares a move hangs on)
    whose pieces are fitted with each kind's shape however sure their blobs are of their
    kind; where the fit finds the kind read there, by at least
    ``ReaderSettings.fit_also_sure``, how surely something stands there (``occupied``)
    is the more of what the blob's share says and what the fit says (a white piece on a
    light square is little unlike the board, so its share says only "maybe something").
    Which piece is read there, and how surely, is what it is without ``fit_also`` (a
    neighbour's top and shadow, read as a piece, are explained better by a piece than by
    the empty board too, but by no one kind clearly)."""
    if registration is None:
        registration = register(image, sheet, camera=camera)
    blur = None
    if settings.blur is not None:
        image, blur = sharpness.sharpened(image, registration, sheet, settings.blur,
                                          margin_mm=settings.blur_margin_mm)  # fmt: skip
    gains = colour.correction(colour.measure(image, white_patches(registration)))
    ps = profile.settings
    px_per_mm, margin_mm = ps.shape_px_per_mm, ps.shape_margin_mm
    lab = corrected_to_lab(rectify(image, registration, px_per_mm, margin_mm), gains)
    boxes = cell_boxes(sheet, px_per_mm, margin_mm, ps.inset_mm)
    kinds = Kinds.of(profile, settings)
    names, cells = board_squares(sheet)
    square_colours = profile.square_colours(names)  # as the empty photo showed them
    empty = profile.empty_board(lab, sheet, colours=square_colours)
    unlike_by = difference(lab, empty)
    unlike = unlike_by > ps.piece_delta_e
    # Which squares hold anything: every square's share of unlike pixels, less the band
    # where a nearer neighbour's top leans in (from where the camera is: silhouettes.board_eye).
    bands = lean_bands(registration, sheet, cells, settings, ps.inset_mm, px_per_mm)
    spans = square_spans(boxes, cells, bands)  # the same boxes for every picture's shares
    shares = square_shares(unlike, boxes, cells, bands, spans=spans)
    fit_by = unlike_by  # what the fit weighs a piece against: the board as it should look
    shadows = None
    if settings.shadow_like is not None:
        shadows = neighbour_shadows(lab, empty, unlike, shares >= kinds.least_share, sheet,
                                    cells, profile, settings)  # fmt: skip
        if shadows is not None and len(shadows.spots):
            unshaded = unlike.copy()
            unshaded.ravel()[shadows.spots] = False
            shares = square_shares(unshaded, boxes, cells, bands, spans=spans)
            # The fit too weighs a piece against the empty board with its neighbours'
            # shadows on it, not the bare board.
            fit_by = shadows.on_board(unlike_by)
        else:
            shadows = None
    textures = relative_textures(lab[..., 0], boxes, cells, bands, square_colours, spans=spans)
    squares, confidence, occupied, looks, margins = {}, {}, {}, {}, {}

    def lit_share(k: int, name: str) -> float:
        """How much lighter or darker square ``name`` (index ``k``) is lit now than in
        the empty board's photo: its edge says so (``Profile.empty_board``)."""
        x, y = square_centre_px(sheet, cells[k], px_per_mm, margin_mm)
        return float(empty[int(y), int(x), 0]) / max(profile.squares[name]["lab"][0], 1.0)

    parts = None
    tones = None  # per square, how it is lit now: ``square_tones``
    blobs_seen = {}  # square -> (its index, its piece's blob)
    pieces = {}  # square -> (its index, the examples' costs), for the squares with a blob
    kept = {}  # square -> its piece's view (for ``teach``)
    likeness_of = {}  # square -> how much its view looks like the kind it looks most like
    doubtful = {}  # square -> (its index, the examples' costs)
    confirming = {}  # square -> (its index, the examples' costs): fitted for ``fit_also``
    can_fit = bool(profile.palettes) and profile.shapes is not None
    # Square by square as Python floats (the same float64 values): a numpy scalar's
    # every comparison and division costs several times a float's.
    share_of, texture_of = shares.tolist(), textures.tolist()
    for k, name in enumerate(names):
        if share_of[k] < kinds.least_share:
            squares[name], confidence[name] = EMPTY, 1.0 - share_of[k] / kinds.least_share
            occupied[name] = confidence[name]
            if can_fit and texture_of[k] >= settings.texture_doubt:
                doubtful[name] = (k, None)  # edges but no colour: a white piece on a light square?
            continue
        if texture_of[k] < settings.least_texture:  # as smooth as no piece: a shadow, a sleeve
            squares[name] = EMPTY
            sure = max(0.05, 1.0 - texture_of[k] / settings.least_texture)
            confidence[name] = occupied[name] = sure
            continue
        if parts is None:  # labelled once a frame, when the first piece is met
            parts = blob_parts(unlike_by > ps.blob_delta_e)
        blob = piece_blob(lab, parts, sheet, cells[k], ps)
        if blob is not None and blob.features[AREA] < settings.least_blob * kinds.least_area:
            blob = None  # a few pixels: too few to say a colour or an outline
        if blob is None:  # unlike pixels, but none at the middle: a neighbour's top...
            squares[name], confidence[name] = EMPTY, 0.5
            occupied[name] = 0.5
            if can_fit:  # ... or a white piece on a light square: the fit says
                doubtful[name] = (k, None)
            continue
        if settings.follow_light:  # as lit as the set-up's pieces were (see settings)
            if settings.board_tone:
                if tones is None:  # worked out once a frame, when the first piece is met
                    tones = square_tones(empty, square_colours[:, 0], sheet, cells, px_per_mm,
                                         margin_mm, shares < kinds.least_share)  # fmt: skip
                    tones = tones.tolist()  # (gain, offset) floats a square
                gain, offset = tones[k]
            else:
                gain, offset = lit_share(k, name), 0.0
            blob = blob.coloured(relit_colour(blob.colour, 1.0 / gain, offset / gain))
        blobs_seen[name] = (k, blob)
        looks[name] = (blob.colour.tolist(), blob.features.tolist())
        # As sure that something stands here as the square is unlike its empty self.
        occupied[name] = min(1.0, share_of[k] / kinds.least_share - 1.0)
    found = kinds.costs_of([blob for _, blob in blobs_seen.values()])
    # A blob coloured like no piece is a hand, unless it is its square's own colour lit
    # more than the square's edge says (the edge in an arm's shadow, a lamp's bright
    # spot) with no hand next to it.
    lit, hands = set(), set()
    for (k, blob), costs in zip(blobs_seen.values(), found, strict=True):
        if costs is None:
            (lit if board_lit(lab, empty, blob, settings.board_like_ab) else hands).add(cells[k])
    for (name, (k, _)), costs in zip(blobs_seen.items(), found, strict=True):
        row, col = cells[k]
        if cells[k] in lit and not any((row + dr, col + dc) in hands
                                       for dr in (-1, 0, 1) for dc in (-1, 0, 1)):  # fmt: skip
            squares[name], confidence[name] = EMPTY, 0.5
            occupied[name] = 0.5
            looks.pop(name, None)
            continue
        pieces[name] = (k, costs)

    def look(names_seen: list[str]) -> tuple[np.ndarray, np.ndarray] | None:
        """The squares ``names_seen`` looked at straight on (``calibration.views``): their
        views' lightness and difference, (N, size, size) each; None when the profile has
        no views or where the camera is cannot be worked out."""
        if not names_seen or kinds.view_model is None:
            return None
        eye = silhouettes.board_eye(registration)
        if eye is None:
            return None
        bases = [square_centre_px(sheet, cells[names.index(n)], 1.0, 0.0) for n in names_seen]
        return views.piece_views(image, registration.to_image, eye, bases, empty, px_per_mm,
                                 margin_mm, corrected_lab(gains), settings.view)  # fmt: skip

    def viewed(
        names_seen: list[str], costs: list[np.ndarray], looked: tuple | None = None
    ) -> list[np.ndarray]:
        """The pieces on ``names_seen`` looked at straight on (``look``, unless ``looked``
        already): their classes' ``costs`` with the view's added, and the views kept for
        ``teach``."""
        if looked is None:
            looked = look(names_seen)
        if looked is None:
            return costs
        light, apart = looked
        scores = kinds.view_scores(light, apart)
        for name, seen_light, seen_apart, its in zip(names_seen, light, apart, scores,
                                                     strict=True):  # fmt: skip
            kept[name] = (seen_light, seen_apart)
            likeness_of[name] = float(its.max())
        return [c + v for c, v in zip(costs, kinds.costs_of_scores(scores), strict=True)]

    seen = [name for name, (_, costs) in pieces.items() if costs is not None]
    view_part = {}  # square -> what its view added to its classes' costs
    for name, costs in zip(seen, viewed(seen, [pieces[n][1] for n in seen]), strict=True):
        view_part[name] = costs - pieces[name][1]
        pieces[name] = (pieces[name][0], costs)
    if settings.frame_light and seen:
        read_so_far = [(kinds.decide(pieces[n][1]), blobs_seen[n][1]) for n in seen]
        line = frame_lightness(kinds, read_so_far, settings.sure_for_light)
        if line is not None:
            gain, offset = line
            relit = [blobs_seen[n][1].coloured(relit_colour(blobs_seen[n][1].colour,
                                                            1.0 / gain, offset / gain))
                     for n in seen]  # fmt: skip
            for name, blob, costs in zip(seen, relit, kinds.costs_of(relit), strict=True):
                if costs is not None:  # else coloured like no piece now: as first seen
                    pieces[name] = (pieces[name][0], costs + view_part[name])
                    # What the table teaches from: the piece as the set-up's light showed it.
                    looks[name] = (blob.colour.tolist(), blob.features.tolist())
    for name, (k, costs) in pieces.items():
        squares[name], confidence[name] = kinds.decide(costs)
        if costs is not None:
            margins[name] = kinds.margins(costs)
        # Fitted: a piece whose class is in doubt, or whose kind is, however sure its colour.
        in_doubt = costs is not None and (
            confidence[name] < settings.fit_below
            or _kind_in_doubt(squares[name], margins[name], settings.fit_kind_below)
        )
        if can_fit and in_doubt:
            doubtful[name] = (k, costs)
        elif costs is not None and can_fit and name in fit_also and occupied[name] < 1.0:
            confirming[name] = (k, costs)
    fitter = None  # the frame's fit, worked out when first needed
    if doubtful or confirming:  # fitted all at once: one pass of array work for them all
        fitter = Fitter.of(profile, registration, (lab, empty, fit_by), settings)
        asked = doubtful | confirming
        centres = [square_centre_px(sheet, cells[k], px_per_mm, margin_mm)
                   for k, _ in asked.values()]  # fmt: skip
        lits = ([lit_share(k, name) for name, (k, _) in asked.items()]
                if settings.fit_follows_light else None)  # fmt: skip
        boards = (None if shadows is None else
                  [shadows.seen_from(k, fit_by, unlike_by) for k, _ in asked.values()])  # fmt: skip
        fitted = fitter.weigh(centres, kinds.names, [c for _, c in asked.values()], lits, boards)
        least = settings.least_fit * px_per_mm * px_per_mm
        textured = settings.least_textured_fit * px_per_mm * px_per_mm
        # A square with no blob is looked at straight on first: whether its view looks
        # like a piece of some kind adds to the fit's evidence or takes from it. Only a
        # square that a view as like a kind as the model's own examples (a likeness of
        # 1) would lift far enough: most are far from it, and their views cost time.
        per_likeness = settings.view_presence * px_per_mm * px_per_mm
        # (``confirming`` squares all have a blob.)
        bare = [name for (name, (k, costs)), (_, best) in zip(asked.items(), fitted, strict=True)
                if costs is None
                and -best + per_likeness * (1.0 - settings.view_presence_from)
                >= (textured if textures[k] >= settings.texture_sure else least)]  # fmt: skip
        bare_views = look(bare) if per_likeness > 0 else None
        lift, bare_seen = {}, {}
        if bare_views is not None:
            likeness = kinds.view_likeness(*bare_views)
            for n, like, seen_light, seen_apart in zip(bare, likeness, *bare_views, strict=True):
                lift[n] = per_likeness * (float(like) - settings.view_presence_from)
                bare_seen[n] = (seen_light, seen_apart)
        if settings.view_presence_with_blob and per_likeness > 0:
            # A doubtful piece with a blob has been looked at already (``viewed`` above).
            for n, (_, c) in doubtful.items():
                if c is not None and n in likeness_of:
                    lift[n] = per_likeness * (likeness_of[n] - settings.view_presence_from)
        alone = {}  # square -> its classes' costs: no blob, but a piece's shape explains it
        for name, (weighed, best) in zip(asked, fitted, strict=True):
            k, costs = asked[name]
            # A square with a piece's edges (a white piece on a light square) needs less
            # of the fit's evidence than one the texture does not vouch for, with a blob
            # or without.
            needed = textured if textures[k] >= settings.texture_sure else least
            evidence = -best + lift.get(name, 0.0)
            fitted_sure = float(np.clip(evidence / needed - 1.0, 0.05, 1.0))
            if name in confirming:
                # Only how surely a piece stands there: where the fit finds the piece
                # the blob says, and surely of that kind.
                label, sure = kinds.decide(weighed)
                if best <= -needed and label == squares[name] and sure >= settings.fit_also_sure:
                    occupied[name] = max(occupied[name], fitted_sure)
                continue
            if evidence < needed:
                # No piece explains the square's pixels clearly better than the empty
                # board does (a hand's soft shadow, a neighbour's top): empty.
                squares[name] = EMPTY
                confidence[name] = occupied[name] = float(np.clip(1 - evidence / least, 0.05, 1))
                looks.pop(name, None)
                kept.pop(name, None)
                margins.pop(name, None)
                continue
            if costs is None:
                alone[name] = weighed
                occupied[name] = fitted_sure
            else:
                squares[name], confidence[name] = kinds.decide(weighed)
                margins[name] = kinds.margins(weighed)
                if name in fit_also and confidence[name] >= settings.fit_also_sure:
                    occupied[name] = max(occupied[name], fitted_sure)
        # Which kind such a piece is, the view says better than the fit alone.
        looked = None
        if alone and all(name in bare_seen for name in alone):  # looked at already
            looked = tuple(np.array([bare_seen[name][i] for name in alone]) for i in (0, 1))
        for name, costs in zip(alone, viewed(list(alone), list(alone.values()), looked),
                               strict=True):  # fmt: skip
            squares[name], confidence[name] = kinds.decide(costs)
            margins[name] = kinds.margins(costs)
    if (settings.side_below > 0 or settings.side_light_below > 0) and kinds.sides and kept:
        glints = _glint_test(fitter, profile, registration, (lab, empty, fit_by), settings,
                             sheet)  # fmt: skip
        for name in _colour_by_side(squares, margins, kept, kinds, settings.side_below,
                                    settings.side_dark,
                                    lambda n: glints(cells[names.index(n)]),
                                    light_below=settings.side_light_below,
                                    light=settings.side_light):  # fmt: skip
            confidence[name] = min(m for c, m in margins[name].items() if c != squares[name])
    board = registration.summary() | {
        "motion_blur": None
        if blur is None
        else {"length_px": round(blur.length_px, 2), "angle_deg": round(blur.angle_deg, 1)}
    }
    seen = Observation(profile.game, squares, confidence, board, occupied, looks, kept, margins)
    if most_of_each is not None:
        # Counted before the squares under a hand are taken out: a hand read as many
        # pieces is what tells the count to leave the reading be (``keep_to_counts``).
        seen = keep_to_counts(seen, most_of_each)
    if settings.covered_from is not None:
        seen = _hide_covered(seen, lab, square_colours, sheet, px_per_mm, margin_mm, settings)
    if settings.rim_gain > 0:
        # Last: on what the count and the hands left (a piece under a hand, read as
        # a column, would send the count looking for another square to change).
        seen = _promote_round_tops(seen, image, registration, profile, sheet, kinds, settings,
                                   most_of_each)  # fmt: skip
    if settings.rim_present is not None and fit_also:
        seen = _present_by_rim(seen, image, registration, profile, sheet, settings)
    return seen


def relit_colour(colour: np.ndarray, scale: float, shift: float) -> np.ndarray:
    """A blob's Lab colour (float32) as another light shows it: its lightness times
    ``scale`` less ``shift``, ``colour * [scale, 1, 1] - [shift, 0, 0]`` in float32 to the
    last bit, without making two arrays for it (a reader relights each piece once or
    twice a frame)."""
    out = colour.copy()
    out[0] = colour[0] * np.float32(scale) - np.float32(shift)
    return out


def _present_by_rim(
    seen: Observation,
    image: np.ndarray,
    registration: Registration,
    profile: Profile,
    sheet: Sheet,
    settings: ReaderSettings,
) -> Observation:
    """``seen`` with ``occupied`` 1 on the squares read as a piece, not surely there,
    whose top shows a column's rim (``rims.rim_scores``) of ``ReaderSettings.rim_present``
    or more: no empty square's does."""
    column = _column(profile)
    asked = sorted(name for name, label in seen.squares.items()
                   if label not in (EMPTY, UNKNOWN) and seen.occupied[name] < 1.0)  # fmt: skip
    if column is None or not asked:
        return seen
    scores = _column_rims(image, registration, sheet, column, asked, settings)
    if scores is None:
        return seen
    vouched = [name for name, score in zip(asked, scores, strict=True)
               if score >= settings.rim_present]  # fmt: skip
    if not vouched:
        return seen
    return replace(seen, occupied=seen.occupied | dict.fromkeys(vouched, 1.0))


def _column(profile: Profile):
    """The pieces' round column (their shapes' cylinder: Gimmel's falcon), or None."""
    shapes = profile.piece_shapes
    return next((s for s in shapes.solids if s.form == "cylinder"), None) if shapes else None


def _column_rims(
    image: np.ndarray,
    registration: Registration,
    sheet: Sheet,
    column,
    squares: list[str],
    settings: ReaderSettings,
) -> np.ndarray | None:
    """How clearly a top of ``column``'s size shows its rim on each of ``squares``
    (``rims.rim_scores``); None where the camera cannot be worked out."""
    eye = silhouettes.board_eye(registration)
    if eye is None:
        return None
    names, cells = board_squares(sheet)
    centres = [square_centre_px(sheet, cells[names.index(n)], 1.0, 0.0) for n in squares]
    return rims.rim_scores(image, registration, eye, centres, column.size("diameter_mm") / 2,
                           column.height_mm, settings.rim)  # fmt: skip


def _hide_covered(
    seen: Observation,
    lab: np.ndarray,
    square_colours: np.ndarray,
    sheet: Sheet,
    px_per_mm: float,
    margin_mm: float,
    settings: ReaderSettings,
) -> Observation:
    """``seen`` with the squares under a hand or a sleeve unknown: read empty, or
    doubtfully as a piece, with their edges' steps to their neighbours gone
    (``covered.steps_gone``: something opaque and smooth hides them). The steps are
    the board's as printed (``square_colours``: each square's empty colour as the empty
    photo showed it, in ``board_squares`` order), not the empty board as lit now: that
    follows each square's edge band, which under a hand is the hand, so it loses its
    steps there too (a dark hand made both sides of an edge as dark as the hand)."""
    names, cells = board_squares(sheet)
    printed = np.zeros((sheet.grid.rows, sheet.grid.columns), np.float32)
    printed[tuple(np.array(cells).T)] = square_colours[:, 0]
    gone = covered.steps_gone(lab[..., 0], printed, sheet, px_per_mm, margin_mm, settings.cover)
    gone = gone.tolist()  # rows of floats: a square's look-up costs a fraction of numpy's
    hidden = [name for name, (row, column) in zip(names, cells, strict=True)
              if gone[row][column] >= settings.covered_from and seen.squares[name] != UNKNOWN
              and (seen.squares[name] == EMPTY
                   or seen.confidence[name] < settings.covered_piece_below)]  # fmt: skip
    if not hidden:
        return seen
    squares, confidence, occupied = dict(seen.squares), dict(seen.confidence), dict(seen.occupied)
    looks, kept, margins = dict(seen.looks), dict(seen.views), dict(seen.margins)
    for name in hidden:
        squares[name], confidence[name], occupied[name] = UNKNOWN, 0.0, 0.0
        for kept_of_it in (looks, kept, margins):
            kept_of_it.pop(name, None)
    return replace(seen, squares=squares, confidence=confidence, occupied=occupied,
                   looks=looks, views=kept, margins=margins)  # fmt: skip


def _glint_test(
    fitter: Fitter | None,
    profile: Profile,
    registration: Registration,
    pictures,
    settings: ReaderSettings,
    sheet: Sheet,
) -> Callable[[tuple[int, int]], bool]:
    """Whether a piece's top on a cell (row, column) mirrors the lamp into the camera
    (``Fitter.glints``): the frame's ``fitter`` if the fit made one, else one worked out
    when first asked; never where the profile knows no shapes to fit (no lamp to mirror
    is known then either)."""
    if fitter is None and (profile.shapes is None or not profile.palettes):
        return lambda _cell: False
    made = [fitter] if fitter is not None else []

    def glints(cell: tuple[int, int]) -> bool:
        if not made:
            made.append(Fitter.of(profile, registration, pictures, settings))
        return made[0].glints(np.array(square_centre_px(sheet, cell, 1.0, 0.0)))

    return glints


def _colour_by_side(
    squares: dict[str, str],
    margins: dict[str, dict[str, float]],
    kept: dict[str, tuple[np.ndarray, np.ndarray]],
    kinds: Kinds,
    below: float,
    dark: float,
    glints: Callable[[str], bool],
    *,
    light_below: float = 0.0,
    light: float = 1.0,
) -> list[str]:
    """Where a piece's top mirrors the lamp (``glints``), a black top looks as light as
    a white one, so a white piece read there whose colour is in doubt (its class leads
    the same kind in black by a margin under ``below``) is read black when its side
    (``views.side_lightness``) is no lighter than the median side of the set-up's black
    pieces of its kind (``Kinds.sides``) by more than ``dark`` of the way to the white
    ones'. A black piece read whose colour is nearly a toss (a lead under
    ``light_below``) is read white when its side is lighter than theirs by ``light`` or
    more of that way, glint or none. The squares read in the other colour now;
    ``squares`` and ``margins`` are changed for them (as far from each class as before,
    less the lead of the class read first; from that class as far as the other colour's
    was)."""
    flipped = []
    for name, label in squares.items():
        colour = label.partition(" ")[0]
        if colour not in ("white", "black") or name not in kept:
            continue
        other = _other_colour(label)
        lead = margins.get(name, {}).get(other)
        if lead is None or lead >= (below if colour == "white" else light_below):
            continue
        black, white = (other, label) if colour == "white" else (label, other)
        if black not in kinds.sides or white not in kinds.sides:
            continue
        black_side, white_side = kinds.sides[black], kinds.sides[white]
        if white_side <= black_side or (colour == "white" and not glints(name)):
            continue
        side = float(views.side_lightness(*(v[None] for v in kept[name]), kinds.settings.view)[0])
        way = (side - black_side) / (white_side - black_side)
        if (way <= dark) if colour == "white" else (way >= light):
            was = margins[name]
            margins[name] = {c: max(0.0, m - lead) for c, m in was.items()} | {label: lead}
            squares[name] = other
            flipped.append(name)
    return flipped


def _other_colour(label: str) -> str | None:
    """The same kind of piece in the other colour (``"white falcon"`` for ``"black
    falcon"``); None for no piece."""
    colour, _, kind = label.partition(" ")
    swapped = {"black": "white", "white": "black"}.get(colour)
    return None if swapped is None or not kind else f"{swapped} {kind}"


def _promote_round_tops(
    seen: Observation,
    image: np.ndarray,
    registration: Registration,
    profile: Profile,
    sheet: Sheet,
    kinds: Kinds,
    settings: ReaderSettings,
    most_of_each: int | None,
) -> Observation:
    """``seen`` with the pieces whose kind is in doubt between the round-topped one (a
    column: the shapes' cylinder, ``calibration/pieces``) and another of their colour
    (a margin under ``ReaderSettings.rim_in_doubt``) weighed again by their top's rim
    (``rims.rim_scores``): over their colour's ``rim_from``, both colours' columns'
    costs (from the costs their margins say) lowered by ``exp(-rim_gain * (score -
    rim_from))``; under its ``rim_against``, raised by ``exp(rim_gain * (rim_against -
    score))``, except that where its colour is in doubt too (a margin under
    ``rim_in_doubt`` over the other colour's same kind) the other colour's column is
    raised only as that colour's ``rim_against`` would have it (black has none: a
    black top's rim steps less from its side). A piece is read as its
    colour's column, or as its colour's other kind,
    if that makes it the least, while the rules' count (``most_of_each``) leaves its
    colour one such to be; else it is read as it was, its margins moved."""
    column = _column(profile)
    if column is None:
        return seen
    rim_from, rim_against = dict(settings.rim_from), dict(settings.rim_against)
    asks = rim_from.keys() | rim_against.keys()
    asked = []
    for name, label in seen.squares.items():
        colour, _, kind = label.partition(" ")
        if colour not in asks or name not in seen.margins:
            continue
        margins, below = seen.margins[name], settings.rim_in_doubt
        if kind == column.kind:
            in_doubt = _kind_in_doubt(label, margins, below)
        else:
            in_doubt = margins.get(f"{colour} {column.kind}", 1.0) < below
        if in_doubt:
            asked.append(name)
    if not asked:
        return seen
    scores = _column_rims(image, registration, sheet, column, asked, settings)
    if scores is None:
        return seen
    squares, confidence, margins = dict(seen.squares), dict(seen.confidence), dict(seen.margins)
    for name, score in zip(asked, scores, strict=True):
        colour = squares[name].partition(" ")[0]
        over, under = rim_from.get(colour, np.inf), rim_against.get(colour, -np.inf)
        # Each colour's column and how far under its rim it says no such column stands.
        unders = dict.fromkeys({c.partition(" ")[0] for c in kinds.names}, under)
        other = _other_colour(squares[name])
        if other is not None and margins[name].get(other, 1.0) < settings.rim_in_doubt:
            # Its colour in doubt too: no rim says no column of a colour only as that
            # colour's column would have it (a glinting black falcon read white,
            # rendered table 26's e14 or a12, steps less at its rim than a white one).
            other_colour = other.partition(" ")[0]
            unders[other_colour] = rim_against.get(other_colour, -np.inf)
        lowered = score > over
        if lowered:
            # A rim says a column stands there, not which colour: every colour's column
            # is lowered alike, and their order kept.
            factors = {c: np.exp(-settings.rim_gain * (score - over)) for c in unders}
        elif any(score < u for u in unders.values()):
            # No rim where a column's would show: no column of the colours that say so.
            factors = {c: np.exp(settings.rim_gain * max(u - score, 0.0))
                       for c, u in unders.items()}  # fmt: skip
        else:
            continue
        # The costs relative to the least, from the margins (``Kinds.margins``).
        costs = np.array([1.0 / (1.0 - margins[name][c]) if margins[name][c] < 1.0 else np.inf
                          for c in kinds.names])  # fmt: skip
        for k, c in enumerate(kinds.names):
            its_colour, _, its_kind = c.partition(" ")
            if its_kind == column.kind:
                costs[k] *= factors.get(its_colour, 1.0)
        label, sure = kinds.decide(costs)
        new_colour, _, new_kind = label.partition(" ")
        if label != squares[name] and (
            new_colour != colour or (new_kind == column.kind) != lowered
        ):
            continue  # another colour's piece: the rim does not say
        if (
            label != squares[name]
            and most_of_each is not None
            and (sum(v == label for v in squares.values()) >= most_of_each)
        ):
            continue  # the rules' count has them all elsewhere
        squares[name], confidence[name] = label, sure
        margins[name] = kinds.margins(costs)
    return replace(seen, squares=squares, confidence=confidence, margins=margins)


def _kind_in_doubt(label: str, margins: dict[str, float], below: float) -> bool:
    """Whether ``label``, read with ``margins`` over every class (``Kinds.margins``),
    leads one of its colour's other kinds by less than ``below``."""
    colour = label.split()[0]
    return any(margin < below for name, margin in margins.items()
               if name != label and name.split()[0] == colour)  # fmt: skip


#: ``keep_to_counts`` keeps to the rules' count a reading over it by at most this many
#: pieces in all: more are a reading disturbed (a hand, a sleeve over the board read as
#: pieces), where reading otherwise would empty or recolour real pieces. On the test
#: bed's 1000 frames (throwaway script, the reader as of this writing): 94 misread squares
#: read alone, 110 kept to the count whatever the excess, 79, 73, 70, 70, 74 and 78
#: within 1 to 6, 84 within 8; boards without an error 93.6 %, 93.6 %, and 95.1 % within
#: 2 to 4.
COUNTED_OVER_AT_MOST = 3

#: ``keep_to_counts`` weighs emptying a square (how sure it is that anything stands
#: there, ``Observation.occupied``) this many times against reading it as another class
#: (its margin over that class): a square whose blob makes it a piece is more likely a
#: piece of another kind or colour than no piece. On the reader benchmark's 1000 frames
#: (``benchmarks/gimmel_reader.py``; throwaway scripts on the readings without the
#: count), the count changed 15 visible squares at a weight of 1: the 13 it put right
#: were all read as another class, and both it emptied were real pieces (743 g2, a white
#: beetle read as a fifth white cat, and 847 c16, a white cat emptied for a fifth read
#: under a hand). From 2.5 up to 100 both stay pieces (743 g2 read right) and nothing
#: else changes: 25 misread squares against 27. Below 2.5, 847 c16 is emptied still.
#: Chosen on the frames it is measured on, for want of others with such squares.
EMPTYING_WEIGHT = 3.0


def _counts(squares: dict[str, str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for label in squares.values():
        if label not in (EMPTY, UNKNOWN):
            counts[label] = counts.get(label, 0) + 1
    return counts


def keep_to_counts(
    observation: Observation, most: int, over_at_most: int = COUNTED_OVER_AT_MOST
) -> Observation:
    """``observation`` with no class (a kind in a colour) read on more than ``most``
    squares: while one is, the square of such a class that costs least to read
    otherwise (its margin over a class with room left, or, for empty, how sure it is
    that anything stands there, weighed ``EMPTYING_WEIGHT`` times) is read so, its
    confidence then nil (the count chose, not its looks). Itself when no class is over,
    or when they are over by more than ``over_at_most`` pieces in all
    (``COUNTED_OVER_AT_MOST``)."""
    excess = sum(max(0, count - most) for count in _counts(observation.squares).values())
    if excess == 0 or excess > over_at_most:
        return observation
    squares, confidence = dict(observation.squares), dict(observation.confidence)
    occupied, margins = dict(observation.occupied), dict(observation.margins)
    looks, views = dict(observation.looks), dict(observation.views)
    while True:
        counts = _counts(squares)
        over = {label for label, count in counts.items() if count > most}
        if not over:
            break
        options = []
        for name, label in squares.items():
            if label not in over:
                continue
            for other, margin in margins.get(name, {}).items():
                if other != label and counts.get(other, 0) < most:
                    options.append((margin, name, other))
            sure = occupied.get(name, confidence.get(name, 1.0))
            options.append((EMPTYING_WEIGHT * sure, name, EMPTY))
        _, name, other = min(options)
        was = margins.pop(name, {})
        squares[name], confidence[name] = other, 0.0
        if other == EMPTY:  # no piece to teach from either
            occupied[name] = 0.0
            looks.pop(name, None)
            views.pop(name, None)
        else:  # as far from each class as it was, less its lead over the class it is now
            lead = was.get(other, 0.0)
            margins[name] = {c: max(0.0, m - lead) for c, m in was.items()}
    return replace(observation, squares=squares, confidence=confidence, occupied=occupied,
                   margins=margins, looks=looks, views=views)  # fmt: skip


#: ``frame_lightness`` takes a frame's light as the set-up's through a line no steeper or
#: flatter than these (a wilder line is a few pieces misread, not the light).
LIGHT_GAIN_RANGE = (0.5, 1.6)


def square_tones(
    empty: np.ndarray,
    then: np.ndarray,
    sheet: Sheet,
    cells: tuple[tuple[int, int], ...],
    px_per_mm: float,
    margin_mm: float,
    bare: np.ndarray | None = None,
) -> np.ndarray:
    """Per square (at ``cells``), how it is lit now against the empty photo, as a line
    in lightness (Lab L): (gain, offset), now = gain * then + offset. The ``empty``
    board as lit now, at the squares' middles, against ``then``, the squares' lightness
    in the empty photo (the profile's, in ``cells``' order), from the squares ``bare``
    (those that look like the empty board: no piece and no hand on them; all if None):
    the frame's tone is the line through the median lightness then and now of the light
    squares and of the dark ones, and each square's own light is its ratio to what that
    line says of it. A change of the camera's contrast lifts dark squares and dims light
    ones at once, which one square's own ratio cannot tell from more light there: a
    white piece on a dark square divided by its square's ratio is made darker than it
    is; a lamp brighter on one side is each square's own light. Where the board's
    squares are of one lightness, fewer than ``TONE_FEWEST`` bare squares are of either,
    or the line is steeper or flatter than ``TONE_GAIN_RANGE``, every square's own ratio
    alone (gain, 0). (N, 2)."""
    ys, xs = _middles(sheet, cells, px_per_mm, margin_mm)
    now = empty[ys, xs, 0].astype(np.float64)
    then = np.asarray(then, np.float64)
    light = then > then.mean()
    bright, dull = light, ~light
    if bare is not None:
        bright, dull = light & bare, ~light & bare
    gain, offset = 1.0, 0.0
    if bright.sum() >= TONE_FEWEST and dull.sum() >= TONE_FEWEST:
        span = median(then[bright]) - median(then[dull])
        if span >= TONE_LEAST_SPAN:
            slope = (median(now[bright]) - median(now[dull])) / span
            if TONE_GAIN_RANGE[0] < slope < TONE_GAIN_RANGE[1]:
                gain = slope
                offset = float(median(now[bright]) - slope * median(then[bright]))
    own = now / np.maximum(gain * then + offset, 1.0)
    return np.column_stack([own * gain, own * offset])


#: ``square_tones``: the frame's line of lightness is believed within these gains, and
#: where the light and the dark squares differ by this much lightness at least.
TONE_GAIN_RANGE = (0.3, 3.0)
TONE_LEAST_SPAN = 5.0
#: ``square_tones``: bare squares of each lightness the frame's line needs at least.
TONE_FEWEST = 8


@functools.lru_cache(maxsize=8)
def _middles(sheet: Sheet, cells: tuple[tuple[int, int], ...], px_per_mm: float,
             margin_mm: float) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """Each square's middle pixel (row, column arrays) in the square-on picture."""
    middles = [square_centre_px(sheet, cell, px_per_mm, margin_mm) for cell in cells]
    return (np.array([int(y) for _, y in middles]), np.array([int(x) for x, _ in middles]))


def frame_lightness(
    kinds: Kinds, read: list[tuple[tuple[str, float], Blob]], sure: float
) -> tuple[float, float] | None:
    """How this frame shows the set-up's lightness: (gain, offset) of the line through
    the pieces ``read`` (each a reading, (label, margin), and its blob) with a margin of
    ``sure`` or more, their blobs' lightness against their classes' median example
    lightness. None when those pieces are fewer than three or all of one colour (a line
    needs both ends), or the line is outside ``LIGHT_GAIN_RANGE``."""
    middle = kinds.middle_lightness
    pairs = [(middle[label], float(blob.colour[0]), label.split()[0])
             for (label, margin), blob in read if margin >= sure and label in middle]  # fmt: skip
    if len(pairs) < 3 or len({colour_ for _, _, colour_ in pairs}) < 2:
        return None
    was, now = np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs])
    gain, offset = np.polyfit(was, now, 1)
    low, high = LIGHT_GAIN_RANGE
    if not low < gain < high:
        return None
    return float(gain), float(offset)


#: Profiles whose ``Kinds`` are kept (a table reads with one).
KINDS_KEPT = 4
#: id(profile) -> (a weak reference to it, what its kinds were worked out from, them).
_KINDS: dict[int, tuple[Any, Any, Kinds]] = {}


@dataclass(frozen=True)
class Kinds:
    """The profile's pieces as arrays, for classifying blobs quickly: every example of
    the set-up, its kind, colour and shape."""

    names: tuple[str, ...]
    #: Per example: the index of its kind in ``names``, its Lab colour, its shape.
    kind_of: np.ndarray
    colours: np.ndarray
    features: np.ndarray
    least_share: float
    most_chroma: float
    settings: ReaderSettings
    #: Which kind of piece, whatever its colour, a view shows, learnt from the examples'
    #: views (``calibration.views.KindModel``); None for a profile learnt before views
    #: were kept.
    view_model: views.KindModel | None = None
    #: Per class, the index of its kind of piece in the kinds the views show.
    class_kind: np.ndarray | None = None
    #: Per class, how light its set-up pieces' sides are (``views.side_lightness``: the
    #: median of its examples with a view).
    sides: dict[str, float] | None = None

    @functools.cached_property
    def least_area(self) -> float:
        """The smallest blob among the examples (``SHAPE_FEATURES``' area: hundreds of
        square millimetres), which ``ReaderSettings.least_blob`` is a share of."""
        return float(self.features[:, AREA].min())

    @functools.cached_property
    def middle_lightness(self) -> dict[str, float]:
        """Per class with examples, its examples' median lightness (Lab L)."""
        middle = {}
        for k, name in enumerate(self.names):
            mine = self.kind_of == k
            if mine.any():
                middle[name] = float(median(self.colours[mine, 0]))
        return middle

    @functools.cached_property
    def class_starts(self) -> tuple[np.ndarray, np.ndarray]:
        """The classes with examples (their indices in ``names``) and where each one's
        examples start (they come class by class: ``Kinds.of``)."""
        present, starts = np.unique(self.kind_of, return_index=True)
        present.setflags(write=False)
        starts.setflags(write=False)
        return present, starts

    @classmethod
    def of(cls, profile: Profile, settings: ReaderSettings) -> Kinds:
        """The profile's pieces as arrays: worked out again only when its examples are
        not the ones they were worked out from (the table taught it a piece)."""
        names = tuple(sorted(profile.pieces))
        examples = [(k, e) for k, n in enumerate(names)
                    for e in profile.pieces[n].get("instances") or []]  # fmt: skip
        # The examples themselves, not their contents: a taught piece is a new example.
        key = (names, tuple(id(e) for _, e in examples), settings, profile.settings)
        kept = _KINDS.get(id(profile))
        if kept is not None and kept[0]() is profile and kept[1] == key:
            return kept[2]
        kinds = cls._of(profile, settings, names, examples)
        _KINDS[id(profile)] = (weakref.ref(profile), key, kinds)
        while len(_KINDS) > KINDS_KEPT:
            _KINDS.pop(next(iter(_KINDS)))
        return kinds

    @classmethod
    def _of(cls, profile: Profile, settings: ReaderSettings, names, examples) -> Kinds:
        if not examples or not all("shape" in e and "lab" in e for _, e in examples):
            raise ProfileError(
                "the profile has no examples of its pieces: learn the board again "
                "(companion calibrate board)"
            )
        viewed = [(k, e) for k, e in examples if "view" in e]
        if not settings.turned_blobs:
            # A turned set-up photo's pieces teach the views alone (see the setting).
            examples = [(k, e) for k, e in examples if not e.get("turned")]
        examples = sorted(examples, key=lambda pair: pair[0])  # class by class: ``costs_of``
        kind_of = np.array([k for k, _ in examples])
        colours = np.array([e["lab"] for _, e in examples], np.float32)
        features = np.array([e["shape"] for _, e in examples], np.float32)
        chroma = float(np.hypot(colours[:, 1], colours[:, 2]).max())
        least_share = profile.settings.least_share
        shape_kinds = sorted({name.split()[-1] for name in names})
        class_kind = np.array([shape_kinds.index(name.split()[-1]) for name in names])
        if not viewed:
            return cls(names, kind_of, colours, features, least_share, chroma, settings)
        try:
            matrix = views.examples_matrix(tuple(e["view"] for _, e in viewed), settings.view)
        except views.ViewError as error:
            raise ProfileError(f"the profile's view of a set-up piece: {error}") from None
        model = views.KindModel.learn(matrix, class_kind[[k for k, _ in viewed]],
                                      len(shape_kinds), settings.view)  # fmt: skip
        decoded = [views.decode(e["view"], settings.view) for _, e in viewed]
        light, apart = (np.array([pair[k] for pair in decoded]) for k in (0, 1))
        side = views.side_lightness(light, apart, settings.view)
        of = np.array([k for k, _ in viewed])
        sides = {names[k]: float(median(side[of == k])) for k in sorted(set(of.tolist()))}
        return cls(names, kind_of, colours, features, least_share, chroma, settings, model,
                   class_kind, sides)  # fmt: skip

    def view_costs(self, lightness: np.ndarray, unlike: np.ndarray) -> np.ndarray:
        """Per view seen (``calibration.views.piece_views``) and class: how much less the
        view looks like the class's kind than like the kind it looks most like
        (``views.KindModel.scores``), weighted (``ReaderSettings.view_weight``): (N,
        classes)."""
        return self.costs_of_scores(self.view_scores(lightness, unlike))

    def view_scores(self, lightness: np.ndarray, unlike: np.ndarray) -> np.ndarray:
        """Per view seen, how much it looks like each kind (``views.KindModel.scores``):
        (N, kinds). Its row's most is the view's likeness (``view_likeness``)."""
        return self.view_model.scores(views.features(lightness, unlike, self.settings.view))

    def costs_of_scores(self, scores: np.ndarray) -> np.ndarray:
        """``view_costs`` from the views' ``view_scores``."""
        # Measured from the most alike kind: the view adds nothing to the kind it looks
        # most like, so a class's distance stays its blob's, and a margin a margin.
        return (
            scores.max(axis=1, keepdims=True) - scores[:, self.class_kind]
        ) * self.settings.view_weight

    def view_likeness(self, lightness: np.ndarray, unlike: np.ndarray) -> np.ndarray:
        """Per view seen, how much it looks like the kind it looks most like
        (``views.KindModel.scores``: about 1 for a view plainly of a kind, about 0 or
        less for one like no kind, such as a view of an empty square): (N,)."""
        return self.view_scores(lightness, unlike).max(axis=1)

    def costs_of(self, blobs: list[Blob]) -> list[np.ndarray | None]:
        """Per blob, per class (``names``), how far the blob is from its nearest example;
        None for a blob coloured like no piece (a hand). All blobs at once."""
        if not blobs:
            return []
        colours = np.array([blob.colour for blob in blobs], np.float32)
        features = np.array([blob.features for blob in blobs], np.float32)
        costs = np.linalg.norm(self.colours[None] - colours[:, None], axis=2)
        # Turned any way: compare shapes by features that do not care.
        costs += shape_distance(self.features[None], features[:, None]) * self.settings.shape_weight
        best = np.full((len(blobs), len(self.names)), np.inf)
        # The examples come class by class (``Kinds.of``): each class's least at once.
        present, starts = self.class_starts
        best[:, present] = np.minimum.reduceat(costs, starts, axis=1)
        chroma = np.hypot(colours[:, 1].astype(np.float64), colours[:, 2].astype(np.float64))
        coloured = chroma > self.most_chroma + self.settings.skin_chroma
        return [None if hand else row for row, hand in zip(best, coloured, strict=True)]

    def decide(self, costs: np.ndarray | None) -> tuple[str, float]:
        """(label, confidence): the class of least cost (of two as cheap, the one
        ``names`` lists first), and its margin over the next, relative to the next's
        cost; unknown without costs."""
        if costs is None:
            return UNKNOWN, 0.0
        # As Python floats: a handful of classes, each asked a few times a frame, where
        # a sort and numpy scalars cost several times the arithmetic.
        values = costs.tolist()
        first = min(values)
        best = values.index(first)
        others = values[:best] + values[best + 1 :]
        second = min(others) if others else first + 1.0
        if not math.isfinite(second):  # no other class has examples: nothing else it can be
            return self.names[best], 1.0
        return self.names[best], (second - first) / (second + 1e-6)

    def margins(self, costs: np.ndarray) -> dict[str, float]:
        """The margin of the class of least cost over every class (``decide``'s measure:
        relative to that class's cost; 0 over itself, 1 over a class with no examples)."""
        values = costs.tolist()
        first = min(values)
        return {name: (cost - first) / (cost + 1e-6) if math.isfinite(cost) else 1.0
                for name, cost in zip(self.names, values, strict=True)}  # fmt: skip


@dataclass(frozen=True)
class Fitter:
    """A frame's pictures and what fitting a kind's shape on it needs (see
    ``calibration.silhouettes``): where the camera is, where the lamp, the pieces'
    shapes and palettes (the whole pieces' and their sides')."""

    pictures: tuple[np.ndarray, np.ndarray, np.ndarray]  # lab, empty board, difference
    shapes: Any
    hyps: tuple[silhouettes.Hypothesis, ...]
    eye: np.ndarray | None
    lamp: np.ndarray | None
    palettes: dict[str, np.ndarray]
    px_per_mm: float
    margin_mm: float
    settings: ReaderSettings
    side_palettes: dict[str, np.ndarray] | None = None

    @classmethod
    def of(cls, profile: Profile, registration: Registration | None, pictures, settings) -> Fitter:
        """The fit of a frame (``pictures``) registered as ``registration``: seen from
        the camera's place in the profile (``Profile.eye``) while the frame's is within
        ``EYE_STAYS_MM`` of it (a camera nudged by a millimetre or two has not moved for
        a piece's outline, and what was worked out for it holds); from the frame's own
        place otherwise. Without a registration, from the profile's place."""
        shapes = profile.piece_shapes
        lamp = None if profile.lamp is None else np.asarray(profile.lamp, np.float64)
        palettes = {c: np.asarray(p, np.float32) for c, p in profile.palettes.items()}
        sides = {c: np.asarray(p, np.float32) for c, p in profile.side_palettes.items()}
        ps = profile.settings
        kept = None if profile.eye is None else np.asarray(profile.eye, np.float64)
        eye = kept if registration is None else silhouettes.board_eye(registration)
        if eye is not None and kept is not None and np.linalg.norm(eye - kept) <= EYE_STAYS_MM:
            eye = kept
        return cls(pictures, shapes, silhouettes.hypotheses(shapes, settings.fit), eye, lamp,
                   palettes, ps.shape_px_per_mm, ps.shape_margin_mm, settings,
                   sides or None)  # fmt: skip

    def masks(self, centres_px: list[tuple[float, float]]) -> list[tuple[np.ndarray, ...]]:
        """Each hypothesis's cover and shadow on the squares whose middles are at
        ``centres_px`` (``silhouettes.cover_masks``: kept for the camera's place), and
        on a square where a piece's top would mirror the lamp into the camera
        (``glints``), its top."""
        half = round(self.settings.fit.half_mm * self.px_per_mm)
        found = []
        for c in centres_px:
            mm = np.array(c) / self.px_per_mm - self.margin_mm
            found.append(silhouettes.cover_masks(self.shapes, self.hyps, mm, self.eye,
                                                 self.lamp, self.px_per_mm, half,
                                                 top=self.glints(mm)))  # fmt: skip
        return found

    def outlines(self, centres_px: list[tuple[float, float]]) -> list[np.ndarray] | None:
        """Each hypothesis's outline on the squares whose middles are at ``centres_px``
        (``silhouettes.outline_masks``: kept for the camera's place); None when the fit
        does not weigh edges (``FitSettings.edge_weight``)."""
        if self.settings.fit.edge_weight <= 0:
            return None
        half = round(self.settings.fit.half_mm * self.px_per_mm)
        return [silhouettes.outline_masks(self.shapes, self.hyps,
                                          np.array(c) / self.px_per_mm - self.margin_mm,
                                          self.eye, self.lamp, self.px_per_mm, half)
                for c in centres_px]  # fmt: skip

    def glints(self, centre_mm: np.ndarray) -> bool:
        """Whether the top of a piece standing at ``centre_mm`` (board mm) mirrors the
        lamp into the camera (``silhouettes.glint_tilt_deg``, at the tallest kind's
        height): never when where either is is not known."""
        if self.eye is None or self.lamp is None:
            return False
        tallest = max(solid.height_mm for solid in self.shapes.solids)
        point = np.array([centre_mm[0], centre_mm[1], tallest])
        return silhouettes.glint_tilt_deg(self.eye, self.lamp, point) < (
            self.settings.fit.glint_within_deg)  # fmt: skip

    def weigh(
        self, centres_px: list[tuple[float, float]], names: tuple[str, ...],
        costs: list[np.ndarray | None],
        lit: list[float] | None = None,
        boards: list[np.ndarray] | None = None,
    ) -> list[tuple[np.ndarray, float]]:  # fmt: skip
        """For the squares whose middles are at ``centres_px``, the classes' (``names``)
        distances ``costs`` (None: no blob to compare), each raised by its fit score above
        the best class's, weighted; and the best class's fit score (how much better than
        the empty board a piece explains the square's pixels: below zero). Given each
        square's ``lit`` share, the classes are scored with the pieces' colours as lit
        as their squares (``silhouettes.fit_scores_lit``), the best class as they are.
        ``boards``: each square's difference from the board as it should look there
        (``NeighbourShadows.seen_from``), instead of the frame's."""
        fit = self.settings.fit
        masks = self.masks(centres_px)
        lab, empty, unlike = self.pictures
        unlike = unlike if boards is None else boards
        args = (lab, empty, unlike, centres_px, masks, self.hyps, self.palettes, self.px_per_mm)
        sides, outlines = self.side_palettes, self.outlines(centres_px)
        if lit is None:
            scored = silhouettes.fit_scores(*args, fit, side_palettes=sides, outlines=outlines)
            found = [(scores, scores) for scores in scored]
        else:
            found = silhouettes.fit_scores_lit(*args, lit, fit, side_palettes=sides,
                                               outlines=outlines)  # fmt: skip
        weighed = []
        for (plain, followed), cost in zip(found, costs, strict=True):
            fitted = np.array([followed.get(name, np.inf) for name in names])
            if not np.isfinite(fitted).any():  # no palette for these colours
                weighed.append((cost, -np.inf))  # the examples decide, and it is a piece
                continue
            # Whether any piece stands there: with its outline's edges, when weighed.
            best = plain.get(silhouettes.ANY_PIECE, min(plain.get(name, np.inf) for name in names))
            least = float(fitted[np.isfinite(fitted)].min())
            # A class the fit could not score (no palette for its colour) stays as it is.
            raised = np.where(np.isfinite(fitted), (fitted - least) * self.settings.fit_weight, 0.0)
            if cost is None:  # no blob to compare: the fit alone, from a typical distance
                cost = np.where(np.isfinite(fitted), FIT_ALONE_FROM, np.inf)
            weighed.append((cost + raised, best))
        return weighed


def board_lit(lab: np.ndarray, empty: np.ndarray, blob: Blob, within_ab: float) -> bool:
    """Whether ``blob``'s pixels are the board's own there, lighter: lighter than the
    ``empty`` board's picture under them, and coloured as the board is in more light
    (their mean a and b within ``within_ab`` of its, or of its scaled as ``blobs.shaded``
    scales them for that lightness, as L* + 16, or of any colour between: more of the
    lamp's light makes the board more colourful, a gloss's white no more)."""
    x0, y0 = blob.origin
    height, width = blob.mask.shape
    mask = blob.mask.view(np.uint8)
    seen = cv2.mean(lab[y0 : y0 + height, x0 : x0 + width], mask)
    board = cv2.mean(empty[y0 : y0 + height, x0 : x0 + width], mask)
    if seen[0] <= board[0]:
        return False
    ab, there = np.array(seen[1:3]), np.array(board[1:3])
    # From the board's colour to it as colourful as this much more light makes it.
    span = there * ((seen[0] + 16.0) / (board[0] + 16.0) - 1.0)
    along = np.clip(np.dot(ab - there, span) / max(np.dot(span, span), 1e-9), 0.0, 1.0)
    return float(np.linalg.norm(ab - there - along * span)) < within_ab


def square_shares(
    unlike: np.ndarray,
    boxes: np.ndarray,
    cells: list[tuple[int, int]],
    bands: np.ndarray | None = None,
    summed: bool = False,
    *,
    spans: tuple[np.ndarray, ...] | None = None,
) -> np.ndarray:
    """Each square's share of unlike pixels within its box (``cell_boxes`` with the
    inset), less ``bands`` (px to leave out at its left, top, right and bottom), from
    one summed-area table of the picture; ``summed``: ``unlike`` is a picture of values
    whose mean over the box is wanted. ``spans``: ``square_spans(boxes, cells, bands)``,
    when the caller has them (a frame asks for several pictures' shares)."""
    table = cv2.integral(unlike if summed else unlike.astype(np.uint8))
    x0, y0, x1, y1, area = square_spans(boxes, cells, bands) if spans is None else spans
    inside = table[y1, x1] - table[y0, x1] - table[y1, x0] + table[y0, x0]
    return np.where(area > 0, inside / np.maximum(area, 1), 0.0)


def square_spans(
    boxes: np.ndarray, cells: list[tuple[int, int]], bands: np.ndarray | None = None
) -> tuple[np.ndarray, ...]:
    """The boxes ``square_shares`` counts over, a square each: x0, y0, x1, y1 (int64)
    and their areas in px."""
    index = np.array(cells)
    x0, y0, x1, y1 = (boxes[index[:, 0], index[:, 1], i].astype(np.int64) for i in range(4))
    if bands is not None:
        x0, y0, x1, y1 = x0 + bands[:, 0], y0 + bands[:, 1], x1 - bands[:, 2], y1 - bands[:, 3]
        x1, y1 = np.maximum(x1, x0), np.maximum(y1, y0)
    return x0, y0, x1, y1, (x1 - x0) * (y1 - y0)


#: Squares whose empty colours are this near (Delta E) are fellows in
#: ``relative_textures``: the light squares of a board, or the dark ones, whatever the
#: lamp's fall-off across it.
TEXTURE_ALIKE = 15.0


def relative_textures(
    lightness: np.ndarray,
    boxes: np.ndarray,
    cells: list[tuple[int, int]],
    bands: np.ndarray | None,
    colours: np.ndarray,
    alike: float = TEXTURE_ALIKE,
    *,
    spans: tuple[np.ndarray, ...] | None = None,
) -> np.ndarray:
    """Each square's texture (its mean lightness gradient over the box ``square_shares``
    counts) over the median texture of the squares whose empty colour (``colours``, one
    Lab row per square) is within ``alike`` Delta E of its own: most squares are empty,
    so that median is how textured an empty square looks in this frame (its blur, its
    noise, its light), and 1 is as textured as an empty square. ``spans``: as
    ``square_shares`` takes them."""
    smooth = cv2.GaussianBlur(lightness, (3, 3), 0)
    across, down = cv2.Sobel(smooth, cv2.CV_32F, 1, 0), cv2.Sobel(smooth, cv2.CV_32F, 0, 1)
    gradient = cv2.magnitude(across, down)
    texture = square_shares(gradient, boxes, cells, bands, summed=True, spans=spans)
    colours = np.ascontiguousarray(colours, np.float32)
    groups, group_of = _fellows(colours.tobytes(), len(colours), alike)
    typical = np.array([median(texture[list(members)]) for members in groups])[group_of]
    return texture / np.maximum(typical, 0.5)


@functools.lru_cache(maxsize=8)
def _fellows(
    colours: bytes, count: int, alike: float
) -> tuple[tuple[tuple[int, ...], ...], np.ndarray]:
    """The squares' fellows (``relative_textures``): the distinct sets of squares within
    ``alike`` of a square (a board of two colours has two), and per square the index of
    its set. The same for every frame read with a profile."""
    rows = np.frombuffer(colours, np.float32).reshape(count, 3)
    apart = np.linalg.norm(rows[:, None, :] - rows[None, :, :], axis=2) < alike
    distinct, group_of = np.unique(apart, axis=0, return_inverse=True)
    groups = tuple(tuple(np.flatnonzero(row).tolist()) for row in distinct)
    return groups, group_of.reshape(-1)


def lean_bands(
    registration: Registration,
    sheet: Sheet,
    cells: list[tuple[int, int]],
    settings: ReaderSettings,
    inset_mm: float,
    px_per_mm: float,
) -> np.ndarray | None:
    """Per square, the px to leave out at its left, top, right and bottom edges: on the
    sides facing the camera, as far as a neighbour's top leans in past the inset."""
    centre = silhouettes.board_eye(registration)
    if centre is None or centre[2] <= settings.piece_height_mm:
        return None
    grid = sheet.grid
    spots = np.array([((c + 0.5) * grid.cell_width_mm, (r + 0.5) * grid.cell_height_mm)
                      for r, c in cells])  # fmt: skip
    lean = (spots - centre[:2]) * settings.piece_height_mm / (centre[2] - settings.piece_height_mm)
    reach = np.clip(np.abs(lean) - inset_mm, 0, None) * px_per_mm
    bands = np.zeros((len(cells), 4), np.int64)
    # A top leans away from the camera: into this square from the side facing it.
    bands[:, 0] = np.where(lean[:, 0] > 0, np.ceil(reach[:, 0]), 0)
    bands[:, 2] = np.where(lean[:, 0] < 0, np.ceil(reach[:, 0]), 0)
    bands[:, 1] = np.where(lean[:, 1] > 0, np.ceil(reach[:, 1]), 0)
    bands[:, 3] = np.where(lean[:, 1] < 0, np.ceil(reach[:, 1]), 0)
    return bands


@dataclass(frozen=True)
class NeighbourShadows:
    """The pieces' shadows on the squares beside them in a frame (``neighbour_shadows``):
    the ``spots`` that look like one (flat indices into the reading's picture), their
    ``costs`` as a shadow (``silhouettes.shadow_cost``), and per square that may hold a
    piece (its index among the sheet's squares) where that piece may cast one (flat
    indices)."""

    spots: np.ndarray
    costs: np.ndarray
    zones: dict[int, np.ndarray]

    def on_board(self, difference: np.ndarray) -> np.ndarray:
        """``difference`` (each pixel's from the empty board) with the shadows' pixels
        as far from the board as from the board in shadow."""
        shaded = difference.copy()
        shaded.ravel()[self.spots] = self.costs
        return shaded

    def seen_from(self, k: int, shaded: np.ndarray, bare: np.ndarray) -> np.ndarray:
        """What the fit on square ``k`` weighs against: the board with its neighbours'
        shadows (``shaded``, ``on_board``) but not its own piece's, which the piece's
        shape explains (its pixels as ``bare`` has them)."""
        zone = self.zones.get(k)
        if zone is None:
            return shaded
        mine = np.zeros(shaded.size, bool)
        mine[zone] = True
        own = self.spots[mine[self.spots]]
        if not len(own):
            return shaded
        picture = shaded.copy()
        picture.ravel()[own] = bare.ravel()[own]
        return picture


def neighbour_shadows(
    lab: np.ndarray,
    empty: np.ndarray,
    unlike: np.ndarray,
    casting: np.ndarray,
    sheet: Sheet,
    cells: list[tuple[int, int]],
    profile: Profile,
    settings: ReaderSettings,
) -> NeighbourShadows | None:
    """The pixels of ``unlike`` that look like a shadow (the empty board darkened:
    ``silhouettes.shadow_cost`` within ``settings.shadow_like``) where a piece on a
    square that may hold one (``casting``, per square of ``cells``) may cast its shadow
    (``silhouettes.shadow_zone``, from the profile's lamp) on the other squares; None
    when the profile has no lamp or shapes."""
    if profile.lamp is None or profile.shapes is None:
        return None
    zones = shadow_zones(sheet, cells, np.flatnonzero(casting), profile, settings,
                         unlike.shape[1])  # fmt: skip
    spots = np.concatenate(list(zones.values())) if zones else np.zeros(0, np.int64)
    spots = spots[unlike.ravel()[spots]]
    if len(spots):
        seen = lab.reshape(-1, 3)[spots][:, None, :]
        board = empty.reshape(-1, 3)[spots][:, None, :]
        cost = silhouettes.shadow_cost(seen, board, settings.fit.shadow_range,
                                       settings.fit.cap)[:, 0]  # fmt: skip
        shadow = (cost <= settings.shadow_like) & (seen[:, 0, 0] < board[:, 0, 0])
        # A pixel two neighbours may shade is one pixel.
        spots, first = np.unique(spots[shadow], return_index=True)
        return NeighbourShadows(spots, cost[shadow][first], zones)
    return NeighbourShadows(spots, np.zeros(0, np.float32), zones)


def shadow_zones(
    sheet: Sheet,
    cells: list[tuple[int, int]],
    which: Any,
    profile: Profile,
    settings: ReaderSettings,
    width: int,
) -> dict[int, np.ndarray]:
    """Where a piece on each square ``which`` (indices into ``cells``) may cast its
    shadow on the other squares, from the profile's lamp (which it must have): flat
    indices into the reading's picture (``width`` px wide: ``rectify``'s). Kept for the
    lamp (``prepare`` works them out)."""
    ps = profile.settings
    px, margin = ps.shape_px_per_mm, ps.shape_margin_mm
    lamp = tuple(float(v) for v in profile.lamp)
    shapes = profile.piece_shapes
    hyps = silhouettes.hypotheses(shapes, settings.fit)
    half = round(settings.fit.half_mm * px)
    grow = round(settings.shadow_grow_mm * px)
    grid = sheet.grid
    sizes = (grid.cell_width_mm, grid.cell_height_mm, grid.width_mm, grid.height_mm)
    return {int(k): _beyond_square(shapes, hyps, lamp, cells[k], sizes, px, margin, half, grow,
                                   width) for k in which}  # fmt: skip


@functools.lru_cache(maxsize=1024)
def _beyond_square(shapes, hyps, lamp, cell, sizes, px, margin, half, grow, picture_width):
    """``neighbour_shadows``' zone of a piece on ``cell`` on the grid (``sizes``: a
    square's width and height, the grid's, in mm) beyond its own square: flat indices
    into the reading's picture (``picture_width`` px wide). The same for every frame
    read with a profile (its lamp)."""
    (row, col), (width_mm, height_mm, grid_width_mm, grid_height_mm) = cell, sizes
    centre_mm = np.array([(col + 0.5) * width_mm, (row + 0.5) * height_mm])
    zone = silhouettes.shadow_zone(shapes, hyps, centre_mm, np.array(lamp), px, half, grow)
    ys, xs = np.nonzero(zone)
    x = xs + round((centre_mm[0] + margin) * px) - half
    y = ys + round((centre_mm[1] + margin) * px) - half

    def within(at: np.ndarray, start_mm: float, end_mm: float) -> np.ndarray:
        return (at >= round((start_mm + margin) * px)) & (at < round((end_mm + margin) * px))

    # Its own square is its piece's, and beyond the grid there is no square to misread:
    # only the shadow on the squares beside it is a neighbour's.
    own = (within(x, col * width_mm, (col + 1) * width_mm)
           & within(y, row * height_mm, (row + 1) * height_mm))  # fmt: skip
    keep = within(x, 0.0, grid_width_mm) & within(y, 0.0, grid_height_mm) & ~own
    spots = y[keep].astype(np.int64) * picture_width + x[keep]
    spots.flags.writeable = False
    return spots


def position(state: Any) -> dict[str, str]:
    """What a Gimmel state shows on its squares, in the reader's words (``"white cat"``):
    the observation a perfect reading of that position gives. Before the colour lot no
    piece is on the board."""
    labels = {}
    for index, piece in enumerate(state.board):
        if piece is None:
            continue
        colour_name = "white" if piece.owner == state.white else "black"
        labels[str(state.grid.squares[index])] = f"{colour_name} {piece.kind.value}"
    return labels


def most_of_each(state: Any) -> int:
    """How many pieces of one kind in one colour a Gimmel game (``state``) can have on
    the board: as many as a player starts with (``rules.gimmel``: four, eight in the
    variant). ``read`` takes it."""
    return int(state.terms.per_kind)


#: An earlier reading the table agreed with, and the state it showed then.
Before = tuple[dict[str, str], Any]


def _evidence(observation: Observation, state: Any, before: Before | None):
    """The squares that say something of ``state``: every square read (not unknown),
    less, given ``before``, those that read as they read then where ``state`` leaves the
    square as it was then (a piece misread the same way before and after did not
    move: that is no evidence for or against a change)."""
    expected = position(state)
    then_read, then_state = before if before is not None else ({}, None)
    then = position(then_state) if then_state is not None else None
    for name, label in observation.squares.items():
        if label == UNKNOWN:
            continue
        if (
            then is not None
            and label == then_read.get(name)
            and expected.get(name, EMPTY) == then.get(name, EMPTY)
        ):
            continue
        yield name, label, expected.get(name, EMPTY)


#: How much more a margin between two kinds of one colour says than its number, for the
#: kinds the reader seldom takes for each other (``disagreements``): a table takes a move
#: whose piece it read by ``companion.camera_source.MARGIN`` over the next kind the rules
#: allow, and a margin of 0.5 between a cat goddess (a triangle from above) and a falcon
#: (a disc) is as telling as 0.7 between a falcon and a beetle (discs both, one ribbed).
#: On the reader benchmark's 1000 frames (a throwaway script, the readings before the
#: side rule and the count), of about 10,000 cats and falcons read in their right colour,
#: one was read as the other, by 0.12; 122 read right had a margin under 0.7 over the
#: other, 21 under 0.5. A falcon was read as a beetle 10 times, by up to 0.79 (4 by 0.6
#: or more), and a beetle as a cat 4 times, by up to 0.45. A table asked about, then
#: took late, three pieces read by 0.66 to 0.71 between a cat and a falcon (rendered
#: games 16, 42 and 51 of ``benchmarks/gimmel_table.py``).
KINDS_APART: dict[frozenset[str], float] = {frozenset({"cat", "falcon"}): 0.7 / 0.5}


def mismatch(
    observation: Observation,
    state: Any,
    before: Before | None = None,
    apart: dict[frozenset[str], float] | None = None,
) -> float:
    """How far ``state`` is from ``observation``: the confidence of each square read that
    disagrees with it (a doubtful misread costs little, a sure one a whole square): that
    something stands there or not, or, where both say a piece, that it is the piece read
    rather than the one ``state`` has there (``Observation.margins``, weighed by
    ``apart``: ``KINDS_APART`` unless given). With ``before``, only the squares whose
    reading or whose piece changed since count."""
    found = disagreements(observation, state, before, apart)
    return sum(max(sure, 0.05) for _, _, sure in found.values())


def disagreements(
    observation: Observation,
    state: Any,
    before: Before | None = None,
    apart: dict[frozenset[str], float] | None = None,
) -> dict[str, tuple[str, str, float]]:
    """The squares read otherwise than ``state`` has them: what was read, what ``state``
    has there, and how surely it was read so (``mismatch`` adds that up): for two pieces
    of one colour, the margin of the one read over the other, times what ``apart``
    (``KINDS_APART`` unless given) says of their two kinds, at most 1."""
    apart = KINDS_APART if apart is None else apart
    found = {}
    for name, label, expected in _evidence(observation, state, before):
        if label == expected:
            continue
        sure = observation.confidence.get(name, 1.0)
        if (label == EMPTY) != (expected == EMPTY):
            sure = observation.occupied.get(name, sure)
        else:  # two pieces: how much less like the one ``state`` has there it looked
            margin = observation.margins.get(name, {}).get(expected)
            if margin is not None:
                (colour, _, kind), (other_colour, _, other_kind) = (
                    label.partition(" "), expected.partition(" "))  # fmt: skip
                weight = apart.get(frozenset({kind, other_kind}), 1.0)
                sure = min(1.0, margin * weight) if colour == other_colour else margin
        found[name] = (label, expected, sure)
    return found


#: At most this many pieces of each class taught at the table are kept (the oldest go):
#: enough to cover the board's corners and its middle, few enough to compare quickly.
MOST_TAUGHT = 32


def teach(
    profile: Profile,
    observation: Observation,
    state: Any,
    *,
    unsure: float = 0.5,
    taught: set[tuple[str, str]] | None = None,
) -> list[str] | None:
    """Teach ``profile`` (in memory) from a reading of a board known to show ``state``
    (the table agreed to it, or a person entered it): each piece ``observation`` read as
    another kind, or as its own kind by a margin under ``unsure``, becomes an example of
    what it really is, so the next piece like it, standing much as it stood, is read
    right and surely. ``taught`` holds the (square, piece) pairs already taught, and
    gains those taught now. Only a reading that agrees with ``state`` on every square it
    read, but for which kind a piece is, can teach (another disagreement means the board
    is not yet ``state``): ``None`` then, else the squares taught (maybe none)."""
    expected = position(state)
    doubtful = []
    for name, label in observation.squares.items():
        if label == UNKNOWN:
            continue
        truth = expected.get(name, EMPTY)
        if (label == EMPTY) != (truth == EMPTY):
            return None
        if label != truth and label.split()[0] != truth.split()[0]:
            return None  # another colour: a piece swapped, not a kind misread
        if truth != EMPTY and (label != truth or observation.confidence[name] < unsure):
            doubtful.append(name)
    done = taught if taught is not None else set()
    now = []
    for name in doubtful:
        looks = observation.looks.get(name)
        kind = profile.pieces.get(expected[name])
        if looks is None or kind is None or (name, expected[name]) in done:
            continue
        examples = kind.setdefault("instances", [])
        example = {"square": name, "lab": looks[0], "shape": looks[1], "taught": True}
        if name in observation.views:
            example["view"] = views.encode(*observation.views[name])
        examples.append(example)
        learnt = [e for e in examples if e.get("taught")]
        if len(learnt) > MOST_TAUGHT:
            examples.remove(learnt[0])
        done.add((name, expected[name]))
        now.append(name)
    return now


def vote(readings: list[Observation], most_of_each: int | None = None) -> Observation:
    """One reading of a still board from several frames' (oldest first): each square
    what the frames, weighed by their confidence, say most (a square read as a white cat
    surely, then as a white falcon doubtfully, then surely a cat again, is a cat), with
    the winner's lead over the runner-up, per frame that read the square, as its
    confidence (frames that agree keep their mean confidence, frames that disagree lower
    it); likewise whether something stands there (``occupied``), and a piece's margin
    over each other class (``margins``: per frame that read the square, how much more
    unlike it that class looked than the winner; a frame that read no piece there adds
    nothing). A frame that could not read a square (a hand: unknown) says nothing of it;
    a square no frame read is unknown. The latest frame's board figures, looks and views
    come along (what a table teaches from). ``most_of_each``: the voted reading is kept
    to the rules' count (``keep_to_counts``): frames kept to it one by one may each read
    a different square otherwise, and a square a count chose weighs next to nothing in
    the vote."""
    if not readings:
        raise ValueError("vote: no readings to vote on")
    latest = readings[-1]
    if len(readings) == 1:
        return latest if most_of_each is None else keep_to_counts(latest, most_of_each)
    squares, confidence, occupied, margins = {}, {}, {}, {}
    for name in latest.squares:
        weights: dict[str, float] = {}
        sides = [0.0, 0.0]  # how sure the frames are that the square is empty, held
        count = 0  # the frames that read it
        for reading in readings:
            label = reading.squares.get(name, UNKNOWN)
            if label == UNKNOWN:
                continue
            count += 1
            sure = reading.confidence.get(name, 0.0)
            weights[label] = weights.get(label, 0.0) + max(sure, 1e-3)
            sides[label != EMPTY] += reading.occupied.get(name, sure)
        if not weights:
            squares[name], confidence[name] = UNKNOWN, 0.0
            continue
        ranked = sorted(weights.items(), key=lambda item: (-item[1], item[0]))
        winner, top = ranked[0]
        runner_up = ranked[1][1] if len(ranked) > 1 else 0.0
        squares[name] = winner
        confidence[name] = (top - runner_up) / count
        held = winner != EMPTY
        occupied[name] = max(0.0, (sides[held] - sides[not held]) / count)
        if held:
            margins[name] = _voted_margins(readings, name, winner, count)
    voted = replace(latest, squares=squares, confidence=confidence, occupied=occupied,
                    margins=margins)  # fmt: skip
    return voted if most_of_each is None else keep_to_counts(voted, most_of_each)


def _voted_margins(readings: list[Observation], name: str, winner: str, count: int):
    """``winner``'s margin on square ``name`` over each other class, from the frames that
    read a piece there: each frame's margin over that class less its margin over the
    winner (both measured from the class that frame read), summed and divided by the
    ``count`` frames that read the square (a frame that read it empty adds nothing),
    and no less than 0."""
    frames = []
    for reading in readings:
        label = reading.squares.get(name, UNKNOWN)
        if label in (UNKNOWN, EMPTY):
            continue
        sure = reading.confidence.get(name, 0.0)
        # A frame without margins (read before they were kept): its confidence over all.
        frames.append((label, sure, reading.margins.get(name, {})))
    classes = {winner} | {label for label, _, _ in frames}
    classes |= {c for _, _, theirs in frames for c in theirs}

    def over(label: str, sure: float, theirs: dict[str, float], other: str) -> float:
        return 0.0 if other == label else theirs.get(other, sure)

    return {other: max(0.0, sum(over(*frame, other) - over(*frame, winner) for frame in frames)
                       / count)
            for other in sorted(classes)}  # fmt: skip


def shows(observation: Observation, state: Any, before: Before | None = None) -> bool:
    """Whether ``state`` looks like ``observation`` on every square it could read (with
    ``before``: on every square whose reading or piece changed since)."""
    return all(label == expected for _, label, expected in _evidence(observation, state, before))
