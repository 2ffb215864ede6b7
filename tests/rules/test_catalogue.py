"""The rule catalogue: every id an engine can raise is catalogued, and every citation
(the German sentence, the heading, the NOTES.md number) really stands where it says."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from citations import heading_problem, normalise, notes_problem, sections

from rules import GAMES
from rules.catalogue import UnknownRule, catalogue, explain

RULES_PACKAGE = Path(__file__).resolve().parents[2] / "rules"


def ids_in_source() -> dict[str, set[str]]:
    """Rule ids written as string literals in the engines' source, by game."""
    found: dict[str, set[str]] = {name: set() for name in GAMES}
    pattern = re.compile(r"""["']({})\.([a-z][a-z0-9-]*)["']""".format("|".join(GAMES)))
    for path in RULES_PACKAGE.rglob("*.py"):
        for game, rule in pattern.findall(path.read_text(encoding="utf-8")):
            found[game].add(f"{game}.{rule}")
    return found


def test_every_id_written_in_an_engine_is_catalogued():
    known = catalogue()
    for game, ids in ids_in_source().items():
        assert ids, f"no rule ids found in the source of {game}"
        missing = sorted(ids - set(known))
        assert not missing, f"{game}: rule ids raised but not catalogued: {missing}"


def test_every_catalogued_id_is_used_by_its_engine():
    used = set().union(*ids_in_source().values())
    unused = sorted(set(catalogue()) - used)
    assert not unused, f"catalogued but never raised or used as an outcome: {unused}"


def test_every_id_belongs_to_a_registered_game():
    for rule_id in catalogue():
        game, _, name = rule_id.partition(".")
        assert game in GAMES and re.fullmatch(r"[a-z][a-z0-9-]*", name), rule_id


@pytest.mark.parametrize("rule_id", sorted(catalogue()))
def test_citation_stands_in_the_rulebook(rule_id, rulebooks):
    entry = catalogue()[rule_id]
    problem = heading_problem(rulebooks, entry.rulebook, entry.heading)
    assert problem is None, f"{rule_id}: {problem}"
    text = (rulebooks / entry.rulebook).read_text(encoding="utf-8")
    known = {normalise(e.heading) for e in catalogue().values() if e.rulebook == entry.rulebook}
    under = sections(text, entry.heading, known)
    assert any(normalise(entry.german) in section for section in under), (
        f"{rule_id}: the sentence does not stand under the heading {entry.heading!r}"
    )


@pytest.mark.parametrize("rule_id", sorted(catalogue()))
def test_citation_stands_in_the_notes(rule_id, rulebooks):
    problem = notes_problem(rulebooks, catalogue()[rule_id].notes)
    assert problem is None, f"{rule_id}: {problem}"


def test_explain_names_an_unknown_id():
    with pytest.raises(UnknownRule, match=r"gimmel\.no-such-rule"):
        explain("gimmel.no-such-rule")
    assert explain("gimmel.falcon-move").heading == "3.2 Bewegen eines Steines"


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_rule_id_is_triggered_by_a_scenario_test(game):
    """Each id the game raises or ends with is named in its scenario tests
    (``test_<game>.py`` and ``test_<game>_*.py``), whose ``refused`` helper checks the
    message along with the id."""
    here = Path(__file__).parent
    files = [here / f"test_{game}.py", *sorted(here.glob(f"test_{game}_*.py"))]
    scenarios = "".join(f.read_text(encoding="utf-8") for f in files if f.is_file())
    missing = sorted(
        rule_id
        for rule_id in catalogue()
        if rule_id.startswith(f"{game}.") and f'"{rule_id}"' not in scenarios
    )
    assert not missing, f"no scenario test triggers {missing}"
