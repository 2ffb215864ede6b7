"""Gimmel (Hexagames 1983): black and white beetles, cat goddesses and falcons on a grid."""

from rules.gimmel.engine import GIMMEL, Gimmel
from rules.gimmel.kit import GimmelKit
from rules.gimmel.model import (
    KINDS,
    OFFSETS,
    VALUE,
    ClaimDraw,
    DrawLots,
    GimmelState,
    Kind,
    Leap,
    Pass,
    Piece,
    Place,
)

__all__ = [
    "GIMMEL",
    "KINDS",
    "OFFSETS",
    "VALUE",
    "ClaimDraw",
    "DrawLots",
    "Gimmel",
    "GimmelKit",
    "GimmelState",
    "Kind",
    "Leap",
    "Pass",
    "Piece",
    "Place",
]
