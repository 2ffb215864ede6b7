"""Regie: chips dropping through six sliding levels into a sliding scoring box."""

from rules.regie.engine import REGIE, Regie, effective_kit
from rules.regie.kit import Level, RegieKit
from rules.regie.model import (
    Doubt,
    Insert,
    Landed,
    LastMove,
    MoveBox,
    RegieState,
    Seen,
    SeenExit,
    Slide,
    Start,
)

__all__ = [
    "REGIE",
    "Doubt",
    "Insert",
    "Landed",
    "LastMove",
    "Level",
    "MoveBox",
    "Regie",
    "RegieKit",
    "RegieState",
    "Seen",
    "SeenExit",
    "Slide",
    "Start",
    "effective_kit",
]
