"""The English set: letter values, tile counts and the board's premium squares.

Source: the standard rules of the game (the publisher's rules, which WESPA's Game Rules 1.1 and
NASPA's Official Tournament Rules take as the base): 100 tiles, two of them blank; "the blank
tiles have no point value"; the 15x15 board with 8 triple-word, 17 double-word (the centre star
included), 12 triple-letter and 24 double-letter squares.
"""

from __future__ import annotations

SIZE = 15
"""The board is 15x15."""
CENTRE = (7, 7)
"""The centre star (0-based row, column): H8 in the game's coordinates."""
RACK_SIZE = 7
"""Tiles on a rack; a move that plays all seven earns the bingo bonus."""
BINGO_BONUS = 50
"""Points for playing all seven tiles of the rack in one move ("a premium of 50 points")."""
BLANK = "?"
"""A blank on a rack (GCG and CGP write it so); on the board it is the lower-case letter it stands
for."""

LETTER_VALUES: dict[str, int] = {
    **dict.fromkeys("AEILNORSTU", 1),
    **dict.fromkeys("DG", 2),
    **dict.fromkeys("BCMP", 3),
    **dict.fromkeys("FHVWY", 4),
    "K": 5,
    **dict.fromkeys("JX", 8),
    **dict.fromkeys("QZ", 10),
}
"""Points of each letter's tile (a blank, written in lower case on the board, scores 0)."""

TILE_COUNTS: dict[str, int] = {
    "A": 9, "B": 2, "C": 2, "D": 4, "E": 12, "F": 2, "G": 3, "H": 2, "I": 9, "J": 1, "K": 1,
    "L": 4, "M": 2, "N": 6, "O": 8, "P": 2, "Q": 1, "R": 6, "S": 4, "T": 6, "U": 4, "V": 2,
    "W": 2, "X": 1, "Y": 2, "Z": 1, BLANK: 2,
}  # fmt: skip
"""How many tiles of each letter the English set holds (100 in all, two blanks)."""


def _premium() -> dict[tuple[int, int], str]:
    """The premium squares, by (row, column) 0-based: ``TW``, ``DW``, ``TL``, ``DL``. Written for
    one quarter of the board and mirrored (the board is symmetric in both axes)."""
    quarter = {
        "TW": [(0, 0), (0, 7), (7, 0)],
        "DW": [(1, 1), (2, 2), (3, 3), (4, 4), (7, 7)],
        "TL": [(1, 5), (5, 1), (5, 5)],
        "DL": [(0, 3), (2, 6), (3, 0), (3, 7), (6, 2), (6, 6), (7, 3)],
    }
    out: dict[tuple[int, int], str] = {}
    last = SIZE - 1
    for kind, cells in quarter.items():
        for r, c in cells:
            for rr in (r, last - r):
                for cc in (c, last - c):
                    out[(rr, cc)] = kind
    return out


PREMIUM: dict[tuple[int, int], str] = _premium()
"""Premium squares by (row, column), 0-based: ``TW`` triple word, ``DW`` double word (the centre
star is one), ``TL`` triple letter, ``DL`` double letter. A premium counts only in the move that
covers it ("premium squares are used once")."""

LETTER_MULTIPLIER = {"DL": 2, "TL": 3}
WORD_MULTIPLIER = {"DW": 2, "TW": 3}


def tile_value(tile: str) -> int:
    """Points of a tile as written on the board: an upper-case letter its value, a lower-case
    letter (a blank standing for it) or ``?`` 0.

    Raises:
        KeyError: not a letter A-Z/a-z or ``?``.
    """
    if tile == BLANK or tile.islower():
        if tile != BLANK and tile.upper() not in LETTER_VALUES:
            raise KeyError(tile)
        return 0
    return LETTER_VALUES[tile]


def rack_value(rack: str) -> int:
    """The sum of the values of the tiles on ``rack`` (letters, ``?`` a blank): what is taken off
    an unfinished rack at the end of the game.

    Raises:
        ValueError: a character that is not a letter or ``?``.
    """
    total = 0
    for ch in rack:
        if ch == BLANK:
            continue
        if ch.upper() not in LETTER_VALUES or not ch.isascii():
            raise ValueError(f"rack {rack!r}: {ch!r} is not a tile; accepted letters A-Z and ?")
        total += LETTER_VALUES[ch.upper()]
    return total
