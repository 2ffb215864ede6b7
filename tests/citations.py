"""Checking citations of the rulebooks and of NOTES.md, for the catalogue and the tests."""

from __future__ import annotations

import re
from pathlib import Path


def normalise(text: str) -> str:
    """Rulebook text without emphasis markers, without a heading's Markdown marks
    (``#### SPIELTAKTIK:``) and with single spaces."""
    return " ".join(re.sub(r"^\s*#+\s+", "", text.replace("**", "")).split())


def heading_problem(rulebooks: Path, rulebook: str, heading: str) -> str | None:
    book = rulebooks / rulebook
    if not book.is_file():
        return f"no rulebook {rulebook}"
    lines = {normalise(line) for line in book.read_text(encoding="utf-8").splitlines()}
    if normalise(heading) not in lines:
        return f"{rulebook} has no heading {heading!r}"
    return None


_NUMBERED = re.compile(r"\d+(\.\d+)*\.? \S.*")


def is_heading(line: str, known: set[str]) -> bool:
    """A heading line: one the catalogue cites, a short numbered one ("3.1 Setzen eines
    Steines", not a numbered rule's paragraph nor a short numbered sentence such as
    "2. Wenn alle Steine gesetzt sind."), or one in capitals."""
    line = normalise(line)
    numbered = _NUMBERED.fullmatch(line) and len(line) <= 40 and not line.endswith(".")
    if line in known or numbered:
        return True
    letters = [c for c in line if c.isalpha()]
    return len(letters) >= 4 and all(c.isupper() for c in letters)


def sections(text: str, heading: str, known: set[str]) -> list[str]:
    """The text under each occurrence of ``heading``, up to the next heading."""
    found: list[str] = []
    current: list[str] | None = None
    for line in text.splitlines():
        if is_heading(line, known | {normalise(heading)}):
            if current is not None:
                found.append(normalise(" ".join(current)))
            current = [] if normalise(line) == normalise(heading) else None
        elif current is not None:
            current.append(line)
    if current is not None:
        found.append(normalise(" ".join(current)))
    return found


def notes_problem(rulebooks: Path, reference: str) -> str | None:
    """``§N rule K`` or ``§N Ambiguities: topic`` must name something NOTES.md holds."""
    notes = (rulebooks / "NOTES.md").read_text(encoding="utf-8")
    parts = re.split(r"^## (\d+)\. ", notes, flags=re.MULTILINE)
    sections = {int(parts[i]): parts[i + 1] for i in range(1, len(parts) - 1, 2)}
    match = re.fullmatch(r"§(\d+) (?:rule (\d+)|Ambiguities: (.+))", reference)
    if match is None:
        return f"{reference!r} is not '§N rule K' or '§N Ambiguities: topic'"
    section = sections.get(int(match.group(1)))
    if section is None:
        return f"NOTES.md has no section {match.group(1)}"
    if match.group(2):
        if not re.search(rf"^{match.group(2)}\. ", section, flags=re.MULTILINE):
            return f"NOTES.md §{match.group(1)} has no rule {match.group(2)}"
    elif match.group(3).lower() not in section[section.find("Ambiguities") :].lower():
        return f"NOTES.md §{match.group(1)} has no ambiguity {match.group(3)!r}"
    return None
