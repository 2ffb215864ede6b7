"""Uräus (PHARAO, H. A. Renz): a snake race over 63 fields with a die."""

from rules.uraeus.engine import URAEUS, Uraeus
from rules.uraeus.kit import UraeusKit
from rules.uraeus.model import HEAD, TAIL, Advance, Pass, Pending, Return, Roll, Stone, UraeusState

__all__ = [
    "HEAD",
    "TAIL",
    "URAEUS",
    "Advance",
    "Pass",
    "Pending",
    "Return",
    "Roll",
    "Stone",
    "Uraeus",
    "UraeusKit",
    "UraeusState",
]
