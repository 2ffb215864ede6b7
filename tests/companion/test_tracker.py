"""The tracker: a claim is explained by the rules as one move, a question, a flag held,
a take-back, or the table put right; every decision is journalled (DESIGN.md, "From
observation to move")."""

from __future__ import annotations

import pytest

from companion.claims import die_claim
from companion.journal import Journal
from companion.tables import Table, TableConfig
from companion.tracker import UNEXPLAINED, Claim
from hardware.messages import DieInvalid, DieRolled
from rules import IllegalMove, get_game
from rules.gimmel import DrawLots, Leap, Place
from rules.gimmel.model import Kind
from rules.grid import Square
from rules.uraeus import Advance, Roll


@pytest.fixture
def journal(tmp_path):
    journal = Journal(tmp_path / "journal.sqlite")
    yield journal
    journal.close()


def uraeus_table(journal) -> Table:
    return Table(TableConfig("u", "uraeus", ("Ada", "Ben"), "1"), journal)


def gimmel_table(journal) -> Table:
    table = Table(TableConfig("g", "gimmel", ("Dee", "Eve"), "1"), journal)
    table.claim(Claim("tablet", moves=(DrawLots(white=0),)))
    return table


def showing(target):
    """A camera's claim that the board shows what ``target`` shows."""
    return Claim(
        "camera",
        seen={"board": "as in the test"},
        matches=lambda state: state.board == target.board and state.reserve == target.reserve,
    )


def kinds(table: Table) -> list[str]:
    return [entry.kind for entry in table.journal.entries(table.game_id)]


def roll(table: Table, face: int, seq: int = 1):
    return table.claim(lambda state: die_claim(state, DieRolled(seq=seq, face=face, rolls=seq)))


def test_a_roll_of_the_die_is_the_games_roll_and_a_forced_move_follows(journal):
    table = uraeus_table(journal)
    roll(table, 5)
    roll(table, 2)  # the roll-off: seat 0 begins
    assert table.game.to_act(table.state) == get_game("uraeus").to_act(table.state)
    verdict = roll(table, 1)
    assert verdict.kind == "move" and verdict.move == Roll(1)
    # A 1 from the border allows one move only: the table makes it, as the player must.
    assert table.game.move_from_json(table.journal.moves(table.game_id)[-1]) == Advance(0, None)
    assert table.state.border[0] == table.state.kit.per_player - 1
    # What the die saw is journalled with the source, before the move it explains.
    inputs = [e.data for e in journal.entries(table.game_id) if e.kind == "input"]
    assert inputs[-1] == {"source": "die", "seen": {"face": 1}}


def test_a_roll_nobody_waits_for_and_a_crooked_roll_are_said_not_played(journal):
    table = uraeus_table(journal)
    for face in (5, 2, 3):
        roll(table, face)
    moves_before = table.journal.moves(table.game_id)
    verdict = roll(table, 6)  # seat 0 must move first
    assert verdict.kind == "say" and "no roll is due" in table.attention["words"]
    crooked = table.claim(lambda state: die_claim(state, DieInvalid(seq=9, why="crooked", bad=1)))
    assert crooked.kind == "say" and "roll again" in table.attention["words"]
    assert table.journal.moves(table.game_id) == moves_before


def test_several_moves_fit_a_claim_so_the_table_is_asked(journal):
    table = uraeus_table(journal)
    for face in (5, 2, 3):
        roll(table, face)
    # Both readings of what a player did are legal: the tablet must say which.
    both = (Advance(0, None), Advance(0, None, turn=3))
    verdict = table.claim(Claim("tablet", moves=both))
    assert verdict.kind == "question" and table.attention["kind"] == "question"
    assert [c["move"] for c in table.attention["choices"]] == [
        table.game.move_to_json(m) for m in both
    ]
    assert all(c["words"] for c in table.attention["choices"])
    table.play(table.attention["choices"][1]["move"])
    assert table.journal.moves(table.game_id)[-1] == table.game.move_to_json(both[1])
    assert table.attention is None
    assert table.state.border[0] == table.state.kit.per_player - 1


def test_an_illegal_move_is_flagged_held_and_dismissed(journal):
    table = gimmel_table(journal)
    state = table.state
    with pytest.raises(IllegalMove) as raised:
        table.play({"type": "place", "player": 1, "piece": "beetle", "to": "a1"})
    assert raised.value.rule == table.game.turn_rule
    flag = table.attention
    assert flag["kind"] == "flag" and flag["rule"] == table.game.turn_rule
    assert flag["words"] and flag["german"] and flag["heading"]  # English, German, source
    assert table.state == state  # the last legal state is held
    entry = journal.entries(table.game_id)[-1]
    assert entry.kind == "flag" and entry.data["rule"] == table.game.turn_rule
    table.dismiss()
    assert table.attention is None
    assert journal.entries(table.game_id)[-1].kind == "override"
    with pytest.raises(ValueError, match="nothing to dismiss"):
        table.dismiss()


def test_a_position_is_explained_as_the_one_move_that_makes_it(journal):
    table = gimmel_table(journal)
    place = Place(0, Kind.BEETLE, Square.parse("c3"))
    target = table.game.play(table.state, place)
    verdict = table.claim(showing(target))
    assert verdict.kind == "move" and verdict.move == place
    assert table.state == target
    assert table.claim(showing(target)).kind == "unchanged"


def test_a_position_put_back_before_the_turn_ends_is_a_take_back(journal):
    table = gimmel_table(journal)
    start = table.state
    place = Place(0, Kind.BEETLE, Square.parse("c3"))
    table.claim(showing(table.game.play(start, place)))
    verdict = table.claim(showing(start))
    assert verdict.kind == "take-back" and table.state == start
    undo = journal.entries(table.game_id)[-1]
    assert undo.kind == "undo" and undo.data == {"take_back": True, "source": "camera"}
    assert journal.replay(table.game_id) == start  # the record agrees after a restart


def test_after_the_turn_ends_the_old_position_is_no_take_back(journal):
    table = gimmel_table(journal)
    start = table.state
    table.claim(showing(table.game.play(start, Place(0, Kind.BEETLE, Square.parse("c3")))))
    table.end_turn()
    verdict = table.claim(showing(start))
    assert verdict.kind == "flag" and table.attention["rule"] == UNEXPLAINED
    # The next player's action ends the turn too.
    table.dismiss()
    after_white = table.state
    table.claim(showing(table.game.play(after_white, Place(1, Kind.CAT, Square.parse("f9")))))
    assert table.claim(showing(after_white)).kind == "take-back"  # Black's own move: yes
    assert table.claim(showing(start)).kind == "flag"  # White's, before Black moved: no


def test_a_flag_clears_when_the_table_is_put_right(journal):
    table = gimmel_table(journal)
    state = table.state
    nowhere = table.game.play(state, Place(0, Kind.BEETLE, Square.parse("c3")))
    nowhere = table.game.play(nowhere, Place(1, Kind.BEETLE, Square.parse("d4")))
    assert table.claim(showing(nowhere)).kind == "flag"  # two pieces at once: no one move
    assert table.state == state
    assert table.claim(showing(state)).kind == "unchanged" and table.attention is None
    assert journal.entries(table.game_id)[-1].data == {"source": "camera", "event": "put right"}


def test_the_board_seen_as_it_is_leaves_a_flag_another_source_raised(journal):
    table = gimmel_table(journal)
    with pytest.raises(IllegalMove):  # tapped on the tablet: Black does not begin
        table.play({"type": "place", "player": 1, "piece": "beetle", "to": "a1"})
    seq = table.seq
    assert table.claim(showing(table.state)).kind == "unchanged"
    assert table.attention["kind"] == "flag" and table.attention["source"] == "tablet"
    assert table.seq == seq  # nothing put right, nothing recorded


def test_a_leap_from_taps_that_breaks_a_rule_names_it(journal):
    table = gimmel_table(journal)
    table.play(table.game.move_to_json(Place(0, Kind.BEETLE, Square.parse("c3"))))
    table.play(table.game.move_to_json(Place(1, Kind.BEETLE, Square.parse("h9"))))
    with pytest.raises(IllegalMove) as raised:
        table.play(table.game.move_to_json(Leap(0, Square.parse("c3"), Square.parse("c9"))))
    assert raised.value.rule.startswith("gimmel.")
    assert table.attention["rule"] == raised.value.rule


def same_after_restart(table: Table) -> Table:
    """A table rebuilt from its journal (as after a power cut) knows what the live one
    knew: the state, the flag or question held, and the turn still open."""
    again = Table(table.config, table.journal)
    assert again.summary() == table.summary()
    assert again.state == table.state
    assert (again.turn, again.turn_seat) == (table.turn, table.turn_seat)
    return again


def test_a_restart_keeps_the_flag_the_question_and_the_open_turn(journal):
    table = gimmel_table(journal)
    start = table.state
    table = same_after_restart(table)
    table.claim(showing(table.game.play(start, Place(0, Kind.BEETLE, Square.parse("c3")))))
    table = same_after_restart(table)
    assert table.claim(showing(start)).kind == "take-back"  # the turn survived the restart
    table = same_after_restart(table)
    with pytest.raises(IllegalMove):
        table.play({"type": "place", "player": 1, "piece": "beetle", "to": "a1"})
    table = same_after_restart(table)
    assert table.attention["kind"] == "flag"
    table.dismiss()
    table.play(table.game.move_to_json(Place(0, Kind.CAT, Square.parse("d4"))))
    table.end_turn()
    table = same_after_restart(table)
    assert table.turn == []
    table.undo()
    same_after_restart(table)

    uraeus = uraeus_table(journal)
    for face in (5, 2, 3):
        roll(uraeus, face)
    uraeus.claim(Claim("tablet", moves=(Advance(0, None), Advance(0, None, turn=3))))
    uraeus = same_after_restart(uraeus)
    assert uraeus.attention["kind"] == "question"
    roll(uraeus, 6)  # no roll is due: said
    uraeus = same_after_restart(uraeus)
    assert uraeus.attention["kind"] == "say"


def near(target, misread=(), doubt=0.3):
    """A camera's claim that the board shows ``target``, but for ``misread`` squares it
    read wrongly with confidence ``doubt`` each."""
    wrong = set(misread)

    def mismatch(state):
        differing = sum(1 for a, b in zip(state.board, target.board, strict=True) if a != b)
        return differing + doubt * len(wrong)

    return Claim("camera", seen={"board": "near"}, matches=lambda state: False,
                 mismatch=mismatch)  # fmt: skip


def test_a_doubtful_misread_does_not_block_the_move_the_rules_allow(journal):
    """DESIGN.md, "From observation to move": never let one misread block the game; of
    what the rules allow, the explanation that disagrees least, by a clear margin."""
    table = gimmel_table(journal)
    place = Place(0, Kind.FALCON, Square.parse("e5"))
    target = table.game.play(table.state, place)
    verdict = table.claim(near(target, misread=["h18"]))
    assert verdict.kind == "move" and verdict.move == place
    # Many sure disagreements are a different board, not a misread: flagged.
    other = table.game.play(table.state, Place(1, Kind.CAT, Square.parse("a1")))
    other = table.game.play(other, Place(0, Kind.BEETLE, Square.parse("b2")))
    assert table.claim(near(other, misread=["c3", "d4", "e6", "f7"], doubt=1.0)).kind == "flag"


def test_a_move_that_fits_with_a_near_rival_is_asked_not_guessed(journal):
    """DESIGN.md, "From observation to move": several explanations, ask. A falcon set down
    on e5 whose kind the camera reads with little confidence (0.3 more against a cat):
    the move that fits is not taken while another comes that near; the tablet asks."""
    table = gimmel_table(journal)
    falcon = Place(0, Kind.FALCON, Square.parse("e5"))
    cat = Place(0, Kind.CAT, Square.parse("e5"))
    shown = table.game.play(table.state, falcon).board
    as_cat = table.game.play(table.state, cat).board

    def mismatch(state):
        if state.board == as_cat:
            return 0.3
        return float(sum(1 for a, b in zip(state.board, shown, strict=True) if a != b))

    claim = Claim("camera", seen={"e5": "white falcon"}, matches=lambda s: s.board == shown,
                  mismatch=mismatch)  # fmt: skip
    verdict = table.claim(claim)
    assert verdict.kind == "question" and set(verdict.choices) == {falcon, cat}
    assert table.journal.moves(table.game_id)[-1]["type"] == "lot"  # nothing played
    # Read surely (the cat a whole square further), the move that fits is taken.
    sure = Claim("camera", seen={"e5": "white falcon"}, matches=lambda s: s.board == shown,
                 mismatch=lambda s: 0.0 if s.board == shown else 1.0)  # fmt: skip
    table.dismiss()
    assert table.claim(sure).kind == "move"
    assert table.journal.moves(table.game_id)[-1]["piece"] == "falcon"
