"""Board notation (DESIGN.md, "Board notation") for what the reader sees.

A grid is a list of rows, top row first; each row a string with one character a cell: ``.`` empty,
an upper-case letter a tile showing its blue side (or any tile of a dark-ink game such as Scrabble),
a lower-case letter a tile showing its red side, and ``?`` a blank tile (a tile with no letter, as
Scrabble's blanks are seen). In notation, rows are joined by ``/`` and runs of empty cells become
numbers (``11`` is eleven empty cells); the same grid written as lines of ``.`` and letters is
accepted too.

The notation's rules live in :mod:`companion.games.iago.board` (:func:`~companion.games.iago.board.
parse_rows`, :func:`~companion.games.iago.board.format_rows`); these are the reader's names for
them, with ``?`` for a blank and :class:`VisionError` for a bad board.
"""

from __future__ import annotations

from companion.games.iago.board import BoardNotationError, format_rows, parse_rows
from companion.vision.errors import VisionError

BLANK = "?"
"""A blank tile in a grid row."""


def format_board(grid: list[str]) -> str:
    """Board notation of ``grid`` (rows of ``.``, letters and ``?``), empty runs merged."""
    return format_rows(grid)


def parse_board(text: str, size: int | None = None) -> list[str]:
    """The grid written in ``text``: board notation (rows joined by ``/``) or lines of ``.`` and
    letters. ``?`` is accepted for a blank tile.

    Args:
        text: the notation or the lines.
        size: the expected number of rows and cells a row; None accepts any square grid (1x1 to
            50x50).

    Returns:
        The rows, top first, each a string of ``.``, letters and ``?``.

    Raises:
        VisionError: naming the row and column of the first bad character or the row of wrong
            length (``row 2 column 3``, ``row 2 has 4 cells: expected 3``), then every bad row
            and what is accepted.
    """
    try:
        return parse_rows(text, size, blank=BLANK)
    except BoardNotationError as err:
        where = f" {err.problems[0]}" if err.problems else ""
        raise VisionError(f"board notation{where}: {err}") from err
