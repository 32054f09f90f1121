"""The board in board notation, and the game's coordinates.

Notation (DESIGN.md, "The classic crossword game"): 15 rows separated by ``/``, numbers for runs
of empty cells; an upper-case letter is a tile, a lower-case letter a blank standing for that
letter. The empty board is ``15/15/15/15/15/15/15/15/15/15/15/15/15/15/15``.

Coordinates (GCG, the format of Quackle and cross-tables): rows 1-15 top to bottom, columns A-O
left to right; a move across is written row first (``8D``), a move down column first (``H8``).
"""

from __future__ import annotations

import re

from companion.errors import CompanionError
from companion.games.iago.board import (
    NOTATION_HELP,
    BoardNotationError,
    format_rows,
    parse_rows,
)
from companion.games.scrabble.tiles import SIZE

EMPTY_BOARD = "/".join([str(SIZE)] * SIZE)
COLUMNS = "ABCDEFGHIJKLMNO"
ACROSS, DOWN = "across", "down"
SCRABBLE_HELP = (
    "accepted: 15 rows from top to bottom separated by '/' (or one row a line), each row made of "
    "upper-case letters (tiles), lower-case letters (blanks standing for that letter), and "
    "either numbers 1 or more (that many empty cells) or '.' (one empty cell), never both in one "
    f"row; e.g. the empty board {EMPTY_BOARD}"
)


class ScrabbleError(CompanionError, ValueError):
    """Bad input to the crossword game's rules (a board, a position, a rack, a record); the
    message names it, what is wrong and what is accepted."""


class ScrabbleNotationError(ScrabbleError):
    """A board written wrongly: names the board, each bad row and column, and the notation."""


Rows = tuple[str, ...]
"""A board: 15 strings of 15 characters, top row first; ``.`` an empty cell, else a tile."""


def parse_board(text: str, name: str = "board") -> Rows:
    """Read a 15x15 board in board notation (or lines of ``.`` and letters).

    Raises:
        ScrabbleNotationError: ``name``, every bad row and column, and the accepted notation.
    """
    try:
        rows = parse_rows(text, SIZE)
    except BoardNotationError as exc:
        message = str(exc).replace(NOTATION_HELP, SCRABBLE_HELP)
        raise ScrabbleNotationError(f"{name}: {message}") from None
    return tuple(rows)


def format_board(rows: Rows) -> str:
    """The board in board notation, runs of empty cells merged into numbers."""
    return format_rows(rows)


def empty_board() -> Rows:
    """The empty 15x15 board."""
    return tuple("." * SIZE for _ in range(SIZE))


def position(row: int, col: int, direction: str) -> str:
    """The GCG coordinate of a word starting at (``row``, ``col``) 0-based: ``8D`` across (row
    first), ``H8`` down (column first)."""
    if direction == ACROSS:
        return f"{row + 1}{COLUMNS[col]}"
    return f"{COLUMNS[col]}{row + 1}"


_ACROSS = re.compile(r"^(1[0-5]|[1-9])([A-Oa-o])$")
_DOWN = re.compile(r"^([A-Oa-o])(1[0-5]|[1-9])$")


def parse_position(text: str) -> tuple[int, int, str]:
    """``(row, col, direction)`` 0-based of a GCG coordinate: ``8D`` is row 8 column D across,
    ``H8`` column H row 8 down (either case).

    Raises:
        ScrabbleError: not a coordinate; names it and the accepted forms.
    """
    m = _ACROSS.match(text)
    if m:
        return int(m.group(1)) - 1, COLUMNS.index(m.group(2).upper()), ACROSS
    m = _DOWN.match(text)
    if m:
        return int(m.group(2)) - 1, COLUMNS.index(m.group(1).upper()), DOWN
    raise ScrabbleError(
        f"position {text!r} is not a coordinate; accepted: row 1-15 then column A-O for a word "
        "across (8D), column then row for a word down (H8)"
    )


def cell_name(row: int, col: int) -> str:
    """A square's name: ``H8`` for the centre (column letter, row number)."""
    return f"{COLUMNS[col]}{row + 1}"
