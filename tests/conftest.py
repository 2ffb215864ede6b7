from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def rulebooks_dir() -> Path:
    """The shared rulebooks: $COMPANION_SHARED/rulebooks, or ../shared beside the repo."""
    shared = Path(os.environ.get("COMPANION_SHARED", REPO.parent / "shared"))
    return shared / "rulebooks"


@pytest.fixture(scope="session")
def rulebooks() -> Path:
    path = rulebooks_dir()
    if not (path / "NOTES.md").is_file():
        pytest.fail(f"the rulebooks are not at {path}: set COMPANION_SHARED to the shared folder")
    return path


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "cites(rulebook, heading, notes): the rulebook section and NOTES.md rule a test checks",
    )


@pytest.fixture(autouse=True)
def _scenario_tests_cite_their_source(request: pytest.FixtureRequest) -> None:
    """In a module that declares ``SCENARIOS = True``, every test must cite a rulebook
    heading that exists and a NOTES.md rule that exists."""
    if not getattr(request.module, "SCENARIOS", False):
        return
    from citations import heading_problem, notes_problem

    marker = request.node.get_closest_marker("cites")
    if marker is None:
        pytest.fail(f"{request.node.name} cites no rule: add @pytest.mark.cites(...)")
    rulebook, heading, notes = marker.args
    path = request.getfixturevalue("rulebooks")
    problem = heading_problem(path, rulebook, heading) or notes_problem(path, notes)
    if problem:
        pytest.fail(f"{request.node.name}: bad citation: {problem}")
