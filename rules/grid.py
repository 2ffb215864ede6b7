"""Squares on a rectangular board and their names in the notation.

A square is named by a column letter (``a`` is column 0, on the left as the first player
sees the board) and a row number from 1 (the near edge): ``a1``, ``h18``. Names are
read without knowing the board; whether a square lies on a particular board is a
question for the game (a piece led off the board breaks a rule).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple

from rules.errors import NotationError

LETTERS = "abcdefghijklmnopqrstuvwxyz"
MAX_COLUMNS = len(LETTERS)
MAX_ROWS = 99

_NAME = re.compile(r"([a-z])([1-9][0-9]?)")


class Square(NamedTuple):
    """A square by zero-based column and row; ``str`` gives its name, ``a1``."""

    col: int
    row: int

    def __str__(self) -> str:
        if 0 <= self.col < MAX_COLUMNS and 0 <= self.row < MAX_ROWS:
            return f"{LETTERS[self.col]}{self.row + 1}"
        return f"({self.col},{self.row})"

    @classmethod
    def parse(cls, name: object, where: str = "square") -> Square:
        if not isinstance(name, str):
            raise NotationError(where, "expected a square name such as 'c5'", name)
        match = _NAME.fullmatch(name)
        if match is None:
            raise NotationError(
                where, "expected a square name: a column letter a-z and a row 1-99", name
            )
        return cls(LETTERS.index(match.group(1)), int(match.group(2)) - 1)


class Grid:
    """A board of ``columns`` x ``rows`` squares, numbered row by row from ``a1``."""

    def __init__(self, columns: int, rows: int) -> None:
        self.columns = columns
        self.rows = rows
        self.size = columns * rows
        self.squares = tuple(Square(i % columns, i // columns) for i in range(self.size))

    def contains(self, square: Square) -> bool:
        return 0 <= square.col < self.columns and 0 <= square.row < self.rows

    def index(self, square: Square) -> int:
        return square.row * self.columns + square.col

    def leaps(self, offsets: tuple[tuple[int, int], ...]) -> tuple[tuple[int, ...], ...]:
        """For every square, the indices reached by ``offsets`` that stay on the board."""
        table = []
        for square in self.squares:
            targets = []
            for dc, dr in offsets:
                target = Square(square.col + dc, square.row + dr)
                if self.contains(target):
                    targets.append(self.index(target))
            table.append(tuple(sorted(targets)))
        return tuple(table)


@lru_cache(maxsize=32)
def grid(columns: int, rows: int) -> Grid:
    return Grid(columns, rows)
