"""The rule catalogue: for every rule id, the rule in words and where it comes from.

The tablet shows these words when it flags a change; the tests check that every id an
engine can raise is here, and that every German sentence and heading really stands in
the rulebook cited.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

FIELDS = ("rule", "german", "rulebook", "heading", "notes", "reading")
READINGS = ("text", "inference")


@dataclass(frozen=True)
class RuleEntry:
    id: str
    rule: str  # the rule in English
    german: str  # the rulebook sentence it comes from
    rulebook: str  # file in rulebooks/
    heading: str  # section heading in that file
    notes: str  # where NOTES.md states or reads it
    reading: str  # "text" or "inference"


class UnknownRule(KeyError):
    """A rule id that the catalogue lacks."""


@lru_cache(maxsize=1)
def catalogue() -> dict[str, RuleEntry]:
    """Every catalogued rule, by id, from the ``*.toml`` files beside this module."""
    entries: dict[str, RuleEntry] = {}
    for resource in sorted(resources.files(__name__).iterdir(), key=lambda r: r.name):
        if not resource.name.endswith(".toml"):
            continue
        data = tomllib.loads(resource.read_text(encoding="utf-8"))
        for rule_id, fields in data.get("rules", {}).items():
            missing = [f for f in FIELDS if not isinstance(fields.get(f), str) or not fields[f]]
            if missing or fields["reading"] not in READINGS:
                raise ValueError(f"{resource.name}: rule {rule_id!r} lacks {missing or 'reading'}")
            if rule_id in entries:
                raise ValueError(f"{resource.name}: rule {rule_id!r} is catalogued twice")
            entries[rule_id] = RuleEntry(id=rule_id, **{f: fields[f] for f in FIELDS})
    return entries


def explain(rule_id: str) -> RuleEntry:
    try:
        return catalogue()[rule_id]
    except KeyError:
        raise UnknownRule(rule_id) from None
