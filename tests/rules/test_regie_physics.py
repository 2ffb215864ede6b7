"""Regie's kit and chip-drop mechanics: kit validation, and where chips fall.

Most tests draw a small frame of 3 columns whose levels are bars of 5 cells (one cell
outside the frame on each side, travel 1), one string per level, top first: "o" an empty
window, "." solid, "r" a window holding a red chip (seat 0), "b" a blue one (seat 1).
Centred, frame columns 0, 1, 2 show cells 1, 2, 3.
"""

from __future__ import annotations

import copy
import json
import random

import pytest

from rules.errors import KitError
from rules.kits import default_kit_path, read_kit_file
from rules.regie.kit import Level, RegieKit, kit_from_json
from rules.regie.physics import (
    Exit,
    Fall,
    can_slide,
    empty_windows,
    insert,
    insertion_columns,
    settle,
    slide,
    start_levels,
    stops_in_level_1,
)

ROWS = [[1, 2, 3], [0, 0, 0], [4, 5, 6]]
SEAT = {"r": 0, "b": 1}


def document(*bars: str, travel: int = 1, rows=None, columns: int = 3) -> dict:
    return {
        "kit": 1,
        "game": "regie",
        "name": "test",
        "description": "",
        "chips_per_player": 8,
        "frame": {"columns": columns},
        "levels": [
            {"cells": bar.replace("r", "o").replace("b", "o"), "travel": travel} for bar in bars
        ],
        "box": {"rows": rows or copy.deepcopy(ROWS), "under_frame": [1, 2, 3], "start": 2},
    }


def frame(*bars: str, **kwargs):
    """The kit drawn by ``bars``, all levels centred, and the chips they show."""
    kit = kit_from_json(document(*bars, **kwargs))
    windows = tuple(tuple(SEAT.get(c) for c in bar) for bar in bars)
    return kit, start_levels(kit), windows


def picture(kit: RegieKit, windows) -> tuple[str, ...]:
    """The windows drawn back as bars, to compare whole frames at a glance."""
    return tuple(
        "".join(
            "rb"[owner] if owner is not None else ("o" if window else ".")
            for window, owner in zip(level.cells, bar, strict=True)
        )
        for level, bar in zip(kit.levels, windows, strict=True)
    )


# --- the kit ------------------------------------------------------------------------------

GOOD = document(".o.o.", ".o.o.", "o.o.o", ".ooo.", "o...o", ".o.o.")


def _parent(data: dict, path: str):
    """The container of the field at dotted ``path`` (list indices as numbers), and its key."""
    *parents, last = path.split(".")
    target = data
    for key in parents:
        target = target[int(key)] if isinstance(target, list) else target[key]
    return target, int(last) if isinstance(target, list) else last


def changed(path: str, value) -> dict:
    """GOOD with one field replaced."""
    data = copy.deepcopy(GOOD)
    target, key = _parent(data, path)
    target[key] = value
    return data


def without(path: str) -> dict:
    """GOOD with one field left out."""
    data = copy.deepcopy(GOOD)
    target, key = _parent(data, path)
    del target[key]
    return data


def test_a_good_kit_is_read_into_levels_and_rows():
    kit = kit_from_json(GOOD)
    assert kit.columns == 3
    assert kit.levels[0] == Level(cells=(False, True, False, True, False), travel=1)
    assert kit.box_rows == ((1, 2, 3), (0, 0, 0), (4, 5, 6))
    assert (kit.under_frame, kit.box_start, kit.chips_per_player) == ((1, 2, 3), 2, 8)
    assert kit_from_json(kit.to_json()) == kit


@pytest.mark.parametrize(
    ("data", "field", "fragment"),
    [
        (changed("kit", 2), "kit", "expected kit format version 1"),
        (changed("game", "nil"), "game", "expected 'regie'"),
        (changed("name", "  "), "name", "non-empty name"),
        (changed("description", 3), "description", "expected text"),
        ({**GOOD, "colour": "red"}, "colour", "unknown field"),
        (changed("chips_per_player", 0), "chips_per_player", "from 1 to 20"),
        (changed("chips_per_player", 21), "chips_per_player", "from 1 to 20"),
        (without("chips_per_player"), "chips_per_player", "missing"),
        (changed("frame.columns", 1), "frame.columns", "from 2 to 20"),
        (changed("frame.columns", True), "frame.columns", "whole number"),
        (changed("frame.rows", 3), "frame.rows", "unknown field"),
        (changed("frame", None), "frame", "expected a table"),
        (changed("levels", GOOD["levels"][:5]), "levels", "expected 6 levels"),
        (changed("levels.2", "o.o.o"), "levels[2]", "expected a table"),
        (changed("levels.1.cells", ".o.x."), "levels[1].cells", "'o' (window) or '.'"),
        (changed("levels.1.cells", ""), "levels[1].cells", "'o' (window) or '.'"),
        (changed("levels.1.cells", ".o.o"), "levels[1].cells", "cannot stand centred"),
        (changed("levels.1.cells", ".o"), "levels[1].cells", "cannot stand centred"),
        (changed("levels.3.width", 5), "levels[3].width", "unknown field"),
        (without("levels.4.travel"), "levels[4].travel", "missing"),
        (changed("levels.2.travel", 2), "levels[2].travel", "lets a ridged end into the frame"),
        (changed("levels.2.travel", -1), "levels[2].travel", "from 0 to 1"),
        (changed("levels.2.travel", 1.0), "levels[2].travel", "from 0 to 1"),
        (changed("levels.0.cells", "....."), "levels[0].cells", "no window reachable from the top"),
        (changed("levels.4.cells", "....."), "levels[4].cells", "no window of level 5"),
        (changed("box.rows.0", [1, 2]), "box.rows[0]", "a value missing"),
        (changed("box.rows.2", [1, 2, 3, 4]), "box.rows[2]", "more values than columns"),
        (changed("box.rows.0", "123"), "box.rows[0]", "expected a list"),
        (changed("box.rows", [[1, 2, 3], [0, 0, 0]]), "box.rows", "at least 3 rows"),
        (changed("box.under_frame", [1, 2, 4]), "box.under_frame[2]", "from 1 to 3"),
        (changed("box.under_frame", [1, 2, 2]), "box.under_frame", "a different row"),
        (changed("box.under_frame", [1, 2]), "box.under_frame", "expected 3 row numbers"),
        (changed("box.start", 0), "box.start", "from 1 to 3"),
        (changed("box.start", 1), "box.start", "must be the zero row"),
        (changed("box.depth", 1), "box.depth", "unknown field"),
        (without("box.rows"), "box.rows", "missing"),
    ],
)
def test_impossible_kits_name_the_field(data, field, fragment):
    with pytest.raises(KitError) as error:
        kit_from_json(data)
    assert error.value.field == field
    assert fragment in str(error.value)
    assert f"field {field!r}" in str(error.value)


@pytest.mark.parametrize(("row", "column", "value"), [(0, 1, -1), (2, 0, 1.5), (1, 2, True)])
def test_a_bad_box_value_names_its_row_and_column(row, column, value):
    data = copy.deepcopy(GOOD)
    data["box"]["rows"][row][column] = value
    with pytest.raises(KitError) as error:
        kit_from_json(data)
    assert error.value.field == f"box.rows[{row}][{column}]"
    assert "whole number of 0 or more" in str(error.value)


def test_a_level_with_its_only_windows_beyond_its_travel_is_refused():
    # 7 cells in 3 columns leave 2 outside on each side; with travel 1 the outermost
    # cells never reach the frame.
    data = document("o.o.o.o", "o.....o", ".o.o.o.", ".o.o.o.", ".o.o.o.", ".o.o.o.")
    with pytest.raises(KitError) as error:
        kit_from_json(data)
    assert error.value.field == "levels[1].cells"
    data["levels"][1]["travel"] = 2
    assert kit_from_json(data).levels[1].travel == 2


def test_at_least_two_levels_must_slide():
    data = copy.deepcopy(GOOD)
    for level in data["levels"][1:]:
        level["travel"] = 0
    data["levels"][2]["cells"] = ".o.o."  # reachable without sliding
    data["levels"][4]["cells"] = ".ooo."
    with pytest.raises(KitError) as error:
        kit_from_json(data)
    assert error.value.field == "levels"
    assert "at least two levels must be able to slide" in str(error.value)
    data["levels"][5]["travel"] = 1
    assert kit_from_json(data).levels[5].travel == 1


def test_column_cell_and_the_windows_in_the_frame():
    kit = kit_from_json(GOOD)
    # Level 3 is "o.o.o": centred the frame shows cells 1-3, moved right cells 0-2.
    assert [kit.column_cell(2, 0, c) for c in range(3)] == [1, 2, 3]
    assert [kit.column_cell(2, 1, c) for c in range(3)] == [0, 1, 2]
    assert [kit.column_cell(2, -1, c) for c in range(3)] == [2, 3, 4]
    assert kit.frame_window_columns(2, 0) == (1,)
    assert kit.frame_window_columns(2, 1) == (0, 2)
    assert kit.frame_window_columns(2, -1) == (0, 2)
    assert kit.frame_window_columns(0, 0) == (0, 2)
    assert kit.frame_window_columns(0, 1) == (1,)
    assert [kit.box_row(p) for p in (1, 2, 3)] == [0, 1, 2]


# --- the default kit ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def default():
    return kit_from_json(read_kit_file("regie"))


def test_default_kit_loads_and_round_trips(default):
    text = default_kit_path("regie").read_text(encoding="utf-8")
    assert "NOT MEASURED" in text and "NOTES.md" in text
    assert default.columns == 7 and len(default.levels) == 6
    assert default.chips_per_player == 8
    assert default.box_rows[default.box_row(default.box_start)] == (0,) * 7
    assert default.to_json() == read_kit_file("regie")
    assert kit_from_json(json.loads(json.dumps(default.to_json()))) == default


def test_default_kit_lets_every_situation_happen(default):
    """The claims of the default kit's comments, each played from the start."""
    kit, levels, windows = default, start_levels(default), empty_windows(default)
    assert insertion_columns(kit, levels, windows) == (0, 2, 4, 6)
    assert [stops_in_level_1(kit, levels, windows, c) for c in (0, 2, 4, 6)] == [
        True,
        True,
        True,
        False,
    ]

    # Insertion at column 6 falls through into level 2.
    trap = insert(kit, levels, windows, 6, 0, 2)
    assert not trap.stopped_in_level_1
    assert trap.falls == (Fall(0, 1, 2, 6),)

    # Chips at columns 0 and 2 of level 1 both fall when level 1 slides right; the one
    # now at column 3 drops on down to level 4.
    w = insert(kit, levels, windows, 0, 0, 2).windows
    w = insert(kit, levels, w, 2, 1, 2).windows
    several = slide(kit, levels, w, 0, +1, 2)
    assert several.falls == (Fall(0, 1, 2, 1), Fall(1, 1, 4, 3))

    # A chip at column 0 of level 1 drops two levels when level 2 slides left.
    w = insert(kit, levels, windows, 0, 0, 2).windows
    cascade = slide(kit, levels, w, 1, -1, 2)
    assert cascade.falls == (Fall(0, 1, 3, 0),)

    # ... and goes out on the left when level 1 slides left instead.
    out_left = slide(kit, levels, w, 0, -1, 2)
    assert out_left.exits == (Exit(0, "table", -1, "left", None, 0, 1, 0),)

    # The chip that fell into level 2 at column 6 goes out on the right with level 2 ...
    out_right = slide(kit, levels, trap.windows, 1, +1, 2)
    assert out_right.exits == (Exit(0, "table", 7, "right", None, 0, 2, 0),)

    # ... or, slid left over the column-5 chute, into the box: 0 in the start position,
    # a value in positions 1 and 3.
    for box, value in ((1, 2), (2, 0), (3, 3)):
        down = slide(kit, levels, trap.windows, 1, -1, box)
        assert down.exits == (Exit(0, "box", 5, None, box - 1, value, 2, 5),)
        assert value == kit.box_rows[kit.box_row(box)][5]


def test_random_play_on_the_default_kit_keeps_every_chip_and_leaves_a_stable_frame(default):
    kit = default
    rng = random.Random(4284)
    for _ in range(20):
        levels, windows, box = start_levels(kit), empty_windows(kit), 2
        inserted = left = 0
        for _ in range(60):
            choice = rng.random()
            columns = insertion_columns(kit, levels, windows)
            if choice < 0.35 and columns:
                result = insert(kit, levels, windows, rng.choice(columns), rng.randint(0, 1), box)
                windows, exits = result.windows, result.exits
                inserted += 1
            elif choice < 0.9:
                k, d = rng.randrange(6), rng.choice((1, -1))
                if not can_slide(kit, levels, k, d):
                    d = -d
                result = slide(kit, levels, windows, k, d, box)
                levels, windows, exits = result.levels, result.windows, result.exits
            else:
                box = 2 if box != 2 else rng.choice((1, 3))
                exits = ()
            left += len(exits)
            in_levels = sum(owner is not None for bar in windows for owner in bar)
            assert in_levels + left == inserted
            again = settle(kit, levels, windows, box)
            assert (again.windows, again.exits, again.falls) == (windows, (), ())
            assert all(owner is None for owner in windows[5])  # nothing rests on the box
            for e in exits:
                if e.kind == "box":
                    assert e.value == kit.box_rows[kit.box_row(box)][e.column]


# --- where chips fall ---------------------------------------------------------------------


def test_a_chip_rests_on_a_solid_cell():
    kit, levels, windows = frame(".r...", "..o..", "o.o.o", ".ooo.", "o...o", ".o.o.")
    result = settle(kit, levels, windows, 2)
    assert result.windows == windows
    assert (result.exits, result.falls) == ((), ())


def test_a_chip_falls_one_level_and_rests_there():
    kit, levels, windows = frame("...r.", "...o.", "o.o.o", ".ooo.", "o...o", ".o.o.")
    result = settle(kit, levels, windows, 2)
    assert result.falls == (Fall(owner=0, from_level=1, to_level=2, column=2),)
    assert result.exits == ()
    assert picture(kit, result.windows)[:2] == ("...o.", "...r.")


def test_a_chip_rests_on_a_chip_and_follows_it_down():
    kit, levels, windows = frame(".r...", ".b...", "o....", ".o...", ".o...", ".o...")
    # Red sits on blue, blue on level 3's solid cell: nothing moves.
    assert settle(kit, levels, windows, 2).windows == windows
    # Level 3 slides right and brings its window under blue.
    result = slide(kit, levels, windows, 2, +1, 2)
    assert result.levels == (0, 0, 1, 0, 0, 0)
    # Blue falls from level 2 through 3, 4, 5 and 6 into the box; red follows it all the
    # way, since every window it passes was just left empty.
    assert result.falls == ()
    assert result.exits == (
        Exit(1, "box", 0, None, 1, 0, 2, 5),
        Exit(0, "box", 0, None, 1, 0, 1, 6),
    )
    assert all(owner is None for bar in result.windows for owner in bar)


def test_a_stack_moves_down_one_level_together():
    kit, levels, windows = frame(".r...", ".b...", "o....", "o....", ".o.o.", ".o.o.")
    result = slide(kit, levels, windows, 2, +1, 2)
    # Blue drops into level 3's window and rests on level 4's solid cell; red follows
    # into the window blue left in level 2.
    assert result.falls == (Fall(1, 2, 3, 0), Fall(0, 1, 2, 0))
    assert picture(kit, result.windows)[:3] == (".o...", ".r...", "b....")
    assert result.exits == ()


def test_one_slide_cascades_chips_of_both_owners_into_their_own_compartments():
    kit, levels, windows = frame(
        ".b...",  # level 1: blue on red
        ".r.b.",  # level 2: red at column 0, blue at column 2, both on level 3's solid
        "o.o..",  # level 3: moved right, its windows come under columns 0 and 2
        ".o.o.",
        ".o.o.",
        ".o.o.",
    )
    assert settle(kit, levels, windows, 1).windows == windows
    result = slide(kit, levels, windows, 2, +1, 1)  # box in position 1: row 1 = 1 2 3
    assert result.exits == (
        Exit(
            owner=0,
            kind="box",
            column=0,
            side=None,
            row=0,
            value=1,
            fell_from_level=2,
            levels_fallen=5,
        ),
        Exit(
            owner=1,
            kind="box",
            column=2,
            side=None,
            row=0,
            value=3,
            fell_from_level=2,
            levels_fallen=5,
        ),
        Exit(
            owner=1,
            kind="box",
            column=0,
            side=None,
            row=0,
            value=1,
            fell_from_level=1,
            levels_fallen=6,
        ),
    )
    assert result.falls == ()
    # In position 3 the same slide pays 4 and 6.
    assert [e.value for e in slide(kit, levels, windows, 2, +1, 3).exits] == [4, 6, 4]


def test_a_cascade_that_stays_in_the_levels_is_one_fall_of_several_levels():
    kit, levels, windows = frame(".r...", "o....", ".o...", ".o...", ".o...", "..o..")
    result = slide(kit, levels, windows, 1, +1, 2)
    # Level 2's window comes under red: it drops through levels 2-5 and rests on level
    # 6's solid cell.
    assert result.falls == (Fall(0, 1, 5, 0),)
    assert result.falls[0].to_level - result.falls[0].from_level == 4
    assert result.exits == ()


@pytest.mark.parametrize(
    ("direction", "column", "side"),
    [(-1, -1, "left"), (+1, 3, "right")],
)
def test_a_window_carried_out_of_the_frame_drops_its_chip_onto_the_table(direction, column, side):
    # Red sits at column 0, blue at column 2 of level 1, both on solid cells of level 2.
    kit, levels, windows = frame(".r.b.", "..o..", "o...o", ".ooo.", "o...o", ".o.o.")
    result = slide(kit, levels, windows, 0, direction, 2)
    gone = 0 if side == "left" else 1  # red leaves on the left, blue on the right
    assert result.exits == (Exit(gone, "table", column, side, None, 0, 1, 0),)
    # The other chip moved to column 1, over level 2's window, fell into it and rests on
    # level 3's solid cell.
    stays = 1 - gone
    assert result.falls == (Fall(stays, 1, 2, 1),)
    assert result.windows[1][2] == stays
    assert sum(owner is not None for bar in result.windows for owner in bar) == 1


def test_a_chip_above_falls_into_a_window_slid_in_under_it():
    # Blue at column 2 of level 3 is carried out on the right; red above it at column 2
    # then finds level 3's window from the left under it and falls into it.
    kit, levels, windows = frame(".o...", "...r.", ".oob.", "..o..", "o...o", ".o.o.")
    # Red rests on blue, blue on level 4's solid cell.
    assert settle(kit, levels, windows, 2).windows == windows
    result = slide(kit, levels, windows, 2, +1, 2)
    assert result.exits == (Exit(1, "table", 3, "right", None, 0, 3, 0),)
    assert result.falls == (Fall(0, 2, 3, 2),)


def test_insertion_stops_in_level_1_or_falls_through():
    kit, levels, windows = frame(".o.o.", "o..o.", "o....", ".o...", ".o...", ".o...")
    assert insertion_columns(kit, levels, windows) == (0, 2)
    assert stops_in_level_1(kit, levels, windows, 0)
    assert not stops_in_level_1(kit, levels, windows, 2)
    assert not stops_in_level_1(kit, levels, windows, 1)  # no window there

    stopped = insert(kit, levels, windows, 0, 1, 2)
    assert stopped.stopped_in_level_1
    assert (stopped.exits, stopped.falls) == ((), ())
    assert picture(kit, stopped.windows)[0] == ".b.o."
    assert insertion_columns(kit, levels, stopped.windows) == (2,)

    through = insert(kit, levels, windows, 2, 0, 2)
    assert not through.stopped_in_level_1
    assert through.falls == (Fall(0, 1, 2, 2),)
    assert picture(kit, through.windows)[:2] == (".o.o.", "o..r.")
    # A second chip there now rests on the first.
    assert stops_in_level_1(kit, levels, through.windows, 2)
    assert insert(kit, levels, through.windows, 2, 1, 2).stopped_in_level_1


def test_an_insertion_can_fall_all_the_way_into_the_box():
    kit, levels, windows = frame(".o...", ".o...", ".o...", ".o...", ".o...", ".o...")
    result = insert(kit, levels, windows, 0, 1, 3)
    assert not result.stopped_in_level_1
    assert result.exits == (Exit(1, "box", 0, None, 2, 4, 1, 6),)
    assert result.windows == empty_windows(kit)


def test_impossible_actions_are_refused():
    kit, levels, windows = frame(".o.o.", "o..o.", "o....", ".o...", ".o...", ".o...")
    with pytest.raises(ValueError, match="no empty window of level 1 at frame column 1"):
        insert(kit, levels, windows, 1, 0, 2)
    with pytest.raises(ValueError, match="owner"):
        insert(kit, levels, windows, 0, 2, 2)
    moved = slide(kit, levels, windows, 3, +1, 2).levels
    assert moved == (0, 0, 0, 1, 0, 0)
    assert not can_slide(kit, moved, 3, +1) and can_slide(kit, moved, 3, -1)
    with pytest.raises(ValueError, match="level 4 cannot move right: a ridged end"):
        slide(kit, moved, windows, 3, +1, 2)
    with pytest.raises(ValueError, match="direction"):
        slide(kit, levels, windows, 0, 2, 2)
    with pytest.raises(ValueError, match="box_position"):
        settle(kit, levels, windows, 4)
    solid = ((0, None, None, None, None), *windows[1:])
    with pytest.raises(ValueError, match="level 1, cell 0: a chip in a solid cell"):
        settle(kit, levels, solid, 2)
    with pytest.raises(ValueError, match="beyond its travel"):
        settle(kit, (2, 0, 0, 0, 0, 0), windows, 2)
