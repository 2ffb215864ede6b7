"""Setting a game up: the registry, kits, options and players, and their errors."""

from __future__ import annotations

import pytest

from rules import (
    GAMES,
    KitError,
    OptionError,
    UnknownGame,
    get_game,
    new_game,
)
from rules.kits import default_kit_path, load_kit

GIMMEL = get_game("gimmel")
GOOD = {
    "kit": 1,
    "game": "gimmel",
    "name": "mine",
    "description": "my board",
    "board": {"columns": 10, "rows": 12},
}


def test_registry_names_every_game_and_refuses_unknown_ones():
    assert "gimmel" in GAMES
    with pytest.raises(UnknownGame, match="unknown game 'chess'; known games: gimmel"):
        get_game("chess")


def test_default_kit_is_shipped_documented_and_valid():
    path = default_kit_path("gimmel")
    assert path.is_file()
    assert "NOTES.md" in path.read_text(encoding="utf-8")  # it says where 8 x 18 comes from
    kit = load_kit("gimmel")
    assert (kit.columns, kit.rows) == (8, 18)


def test_a_users_kit_file_replaces_the_default(tmp_path):
    path = tmp_path / "my-gimmel.toml"
    path.write_text(
        'kit = 1\ngame = "gimmel"\nname = "mine"\n[board]\ncolumns = 10\nrows = 12\n',
        encoding="utf-8",
    )
    state = new_game("gimmel", kit=load_kit("gimmel", path))
    assert len(state.board) == 120
    assert GIMMEL.kit_from_json(GOOD).columns == 10


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        (
            {"board": {"columns": 0, "rows": 18}},
            "field 'board.columns': expected a whole number from 1 to 26",
        ),
        ({"board": {"columns": 27, "rows": 18}}, "board.columns"),
        ({"board": {"columns": 8, "rows": -1}}, "field 'board.rows'"),
        (
            {"board": {"columns": 8.5, "rows": 18}},
            "board.columns': expected a whole number (got 8.5)",
        ),
        ({"board": {"columns": 1, "rows": 1}}, "a board needs at least 2 squares"),
        ({"board": {"columns": 8, "rows": 18, "holes": 3}}, "board.holes"),
        ({"board": None}, "field 'board'"),
        ({"kit": 2}, "field 'kit': expected kit format version 1"),
        ({"game": "nil"}, "field 'game'"),
        ({"name": ""}, "field 'name'"),
        ({"colour": "red"}, "field 'colour': unknown field"),
    ],
)
def test_impossible_kits_name_the_field(change, fragment):
    with pytest.raises(KitError) as error:
        GIMMEL.kit_from_json({**GOOD, **change})
    assert fragment in str(error.value)


def test_unreadable_kit_files_say_which_file(tmp_path):
    broken = tmp_path / "broken.toml"
    broken.write_text("kit = = 1", encoding="utf-8")
    with pytest.raises(KitError, match=r"broken\.toml is not a readable kit file"):
        load_kit("gimmel", broken)
    with pytest.raises(KitError, match=r"cannot read .*missing\.toml"):
        load_kit("gimmel", tmp_path / "missing.toml")


def test_options_are_checked():
    with pytest.raises(OptionError, match="unknown option 'speed'; its options are: draw, variant"):
        new_game("gimmel", options={"speed": 2})
    with pytest.raises(
        OptionError, match='option \'draw\' must be one of "automatic", "claim", got "sometimes"'
    ):
        new_game("gimmel", options={"draw": "sometimes"})
    with pytest.raises(OptionError, match=r"option 'variant'.*got 1"):
        new_game("gimmel", options={"variant": 1})
    # Values are quoted as JSON, as a user writes them: a string "True" is not true.
    with pytest.raises(OptionError, match=r'must be one of false, true, got "True"'):
        new_game("gimmel", options={"variant": "True"})
    assert dict(new_game("gimmel").options) == {"draw": "automatic", "variant": False}


@pytest.mark.parametrize("players", [1, 3, 0, "2", True])
def test_gimmel_takes_two_players(players):
    with pytest.raises(OptionError, match="gimmel"):
        new_game("gimmel", players=players)
